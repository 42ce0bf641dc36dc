//! SUA (Sistema Único de Autodeterminación, IMSS) import files: workers (ASEG, 164 positions)
//! and movements (MOVT, 49 positions). The employer determines its dues in SUA (Art. 39 LSS;
//! Art. 29 fr. II Ley del INFONAVIT) and SUA imports these files.
//!
//! Layout source: PAYROLL_EXTRAS_2026.md §6.1–§6.2 (confidence M), which compiles the public
//! implementations — Odoo `l10n_mx_edi_payslip` (`hr.sua.report`, `hr.sua.mov.report` and their
//! tests) and TOTVS Protheus `GPEM831` (discount type 1–3 and value up to 9999.9999) — not IMSS's
//! own "Importación de datos" document, which was not available. Field conventions and the
//! choices where the brief is silent are in [`crate::ancho_fijo`]. Additional choices:
//! * the INFONAVIT discount value is 4 integers + 4 decimals (Protheus; Odoo writes 2 decimals);
//! * a worker or movement without a valid NSS (11 digits with its Luhn check digit), or with an
//!   invalid CURP in the workers file, is left out and listed as a problem; the file is built for
//!   the rest (§6.4);
//! * a worker without an INFONAVIT credit has the credit number blank, the start date zeros and
//!   type and value zero (the brief: "zeros if none", "0 none").

use rust_decimal::Decimal;
use time::Date;

use crate::ancho_fijo::{Archivo, ErrorArchivo, alfa, armar, blancos, entero, fecha, importe, registro_patronal};
use crate::identificadores::{validar_curp, validar_nss};

/// Width of a workers (ASEG) record.
pub const ANCHO_TRABAJADOR: usize = 164;
/// Width of a movements (MOVT) record.
pub const ANCHO_MOVIMIENTO: usize = 49;

/// The worker's INFONAVIT credit (for the discount SUA applies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditoInfonavit {
    /// Número de crédito (10 characters).
    pub numero: String,
    /// Fecha de inicio de descuento.
    pub inicio_descuento: Date,
    /// Tipo de descuento: 1 porcentaje, 2 cuota fija, 3 veces salario mínimo.
    pub tipo_descuento: u8,
    /// Valor de descuento (percentage, amount, or times SM).
    pub valor_descuento: Decimal,
}

/// One worker of the SUA workers file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrabajadorSua {
    /// The caller's key (reported in problems; also the clave de ubicación when that is None).
    pub clave: String,
    /// NSS; `None` when the employee has none yet.
    pub nss: Option<String>,
    /// RFC (13).
    pub rfc: String,
    /// CURP (18).
    pub curp: String,
    /// Apellido paterno.
    pub apellido_paterno: String,
    /// Apellido materno (may be empty).
    pub apellido_materno: String,
    /// Nombre(s).
    pub nombres: String,
    /// Tipo de trabajador: 1 permanente, 2 eventual ciudad, 3 eventual construcción.
    pub tipo_trabajador: u8,
    /// Jornada/semana reducida: 0 normal, 1–5 days a week, 6 jornada reducida.
    pub jornada: u8,
    /// Fecha de alta.
    pub fecha_alta: Date,
    /// Salario diario integrado.
    pub salario_diario_integrado: Decimal,
    /// Clave de ubicación (the employer's key for the worker, 17); `None` uses `clave`.
    pub clave_ubicacion: Option<String>,
    /// INFONAVIT credit, if any.
    pub credito_infonavit: Option<CreditoInfonavit>,
}

/// Tipo de movimiento of the SUA movements file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TipoMovimientoSua {
    /// 02 baja.
    Baja,
    /// 07 modificación de salario.
    ModificacionSalario,
    /// 08 reingreso.
    Reingreso,
    /// 11 ausentismo.
    Ausentismo,
    /// 12 incapacidad.
    Incapacidad,
}

impl TipoMovimientoSua {
    /// The two-digit code.
    pub fn clave(self) -> &'static str {
        match self {
            Self::Baja => "02",
            Self::ModificacionSalario => "07",
            Self::Reingreso => "08",
            Self::Ausentismo => "11",
            Self::Incapacidad => "12",
        }
    }
}

/// One movement of the SUA movements file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovimientoSua {
    /// The caller's key (reported in problems).
    pub clave: String,
    /// NSS; `None` when the employee has none.
    pub nss: Option<String>,
    /// Type.
    pub tipo: TipoMovimientoSua,
    /// Fecha del movimiento.
    pub fecha: Date,
    /// Folio de incapacidad (8), for type 12.
    pub folio_incapacidad: Option<String>,
    /// Días de la incidencia (ausentismo or incapacidad); 0 otherwise.
    pub dias: u32,
    /// SDI (the new one for 07 and 08; the current one otherwise).
    pub salario_diario_integrado: Decimal,
}

fn nss_valido(nss: Option<&String>) -> Result<&str, String> {
    let nss = nss.map(|n| n.trim()).filter(|n| !n.is_empty()).ok_or("el trabajador no tiene NSS")?;
    validar_nss(nss).map_err(|e| format!("NSS inválido: {e}"))?;
    Ok(nss)
}

fn linea_trabajador(rp: &str, t: &TrabajadorSua) -> Result<String, String> {
    let nss = nss_valido(t.nss.as_ref())?;
    validar_curp(t.curp.trim()).map_err(|e| format!("CURP inválida: {e}"))?;
    if !(1..=3).contains(&t.tipo_trabajador) {
        return Err(format!("tipo de trabajador {} fuera de 1 a 3", t.tipo_trabajador));
    }
    if t.jornada > 6 {
        return Err(format!("jornada {} fuera de 0 a 6", t.jornada));
    }
    let nombre = format!("{}${}${}", t.apellido_paterno.trim(), t.apellido_materno.trim(), t.nombres.trim());
    let (credito, inicio, tipo, valor) = match &t.credito_infonavit {
        None => (blancos(10), "00000000".to_owned(), "0".to_owned(), "00000000".to_owned()),
        Some(c) => {
            if !(1..=3).contains(&c.tipo_descuento) {
                return Err("el tipo de descuento debe ser 1, 2 o 3".into());
            }
            (
                alfa(&c.numero, 10),
                fecha(c.inicio_descuento),
                c.tipo_descuento.to_string(),
                importe(c.valor_descuento, 4, 4).map_err(|e| format!("valor de descuento: {e}"))?,
            )
        }
    };
    let linea = [
        rp.to_owned(),                                              // 1–11 registro patronal
        nss.to_owned(),                                             // 12–22 NSS
        alfa(&t.rfc, 13),                                           // 23–35 RFC
        alfa(&t.curp, 18),                                          // 36–53 CURP
        alfa(&nombre, 50),                                          // 54–103 PATERNO$MATERNO$NOMBRES
        entero(u64::from(t.tipo_trabajador), 1)?,                   // 104 tipo de trabajador
        entero(u64::from(t.jornada), 1)?,                           // 105 jornada/semana reducida
        fecha(t.fecha_alta),                                        // 106–113 fecha de alta
        importe(t.salario_diario_integrado, 5, 2)?,                 // 114–120 SDI 5 + 2
        alfa(t.clave_ubicacion.as_deref().unwrap_or(&t.clave), 17), // 121–137 clave de ubicación
        credito,                                                    // 138–147 número de crédito INFONAVIT
        inicio,                                                     // 148–155 inicio de descuento
        tipo,                                                       // 156 tipo de descuento
        valor,                                                      // 157–164 valor de descuento 4 + 4
    ]
    .concat();
    debug_assert_eq!(linea.len(), ANCHO_TRABAJADOR);
    Ok(linea)
}

fn linea_movimiento(rp: &str, m: &MovimientoSua) -> Result<String, String> {
    let nss = nss_valido(m.nss.as_ref())?;
    let folio = match (m.tipo, &m.folio_incapacidad) {
        (TipoMovimientoSua::Incapacidad, Some(f)) => alfa(f, 8),
        (TipoMovimientoSua::Incapacidad, None) => return Err("una incapacidad requiere su folio".into()),
        _ => blancos(8),
    };
    let linea = [
        rp.to_owned(),                              // 1–11 registro patronal
        nss.to_owned(),                             // 12–22 NSS
        m.tipo.clave().to_owned(),                  // 23–24 tipo de movimiento
        fecha(m.fecha),                             // 25–32 fecha del movimiento
        folio,                                      // 33–40 folio de incapacidad
        entero(u64::from(m.dias), 2)?,              // 41–42 días de la incidencia
        importe(m.salario_diario_integrado, 5, 2)?, // 43–49 SDI 5 + 2
    ]
    .concat();
    debug_assert_eq!(linea.len(), ANCHO_MOVIMIENTO);
    Ok(linea)
}

/// The SUA workers file (ASEG) for `registro_patronal`.
///
/// # Errors
/// [`ErrorArchivo`] when the registro patronal is malformed; record problems (no NSS, invalid
/// CURP, values that do not fit) leave the record out and are listed in [`Archivo::problemas`].
pub fn archivo_trabajadores(registro_patronal_: &str, trabajadores: &[TrabajadorSua]) -> Result<Archivo, ErrorArchivo> {
    let rp = registro_patronal(registro_patronal_)?;
    Ok(armar(trabajadores.iter().enumerate().map(|(i, t)| (i, t.clave.clone(), linea_trabajador(&rp, t)))))
}

/// The SUA movements file (MOVT) for `registro_patronal`.
///
/// # Errors
/// As [`archivo_trabajadores`].
pub fn archivo_movimientos(registro_patronal_: &str, movimientos: &[MovimientoSua]) -> Result<Archivo, ErrorArchivo> {
    let rp = registro_patronal(registro_patronal_)?;
    Ok(armar(movimientos.iter().enumerate().map(|(i, m)| (i, m.clave.clone(), linea_movimiento(&rp, m)))))
}

#[cfg(test)]
#[path = "sua_tests.rs"]
mod tests;
