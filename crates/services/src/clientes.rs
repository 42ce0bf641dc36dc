//! Customers (clientes) of a company: their rules over the shared CRUD of [`crate::scoped`].

use timbra_cfdi::catalogos::{Catalogos, CompatibilidadUso, UsoCfdi, compatibilidad_uso_regimen};
use timbra_cfdi::tipos::CampoTexto;
use timbra_store::clientes::{self, ClienteRow};
use timbra_store::ids::EmpresaId;
use timbra_store::{DbResult, Tx};
use time::OffsetDateTime;

use crate::context::AppContext;
use crate::error::{ApiError, Code, FieldProblem};
use crate::scoped::Resource;
use crate::validate;

/// A customer's fields as sent: all required on create but `uso_cfdi` and `email`; on update
/// what is left out keeps its value.
#[derive(Default)]
pub struct Campos {
    /// RFC, unique in the company (except the generic ones).
    pub rfc: Option<String>,
    /// Legal name.
    pub razon_social: Option<String>,
    /// c_RegimenFiscal.
    pub regimen_fiscal: Option<String>,
    /// DomicilioFiscalReceptor.
    pub codigo_postal: Option<String>,
    /// c_UsoCFDI, default G03.
    pub uso_cfdi: Option<String>,
    /// Where invoices are sent.
    pub email: Option<String>,
    /// A customer abroad (RFC XEXX010101000): its country, c_Pais (ResidenciaFiscal).
    pub residencia_fiscal: Option<String>,
    /// A customer abroad: its tax id in its country (NumRegIdTrib).
    pub num_reg_id_trib: Option<String>,
}

/// A customer's fields, checked.
pub struct Valid {
    rfc: String,
    razon_social: String,
    regimen_fiscal: String,
    codigo_postal: String,
    uso_cfdi: String,
    email: Option<String>,
    residencia_fiscal: Option<String>,
    num_reg_id_trib: Option<String>,
}

impl Valid {
    fn datos(&self) -> clientes::Datos<'_> {
        clientes::Datos {
            rfc: &self.rfc,
            razon_social: &self.razon_social,
            regimen_fiscal: &self.regimen_fiscal,
            codigo_postal: &self.codigo_postal,
            uso_cfdi: &self.uso_cfdi,
            email: self.email.as_deref(),
            residencia_fiscal: self.residencia_fiscal.as_deref(),
            num_reg_id_trib: self.num_reg_id_trib.as_deref(),
        }
    }
}

/// CLIENTE_001 with every field problem; the postal code and the country against SAT's
/// catalogs held (`catalogos`), so a saved customer stamps (issue 29).
pub fn check(campos: Campos, catalogos: &dyn Catalogos) -> Result<Valid, ApiError> {
    let mut problems = Vec::new();
    let (rfc, persona) = validate::rfc_field(&mut problems, "rfc", campos.rfc.as_deref());
    let razon_social =
        validate::sat_text(&mut problems, "razonSocial", campos.razon_social.as_deref(), CampoTexto::NOMBRE);
    let regimen_fiscal =
        validate::regimen_fiscal(&mut problems, "regimenFiscal", campos.regimen_fiscal.as_deref(), persona);
    let codigo_postal = validate::codigo_postal(&mut problems, "codigoPostal", campos.codigo_postal.as_deref());
    // Anexo 20: DomicilioFiscalReceptor is a code of c_CodigoPostal (a stamp checks it too).
    if !problems.iter().any(|p| p.field == "codigoPostal") && catalogos.codigo_postal(&codigo_postal) == Some(false) {
        problems.push(FieldProblem::new(
            "codigoPostal",
            format!(
                "{codigo_postal} is not in SAT's c_CodigoPostal: give the customer's postal code as in its constancia de situación fiscal"
            ),
        ));
    }
    let uso_cfdi = campos.uso_cfdi.map(|u| u.trim().to_uppercase()).unwrap_or_else(|| "G03".into());
    // Anexo 20, c_UsoCFDI: each use lists the receiver régimenes it is valid with.
    match compatibilidad_uso_regimen(&uso_cfdi, &regimen_fiscal) {
        CompatibilidadUso::UsoDesconocido => {
            problems.push(FieldProblem::new("usoCfdi", format!("{uso_cfdi:?} is not a use of SAT's catalog c_UsoCFDI")))
        }
        CompatibilidadUso::Incompatible { sugeridos } => {
            let allowed: Vec<&str> = sugeridos.iter().map(|uso| uso.codigo()).collect();
            problems.push(FieldProblem::new(
                "usoCfdi",
                format!(
                    "uso {uso_cfdi} is not allowed with régimen {regimen_fiscal}; use one of: {}",
                    allowed.join(", ")
                ),
            ));
        }
        // An unknown régimen is already reported on its own field.
        CompatibilidadUso::RegimenDesconocido | CompatibilidadUso::Compatible => {}
    }
    if let Some(uso) = UsoCfdi::desde_codigo(&uso_cfdi) {
        match persona {
            Some(validate::Persona::Moral) if !uso.aplica_moral() => {
                problems.push(FieldProblem::new("usoCfdi", format!("uso {uso_cfdi} applies only to personas físicas")))
            }
            Some(validate::Persona::Fisica) if !uso.aplica_fisica() => {
                problems.push(FieldProblem::new("usoCfdi", format!("uso {uso_cfdi} applies only to personas morales")))
            }
            _ => {}
        }
    }
    let email = campos.email.map(|e| e.trim().to_owned()).filter(|e| !e.is_empty());
    if let Some(email) = &email
        && !validate::valid_email(email)
    {
        problems.push(FieldProblem::new("email", "email is not a valid address"));
    }
    // Anexo 20, Receptor: ResidenciaFiscal and NumRegIdTrib are a receiver abroad's (RFC
    // XEXX010101000), who gives both; stamping puts them on the comprobante's Receptor.
    let residencia_fiscal = campos.residencia_fiscal.map(|r| r.trim().to_uppercase()).filter(|r| !r.is_empty());
    if let Some(pais) = &residencia_fiscal
        && (pais.len() != 3 || !pais.bytes().all(|b| b.is_ascii_uppercase()) || pais == "MEX")
    {
        problems.push(FieldProblem::new(
            "residenciaFiscal",
            format!("{pais:?} is not the c_Pais code of a country other than Mexico (USA, CAN, DEU, ...)"),
        ));
    } else if let Some(pais) = &residencia_fiscal
        && catalogos.en_catalogo("cfdi40/c_Pais", pais) == Some(false)
    {
        problems.push(FieldProblem::new(
            "residenciaFiscal",
            format!("{pais:?} is not in SAT's c_Pais (see GET /api/catalogos/paises)"),
        ));
    }
    let num_reg_id_trib = validate::optional_sat_text(
        &mut problems,
        "numRegIdTrib",
        campos.num_reg_id_trib.as_deref().map(str::trim).filter(|n| !n.is_empty()),
        CampoTexto::NUM_REG_ID_TRIB,
    );
    // Both or neither, and only for the foreign RFC; whether an invoice needs them is the
    // stamp's rule (Comercio Exterior: CCE20_RECEPTOR_EXTRANJERO).
    if residencia_fiscal.is_some() || num_reg_id_trib.is_some() {
        if rfc != timbra_cfdi::tipos::RFC_EXTRANJERO {
            let field = if residencia_fiscal.is_some() { "residenciaFiscal" } else { "numRegIdTrib" };
            problems.push(FieldProblem::new(
                field,
                "residenciaFiscal and numRegIdTrib are for a customer abroad: its RFC is XEXX010101000",
            ));
        } else if residencia_fiscal.is_none() || num_reg_id_trib.is_none() {
            let field = if residencia_fiscal.is_none() { "residenciaFiscal" } else { "numRegIdTrib" };
            problems.push(FieldProblem::new(field, "a customer abroad gives both residenciaFiscal and numRegIdTrib"));
        }
    }
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::Cliente001, problems));
    }
    Ok(Valid { rfc, razon_social, regimen_fiscal, codigo_postal, uso_cfdi, email, residencia_fiscal, num_reg_id_trib })
}

/// The customers, for [`crate::scoped`].
pub struct Clientes;

impl Resource for Clientes {
    type Table = clientes::Clientes;
    type Fields = Campos;
    type Valid = Valid;
    const NOUN: &'static str = "customer";
    // A stamp reads its receiver from the customer (`cfdi::contexto`).
    const READ_BY_STAMPS: bool = true;

    async fn check(app: &AppContext, campos: Campos, current: Option<ClienteRow>) -> Result<Valid, ApiError> {
        let campos = match current {
            None => campos,
            Some(current) => Campos {
                rfc: campos.rfc.or(Some(current.rfc)),
                razon_social: campos.razon_social.or(Some(current.razon_social)),
                regimen_fiscal: campos.regimen_fiscal.or(Some(current.regimen_fiscal)),
                codigo_postal: campos.codigo_postal.or(Some(current.codigo_postal)),
                uso_cfdi: campos.uso_cfdi.or(Some(current.uso_cfdi)),
                email: campos.email.or(current.email),
                residencia_fiscal: campos.residencia_fiscal.or(current.residencia_fiscal),
                num_reg_id_trib: campos.num_reg_id_trib.or(current.num_reg_id_trib),
            },
        };
        check(campos, &*app.catalogos.indice)
    }

    async fn insert(
        tx: &mut Tx,
        empresa_id: &EmpresaId,
        id: &str,
        valid: &Valid,
        now: OffsetDateTime,
    ) -> DbResult<u64> {
        clientes::insert(tx, empresa_id, id, &valid.datos(), now).await
    }

    async fn update(
        tx: &mut Tx,
        empresa_id: &EmpresaId,
        id: &str,
        valid: &Valid,
        now: OffsetDateTime,
    ) -> DbResult<u64> {
        clientes::update(tx, empresa_id, id, &valid.datos(), now).await
    }

    fn duplicate(valid: &Valid) -> Option<ApiError> {
        Some(ApiError::new(
            Code::Cliente002,
            format!("a customer with RFC {} already exists in this company", valid.rfc),
        ))
    }
}
