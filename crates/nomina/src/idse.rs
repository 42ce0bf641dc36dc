//! IDSE (IMSS Desde Su Empresa) batch movements file, "DISPMAG" layout, 168 positions per line:
//! alta/reingreso **08**, modificación de salario **07**, baja **02**. The employer must report
//! hires, exits and salary changes to IMSS within five working days (Arts. 15 fr. I and 34 LSS).
//!
//! Layout source: PAYROLL_EXTRAS_2026.md §6.3 (confidence M), which takes the widths, field order
//! and fillers from the public alfrael/SistemaCapturaI (`CamposLogintud.java`,
//! `AltaReingresoBean`, `ModificacionBean`, `BajaBean`, `CargaDatosLayout.java`), not from IMSS's
//! own DISPMAG document, which was not available. Positions (1-based):
//!
//! | Pos. | 08 | 07 | 02 |
//! |---|---|---|---|
//! | 1–11 | registro patronal | same | same |
//! | 12–22 | NSS | same | same |
//! | 23–103 | paterno / materno / nombre(s), 27 each | same | same |
//! | 104–109 | SBC 4 + 2 | SBC | blank (104–118) |
//! | 110–115 | blank | blank | |
//! | 116 | tipo de trabajador | blank | |
//! | 117 | tipo de salario | same | |
//! | 118 | semana/jornada reducida | same | |
//! | 119–126 | fecha DDMMAAAA | same | same |
//! | 127–129 | UMF | blank (127–131) | blank (127–131) |
//! | 130–131 | blank | | |
//! | 132–133 | 08 | 07 | 02 |
//! | 134–138 | guía | same | same |
//! | 139–148 | clave del trabajador | same | same |
//! | 149 | blank | blank | causa de baja |
//! | 150–167 | CURP | CURP | blank |
//! | 168 | 9 | 9 | 9 |
//!
//! Field conventions and the choices where the brief is silent are in [`crate::ancho_fijo`]. A
//! movement without a valid NSS, or an 08/07 without a valid CURP, is left out and listed as a
//! problem; the file is built for the rest (§6.4). The causa de baja comes from
//! [`MotivoBaja::causa_baja_imss`].

use rust_decimal::Decimal;
use time::Date;

use crate::ancho_fijo::{Archivo, ErrorArchivo, alfa, armar, blancos, entero, fecha, importe, registro_patronal};
use crate::finiquito::MotivoBaja;
use crate::identificadores::{validar_curp, validar_nss};

/// Width of a DISPMAG record.
pub const ANCHO: usize = 168;

/// Identificador de formato at position 168.
const IDENTIFICADOR_FORMATO: &str = "9";

/// Tipo de salario: 0 fijo, 1 variable, 2 mixto.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TipoSalario {
    /// 0, fixed.
    #[default]
    Fijo,
    /// 1, variable.
    Variable,
    /// 2, mixed.
    Mixto,
}

impl TipoSalario {
    fn clave(self) -> &'static str {
        match self {
            Self::Fijo => "0",
            Self::Variable => "1",
            Self::Mixto => "2",
        }
    }
}

/// The movement and its own fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MovimientoIdse {
    /// 08 alta or reingreso (from fechaInicioRelLaboral).
    Alta {
        /// SBC registered.
        sbc: Decimal,
        /// Tipo de trabajador, 1–4 (1 permanente, 2 eventual ciudad, 3 eventual construcción,
        /// 4 eventual del campo).
        tipo_trabajador: u8,
        /// Tipo de salario.
        tipo_salario: TipoSalario,
        /// Semana/jornada reducida: 0 normal, 1–5 days, 6 jornada reducida.
        jornada: u8,
        /// Unidad de medicina familiar (3 digits).
        umf: String,
    },
    /// 07 modificación de salario (an SDI change with its effective date).
    ModificacionSalario {
        /// New SBC.
        sbc: Decimal,
        /// Tipo de salario.
        tipo_salario: TipoSalario,
        /// Semana/jornada reducida.
        jornada: u8,
    },
    /// 02 baja.
    Baja {
        /// Why the relationship ended (gives the causa de baja).
        motivo: MotivoBaja,
    },
}

/// One line of the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistroIdse {
    /// The caller's key, written as the clave del trabajador (10).
    pub clave: String,
    /// NSS.
    pub nss: Option<String>,
    /// CURP.
    pub curp: String,
    /// Apellido paterno.
    pub apellido_paterno: String,
    /// Apellido materno.
    pub apellido_materno: String,
    /// Nombre(s).
    pub nombres: String,
    /// Fecha del movimiento.
    pub fecha: Date,
    /// Guía (subdelegación, 5).
    pub guia: String,
    /// The movement.
    pub movimiento: MovimientoIdse,
}

fn digito(valor: u8, maximo: u8, campo: &str) -> Result<String, String> {
    if valor > maximo {
        return Err(format!("{campo} {valor} fuera de 0 a {maximo}"));
    }
    entero(u64::from(valor), 1)
}

fn linea(rp: &str, r: &RegistroIdse) -> Result<String, String> {
    let nss = r.nss.as_deref().map(str::trim).filter(|n| !n.is_empty()).ok_or("el trabajador no tiene NSS")?;
    validar_nss(nss).map_err(|e| format!("NSS inválido: {e}"))?;
    let con_curp = !matches!(r.movimiento, MovimientoIdse::Baja { .. });
    if con_curp {
        validar_curp(r.curp.trim()).map_err(|e| format!("CURP inválida: {e}"))?;
    }
    // 104–118, the movement's own fields before the date.
    let (medio, tipo, despues_fecha, causa) = match &r.movimiento {
        MovimientoIdse::Alta { sbc, tipo_trabajador, tipo_salario, jornada, umf } => {
            if !(1..=4).contains(tipo_trabajador) {
                return Err(format!("tipo de trabajador {tipo_trabajador} fuera de 1 a 4"));
            }
            let umf = umf.trim();
            if umf.len() > 3 || !umf.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("UMF {umf:?} no es de hasta 3 dígitos"));
            }
            let umf = format!("{:0>3}", umf);
            (
                [
                    importe(*sbc, 4, 2)?,
                    blancos(6),
                    entero(u64::from(*tipo_trabajador), 1)?,
                    tipo_salario.clave().into(),
                    digito(*jornada, 6, "jornada")?,
                ]
                .concat(),
                "08",
                [umf, blancos(2)].concat(),
                blancos(1),
            )
        }
        MovimientoIdse::ModificacionSalario { sbc, tipo_salario, jornada } => (
            [
                importe(*sbc, 4, 2)?,
                blancos(6),
                blancos(1),
                tipo_salario.clave().into(),
                digito(*jornada, 6, "jornada")?,
            ]
            .concat(),
            "07",
            blancos(5),
            blancos(1),
        ),
        MovimientoIdse::Baja { motivo } => (blancos(15), "02", blancos(5), motivo.causa_baja_imss().to_string()),
    };
    let curp = if con_curp { alfa(&r.curp, 18) } else { blancos(18) };
    let linea = [
        rp.to_owned(),                 // 1–11 registro patronal
        nss.to_owned(),                // 12–22 NSS
        alfa(&r.apellido_paterno, 27), // 23–49
        alfa(&r.apellido_materno, 27), // 50–76
        alfa(&r.nombres, 27),          // 77–103
        medio,                         // 104–118
        fecha(r.fecha),                // 119–126 fecha del movimiento
        despues_fecha,                 // 127–131 UMF + blank, or blank
        tipo.to_owned(),               // 132–133 tipo de movimiento
        alfa(&r.guia, 5),              // 134–138 guía
        alfa(&r.clave, 10),            // 139–148 clave del trabajador
        causa,                         // 149 causa de baja or blank
        curp,                          // 150–167 CURP or blank
        IDENTIFICADOR_FORMATO.into(),  // 168
    ]
    .concat();
    debug_assert_eq!(linea.len(), ANCHO);
    Ok(linea)
}

/// The IDSE batch file for `registro_patronal`.
///
/// # Errors
/// [`ErrorArchivo`] when the registro patronal is malformed; record problems (no NSS, invalid
/// CURP, values that do not fit) leave the record out and are listed in [`Archivo::problemas`].
pub fn archivo_idse(registro_patronal_: &str, registros: &[RegistroIdse]) -> Result<Archivo, ErrorArchivo> {
    let rp = registro_patronal(registro_patronal_)?;
    Ok(armar(registros.iter().enumerate().map(|(i, r)| (i, r.clave.clone(), linea(&rp, r)))))
}

#[cfg(test)]
#[path = "idse_tests.rs"]
mod tests;
