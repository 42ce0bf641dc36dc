//! Request of `POST /api/nomina/calcular`: the lenient raw shape ([`CalculoNomina`]) and the
//! validated, typed value ([`EntradaValidada`]) that the calculation takes.
//!
//! Raw input is read leniently so that [`CalculoNomina::validar`] can report every problem at
//! once, each with the JSON path of its field. Amounts are read exactly from JSON numbers or
//! strings (serde_json `arbitrary_precision`), never through `f64`, and only in plain decimal
//! notation (`-?[0-9]+(.[0-9]+)?`: no exponent, `_` or `+`).
//!
//! Ranges accepted for `diasPagados` (NumDiasPagados allows up to three decimals):
//!
//! | periodicidad | días | ISR table |
//! |---|---|---|
//! | semanal | 0.001–7 | daily × 7, or × días when fewer (partial week) |
//! | decenal | 0.001–10 | daily × 10, or × días when fewer |
//! | catorcenal | 0.001–14 | daily × 14, or × días when fewer |
//! | quincenal | 0.001–16 | daily × 15 (also for 16-day halves), or × días when fewer |
//! | mensual | 0.001–31 | monthly tariff |

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde::{Deserialize, Deserializer, Serialize};
use time::Date;

use crate::parametros::Parametros;

/// Largest amount accepted anywhere (keeps every product far from `Decimal` overflow).
const MONTO_MAXIMO: Decimal = dec!(999_999_999.99);

/// A raw scalar from the JSON body, kept as text so that nothing is lost or rounded.
///
/// Deserializes from any JSON value: numbers keep their exact text (serde_json
/// `arbitrary_precision`), strings stay strings, anything else is remembered as its kind so
/// validation can say what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Campo {
    /// A JSON string.
    Texto(String),
    /// A JSON number, as written.
    Numero(String),
    /// Another JSON kind (`"booleano"`, `"arreglo"`, `"objeto"`).
    Otro(&'static str),
}

impl<'de> Deserialize<'de> for Campo {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde_json::Value;
        Ok(match Value::deserialize(deserializer)? {
            Value::String(texto) => Self::Texto(texto),
            Value::Number(numero) => Self::Numero(numero.to_string()),
            Value::Bool(_) => Self::Otro("booleano"),
            Value::Array(_) => Self::Otro("arreglo"),
            Value::Object(_) => Self::Otro("objeto"),
            // `Option<Campo>` turns null into `None` before reaching here.
            Value::Null => Self::Otro("null"),
        })
    }
}

impl Serialize for Campo {
    /// Writes what was read: a string as a string, a number with its exact text (the kinds
    /// [`Campo::Otro`] stands for are written as `null`).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Texto(texto) => serializer.serialize_str(texto),
            Self::Numero(texto) => match texto.parse::<serde_json::Number>() {
                Ok(numero) => numero.serialize(serializer),
                Err(_) => serializer.serialize_str(texto),
            },
            Self::Otro(_) => serializer.serialize_none(),
        }
    }
}

impl From<Decimal> for Campo {
    fn from(valor: Decimal) -> Self {
        Self::Numero(valor.to_string())
    }
}

impl From<&str> for Campo {
    fn from(valor: &str) -> Self {
        Self::Texto(valor.to_owned())
    }
}

impl From<u32> for Campo {
    fn from(valor: u32) -> Self {
        Self::Numero(valor.to_string())
    }
}

/// Raw body of `POST /api/nomina/calcular` (SPEC.md "Payroll"). Unknown fields are ignored.
/// It serializes back to the same JSON (absent fields left out), which is how a period's
/// receipt records the body that reproduces its figures.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CalculoNomina {
    /// Daily wage (cuota diaria), MXN.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub salario_diario: Option<Campo>,
    /// Salario diario integrado (Art. 27 LSS), MXN; the SBC before the 25-UMA cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub salario_diario_integrado: Option<Campo>,
    /// Days paid in the period.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub dias_pagados: Option<Campo>,
    /// semanal, decenal, catorcenal, quincenal or mensual (any case), or the
    /// c_PeriodicidadPago code 02, 10, 03, 04, 05.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub periodicidad: Option<Campo>,
    /// c_RiesgoPuesto class 1–5, as a number or a string.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub riesgo_puesto: Option<Campo>,
    /// Extra perceptions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percepciones: Option<Vec<PercepcionCruda>>,
    /// Extra deductions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deducciones: Option<Vec<DeduccionCruda>>,
    /// "general" (default) or "frontera" (Zona Libre de la Frontera Norte).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub zona: Option<Campo>,
    /// Payment date YYYY-MM-DD; selects the parameters. The server supplies today in Mexico
    /// City when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub fecha_pago: Option<Campo>,
}

/// Raw extra perception `{ tipo, concepto, importe, gravado?, exento?, domingos? }`.
///
/// When `gravado` and `exento` are sent they are used as given. When only `importe` is sent
/// for aguinaldo (002), PTU (003), horas extra (019), prima dominical (020) or prima
/// vacacional (021), the exempt part is computed with the Art. 93 LISR limits **for a single
/// payment with nothing exempted earlier in the year** (or, for overtime, in the week). A
/// caller that already used part of a yearly limit in earlier payments must send `gravado`
/// and `exento` itself. Other types sent with only `importe` are wholly taxable; separation
/// payments (022, 023, 025) must come with `gravado`/`exento`, because their exemption
/// depends on years of service (Art. 93 fr. XIII LISR).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PercepcionCruda {
    /// c_TipoPercepcion code, three digits ("002").
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub tipo: Option<Campo>,
    /// Description shown on the receipt.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub concepto: Option<Campo>,
    /// Total amount; optional when both `gravado` and `exento` are sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub importe: Option<Campo>,
    /// Taxable part.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub gravado: Option<Campo>,
    /// Exempt part.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub exento: Option<Campo>,
    /// Sundays worked, required for prima dominical (020) sent with only `importe`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub domingos: Option<Campo>,
}

/// Raw extra deduction `{ tipo, concepto, importe }`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeduccionCruda {
    /// c_TipoDeduccion code, three digits. 001 (IMSS) and 002 (ISR) are computed here and
    /// are rejected.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub tipo: Option<Campo>,
    /// Description shown on the receipt.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub concepto: Option<Campo>,
    /// Amount.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub importe: Option<Campo>,
}

/// One problem in the request: the JSON path of the field and what to fix.
/// The server reports these under error NOMINA_001.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problema {
    /// JSON path, e.g. `salarioDiario` or `percepciones[1].importe`.
    pub campo: String,
    /// What is wrong and how to fix it.
    pub mensaje: String,
}

impl fmt::Display for Problema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.campo, self.mensaje)
    }
}

/// Pay periodicity (c_PeriodicidadPago).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Periodicidad {
    /// 02 Semanal, 7 days.
    Semanal,
    /// 10 Decenal, 10 days.
    Decenal,
    /// 03 Catorcenal, 14 days.
    Catorcenal,
    /// 04 Quincenal, 15 days.
    Quincenal,
    /// 05 Mensual.
    Mensual,
}

impl Periodicidad {
    /// The c_PeriodicidadPago code.
    pub fn clave(self) -> &'static str {
        match self {
            Self::Semanal => "02",
            Self::Catorcenal => "03",
            Self::Quincenal => "04",
            Self::Mensual => "05",
            Self::Decenal => "10",
        }
    }

    /// The name the calculator's body takes (`semanal`, …).
    pub fn nombre(self) -> &'static str {
        match self {
            Self::Semanal => "semanal",
            Self::Decenal => "decenal",
            Self::Catorcenal => "catorcenal",
            Self::Quincenal => "quincenal",
            Self::Mensual => "mensual",
        }
    }

    /// Days of the period tariff (Anexo 8: 7, 10, 15; catorcenal 14); `None` for the monthly
    /// tariff.
    pub fn dias_tarifa(self) -> Option<Decimal> {
        match self {
            Self::Semanal => Some(dec!(7)),
            Self::Decenal => Some(dec!(10)),
            Self::Catorcenal => Some(dec!(14)),
            Self::Quincenal => Some(dec!(15)),
            Self::Mensual => None,
        }
    }

    /// Largest `diasPagados` accepted (16 for a 16-day half month, 31 for a month).
    pub fn dias_maximos(self) -> Decimal {
        match self {
            Self::Semanal => dec!(7),
            Self::Decenal => dec!(10),
            Self::Catorcenal => dec!(14),
            Self::Quincenal => dec!(16),
            Self::Mensual => dec!(31),
        }
    }
}

impl FromStr for Periodicidad {
    type Err = ();
    fn from_str(texto: &str) -> Result<Self, ()> {
        match texto.trim().to_lowercase().as_str() {
            "semanal" | "02" => Ok(Self::Semanal),
            "decenal" | "10" => Ok(Self::Decenal),
            "catorcenal" | "03" => Ok(Self::Catorcenal),
            "quincenal" | "04" => Ok(Self::Quincenal),
            "mensual" | "05" => Ok(Self::Mensual),
            _ => Err(()),
        }
    }
}

/// Minimum-wage zone (CONASAMI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Zona {
    /// Resto del país.
    #[default]
    General,
    /// Zona Libre de la Frontera Norte.
    Frontera,
}

/// c_RiesgoPuesto class I–V (1–5). Employer-only cost (Art. 72 LSS); never changes the
/// worker's deductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct RiesgoPuesto(u8);

impl RiesgoPuesto {
    /// The class, 1 to 5.
    pub fn clase(self) -> u8 {
        self.0
    }
}

/// A validated extra perception with its taxable and exempt split decided or to be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PercepcionValidada {
    /// c_TipoPercepcion code.
    pub tipo: String,
    /// Description.
    pub concepto: String,
    /// Total amount.
    pub importe: Decimal,
    /// `Some((gravado, exento))` when the caller sent the split; `None` to compute it.
    pub reparto: Option<(Decimal, Decimal)>,
    /// Sundays worked (prima dominical).
    pub domingos: Option<u32>,
}

/// A validated extra deduction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeduccionValidada {
    /// c_TipoDeduccion code.
    pub tipo: String,
    /// Description.
    pub concepto: String,
    /// Amount.
    pub importe: Decimal,
}

/// A request that passed [`CalculoNomina::validar`]; the input of [`crate::calcular`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntradaValidada {
    salario_diario: Decimal,
    salario_diario_integrado: Decimal,
    dias_pagados: Decimal,
    periodicidad: Periodicidad,
    riesgo_puesto: RiesgoPuesto,
    percepciones: Vec<PercepcionValidada>,
    deducciones: Vec<DeduccionValidada>,
    zona: Zona,
    fecha_pago: Option<Date>,
}

impl EntradaValidada {
    /// Daily wage.
    pub fn salario_diario(&self) -> Decimal {
        self.salario_diario
    }
    /// Salario diario integrado (uncapped).
    pub fn salario_diario_integrado(&self) -> Decimal {
        self.salario_diario_integrado
    }
    /// Days paid.
    pub fn dias_pagados(&self) -> Decimal {
        self.dias_pagados
    }
    /// Periodicity.
    pub fn periodicidad(&self) -> Periodicidad {
        self.periodicidad
    }
    /// Risk class.
    pub fn riesgo_puesto(&self) -> RiesgoPuesto {
        self.riesgo_puesto
    }
    /// Extra perceptions.
    pub fn percepciones(&self) -> &[PercepcionValidada] {
        &self.percepciones
    }
    /// Extra deductions.
    pub fn deducciones(&self) -> &[DeduccionValidada] {
        &self.deducciones
    }
    /// Minimum-wage zone.
    pub fn zona(&self) -> Zona {
        self.zona
    }
    /// Payment date sent by the caller, if any.
    pub fn fecha_pago(&self) -> Option<Date> {
        self.fecha_pago
    }
}

/// Collects problems while validating.
struct Validador {
    problemas: Vec<Problema>,
}

impl Validador {
    fn problema(&mut self, campo: &str, mensaje: impl Into<String>) {
        self.problemas.push(Problema { campo: campo.to_owned(), mensaje: mensaje.into() });
    }

    /// Reads a decimal from a number or a string; records a problem when absent (if
    /// `requerido`) or unreadable.
    fn decimal(&mut self, campo: &Option<Campo>, ruta: &str, requerido: bool) -> Option<Decimal> {
        let texto = match campo {
            None => {
                if requerido {
                    self.problema(ruta, "es obligatorio");
                }
                return None;
            }
            Some(Campo::Numero(texto)) => texto.as_str(),
            Some(Campo::Texto(texto)) => texto.trim(),
            Some(Campo::Otro(tipo)) => {
                self.problema(ruta, format!("debe ser un número, no un {tipo}"));
                return None;
            }
        };
        // Only plain notation (`-?[0-9]+(.[0-9]+)?`): `1e28` or `1_000` are refused rather
        // than read, and at most 28 decimals reach `Decimal` so nothing is rounded silently
        // (each amount then checks its own decimals).
        let (entero, fraccion) = texto
            .strip_prefix('-')
            .unwrap_or(texto)
            .split_once('.')
            .map_or((texto.strip_prefix('-').unwrap_or(texto), None), |(entero, fraccion)| (entero, Some(fraccion)));
        let digitos = |parte: &str| !parte.is_empty() && parte.bytes().all(|b| b.is_ascii_digit());
        if !digitos(entero) || fraccion.is_some_and(|f| !digitos(f)) {
            self.problema(
                ruta,
                format!("«{texto}» no es un número decimal simple; escriba dígitos con punto decimal opcional, p. ej. 1000.50 (sin exponente, '_' ni ',')"),
            );
            return None;
        }
        if fraccion.map_or(0, str::len) > 28 || entero.trim_start_matches('0').len() > 15 {
            self.problema(ruta, format!("«{texto}» tiene demasiados dígitos"));
            return None;
        }
        match Decimal::from_str_exact(texto) {
            Ok(valor) => Some(valor.normalize()),
            Err(_) => {
                self.problema(ruta, format!("«{texto}» no es un número decimal válido"));
                None
            }
        }
    }

    /// An amount in MXN: at most two decimals, within `[0, MONTO_MAXIMO]`, and positive when
    /// `positivo`.
    fn monto(&mut self, campo: &Option<Campo>, ruta: &str, requerido: bool, positivo: bool) -> Option<Decimal> {
        let valor = self.decimal(campo, ruta, requerido)?;
        if valor.scale() > 2 {
            self.problema(ruta, "admite como máximo 2 decimales (centavos)");
            None
        } else if positivo && valor <= Decimal::ZERO {
            self.problema(ruta, "debe ser mayor que cero");
            None
        } else if valor < Decimal::ZERO {
            self.problema(ruta, "no puede ser negativo");
            None
        } else if valor > MONTO_MAXIMO {
            self.problema(ruta, format!("no puede exceder {MONTO_MAXIMO}"));
            None
        } else {
            Some(valor)
        }
    }

    fn texto(&mut self, campo: &Option<Campo>, ruta: &str) -> Option<String> {
        match campo {
            None => {
                self.problema(ruta, "es obligatorio");
                None
            }
            Some(Campo::Texto(texto)) if texto.trim().is_empty() => {
                self.problema(ruta, "no puede estar vacío");
                None
            }
            Some(Campo::Texto(texto) | Campo::Numero(texto)) => Some(texto.trim().to_owned()),
            Some(Campo::Otro(tipo)) => {
                self.problema(ruta, format!("debe ser un texto, no un {tipo}"));
                None
            }
        }
    }

    /// A SAT catalog key of three digits; numbers are zero-padded (2 → "002").
    fn clave_catalogo(&mut self, campo: &Option<Campo>, ruta: &str) -> Option<String> {
        let texto = self.texto(campo, ruta)?;
        let clave = match campo {
            Some(Campo::Numero(_)) if texto.len() < 3 && texto.bytes().all(|b| b.is_ascii_digit()) => {
                format!("{texto:0>3}")
            }
            _ => texto,
        };
        if clave.len() == 3 && clave.bytes().all(|b| b.is_ascii_digit()) && clave != "000" {
            Some(clave)
        } else {
            self.problema(ruta, "debe ser una clave de tres dígitos del catálogo del SAT, p. ej. \"002\"");
            None
        }
    }

    fn concepto(&mut self, campo: &Option<Campo>, ruta: &str) -> Option<String> {
        let texto = self.texto(campo, ruta)?;
        // Nómina 1.2: Concepto is `[^|]{1,100}`, and goes into an XML document, which cannot
        // carry control characters other than tab, LF and CR (XML 1.0 §2.2).
        if texto.chars().count() > 100 {
            self.problema(ruta, "admite como máximo 100 caracteres");
            return None;
        }
        if texto.contains('|') {
            self.problema(ruta, "no puede contener '|' (patrón del SAT [^|]{1,100})");
            return None;
        }
        if let Some(caracter) = texto
            .chars()
            .find(|c| matches!(c, '\u{0}'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}'))
        {
            self.problema(
                ruta,
                format!(
                    "contiene el carácter de control U+{:04X}, que un XML no admite; elimínelo",
                    u32::from(caracter)
                ),
            );
            return None;
        }
        Some(texto)
    }
}

impl CalculoNomina {
    /// Checks every field and returns the typed value, or every problem found (never just the
    /// first).
    ///
    /// # Errors
    /// The list of [`Problema`]s, each with the JSON path of its field.
    pub fn validar(&self) -> Result<EntradaValidada, Vec<Problema>> {
        let mut v = Validador { problemas: Vec::new() };

        let salario_diario = v.monto(&self.salario_diario, "salarioDiario", true, true);
        let salario_diario_integrado = v.monto(&self.salario_diario_integrado, "salarioDiarioIntegrado", true, true);
        // Art. 27 LSS: the integrated wage adds benefits to the daily wage, never less.
        if let (Some(sd), Some(sdi)) = (salario_diario, salario_diario_integrado)
            && sdi < sd
        {
            v.problema(
                "salarioDiarioIntegrado",
                format!(
                    "no puede ser menor que salarioDiario ({sd}); el SDI integra prestaciones al salario (art. 27 LSS)"
                ),
            );
        }

        let periodicidad = match v.texto(&self.periodicidad, "periodicidad") {
            None => None,
            Some(texto) => match texto.parse::<Periodicidad>() {
                Ok(p) => Some(p),
                Err(()) => {
                    v.problema(
                        "periodicidad",
                        format!("«{texto}» no es válida; use semanal, decenal, catorcenal, quincenal o mensual"),
                    );
                    None
                }
            },
        };

        let dias_pagados = v.decimal(&self.dias_pagados, "diasPagados", true).and_then(|dias| {
            let maximo = periodicidad.map_or(dec!(31), Periodicidad::dias_maximos);
            if dias <= Decimal::ZERO {
                v.problema("diasPagados", "debe ser mayor que cero");
                None
            } else if dias.scale() > 3 {
                // Nómina 1.2 NumDiasPagados has at most three decimals.
                v.problema("diasPagados", "admite como máximo 3 decimales");
                None
            } else if dias > maximo {
                let nombre = periodicidad
                    .map_or("cualquier periodicidad".to_owned(), |p| format!("periodicidad {:?}", p).to_lowercase());
                v.problema("diasPagados", format!("no puede exceder {maximo} en {nombre}"));
                None
            } else {
                Some(dias)
            }
        });

        let riesgo_puesto = v.decimal(&self.riesgo_puesto, "riesgoPuesto", true).and_then(|valor| {
            // c_RiesgoPuesto 1–5 = classes I–V (Art. 73 LSS, RACERF).
            match u8::try_from(valor.trunc().mantissa()) {
                Ok(clase) if valor.fract().is_zero() && (1..=5).contains(&clase) => Some(RiesgoPuesto(clase)),
                _ => {
                    v.problema("riesgoPuesto", "debe ser la clase de riesgo 1 a 5 (I a V)");
                    None
                }
            }
        });

        let zona = match &self.zona {
            None => Some(Zona::General),
            Some(_) => match v.texto(&self.zona, "zona") {
                None => None,
                Some(texto) => match texto.to_lowercase().as_str() {
                    "general" => Some(Zona::General),
                    "frontera" | "zlfn" => Some(Zona::Frontera),
                    _ => {
                        v.problema("zona", "debe ser \"general\" o \"frontera\"");
                        None
                    }
                },
            },
        };

        let fecha_pago = match &self.fecha_pago {
            None => Some(None),
            Some(_) => v.texto(&self.fecha_pago, "fechaPago").and_then(|texto| {
                let formato = time::macros::format_description!("[year]-[month]-[day]");
                match Date::parse(&texto, formato) {
                    Err(_) => {
                        v.problema("fechaPago", "debe ser una fecha AAAA-MM-DD");
                        None
                    }
                    Ok(fecha) => match Parametros::vigentes(fecha) {
                        Ok(_) => Some(Some(fecha)),
                        Err(e) => {
                            v.problema("fechaPago", e.to_string());
                            None
                        }
                    },
                }
            }),
        };

        let mut percepciones = Vec::new();
        for (i, cruda) in self.percepciones.iter().flatten().enumerate() {
            if let Some(p) = validar_percepcion(&mut v, cruda, &format!("percepciones[{i}]")) {
                percepciones.push(p);
            }
        }
        let mut deducciones = Vec::new();
        for (i, cruda) in self.deducciones.iter().flatten().enumerate() {
            let ruta = format!("deducciones[{i}]");
            let tipo = v.clave_catalogo(&cruda.tipo, &format!("{ruta}.tipo"));
            if let Some(t) = &tipo
                && (t == "001" || t == "002")
            {
                v.problema(
                    &format!("{ruta}.tipo"),
                    "001 (seguridad social) y 002 (ISR) los calcula el servicio; no se envían",
                );
            }
            let concepto = v.concepto(&cruda.concepto, &format!("{ruta}.concepto"));
            let importe = v.monto(&cruda.importe, &format!("{ruta}.importe"), true, true);
            if let (Some(tipo), Some(concepto), Some(importe)) = (tipo, concepto, importe) {
                deducciones.push(DeduccionValidada { tipo, concepto, importe });
            }
        }

        match (salario_diario, salario_diario_integrado, dias_pagados, periodicidad, riesgo_puesto, zona, fecha_pago) {
            (Some(sd), Some(sdi), Some(dias), Some(periodicidad), Some(riesgo), Some(zona), Some(fecha))
                if v.problemas.is_empty() =>
            {
                Ok(EntradaValidada {
                    salario_diario: sd,
                    salario_diario_integrado: sdi,
                    dias_pagados: dias,
                    periodicidad,
                    riesgo_puesto: riesgo,
                    percepciones,
                    deducciones,
                    zona,
                    fecha_pago: fecha,
                })
            }
            // Every `None` above pushed a problem, so the list is not empty here.
            _ => Err(v.problemas),
        }
    }
}

/// Types whose exemption depends on years of service (Art. 93 fr. XIII LISR).
const TIPOS_SEPARACION: [&str; 3] = ["022", "023", "025"];

fn validar_percepcion(v: &mut Validador, cruda: &PercepcionCruda, ruta: &str) -> Option<PercepcionValidada> {
    let tipo = v.clave_catalogo(&cruda.tipo, &format!("{ruta}.tipo"));
    let concepto = v.concepto(&cruda.concepto, &format!("{ruta}.concepto"));
    let ruta_importe = format!("{ruta}.importe");
    let gravado = v.monto(&cruda.gravado, &format!("{ruta}.gravado"), false, false);
    let exento = v.monto(&cruda.exento, &format!("{ruta}.exento"), false, false);
    let con_reparto = cruda.gravado.is_some() && cruda.exento.is_some();
    let importe = v.monto(&cruda.importe, &ruta_importe, !con_reparto, true);
    let domingos = match &cruda.domingos {
        None => None,
        Some(_) => {
            let ruta_domingos = format!("{ruta}.domingos");
            let valor = v.decimal(&cruda.domingos, &ruta_domingos, false)?;
            match u32::try_from(valor.trunc().mantissa()) {
                Ok(n) if valor.fract().is_zero() && (1..=5).contains(&n) => Some(n),
                _ => {
                    v.problema(&ruta_domingos, "debe ser un entero de 1 a 5");
                    return None;
                }
            }
        }
    };
    let tipo = tipo?;
    let concepto = concepto?;

    let (importe, reparto) = match (importe, gravado, exento) {
        (importe, Some(g), Some(e)) => {
            let suma = g + e;
            if suma.is_zero() {
                // Nómina 1.2 Revision E (NOM75/NOM110): gravado and exento cannot both be 0.
                v.problema(&format!("{ruta}.gravado"), "gravado y exento no pueden ser ambos cero");
                return None;
            }
            if let Some(importe) = importe
                && importe != suma
            {
                v.problema(&ruta_importe, format!("debe ser igual a gravado + exento ({suma})"));
                return None;
            }
            (suma, Some((g, e)))
        }
        (Some(importe), Some(g), None) if cruda.exento.is_none() => {
            if g > importe {
                v.problema(&format!("{ruta}.gravado"), "no puede exceder el importe");
                return None;
            }
            (importe, Some((g, importe - g)))
        }
        (Some(importe), None, Some(e)) if cruda.gravado.is_none() => {
            if e > importe {
                v.problema(&format!("{ruta}.exento"), "no puede exceder el importe");
                return None;
            }
            (importe, Some((importe - e, e)))
        }
        (Some(importe), None, None) if cruda.gravado.is_none() && cruda.exento.is_none() => {
            if TIPOS_SEPARACION.contains(&tipo.as_str()) {
                v.problema(
                    &format!("{ruta}.exento"),
                    "para pagos por separación (022, 023, 025) envíe gravado y exento: la exención depende de los años de servicio (art. 93 fr. XIII LISR)",
                );
                return None;
            }
            if tipo == "020" && domingos.is_none() {
                v.problema(
                    &format!("{ruta}.domingos"),
                    "la prima dominical requiere el número de domingos laborados (o gravado y exento)",
                );
                return None;
            }
            (importe, None)
        }
        // Some field was present but unreadable; its problem is already recorded.
        _ => return None,
    };
    Some(PercepcionValidada { tipo, concepto, importe, reparto, domingos })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desde_json(cuerpo: &str) -> CalculoNomina {
        serde_json::from_str(cuerpo).unwrap()
    }

    fn campos(cuerpo: &str) -> Vec<String> {
        desde_json(cuerpo).validar().unwrap_err().into_iter().map(|p| p.campo).collect()
    }

    const VALIDO: &str = r#"{"salarioDiario": 500, "salarioDiarioIntegrado": "522.47",
        "diasPagados": 15, "periodicidad": "quincenal", "riesgoPuesto": "2"}"#;

    #[test]
    fn valido_minimo() {
        let e = desde_json(VALIDO).validar().unwrap();
        assert_eq!(e.salario_diario(), dec!(500));
        assert_eq!(e.salario_diario_integrado(), dec!(522.47));
        assert_eq!(e.periodicidad(), Periodicidad::Quincenal);
        assert_eq!(e.riesgo_puesto().clase(), 2);
        assert_eq!(e.zona(), Zona::General);
        assert_eq!(e.fecha_pago(), None);
    }

    #[test]
    fn faltan_todos_los_obligatorios() {
        assert_eq!(
            campos("{}"),
            ["salarioDiario", "salarioDiarioIntegrado", "periodicidad", "diasPagados", "riesgoPuesto"]
        );
    }

    #[test]
    fn salarios_invalidos() {
        assert_eq!(
            campos(
                r#"{"salarioDiario": -1, "salarioDiarioIntegrado": 0, "diasPagados": 7,
                    "periodicidad": "semanal", "riesgoPuesto": 1}"#
            ),
            ["salarioDiario", "salarioDiarioIntegrado"]
        );
        assert_eq!(
            campos(
                r#"{"salarioDiario": 500, "salarioDiarioIntegrado": 499.99, "diasPagados": 7,
                    "periodicidad": "semanal", "riesgoPuesto": 1}"#
            ),
            ["salarioDiarioIntegrado"]
        );
        assert_eq!(
            campos(
                r#"{"salarioDiario": "500.001", "salarioDiarioIntegrado": true, "diasPagados": 7,
                    "periodicidad": "semanal", "riesgoPuesto": 1}"#
            ),
            ["salarioDiario", "salarioDiarioIntegrado"]
        );
        assert_eq!(
            campos(
                r#"{"salarioDiario": "abc", "salarioDiarioIntegrado": 1e12, "diasPagados": 7,
                    "periodicidad": "semanal", "riesgoPuesto": 1}"#
            ),
            ["salarioDiario", "salarioDiarioIntegrado"]
        );
    }

    #[test]
    fn numeros_exactos_y_solo_en_notacion_simple() {
        // Trailing zeros are not extra decimals.
        let e = desde_json(
            r#"{"salarioDiario": 500.000, "salarioDiarioIntegrado": 522.47, "diasPagados": "7",
                "periodicidad": "SEMANAL", "riesgoPuesto": 1}"#,
        )
        .validar()
        .unwrap();
        assert_eq!(e.salario_diario(), dec!(500));
        assert_eq!(e.salario_diario_integrado(), dec!(522.47));
        // Exponents, `_`, `+` and `,` are refused (issue 11: only plain decimal notation).
        for malo in ["5.2247e2", "\"5.2247E2\"", "\"1_000\"", "\"+500\"", "\"1,000\"", "\"500.\""] {
            let json = format!(
                r#"{{"salarioDiario": 500, "salarioDiarioIntegrado": {malo}, "diasPagados": 7,
                    "periodicidad": "semanal", "riesgoPuesto": 1}}"#
            );
            assert_eq!(campos(&json), ["salarioDiarioIntegrado"], "{malo}");
        }
    }

    #[test]
    fn periodicidad_y_dias() {
        let base = |periodicidad: &str, dias: &str| {
            format!(
                r#"{{"salarioDiario": 500, "salarioDiarioIntegrado": 520, "diasPagados": {dias},
                    "periodicidad": {periodicidad}, "riesgoPuesto": 1}}"#
            )
        };
        assert_eq!(campos(&base("\"anual\"", "7")), ["periodicidad"]);
        assert_eq!(campos(&base("\"semanal\"", "8")), ["diasPagados"]);
        assert_eq!(campos(&base("\"quincenal\"", "17")), ["diasPagados"]);
        assert_eq!(campos(&base("\"mensual\"", "32")), ["diasPagados"]);
        assert_eq!(campos(&base("\"mensual\"", "0")), ["diasPagados"]);
        assert_eq!(campos(&base("\"mensual\"", "1.0005")), ["diasPagados"]);
        assert_eq!(campos(&base("\"anual\"", "40")), ["periodicidad", "diasPagados"]);
        for (texto, esperada) in [
            ("\" Decenal \"", Periodicidad::Decenal),
            ("\"CATORCENAL\"", Periodicidad::Catorcenal),
            ("\"04\"", Periodicidad::Quincenal),
            ("\"05\"", Periodicidad::Mensual),
        ] {
            let e = desde_json(&base(texto, "10")).validar().unwrap();
            assert_eq!(e.periodicidad(), esperada);
        }
        let e = desde_json(&base("\"quincenal\"", "16")).validar().unwrap();
        assert_eq!(e.dias_pagados(), dec!(16));
        let e = desde_json(&base("\"semanal\"", "6.5")).validar().unwrap();
        assert_eq!(e.dias_pagados(), dec!(6.5));
    }

    #[test]
    fn riesgo_zona_fecha() {
        let base = |riesgo: &str, extra: &str| {
            format!(
                r#"{{"salarioDiario": 500, "salarioDiarioIntegrado": 520, "diasPagados": 7,
                    "periodicidad": "semanal", "riesgoPuesto": {riesgo} {extra}}}"#
            )
        };
        for malo in ["0", "6", "\"99\"", "2.5", "\"V\"", "-1"] {
            assert_eq!(campos(&base(malo, "")), ["riesgoPuesto"], "{malo}");
        }
        assert_eq!(desde_json(&base("5", "")).validar().unwrap().riesgo_puesto().clase(), 5);
        assert_eq!(campos(&base("1", r#", "zona": "sur""#)), ["zona"]);
        let e = desde_json(&base("1", r#", "zona": "Frontera""#)).validar().unwrap();
        assert_eq!(e.zona(), Zona::Frontera);
        assert_eq!(campos(&base("1", r#", "fechaPago": "15/03/2026""#)), ["fechaPago"]);
        assert_eq!(campos(&base("1", r#", "fechaPago": "2024-12-31""#)), ["fechaPago"]);
        let e = desde_json(&base("1", r#", "fechaPago": "2026-03-15""#)).validar().unwrap();
        assert_eq!(e.fecha_pago(), Some(time::macros::date!(2026 - 03 - 15)));
        // null is the same as absent; unknown fields are ignored.
        let e = desde_json(&base("1", r#", "zona": null, "otro": 1"#)).validar().unwrap();
        assert_eq!(e.zona(), Zona::General);
    }

    #[test]
    fn percepciones_con_ruta() {
        let cuerpo = r#"{"salarioDiario": 500, "salarioDiarioIntegrado": 520, "diasPagados": 7,
            "periodicidad": "semanal", "riesgoPuesto": 1, "percepciones": [
              {"tipo": "002", "concepto": "Aguinaldo", "importe": 1000},
              {"tipo": 2, "concepto": "Aguinaldo", "importe": -5},
              {"tipo": "38", "concepto": "", "importe": 10},
              {"tipo": "019", "concepto": "Horas extra", "importe": 100, "gravado": 60, "exento": 50},
              {"tipo": "020", "concepto": "Prima dominical", "importe": 100},
              {"tipo": "023", "concepto": "Separación", "importe": 100},
              {"tipo": "038", "concepto": "Bono", "gravado": 0, "exento": 0},
              {"tipo": "038", "concepto": "Bono", "importe": 10, "gravado": 11},
              {"tipo": "020", "concepto": "Prima dominical", "importe": 100, "domingos": 0}
            ]}"#;
        assert_eq!(
            campos(cuerpo),
            [
                "percepciones[1].importe",
                "percepciones[2].tipo",
                "percepciones[2].concepto",
                "percepciones[3].importe",
                "percepciones[4].domingos",
                "percepciones[5].exento",
                "percepciones[6].gravado",
                "percepciones[7].gravado",
                "percepciones[8].domingos",
            ]
        );
    }

    #[test]
    fn percepciones_validas() {
        let cuerpo = r#"{"salarioDiario": 500, "salarioDiarioIntegrado": 520, "diasPagados": 7,
            "periodicidad": "semanal", "riesgoPuesto": 1, "percepciones": [
              {"tipo": 2, "concepto": "Aguinaldo", "importe": "1000.50"},
              {"tipo": "019", "concepto": "Horas extra", "gravado": 60, "exento": "40"},
              {"tipo": "038", "concepto": "Bono", "importe": 100, "gravado": 70},
              {"tipo": "020", "concepto": "Prima dominical", "importe": 100, "domingos": "2"}
            ]}"#;
        let e = desde_json(cuerpo).validar().unwrap();
        let p = e.percepciones();
        assert_eq!(p[0].tipo, "002");
        assert_eq!((p[0].importe, p[0].reparto), (dec!(1000.50), None));
        assert_eq!((p[1].importe, p[1].reparto), (dec!(100), Some((dec!(60), dec!(40)))));
        assert_eq!(p[2].reparto, Some((dec!(70), dec!(30))));
        assert_eq!(p[3].domingos, Some(2));
    }

    #[test]
    fn deducciones_con_ruta() {
        let cuerpo = r#"{"salarioDiario": 500, "salarioDiarioIntegrado": 520, "diasPagados": 7,
            "periodicidad": "semanal", "riesgoPuesto": 1, "deducciones": [
              {"tipo": "011", "concepto": "Fonacot", "importe": "250.00"},
              {"tipo": "002", "concepto": "ISR", "importe": 10},
              {"tipo": "004", "concepto": "Otro"},
              {"tipo": "abc", "concepto": "Otro", "importe": 0}
            ]}"#;
        assert_eq!(
            campos(cuerpo),
            ["deducciones[1].tipo", "deducciones[2].importe", "deducciones[3].tipo", "deducciones[3].importe"]
        );
    }
}
