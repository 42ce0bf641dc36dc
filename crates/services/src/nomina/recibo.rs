//! A payroll receipt as the API shows it: its figures under the names `POST /api/nomina/calcular`
//! answers with, its CFDI lines and its stamping status.
//!
//! What a receipt row stores (`db::nomina::ReciboRow`), for stamping: `lineas` is a
//! [`LineasRecibo`] (perceptions with gravado/exento and HorasExtra, deductions, otros pagos
//! with the subsidy caused, incapacidades), `empleado` an [`Empleado`] as calculated,
//! `calculo` a `timbra_nomina::ResultadoNomina`, `entrada` the calculator's body.

use rust_decimal::Decimal;
use serde::Serialize;
use timbra_store::ids::{EmpresaId, ReciboNominaId};
use utoipa::ToSchema;

use super::Empleado;
use crate::cfdi::links::Enlaces;
use crate::error::ApiError;
use timbra_nomina::periodo::LineasRecibo;
use timbra_store::nomina::ReciboRow;

/// A payroll receipt.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ReciboOut {
    /// Id.
    pub recibo_id: String,
    /// The period.
    pub periodo_id: String,
    /// The employee.
    pub empleado_id: String,
    /// The employee's name when calculated.
    pub empleado_nombre: String,
    /// The employee's number.
    pub num_empleado: String,
    /// CALCULADO, PENDIENTE, TIMBRADO, TIMBRADO_SANDBOX or CANCELADO.
    pub status: String,
    /// NumDiasPagados.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub dias_pagados: Decimal,
    /// Net pay: the CFDI's Total.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub total: Decimal,
    /// The stamped CFDI's UUID.
    pub uuid: Option<String>,
    /// The stamped CFDI's id (`GET /api/cfdi/{cfdiId}`); null until stamped.
    pub cfdi_id: Option<String>,
    /// Storage path of the stamped XML (as an invoice's `xmlUrl`); null until stamped.
    pub xml_url: Option<String>,
    /// Once stamped: `xmlDownloadUrl`, `pdfDownloadUrl` (signed, valid an hour, no session
    /// needed) and `downloadExpiresIn` (3600), as the invoice listing gives them.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub enlaces: Option<Enlaces>,
    /// Why the last stamping attempt failed (PENDIENTE).
    pub detalle_errores: Option<String>,
    /// percepciones, deducciones, otrosPagos, netoAPagar and desglose, as `POST /api/nomina/calcular`.
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub calculo: serde_json::Map<String, serde_json::Value>,
    /// The CFDI lines: percepciones (gravado, exento, horasExtra), deducciones, otrosPagos
    /// (subsidioCausado) and incapacidades.
    #[schema(value_type = Object)]
    pub lineas: LineasRecibo,
    /// The body of `POST /api/nomina/calcular` that gives these figures.
    #[schema(value_type = Object)]
    pub entrada: serde_json::Value,
}

/// A stored JSON column, or an internal error naming it (the service wrote it).
fn columna<T: serde::de::DeserializeOwned>(recibo_id: &str, columna: &str, texto: &str) -> Result<T, ApiError> {
    serde_json::from_str(texto).map_err(|e| ApiError::internal(&format!("nomina_recibos.{columna} of {recibo_id}"), e))
}

impl ReciboOut {
    /// The receipt of a stored row, with signed links to its files when stamped and `links`
    /// (the link key, now in Unix seconds) is given.
    ///
    /// # Errors
    /// INTERNAL when a JSON column does not read (never written so by this service).
    pub fn from_row(row: ReciboRow, links: Option<([u8; 32], i64)>) -> Result<Self, ApiError> {
        let empleado: Empleado = columna(row.id.as_str(), "empleado", &row.empleado)?;
        let calculo = columna(row.id.as_str(), "calculo", &row.calculo)?;
        let lineas = columna(row.id.as_str(), "lineas", &row.lineas)?;
        let entrada = columna(row.id.as_str(), "entrada", &row.entrada)?;
        Ok(Self {
            recibo_id: String::from(row.id),
            periodo_id: String::from(row.periodo_id),
            empleado_id: row.empleado_id,
            empleado_nombre: row.empleado_nombre,
            num_empleado: empleado.num_empleado,
            status: row.status,
            dias_pagados: row.dias_pagados.0.normalize(),
            total: row.neto.0,
            uuid: row.uuid,
            enlaces: links.zip(row.xml_url.as_deref()).map(|((secret, now), path)| Enlaces::de(&secret, path, now)),
            cfdi_id: row.cfdi_id.map(String::from),
            xml_url: row.xml_url,
            detalle_errores: row.detalle_errores,
            calculo,
            lineas,
            entrada,
        })
    }
}

/// The CFDI of the company's payroll receipt `id` (`GET /api/nomina/recibos/{id}/xml`, `/pdf`
/// and the dashboard's downloads): NOT_FOUND for another company's receipt, or one not
/// stamped yet.
pub async fn cfdi_del_recibo(
    app: &crate::context::AppContext,
    empresa_id: &EmpresaId,
    id: &str,
) -> Result<String, ApiError> {
    let recibo = {
        let mut conn = app.db.conn().await?;
        timbra_store::nomina::recibo(&mut conn, empresa_id, &ReciboNominaId::from(id)).await?
    }
    .ok_or_else(|| ApiError::not_found("receipt"))?;
    recibo.cfdi_id.map(String::from).ok_or_else(|| {
        ApiError::new(
            crate::error::Code::NotFound,
            format!("receipt {id} has no stamped XML: it is {}; stamp its period first", recibo.status),
        )
    })
}
