//! `GET /api/cfdi/{id}`: one invoice with its lines and signed links.

use axum::extract::State;
use axum::response::IntoResponse;
use timbra_store::ids::EmpresaId;

use super::cargar;
use super::list::{CfdiOut, cfdi_out};
use crate::envelope::{Path, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Caller;
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::error::ApiError;

/// One invoice with its lines and a signed XML link; a PPD invoice adds `saldoInsoluto`,
/// `pagado` and `pagos`, a payment CFDI its `doctoRelacionados`, one with Carta Porte or
/// Comercio Exterior its `complementos` (`cartaPorte`, `comercioExterior`).
#[utoipa::path(get, path = "/cfdi/{id}", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The invoice", body = Envelope<CfdiOut>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for ids of other companies, and for a payroll receipt without nomina:view)", body = ErrorBody),
    ))]
pub async fn get(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    Ok(ok(obtener(&app, &caller, &empresa_id, &id).await?))
}

/// One invoice with its signed links, as `GET /api/cfdi/{id}` and the MCP tool `obtener_cfdi`
/// read it.
pub(crate) async fn obtener(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
    id: &str,
) -> HttpResult<CfdiOut> {
    let access = caller.authorize(app, empresa_id, Permission::CfdiView).await?;
    let ve_nomina = super::ve_nomina(caller, &access);
    let (row, conceptos) = cargar(app, empresa_id, id, ve_nomina).await?;
    let links = Some((app.cfdi.link_secret()?, app.clock.now().unix_timestamp()));
    let cobranza = timbra_services::cfdi::pagos::cobranza(app, empresa_id, id, &row.tipo_comprobante).await?;
    // The complements come from the stored XML (issued or received), read only when the row
    // says it carries one.
    let complementos = match row.xml_url.as_deref() {
        Some(path) if !row.complementos.is_empty() => {
            let xml = super::archivos::read_file(app, path).await?;
            timbra_services::cfdi::complementos::a_json_de_xml(&String::from_utf8_lossy(&xml))
        }
        _ => None,
    };
    let mut out = cfdi_out(row, links);
    out.complementos = complementos;
    out.conceptos = Some(serde_json::from_str(&conceptos).map_err(|e| ApiError::internal("conceptos", e))?);
    out.cobranza = Some(cobranza);
    Ok(out)
}
