//! Companies: create, list, read, update, delete. The field rules (EMPRESA_001, every problem
//! at once), the RFC unique per account (EMPRESA_002) and the API key's reach (a key narrowed
//! to companies creates none: SCOPE_001; its scopes must grant empresa:create: SCOPE_002).

use rust_decimal::Decimal;
use timbra_cfdi::tipos::{CampoTexto, Rfc, TextoSat};
use timbra_store::empresas::{self, EmpresaRow};
use timbra_store::ids::EmpresaId;
use timbra_store::{Money, ids};

use crate::auth::caller::{Caller, Credential};
use crate::auth::roles::{Permission, Role};
use crate::context::AppContext;
use crate::error::{ApiError, Code, FieldProblem};
use crate::validate;

/// Series used for invoices when none is given.
pub const DEFAULT_SERIE: &str = "A";
/// Series of payment CFDI when none is given.
pub const DEFAULT_SERIE_PAGOS: &str = "P";

/// A company's fields as sent: on create, `rfc`, `razon_social`, `regimen_fiscal` and
/// `codigo_postal` are required; on update, what is `None` stays as it is (the RFC never changes).
#[derive(Debug, Default)]
pub struct Campos {
    /// 12 (moral) or 13 (física) characters.
    pub rfc: Option<String>,
    /// Legal name, as in the Constancia de Situación Fiscal.
    pub razon_social: Option<String>,
    /// c_RegimenFiscal for the RFC's kind of taxpayer.
    pub regimen_fiscal: Option<String>,
    /// LugarExpedicion, 5 digits.
    pub codigo_postal: Option<String>,
    /// Trade name.
    pub nombre_comercial: Option<String>,
    /// Stamp in sandbox (default true on create).
    pub sandbox: Option<bool>,
    /// IMSS employer registration.
    pub registro_patronal: Option<String>,
    /// Invoice series (default "A").
    pub serie_predeterminada: Option<String>,
    /// Payment CFDI series (default "P").
    pub serie_pagos: Option<String>,
    /// Días de aguinaldo, an integer ≥ 15 (LFT Art. 87; default 15).
    pub dias_aguinaldo: Option<serde_json::Value>,
    /// ISR method of extraordinary payments: ART96 (default) or RLISR174.
    pub metodo_isr_extraordinario: Option<String>,
    /// Riesgo de trabajo premium in percent, 0.5 to 15 (LSS Art. 74), a number or a decimal string.
    pub prima_riesgo: Option<serde_json::Value>,
}

/// Default días de aguinaldo (LFT Art. 87).
pub const DEFAULT_DIAS_AGUINALDO: i64 = 15;

fn dias_aguinaldo(problems: &mut Vec<FieldProblem>, value: &serde_json::Value) -> i64 {
    match value.as_i64() {
        Some(dias) if (15..=365).contains(&dias) => dias,
        _ => {
            problems.push(FieldProblem::new(
                "diasAguinaldo",
                format!("diasAguinaldo is a whole number of days from 15 (LFT Art. 87) to 365, not {value}"),
            ));
            DEFAULT_DIAS_AGUINALDO
        }
    }
}

fn metodo_isr(problems: &mut Vec<FieldProblem>, value: &str) -> String {
    let value = value.trim().to_uppercase();
    if value != "ART96" && value != "RLISR174" {
        problems.push(FieldProblem::new(
            "metodoIsrExtraordinario",
            format!("metodoIsrExtraordinario is ART96 or RLISR174, not {value:?}"),
        ));
    }
    value
}

fn prima_riesgo(problems: &mut Vec<FieldProblem>, value: &serde_json::Value) -> Option<Money> {
    if value.is_null() {
        return None;
    }
    let leido = match value {
        serde_json::Value::String(texto) => texto.trim().parse::<Decimal>().ok(),
        serde_json::Value::Number(numero) => numero.to_string().parse::<Decimal>().ok(),
        _ => None,
    };
    match leido {
        Some(prima) if prima >= Decimal::new(5, 1) && prima <= Decimal::from(15) && prima.scale() <= 5 => {
            Some(Money(prima.normalize()))
        }
        _ => {
            problems.push(FieldProblem::new(
                "primaRiesgo",
                format!(
                    "primaRiesgo is the riesgo de trabajo premium in percent, 0.5 to 15 with at most 5 decimals                      (LSS Art. 74; class I for a new company is 0.54355), not {value}"
                ),
            ));
            None
        }
    }
}

fn serie(problems: &mut Vec<FieldProblem>, field: &str, value: Option<&str>, default: &str) -> String {
    let value = value.map(str::trim).unwrap_or(default).to_owned();
    // Anexo 20: Serie is 1 to 25 characters, [^|]{1,25}; we also keep spaces out.
    if TextoSat::new(CampoTexto::SERIE, &value).is_err() || value.chars().any(char::is_whitespace) {
        problems.push(FieldProblem::new(field, "the series has 1 to 25 characters, without spaces or |"));
    }
    value
}

fn nombre_comercial(problems: &mut Vec<FieldProblem>, value: Option<&str>) -> Option<String> {
    let value = value.map(str::trim).filter(|v| !v.is_empty())?;
    if value.chars().count() > 300 {
        problems.push(FieldProblem::new("nombreComercial", "nombreComercial has at most 300 characters"));
    }
    Some(value.to_owned())
}

fn registro_patronal(problems: &mut Vec<FieldProblem>, value: Option<&str>) -> Option<String> {
    let value = value.map(|v| v.trim().to_uppercase()).filter(|v| !v.is_empty())?;
    // Nómina 1.2: RegistroPatronal is 1 to 20 alphanumeric characters.
    if value.len() > 20 || !value.chars().all(|c| c.is_ascii_alphanumeric()) {
        problems.push(FieldProblem::new(
            "registroPatronal",
            "registroPatronal has 1 to 20 letters or digits (IMSS employer registration)",
        ));
    }
    Some(value)
}

/// SCOPE_001 / SCOPE_002 when the caller's API key may not create companies.
fn may_create(caller: &Caller) -> Result<(), ApiError> {
    let Credential::ApiKey { empresa_ids, scopes, .. } = &caller.credential else { return Ok(()) };
    if empresa_ids.is_some() {
        return Err(ApiError::new(
            Code::Scope001,
            "this API key is limited to some companies and cannot create new ones",
        ));
    }
    if let Some(scopes) = scopes
        && !scopes.iter().any(|scope| Permission::EmpresaCreate.granted_by(scope))
    {
        return Err(ApiError::new(
            Code::Scope002,
            "this API key's scopes do not include empresa:create; create a key with that scope to create companies",
        )
        .with_details(serde_json::json!({ "action": "empresa:create", "scopes": scopes })));
    }
    Ok(())
}

fn taken(rfc: &str) -> ApiError {
    ApiError::new(Code::Empresa002, format!("you already have a company with RFC {rfc}"))
}

/// Creates a company; the caller becomes its PROPIETARIO.
pub async fn create(app: &AppContext, caller: &Caller, campos: Campos) -> Result<EmpresaRow, ApiError> {
    may_create(caller)?;
    let mut problems = Vec::new();
    let (rfc, persona) = validate::rfc_field(&mut problems, "rfc", campos.rfc.as_deref());
    let razon_social =
        validate::sat_text(&mut problems, "razonSocial", campos.razon_social.as_deref(), CampoTexto::NOMBRE);
    let regimen = validate::regimen_fiscal(&mut problems, "regimenFiscal", campos.regimen_fiscal.as_deref(), persona);
    let codigo_postal = validate::codigo_postal(&mut problems, "codigoPostal", campos.codigo_postal.as_deref());
    let serie_pagos = serie(&mut problems, "seriePagos", campos.serie_pagos.as_deref(), DEFAULT_SERIE_PAGOS);
    let serie = serie(&mut problems, "seriePredeterminada", campos.serie_predeterminada.as_deref(), DEFAULT_SERIE);
    let registro = registro_patronal(&mut problems, campos.registro_patronal.as_deref());
    let nombre_comercial = nombre_comercial(&mut problems, campos.nombre_comercial.as_deref());
    let dias = campos.dias_aguinaldo.as_ref().map_or(DEFAULT_DIAS_AGUINALDO, |v| dias_aguinaldo(&mut problems, v));
    let metodo =
        campos.metodo_isr_extraordinario.as_deref().map_or("ART96".to_owned(), |v| metodo_isr(&mut problems, v));
    let prima = campos.prima_riesgo.as_ref().and_then(|v| prima_riesgo(&mut problems, v));
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::Empresa001, problems));
    }
    let sandbox = campos.sandbox.unwrap_or(true);
    let id = ids::new_id();
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    if empresas::rfc_tomado(&mut tx, &caller.user_id, &rfc).await? {
        return Err(taken(&rfc));
    }
    let datos = empresas::Datos {
        razon_social: &razon_social,
        regimen_fiscal: &regimen,
        codigo_postal: &codigo_postal,
        nombre_comercial: nombre_comercial.as_deref(),
        registro_patronal: registro.as_deref(),
        sandbox,
        serie_predeterminada: &serie,
        serie_pagos: &serie_pagos,
        dias_aguinaldo: dias,
        metodo_isr_extraordinario: &metodo,
        prima_riesgo: prima,
    };
    match empresas::crear(
        &mut tx,
        &EmpresaId::from(&id),
        &caller.user_id,
        &rfc,
        &datos,
        Role::Propietario.as_str(),
        now,
    )
    .await
    {
        Err(error) if error.is_duplicate() => return Err(taken(&rfc)),
        other => other?,
    };
    tx.commit().await?;
    crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    caller.note_mode(sandbox);
    get(app, caller, &id).await
}

/// The companies the caller (and the key, when narrowed) can reach, with the caller's role.
pub async fn list(app: &AppContext, caller: &Caller) -> Result<Vec<EmpresaRow>, ApiError> {
    let mut conn = app.db.conn().await?;
    let rows = empresas::de_usuario(&mut conn, &caller.user_id).await?;
    let allowed = match &caller.credential {
        Credential::ApiKey { empresa_ids: Some(ids), .. } => Some(ids),
        _ => None,
    };
    Ok(rows.into_iter().filter(|row| allowed.is_none_or(|ids| ids.iter().any(|id| row.id == *id))).collect())
}

/// Company `id` with the caller's role (authorize first).
pub async fn get(app: &AppContext, caller: &Caller, id: &str) -> Result<EmpresaRow, ApiError> {
    let mut conn = app.db.conn().await?;
    empresas::leer(&mut conn, &caller.user_id, &EmpresaId::from(id))
        .await?
        .ok_or_else(|| ApiError::not_found("company"))
}

/// Changes the fields `campos` sends (authorize first: empresa:edit).
pub async fn update(app: &AppContext, caller: &Caller, id: &str, campos: Campos) -> Result<EmpresaRow, ApiError> {
    let current = get(app, caller, id).await?;
    let persona = Rfc::new(&current.rfc).ok().map(|rfc| rfc.persona());
    let mut problems = Vec::new();
    let razon_social = match &campos.razon_social {
        Some(value) => validate::sat_text(&mut problems, "razonSocial", Some(value), CampoTexto::NOMBRE),
        None => current.razon_social,
    };
    let regimen = match &campos.regimen_fiscal {
        Some(value) => validate::regimen_fiscal(&mut problems, "regimenFiscal", Some(value), persona),
        None => current.regimen_fiscal,
    };
    let codigo_postal = match &campos.codigo_postal {
        Some(value) => validate::codigo_postal(&mut problems, "codigoPostal", Some(value)),
        None => current.codigo_postal,
    };
    let serie_pagos = match &campos.serie_pagos {
        Some(value) => serie(&mut problems, "seriePagos", Some(value), DEFAULT_SERIE_PAGOS),
        None => current.serie_pagos,
    };
    let serie = match &campos.serie_predeterminada {
        Some(value) => serie(&mut problems, "seriePredeterminada", Some(value), DEFAULT_SERIE),
        None => current.serie_predeterminada,
    };
    let registro = match &campos.registro_patronal {
        Some(value) => registro_patronal(&mut problems, Some(value)),
        None => current.registro_patronal,
    };
    let nombre_comercial = match campos.nombre_comercial.as_deref() {
        Some(value) => nombre_comercial(&mut problems, Some(value)),
        None => current.nombre_comercial,
    };
    let dias = campos.dias_aguinaldo.as_ref().map_or(current.dias_aguinaldo, |v| dias_aguinaldo(&mut problems, v));
    let metodo = campos
        .metodo_isr_extraordinario
        .as_deref()
        .map_or(current.metodo_isr_extraordinario, |v| metodo_isr(&mut problems, v));
    // Absent (or null) keeps the premium.
    let prima = match &campos.prima_riesgo {
        Some(value) => prima_riesgo(&mut problems, value),
        None => current.prima_riesgo,
    };
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::Empresa001, problems));
    }
    let sandbox = campos.sandbox.unwrap_or(current.sandbox);
    let datos = empresas::Datos {
        razon_social: &razon_social,
        regimen_fiscal: &regimen,
        codigo_postal: &codigo_postal,
        nombre_comercial: nombre_comercial.as_deref(),
        registro_patronal: registro.as_deref(),
        sandbox,
        serie_predeterminada: &serie,
        serie_pagos: &serie_pagos,
        dias_aguinaldo: dias,
        metodo_isr_extraordinario: &metodo,
        prima_riesgo: prima,
    };
    let mut conn = app.db.conn().await?;
    empresas::actualizar(&mut conn, &EmpresaId::from(id), &datos, app.clock.now()).await?;
    drop(conn);
    crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    caller.note_mode(sandbox);
    get(app, caller, id).await
}

/// A company's change as `PATCH /api/empresas/{id}` sends it: its fields and, each when
/// given, the self-invoicing and global invoice settings (issue 31), the e-mail settings and
/// the PDF branding.
#[derive(Debug, Default)]
pub struct Cambio {
    /// The company's own fields.
    pub campos: Campos,
    /// The self-invoicing page's settings (`autofactura`).
    pub autofactura: Option<serde_json::Value>,
    /// The automatic global invoice's settings (`facturaGlobal`).
    pub factura_global: Option<serde_json::Value>,
    /// The e-mail settings.
    pub correo: Option<crate::correo::CambioAjustes>,
    /// The PDF branding.
    pub pdf: Option<crate::marca::CambioPdf>,
}

/// Applies `cambio` to company `id` (authorize first: empresa:edit): every setting is checked
/// before anything is written, and written after the company; gives the company as stored.
pub async fn actualizar(app: &AppContext, caller: &Caller, id: &str, cambio: Cambio) -> Result<EmpresaRow, ApiError> {
    let Cambio { campos, autofactura, factura_global, correo, pdf } = cambio;
    let ajustes = match (&autofactura, &factura_global) {
        (None, None) => None,
        (autofactura, global) => Some(
            crate::cfdi::recibos::leer_ajustes(app, &EmpresaId::from(id), autofactura.as_ref(), global.as_ref())
                .await?,
        ),
    };
    if let Some(cambio) = &correo {
        crate::correo::revisar_ajustes(cambio)?;
    }
    if let Some(cambio) = &pdf {
        crate::marca::revisar_pdf(cambio)?;
    }
    let releer = correo.is_some() || pdf.is_some();
    let mut row = update(app, caller, id, campos).await?;
    if let Some(ajustes) = ajustes {
        crate::cfdi::recibos::guardar_ajustes(app, &ajustes, app.clock.now()).await?;
    }
    if let Some(cambio) = correo {
        crate::correo::guardar_ajustes(app, &EmpresaId::from(id), cambio).await?;
    }
    if let Some(cambio) = pdf {
        crate::marca::guardar_pdf(app, &EmpresaId::from(id), cambio).await?;
    }
    if releer {
        row = get(app, caller, id).await?;
    }
    Ok(row)
}

/// Deletes company `id` (authorize first: PROPIETARIO). Its records are kept for the tax
/// retention period but no route reaches them any more.
pub async fn delete(app: &AppContext, id: &str) -> Result<(), ApiError> {
    let mut conn = app.db.conn().await?;
    empresas::borrar(&mut conn, &EmpresaId::from(id), app.clock.now()).await?;
    drop(conn);
    crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    Ok(())
}
