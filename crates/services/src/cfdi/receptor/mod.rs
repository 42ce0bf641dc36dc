//! The receiver's side (issue 30): SAT's status of any CFDI of the company ([`estado_sat`]:
//! `GET /api/cfdi/{id}/estado-sat` and the durable watch of received CFDI), and the
//! cancellation requests where the company is the receiver ([`solicitudes`]: the pending list,
//! the signed answer, the poll of the PAC, and in sandbox both sides of the request).
//!
//! Live, SAT decides: its status service (`TIMBRA_SAT_CONSULTA_URL`) for the status, the PAC
//! (Finkok `get_pending`, `accept_reject_signature`) for the requests. Sandbox companies never
//! reach SAT: the answers come from the service's own records and SAT's rules as of 2026
//! ([`super::plazos`]).

pub mod estado_sat;
pub mod solicitudes;

use timbra_store::cfdis::PorCancelar;
use timbra_store::ids::EmpresaId;
use time::OffsetDateTime;

use super::plazos::{self, Cancelable, DatosRegla};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};

/// Regla 2.7.1.35 applied to a stored invoice, asked at `ahora` (sandbox: the service plays
/// SAT). `relacionados_vigentes`: it has payments (or credit notes) not cancelled.
pub fn cancelable(fila: &PorCancelar, relacionados_vigentes: bool, ahora: OffsetDateTime) -> Cancelable {
    plazos::cancelable(
        &DatosRegla {
            tipo_comprobante: &fila.tipo_comprobante,
            total: fila.total.0,
            moneda: &fila.moneda,
            tipo_cambio: fila.tipo_cambio.map(|t| t.0),
            receptor_rfc: &fila.receptor_rfc,
            emitido: fila.fecha_timbrado.unwrap_or(fila.fecha),
            relacionados_vigentes,
        },
        ahora,
    )
}

/// The company's credit notes (type E, not cancelled) that relate the invoice `fila`
/// (`CfdiRelacionado/@UUID` in their XML), by their UUID as the API shows it.
pub async fn notas_de_credito_vigentes(
    app: &AppContext,
    empresa_id: &EmpresaId,
    fila: &PorCancelar,
) -> ApiResult<Vec<String>> {
    let egresos = {
        let mut conn = app.db.conn().await?;
        timbra_store::cfdis::egresos_vigentes(&mut conn, empresa_id, &fila.receptor_rfc).await?
    };
    // `<cfdi:CfdiRelacionado UUID="…"/>` (not the TFD's own UUID).
    let buscado = format!("cfdirelacionado uuid=\"{}\"", fila.uuid_xml.to_lowercase());
    let mut notas = Vec::new();
    for (uuid, xml_url) in egresos {
        let xml = leer_xml(app, &xml_url).await?;
        if String::from_utf8_lossy(&xml).to_lowercase().contains(&buscado) {
            notas.push(uuid);
        }
    }
    Ok(notas)
}

/// Sandbox (SAT's rule): an invoice related by credit notes that are not cancelled is "No
/// cancelable"; CANCEL_003 names them.
pub async fn exigir_sin_notas_de_credito(
    app: &AppContext,
    empresa_id: &EmpresaId,
    fila: &PorCancelar,
) -> ApiResult<()> {
    let notas = notas_de_credito_vigentes(app, empresa_id, fila).await?;
    if notas.is_empty() {
        return Ok(());
    }
    Err(ApiError::new(
        Code::Cancel003,
        format!(
            "credit notes that are not cancelled relate this invoice ({}): SAT does not cancel it (\"No cancelable\"); \
             cancel the credit notes first",
            notas.join(", ")
        ),
    )
    .with_details(serde_json::json!({ "notasCredito": notas })))
}

/// A stored CFDI's XML: from the database (`cfdi_xml`, where stamps keep it), else the file
/// storage.
pub async fn leer_xml(app: &AppContext, path: &str) -> ApiResult<Vec<u8>> {
    {
        let mut conn = app.db.conn().await?;
        if let Some(xml) = timbra_store::cfdi_xml::leer(&mut conn, path).await? {
            return Ok(xml);
        }
    }
    app.cfdi.storage.get(path).await.map_err(|error| ApiError::storage(error, "CFDI XML"))
}
