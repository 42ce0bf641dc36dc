//! The stamping pipeline every CFDI type goes through, in named steps:
//!
//! 1. **prepare** (the caller): a typed, validated, unsealed [`Documento`] — `timbrado::preparar`
//!    for I, E and T; payments and payroll receipts plug in with their own builders.
//! 2. **credentials**: the CSD that seals and, in live mode, the PAC ([`credenciales`]).
//! 3. **reserve folio**, 4. **seal**, 5. **timbre**: sandbox ([`sandbox`]) predicts the folio,
//!    seals and adds the sandbox TFD outside the write transaction, and takes the folio inside
//!    it; live (`cfdi::live`) is two-phase: *reserve* (stamp, folio, sealed attempt and
//!    Idempotency-Key committed) → *PAC call* → *persist*, or an unknown outcome is kept and
//!    reconciled.
//! 6. **persist** ([`persistir`]): the invoice row, its XML (compressed, [`xml_db`]), its
//!    `factura.timbrada` event and the idempotent answer, in one transaction.
//! 7. **answer**: the `201` body, the same one a replay of the Idempotency-Key gives.
//!
//! Handlers only parse, authorize, call [`timbrar`] and return what it gives.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::json;
use timbra_cfdi::timbre::DatosTimbre;
use timbra_cfdi::{Comprobante, escritura, sello, timbre};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::timbrado::{self, EmpresaEmisora};
use super::{credenciales, fecha_cfdi, leer_fecha_cfdi, xml_db};
use crate::db::{Money, Tx};
use crate::error::{ApiError, ApiResult, Code};
use crate::events::payloads::FacturaTimbrada;
use crate::events::{self, Event};
use crate::idempotency::{self, Key};
use crate::state::AppState;
use crate::{ids, sql};

/// A prepared document: what a CFDI type gives the pipeline.
pub struct Documento {
    /// Built and validated, without folio, seal or TFD.
    pub comprobante: Comprobante,
    /// The series it will carry.
    pub serie: String,
    /// The customer it was issued to, when it is one of the company's customers.
    pub cliente_id: Option<String>,
    /// The Idempotency-Key operation name (`cfdi.timbrar`).
    pub operacion: &'static str,
}

/// Who asks, for which company.
pub struct Peticion<'a> {
    /// The issuing company, as read for this request.
    pub empresa: &'a EmpresaEmisora,
    /// The user acting (recorded on the stamp movement in live mode).
    pub user_id: &'a str,
    /// The `mode` of the answer envelope.
    pub mode: &'a str,
    /// The Idempotency-Key, when sent.
    pub clave: Option<&'a Key>,
    /// SHA-256 hex of the request body: a live retry of the same body finds its attempt.
    pub request_hash: String,
    /// The request's time (UTC).
    pub now: OffsetDateTime,
    /// The same instant in the issuer's local time, whole seconds (CFDI `Fecha`).
    pub fecha_local: OffsetDateTime,
}

/// Answer of a stamp.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimbradoOut {
    cfdi_id: String,
    /// `SANDBOX-` + the XML's UUID in sandbox; the bare UUID in live.
    uuid: String,
    /// ISO 8601 with the issuer's offset.
    fecha_timbrado: String,
    /// Storage path of the XML.
    xml_url: String,
    xml_uploaded: bool,
    serie: String,
    folio: String,
    /// Decimal string, exact.
    #[schema(value_type = String)]
    total: Decimal,
}

/// A stamped document on its way to the database.
pub(super) struct Timbrado {
    pub(super) comprobante: Comprobante,
    /// The XML as stored ([`xml_db::comprimir`]).
    pub(super) xml_comprimido: Vec<u8>,
    pub(super) folio: i64,
    pub(super) uuid_xml: String,
    pub(super) uuid_api: String,
    pub(super) timbrado_en: OffsetDateTime,
}

/// The record fields that do not come from the comprobante.
pub(super) struct Registro<'a> {
    pub(super) cfdi_id: &'a str,
    pub(super) sandbox: bool,
    pub(super) serie: &'a str,
    pub(super) cliente_id: Option<&'a str>,
    pub(super) xml_path: &'a str,
    pub(super) operacion: &'static str,
}

fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

/// Stamps `documento` for `peticion.empresa` and answers `201` (or the replay of the request
/// that used the same Idempotency-Key first).
pub async fn timbrar(app: &AppState, peticion: &Peticion<'_>, documento: Documento) -> ApiResult<Response> {
    let empresa = peticion.empresa;
    let Documento { comprobante, serie, cliente_id, operacion } = documento;
    let cfdi_id = ids::new_id();
    let xml_path = format!(
        "cfdi/{}/{:04}/{:02}/{cfdi_id}.xml",
        empresa.id,
        peticion.fecha_local.year(),
        u8::from(peticion.fecha_local.month())
    );
    let registro = Registro {
        cfdi_id: &cfdi_id,
        sandbox: empresa.sandbox,
        serie: &serie,
        cliente_id: cliente_id.as_deref(),
        xml_path: &xml_path,
        operacion,
    };
    if empresa.sandbox {
        let csd = credenciales::csd_sandbox(app, &empresa.id, &empresa.rfc, &empresa.razon_social).await?;
        sandbox(app, peticion, comprobante, &registro, csd).await
    } else {
        let csd = credenciales::csd_live(app, &empresa.id, peticion.now).await?;
        let pac = app.pac.clone().ok_or_else(|| {
            ApiError::new(
                Code::Live001,
                "live stamping needs a PAC: the installation must set TIMBRA_PAC_URL (see /llms-full.txt); \
                 switch the company to sandbox: true to test",
            )
        })?;
        super::live::timbrar(app, peticion, comprobante, &registro, csd, pac).await
    }
}

/// Sandbox, one transaction: the folio, the invoice, its XML and its event exist together or
/// not at all. The seal and the TFD are made before it with the folio predicted for this stamp
/// (`cfdi::folios`), so concurrent stamps sign in parallel; when the transaction takes another
/// folio they are made again inside it.
async fn sandbox(
    app: &AppState,
    peticion: &Peticion<'_>,
    comprobante: Comprobante,
    registro: &Registro<'_>,
    csd: Arc<credenciales::Csd>,
) -> ApiResult<Response> {
    let empresa = peticion.empresa;
    let pac = credenciales::pac_sandbox(app).await?;
    let uuid_xml = uuid::Uuid::new_v4().to_string().to_uppercase();
    let datos = DatosTimbre {
        uuid: uuid_xml.clone(),
        fecha_timbrado: fecha_cfdi(peticion.fecha_local),
        rfc_prov_certif: credenciales::RFC_PAC_SANDBOX.into(),
        leyenda: None,
    };
    let actual = {
        let mut conn = app.db.conn().await?;
        sql!(scalar_optional conn, i64,
            "SELECT ultimo FROM folios WHERE empresa_id = $1 AND sandbox = $2 AND serie = $3",
            &empresa.id, true, registro.serie)?
        .unwrap_or(0)
    };
    let turno = app.cfdi.folios.turno(&empresa.id, registro.serie, actual);
    let sellado = sellar_sandbox(comprobante.clone(), turno.folio, csd.clone(), pac.clone(), datos.clone()).await?;
    turno.esperar().await;
    let mut tx = app.db.begin().await?;
    let folio = siguiente_folio(&mut tx, &empresa.id, true, registro.serie, peticion.now).await?;
    let (comprobante, xml_comprimido) =
        if folio == turno.folio { sellado } else { sellar_sandbox(comprobante, folio, csd, pac, datos).await? };
    let timbrado = Timbrado {
        comprobante,
        xml_comprimido,
        folio,
        uuid_api: format!("SANDBOX-{uuid_xml}"),
        uuid_xml,
        timbrado_en: peticion.fecha_local,
    };
    match persistir(app, tx, peticion, registro, timbrado, false).await? {
        Persistido::Nuevo(response) => {
            turno.confirmar(folio);
            Ok(response)
        }
        // This transaction rolled back: its folio was not taken, and dropping the turn tells
        // the stamps after it.
        Persistido::Repetido(response) => Ok(response),
    }
}

/// Takes the next folio of (`empresa_id`, mode, `serie`) in `tx`: each serie runs 1..N on its
/// own, and the row lock held until commit keeps concurrent stamps of the serie in line.
pub(super) async fn siguiente_folio(
    tx: &mut Tx,
    empresa_id: &str,
    sandbox: bool,
    serie: &str,
    now: OffsetDateTime,
) -> Result<i64, sqlx::Error> {
    sql!(
        scalar_one * tx,
        i64,
        "INSERT INTO folios (empresa_id, sandbox, serie, ultimo, created_at, updated_at) VALUES ($1, $2, $3, 1, $4, $4) \
         ON CONFLICT (empresa_id, sandbox, serie) DO UPDATE SET ultimo = folios.ultimo + 1, updated_at = $4 RETURNING ultimo",
        empresa_id,
        sandbox,
        serie,
        now
    )
}

/// Seals `comprobante` with `folio`, adds the sandbox TFD, writes and compresses the XML, on
/// the blocking pool (two RSA signatures, about a millisecond each on this machine).
async fn sellar_sandbox(
    mut comprobante: Comprobante,
    folio: i64,
    csd: Arc<credenciales::Csd>,
    pac: Arc<timbra_credentials::Credential>,
    datos: DatosTimbre,
) -> ApiResult<(Comprobante, Vec<u8>)> {
    tokio::task::spawn_blocking(move || {
        comprobante.folio = Some(folio.to_string());
        sello::sellar(&mut comprobante, &csd.credential).map_err(|e| ApiError::internal("sello", e))?;
        timbre::timbrar(&mut comprobante, datos, pac.as_ref()).map_err(|e| ApiError::internal("timbre", e))?;
        let comprimido = xml_db::comprimir(&escritura::escribir(&comprobante).map_err(timbrado::error_escritura)?);
        Ok((comprobante, comprimido))
    })
    .await
    .map_err(|e| ApiError::internal("sello", e))?
}

/// What [`persistir`] did.
pub(super) enum Persistido {
    /// Committed: the new invoice's answer.
    Nuevo(Response),
    /// A concurrent request with the same Idempotency-Key committed first; this one rolled
    /// back and answers as that one did.
    Repetido(Response),
}

impl Persistido {
    pub(super) fn response(self) -> Response {
        match self {
            Persistido::Nuevo(response) | Persistido::Repetido(response) => response,
        }
    }
}

/// Writes the invoice row, its XML, its `factura.timbrada` event and the idempotent answer in
/// `tx` and commits it.
pub(super) async fn persistir(
    app: &AppState,
    mut tx: Tx,
    peticion: &Peticion<'_>,
    registro: &Registro<'_>,
    timbrado: Timbrado,
    clave_reservada: bool,
) -> ApiResult<Persistido> {
    let empresa_id = &peticion.empresa.id;
    let c = &timbrado.comprobante;
    let decimal = |n: &timbra_cfdi::numero::Numero| n.valor().map_err(|e| ApiError::internal("amount", e));
    let total = decimal(&c.total)?;
    let fecha_local = leer_fecha_cfdi(&c.fecha).ok_or_else(|| ApiError::internal("fecha", &c.fecha))?;
    let folio_text = timbrado.folio.to_string();
    let numero = |n: &timbra_cfdi::numero::Numero| {
        serde_json::from_str(n.texto()).unwrap_or_else(|_| serde_json::Value::String(n.texto().to_owned()))
    };
    let conceptos: Vec<serde_json::Value> = c
        .conceptos
        .iter()
        .map(|concepto| {
            json!({
                "claveProdServ": concepto.clave_prod_serv, "claveUnidad": concepto.clave_unidad,
                "descripcion": concepto.descripcion, "cantidad": numero(&concepto.cantidad),
                "precioUnitario": numero(&concepto.valor_unitario), "importe": numero(&concepto.importe),
                "descuento": concepto.descuento.as_ref().map(numero), "objetoImpuesto": concepto.objeto_imp,
            })
        })
        .collect();
    sql!(execute tx,
        "INSERT INTO cfdis (id, empresa_id, tipo, origen, tipo_comprobante, sandbox, uuid, uuid_xml, serie, folio, folio_num, fecha, \
         fecha_timbrado, subtotal, descuento, total, moneda, tipo_cambio, forma_pago, metodo_pago, status, emisor_rfc, emisor_nombre, \
         emisor_regimen, receptor_rfc, receptor_nombre, receptor_uso_cfdi, emisor_nombre_lower, receptor_nombre_lower, cliente_id, \
         xml_url, conceptos, created_at) \
         VALUES ($1, $2, 'EMITIDA', 'API', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $31, \
         $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30)",
        registro.cfdi_id, empresa_id, &c.tipo_de_comprobante, registro.sandbox, &timbrado.uuid_api, &timbrado.uuid_xml,
        registro.serie, &folio_text, timbrado.folio, fecha_local, timbrado.timbrado_en, Money(decimal(&c.sub_total)?),
        c.descuento.as_ref().map(decimal).transpose()?.map(Money), Money(total), &c.moneda,
        c.tipo_cambio.as_ref().map(decimal).transpose()?.map(Money), &c.forma_pago, &c.metodo_pago,
        &c.emisor.rfc, &c.emisor.nombre, &c.emisor.regimen_fiscal, &c.receptor.rfc,
        &c.receptor.nombre, &c.receptor.uso_cfdi, c.emisor.nombre.to_lowercase(),
        c.receptor.nombre.to_lowercase(), registro.cliente_id, registro.xml_path,
        serde_json::Value::Array(conceptos).to_string(), peticion.now,
        if registro.sandbox { "TIMBRADO_SANDBOX" } else { "TIMBRADO" })?;
    xml_db::guardar(&mut tx, registro.cfdi_id, empresa_id, registro.xml_path, &timbrado.xml_comprimido, peticion.now)
        .await?;
    let timbrada = FacturaTimbrada {
        cfdi_id: registro.cfdi_id.to_owned(),
        uuid: timbrado.uuid_api.clone(),
        total,
        serie: registro.serie.to_owned(),
        folio: folio_text.clone(),
    };
    events::emit(&mut tx, peticion.now, empresa_id, &Event::FacturaTimbrada(timbrada)).await?;
    let data = TimbradoOut {
        cfdi_id: registro.cfdi_id.to_owned(),
        uuid: timbrado.uuid_api,
        fecha_timbrado: rfc3339(timbrado.timbrado_en),
        xml_url: registro.xml_path.to_owned(),
        xml_uploaded: true,
        serie: registro.serie.to_owned(),
        folio: folio_text,
        total,
    };
    let answer = json!({ "success": true, "mode": peticion.mode, "data": data }).to_string();
    let guardada = idempotency::store_answer(
        &mut tx,
        empresa_id,
        peticion.clave,
        registro.operacion,
        StatusCode::CREATED,
        &answer,
        peticion.now,
        clave_reservada,
    )
    .await?;
    match peticion.clave {
        Some(clave) if !guardada => {
            drop(tx);
            Ok(Persistido::Repetido(idempotency::winner(app, empresa_id, clave, peticion.now).await?))
        }
        _ => {
            tx.commit().await?;
            Ok(Persistido::Nuevo(idempotency::answer(StatusCode::CREATED, answer)))
        }
    }
}
