//! Validation of a comprobante against Anexo 20 (CFDI 4.0), the Guía de llenado and the
//! SAT catalogs. Every problem is returned at once, each with a stable rule id (`regla`)
//! and a field path (`campo`).
//!
//! `regla` is SAT's code from its validation matrix (`CFDI40158`, `CRP20104`, `NOM12`) where
//! the matrix has one for the check, and otherwise the project's own id, which starts with
//! `TIMBRA_` and never with `CFDI40`. `crates/cfdi/REGLAS.md` lists every rule, its source and
//! the matrix rules left to the PAC (those that need SAT's registry of taxpayers).

// Each SAT rule is written as its own condition inside the branch that makes it apply, so a
// reader can match code to rule text; collapsing them would merge unrelated conditions.
#![allow(clippy::collapsible_if, clippy::collapsible_match)]

use rust_decimal::{Decimal, RoundingStrategy};
use time::{Date, Duration, Month, PrimitiveDateTime, Time};

use crate::catalogos::{
    self, Catalogos, CompatibilidadUso, DatosCodigoPostal, EstimuloFrontera, Exportacion, FormaPago, Impuesto, Incluir,
    Meses, MetodoPago, ObjetoImp, Periodicidad, RegimenFiscal, TipoDeComprobante, TipoFactor, TipoRelacion, UsoCfdi,
};
use crate::complementos;
use crate::construccion::redondear;
use crate::model::{Comprobante, Concepto};
use crate::numero::Numero;
use crate::timbre::uuid_valido;
use crate::tipos::{
    CampoTexto, LIMITE_IMPORTE, NOMBRE_PUBLICO_GENERAL, RFC_EXTRANJERO, RFC_PUBLICO_GENERAL, Rfc, TextoSat,
    es_rfc_generico,
};

/// One problem found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problema {
    /// SAT's matrix code (`CFDI40161`) or the project's stable id (`TIMBRA_TEXTO`).
    pub regla: &'static str,
    /// Field path, e.g. `Receptor.UsoCFDI` or `Conceptos[2].Impuestos.Traslados[0].Importe`.
    pub campo: String,
    /// Human-readable explanation (Spanish, as SAT's messages).
    pub mensaje: String,
}

/// Result of [`validar`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Informe {
    /// Every problem found; empty means valid.
    pub problemas: Vec<Problema>,
    /// Checks not run because a large catalog was not provided (see [`Catalogos`]).
    pub omitidas: Vec<String>,
}

impl Informe {
    /// No problems.
    pub fn es_valido(&self) -> bool {
        self.problemas.is_empty()
    }
}

/// Collects the problems; complement modules report theirs through it.
pub(crate) struct Validador<'a> {
    informe: Informe,
    pub(crate) catalogos: &'a dyn Catalogos,
    /// The document's date (Fecha's), against which catalog entries must be in force.
    dia: Option<Date>,
}

impl Validador<'_> {
    /// Reports one problem.
    pub(crate) fn problema(&mut self, regla: &'static str, campo: impl Into<String>, mensaje: impl Into<String>) {
        self.informe.problemas.push(Problema { regla, campo: campo.into(), mensaje: mensaje.into() });
    }

    /// Checks `clave` against a large catalog the [`Catalogos`] may hold by id
    /// (`"cartaporte/c_MaterialPeligroso"`): reports `regla` when it is not there, and lists the
    /// check as skipped (`omitida`, by catalog and attribute) when the catalog is not loaded.
    pub(crate) fn en_catalogo(
        &mut self,
        regla: &'static str,
        campo: impl Into<String>,
        catalogo: &str,
        atributo: &str,
        clave: &str,
    ) {
        match self.catalogos.en_catalogo(catalogo, clave) {
            Some(false) => {
                let nombre = catalogo.rsplit('/').next().unwrap_or(catalogo);
                self.problema(regla, campo, format!("«{clave}» no está en el catálogo {nombre}"));
            }
            Some(true) => {}
            None => self.omitida(&format!("{catalogo} ({atributo})")),
        }
    }

    pub(crate) fn omitida(&mut self, descripcion: &str) {
        if !self.informe.omitidas.iter().any(|o| o == descripcion) {
            self.informe.omitidas.push(descripcion.to_owned());
        }
    }

    /// Parses a number; reports TIMBRA_NUMERO when it is not one or when it has more than the
    /// 18 integer digits of tdCFDI `t_Importe` (which also keeps the sums and products below
    /// from overflowing).
    fn numero(&mut self, campo: &str, numero: &Numero) -> Option<Decimal> {
        match numero.valor() {
            Ok(valor) if valor.abs() >= LIMITE_IMPORTE => {
                self.problema(
                    "TIMBRA_NUMERO",
                    campo,
                    format!("«{}» excede los 18 dígitos enteros de un importe (t_Importe)", numero.texto()),
                );
                None
            }
            Ok(valor) => Some(valor),
            Err(_) => {
                self.problema("TIMBRA_NUMERO", campo, format!("«{}» no es un número decimal", numero.texto()));
                None
            }
        }
    }

    /// Anexo 20: amounts carry at most the decimals of the currency (`regla` names the field's
    /// code in the matrix: CFDI40107 SubTotal, CFDI40112 Descuento, …).
    fn decimales(&mut self, regla: &'static str, campo: &str, numero: &Numero, maximo: u32) {
        if numero.decimales() > maximo {
            self.problema(
                regla,
                campo,
                format!(
                    "«{}» tiene más de {maximo} decimales; la moneda admite {maximo}, redondee el importe",
                    numero.texto()
                ),
            );
        }
    }

    /// A free text against its SAT attribute's pattern and length (TIMBRA_TEXTO).
    fn texto(&mut self, campo: &str, texto: &str, atributo: CampoTexto) {
        if let Err(error) = TextoSat::new(atributo, texto) {
            self.problema("TIMBRA_TEXTO", campo, format!("{campo} {error}"));
        }
    }

    fn catalogo<T>(
        &mut self,
        regla: &'static str,
        campo: &str,
        codigo: &str,
        nombre: &str,
        buscar: fn(&str) -> Option<T>,
    ) -> Option<T> {
        let encontrado = buscar(codigo);
        if encontrado.is_none() {
            self.problema(regla, campo, format!("«{codigo}» no está en el catálogo {nombre}"));
        }
        encontrado
    }
}

/// RFC pattern of tdCFDI `t_RFC` (the one rule: [`Rfc::new`]).
pub fn rfc_valido(rfc: &str) -> bool {
    Rfc::new(rfc).is_ok()
}

/// Whether the RFC belongs to a persona física (13 characters) rather than a moral (12).
pub fn es_persona_fisica(rfc: &str) -> bool {
    rfc.chars().count() == 13
}

pub(crate) fn fecha_valida(fecha: &str) -> bool {
    let b = fecha.as_bytes();
    b.len() == 19
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            _ => c.is_ascii_digit(),
        })
}

fn diez_a_la_menos(decimales: u32) -> Decimal {
    Decimal::new(1, decimales.min(28))
}

/// Anexo 20 lower limit: `(a − 10^−da/2) × (b − 10^−db/2)`, truncated to `decimales`;
/// `None` when the product overflows `Decimal`.
fn limite_inferior(a: Decimal, da: u32, b: Decimal, db: u32, decimales: u32) -> Option<Decimal> {
    let medio = Decimal::new(5, 1);
    let producto = (a - diez_a_la_menos(da) * medio).checked_mul(b - diez_a_la_menos(db) * medio)?;
    Some(producto.round_dp_with_strategy(decimales, RoundingStrategy::ToNegativeInfinity))
}

/// Anexo 20 upper limit: `(a + 10^−da/2) × (b + 10^−db/2)`, rounded up to `decimales`;
/// `None` when the product overflows `Decimal`.
fn limite_superior(a: Decimal, da: u32, b: Decimal, db: u32, decimales: u32) -> Option<Decimal> {
    let medio = Decimal::new(5, 1);
    let producto = (a + diez_a_la_menos(da) * medio).checked_mul(b + diez_a_la_menos(db) * medio)?;
    Some(producto.round_dp_with_strategy(decimales, RoundingStrategy::ToPositiveInfinity))
}

/// `Fecha` (`AAAA-MM-DDThh:mm:ss`) as a date and time; `None` when it is not one.
pub fn leer_fecha(fecha: &str) -> Option<PrimitiveDateTime> {
    if !fecha_valida(fecha) {
        return None;
    }
    let numero = |rango: std::ops::Range<usize>| fecha.get(rango).and_then(|t| t.parse::<u16>().ok());
    let mes = Month::try_from(u8::try_from(numero(5..7)?).ok()?).ok()?;
    let dia = Date::from_calendar_date(i32::from(numero(0..4)?), mes, u8::try_from(numero(8..10)?).ok()?).ok()?;
    let hora = Time::from_hms(
        u8::try_from(numero(11..13)?).ok()?,
        u8::try_from(numero(14..16)?).ok()?,
        u8::try_from(numero(17..19)?).ok()?,
    )
    .ok()?;
    Some(PrimitiveDateTime::new(dia, hora))
}

/// How far ahead of the moment of certification a `Fecha` may be: clocks of issuer and PAC
/// differ by seconds to minutes.
pub const TOLERANCIA_FUTURO: Duration = Duration::minutes(5);

/// SAT's window between `Fecha` and the certification (RMF, obligations of the PAC; PACs
/// answer code 401 when it is exceeded).
pub const PLAZO_CERTIFICACION: Duration = Duration::hours(72);

/// What validation needs besides the document and the catalogs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Contexto {
    /// The moment of certification as wall-clock time of LugarExpedicion's zone (the form of
    /// `Fecha`): now when stamping or in a dry run, the TFD's `FechaTimbrado` for a stamped
    /// document. `None` skips the rules on Fecha's range (they are listed in `omitidas`).
    pub certificacion: Option<PrimitiveDateTime>,
}

/// Validates everything at once. Large catalogs come from `catalogos`
/// ([`catalogos::SinCatalogos`] skips those checks and lists them in `omitidas`). Fecha's range
/// is not checked (no moment of certification): see [`validar_con`].
pub fn validar(c: &Comprobante, catalogos: &dyn Catalogos) -> Informe {
    validar_con(c, catalogos, Contexto::default())
}

/// [`validar`] with the moment of certification, so Fecha's range is checked too.
pub fn validar_con(c: &Comprobante, catalogos: &dyn Catalogos, contexto: Contexto) -> Informe {
    let mut v = Validador { informe: Informe::default(), catalogos, dia: leer_fecha(&c.fecha).map(|f| f.date()) };
    validar_encabezado(&mut v, c);
    validar_fecha(&mut v, c, contexto);
    validar_iva_frontera(&mut v, c);
    validar_partes(&mut v, c);
    validar_importes(&mut v, c);
    v.informe
}

/// Fecha against the moment of certification: not in the future (beyond
/// [`TOLERANCIA_FUTURO`]) and not older than [`PLAZO_CERTIFICACION`]. SAT's matrix has no
/// CFDI40 code for it (PACs answer 401), hence project ids.
fn validar_fecha(v: &mut Validador<'_>, c: &Comprobante, contexto: Contexto) {
    let Some(fecha) = leer_fecha(&c.fecha) else { return };
    let Some(certificacion) = contexto.certificacion else {
        v.omitida("Fecha (plazo de 72 horas: sin hora de certificación)");
        return;
    };
    if fecha > certificacion + TOLERANCIA_FUTURO {
        v.problema(
            "TIMBRA_FECHA_FUTURA",
            "Fecha",
            format!("«{}» es posterior a la hora local de expedición; use la fecha y hora actuales", c.fecha),
        );
    } else if fecha < certificacion - PLAZO_CERTIFICACION {
        v.problema(
            "TIMBRA_FECHA_72_HORAS",
            "Fecha",
            format!("«{}» tiene más de 72 horas; el SAT solo certifica comprobantes de las últimas 72 horas, emita uno con fecha actual", c.fecha),
        );
    }
}

fn validar_encabezado(v: &mut Validador<'_>, c: &Comprobante) {
    if c.version != "4.0" {
        v.problema("TIMBRA_VERSION", "Version", "debe ser 4.0");
    }
    if !fecha_valida(&c.fecha) {
        v.problema("CFDI40101", "Fecha", "formato AAAA-MM-DDThh:mm:ss requerido");
    }
    let tipo = v.catalogo(
        "CFDI40121",
        "TipoDeComprobante",
        &c.tipo_de_comprobante,
        "c_TipoDeComprobante",
        TipoDeComprobante::desde_codigo,
    );
    v.catalogo("CFDI40123", "Exportacion", &c.exportacion, "c_Exportacion", Exportacion::desde_codigo);
    let forma = c
        .forma_pago
        .as_deref()
        .and_then(|f| v.catalogo("CFDI40104", "FormaPago", f, "c_FormaPago", FormaPago::desde_codigo));
    let metodo = c
        .metodo_pago
        .as_deref()
        .and_then(|m| v.catalogo("CFDI40124", "MetodoPago", m, "c_MetodoPago", MetodoPago::desde_codigo));
    match tipo {
        // Anexo 20, FormaPago / MetodoPago: required for Ingreso and Egreso.
        Some(TipoDeComprobante::Ingreso | TipoDeComprobante::Egreso) => {
            if c.forma_pago.is_none() {
                v.problema("CFDI40104", "FormaPago", "requerido en comprobantes de ingreso y egreso");
            }
            if c.metodo_pago.is_none() {
                v.problema(
                    "TIMBRA_METODO_PAGO_REQUERIDO",
                    "MetodoPago",
                    "requerido en comprobantes de ingreso y egreso",
                );
            }
        }
        // Anexo 20: T and P carry neither FormaPago nor MetodoPago.
        Some(TipoDeComprobante::Traslado | TipoDeComprobante::Pago) => {
            if c.forma_pago.is_some() {
                v.problema("CFDI40103", "FormaPago", "no debe existir en comprobantes T y P");
            }
            if c.metodo_pago.is_some() {
                v.problema("CFDI40125", "MetodoPago", "no debe existir en comprobantes T y P");
            }
        }
        _ => {}
    }
    // Anexo 20, MetodoPago: PPD requires FormaPago 99; PUE may not use 99.
    match (metodo, forma) {
        (Some(MetodoPago::Ppd), Some(f)) if f != FormaPago::PorDefinir => {
            v.problema("CFDI40105", "FormaPago", "con MetodoPago PPD la FormaPago debe ser 99 (Por definir)");
        }
        (Some(MetodoPago::Pue), Some(FormaPago::PorDefinir)) => {
            v.problema(
                "TIMBRA_PUE_FORMA_99",
                "FormaPago",
                "con MetodoPago PUE la FormaPago no puede ser 99 (Por definir)",
            );
        }
        _ => {}
    }
    // Moneda and TipoCambio.
    let moneda = catalogos::moneda(&c.moneda);
    if moneda.is_none() {
        v.problema("CFDI40113", "Moneda", format!("«{}» no está en el catálogo c_Moneda", c.moneda));
    }
    match (c.moneda.as_str(), &c.tipo_cambio) {
        ("XXX", Some(_)) => v.problema("CFDI40116", "TipoCambio", "no debe existir con Moneda XXX; quítelo"),
        ("MXN", Some(tc)) if tc.valor().ok() != Some(Decimal::ONE) => {
            v.problema("CFDI40114", "TipoCambio", "con Moneda MXN debe ser 1 (u omitirse)")
        }
        ("MXN" | "XXX", _) => {}
        (_, None) if moneda.is_some() => v.problema(
            "CFDI40115",
            "TipoCambio",
            "requerido cuando Moneda no es MXN ni XXX: registre el tipo de cambio del día",
        ),
        _ => {}
    }
    // Matrix CFDI40117: TipoCambio's pattern (cfdv40.xsd: a decimal of at most 6 decimals, at
    // least 0.000001).
    if let Some(tc) = &c.tipo_cambio {
        if !tipo_cambio_valido(tc.texto()) {
            v.problema(
                "CFDI40117",
                "TipoCambio",
                format!("«{}» no cumple el patrón: un número mayor que cero con hasta 6 decimales", tc.texto()),
            );
        }
    }
    // Anexo 20, TipoDeComprobante: a Traslado totals zero.
    if matches!(tipo, Some(TipoDeComprobante::Traslado)) && c.total.valor().ok() != Some(Decimal::ZERO) {
        v.problema("TIMBRA_TRASLADO_TOTAL", "Total", "un comprobante de traslado tiene Total 0");
    }
    // Matrix CFDI40109: SubTotal of a T (or P) is zero; on a P the Pagos 2.0 matrix's CRP20103
    // reports it (complementos/pagos/validacion.rs), so it is not reported twice.
    if matches!(tipo, Some(TipoDeComprobante::Traslado)) && c.sub_total.valor().ok() != Some(Decimal::ZERO) {
        v.problema("CFDI40109", "SubTotal", "un comprobante de traslado tiene SubTotal 0");
    }
    // What each complement's guide requires of the comprobante (Pagos 2.0: tipo P; Nómina
    // 1.2: tipo N).
    complementos::validar(v, c, tipo);
    if let Some(global) = &c.informacion_global {
        v.catalogo(
            "CFDI40131",
            "InformacionGlobal.Periodicidad",
            &global.periodicidad,
            "c_Periodicidad",
            Periodicidad::desde_codigo,
        );
        let periodicidad = Periodicidad::desde_codigo(&global.periodicidad);
        let meses = v.catalogo("CFDI40133", "InformacionGlobal.Meses", &global.meses, "c_Meses", Meses::desde_codigo);
        // Matrix CFDI40132: the bimestral periodicity (05) is the RIF's (régimen 621).
        if global.periodicidad == "05" && c.emisor.regimen_fiscal != "621" {
            v.problema(
                "CFDI40132",
                "InformacionGlobal.Periodicidad",
                format!(
                    "la periodicidad 05 (bimestral) solo aplica al régimen 621 del emisor, no al {}; use la periodicidad de sus operaciones (01 a 04)",
                    c.emisor.regimen_fiscal
                ),
            );
        }
        // Matrix CFDI40134 / CFDI40135: months 01-12 go with periodicities 01-04, bimesters 13-18
        // with 05.
        if let (Some(_), Some(_)) = (periodicidad, meses) {
            let bimestre = matches!(global.meses.as_str(), "13" | "14" | "15" | "16" | "17" | "18");
            if global.periodicidad == "05" && !bimestre {
                v.problema(
                    "CFDI40135",
                    "InformacionGlobal.Meses",
                    format!("con Periodicidad 05 (bimestral) Meses es un bimestre, 13 a 18, no «{}»", global.meses),
                );
            } else if global.periodicidad != "05" && bimestre {
                v.problema(
                    "CFDI40134",
                    "InformacionGlobal.Meses",
                    format!(
                        "con Periodicidad {} Meses es un mes, 01 a 12, no «{}» (los bimestres 13 a 18 son de la periodicidad 05)",
                        global.periodicidad, global.meses
                    ),
                );
            }
        }
        if global.ano.len() != 4 || !global.ano.bytes().all(|b| b.is_ascii_digit()) {
            v.problema("CFDI40136", "InformacionGlobal.Año", "debe ser un año de cuatro dígitos");
        } else if let (Ok(ano), Some(dia)) = (global.ano.parse::<i32>(), v.dia) {
            // Anexo 20, InformacionGlobal/Año: the year of Fecha or the one before.
            if ano != dia.year() && ano != dia.year() - 1 {
                v.problema(
                    "CFDI40136",
                    "InformacionGlobal.Año",
                    format!("«{ano}» debe ser {} o {}, el año de la Fecha o el anterior", dia.year(), dia.year() - 1),
                );
            }
        }
    }
    for (i, relacionados) in c.cfdi_relacionados.iter().enumerate() {
        v.catalogo(
            "CFDI40137",
            &format!("CfdiRelacionados[{i}].TipoRelacion"),
            &relacionados.tipo_relacion,
            "c_TipoRelacion",
            TipoRelacion::desde_codigo,
        );
        for (j, uuid) in relacionados.uuids.iter().enumerate() {
            if !uuid_valido(uuid) {
                v.problema(
                    "TIMBRA_UUID_RELACIONADO",
                    format!("CfdiRelacionados[{i}].CfdiRelacionado[{j}].UUID"),
                    "no es un UUID válido",
                );
            }
        }
    }
    codigo_postal(v, "CFDI40126", "LugarExpedicion", &c.lugar_expedicion);
    // A real postal code for the receiver too (its match with SAT's registry is CFDI40148, left
    // to the PAC); a generic RFC repeats LugarExpedicion (CFDI40149).
    if !es_rfc_generico(&c.receptor.rfc) {
        codigo_postal(
            v,
            "TIMBRA_DOMICILIO_FISCAL_RECEPTOR",
            "Receptor.DomicilioFiscalReceptor",
            &c.receptor.domicilio_fiscal_receptor,
        );
    }
}

/// cfdv40.xsd TipoCambio (matrix CFDI40117): an `xs:decimal` of at most 6 fraction digits
/// (trailing zeros are not digits of the value) and at least 0.000001.
fn tipo_cambio_valido(texto: &str) -> bool {
    let texto = texto.trim();
    let texto = texto.strip_prefix('+').unwrap_or(texto);
    let (entero, fraccion) = texto.split_once('.').unwrap_or((texto, ""));
    let digitos = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (entero.is_empty() && fraccion.is_empty()) || !digitos(entero) || !digitos(fraccion) {
        return false;
    }
    fraccion.trim_end_matches('0').len() <= 6 && texto.bytes().any(|b| (b'1'..=b'9').contains(&b))
}

/// A postal code in c_CodigoPostal and in force on the document's date.
fn codigo_postal(v: &mut Validador<'_>, regla: &'static str, campo: &str, codigo: &str) {
    match v.catalogos.codigo_postal(codigo) {
        Some(false) => {
            v.problema(regla, campo, format!("«{codigo}» no está en c_CodigoPostal; use un código postal del SAT"))
        }
        Some(true) => {
            let vigencia = v.catalogos.datos_codigo_postal(codigo).map(|datos| datos.vigencia);
            if let (Some(vigencia), Some(dia)) = (vigencia, v.dia) {
                if !vigencia.vigente(dia) {
                    v.problema(regla, campo, format!("«{codigo}» de c_CodigoPostal no está vigente el {dia}"));
                }
            }
        }
        None => v.omitida("c_CodigoPostal (LugarExpedicion, DomicilioFiscalReceptor)"),
    }
}

/// cfdv40.xsd patterns and lengths of the free texts (`[^|]{1,n}`), and characters an XML
/// document can carry.
fn validar_textos(v: &mut Validador<'_>, c: &Comprobante) {
    let opcionales = [
        ("Serie", c.serie.as_deref(), CampoTexto::SERIE),
        ("Folio", c.folio.as_deref(), CampoTexto::FOLIO),
        ("CondicionesDePago", c.condiciones_de_pago.as_deref(), CampoTexto::CONDICIONES_DE_PAGO),
        ("Receptor.NumRegIdTrib", c.receptor.num_reg_id_trib.as_deref(), CampoTexto::NUM_REG_ID_TRIB),
    ];
    for (campo, texto, atributo) in opcionales {
        if let Some(texto) = texto {
            v.texto(campo, texto, atributo);
        }
    }
    v.texto("Emisor.Nombre", &c.emisor.nombre, CampoTexto::NOMBRE);
    v.texto("Receptor.Nombre", &c.receptor.nombre, CampoTexto::NOMBRE);
    for (i, concepto) in c.conceptos.iter().enumerate() {
        v.texto(&format!("Conceptos[{i}].Descripcion"), &concepto.descripcion, CampoTexto::DESCRIPCION);
        if let Some(sku) = &concepto.no_identificacion {
            v.texto(&format!("Conceptos[{i}].NoIdentificacion"), sku, CampoTexto::NO_IDENTIFICACION);
        }
        if let Some(unidad) = &concepto.unidad {
            v.texto(&format!("Conceptos[{i}].Unidad"), unidad, CampoTexto::UNIDAD);
        }
        for (j, parte) in concepto.partes.iter().enumerate() {
            v.texto(&format!("Conceptos[{i}].Parte[{j}].Descripcion"), &parte.descripcion, CampoTexto::DESCRIPCION);
        }
    }
}

fn validar_partes(v: &mut Validador<'_>, c: &Comprobante) {
    validar_textos(v, c);
    // Emisor.
    if !rfc_valido(&c.emisor.rfc) {
        v.problema("TIMBRA_RFC", "Emisor.Rfc", "no tiene la forma de un RFC");
    }
    if let Some(regimen) = v.catalogo(
        "CFDI40140",
        "Emisor.RegimenFiscal",
        &c.emisor.regimen_fiscal,
        "c_RegimenFiscal",
        RegimenFiscal::desde_codigo,
    ) {
        let fisica = es_persona_fisica(&c.emisor.rfc);
        if (fisica && !regimen.aplica_fisica()) || (!fisica && !regimen.aplica_moral()) {
            v.problema(
                "CFDI40141",
                "Emisor.RegimenFiscal",
                format!(
                    "el régimen {} no aplica a personas {}",
                    regimen.codigo(),
                    if fisica { "físicas" } else { "morales" }
                ),
            );
        }
    }
    // Receptor.
    let r = &c.receptor;
    if !rfc_valido(&r.rfc) {
        v.problema("TIMBRA_RFC", "Receptor.Rfc", "no tiene la forma de un RFC");
    }
    let regimen = v.catalogo(
        "CFDI40157",
        "Receptor.RegimenFiscalReceptor",
        &r.regimen_fiscal_receptor,
        "c_RegimenFiscal",
        RegimenFiscal::desde_codigo,
    );
    let uso = v.catalogo("CFDI40160", "Receptor.UsoCFDI", &r.uso_cfdi, "c_UsoCFDI", UsoCfdi::desde_codigo);
    let generico = es_rfc_generico(&r.rfc);
    if let (Some(regimen), false) = (regimen, generico) {
        let fisica = es_persona_fisica(&r.rfc);
        if (fisica && !regimen.aplica_fisica()) || (!fisica && !regimen.aplica_moral()) {
            v.problema(
                "CFDI40158",
                "Receptor.RegimenFiscalReceptor",
                format!(
                    "el régimen {} no aplica a personas {}",
                    regimen.codigo(),
                    if fisica { "físicas" } else { "morales" }
                ),
            );
        }
    }
    if let (Some(uso), false) = (uso, generico) {
        if !es_persona_fisica(&r.rfc) && !uso.aplica_moral() {
            v.problema(
                "CFDI40161",
                "Receptor.UsoCFDI",
                format!("el uso {} es solo para personas físicas", uso.codigo()),
            );
        }
    }
    // Anexo 20, Receptor/UsoCFDI: must match the receiver's régimen (c_UsoCFDI column
    // regimenes_fiscales_receptores).
    if let CompatibilidadUso::Incompatible { sugeridos } =
        catalogos::compatibilidad_uso_regimen(&r.uso_cfdi, &r.regimen_fiscal_receptor)
    {
        let lista: Vec<&str> = sugeridos.iter().map(|u| u.codigo()).collect();
        v.problema(
            "CFDI40161",
            "Receptor.UsoCFDI",
            format!(
                "el uso {} no corresponde al régimen {} del receptor; use {}",
                r.uso_cfdi,
                r.regimen_fiscal_receptor,
                lista.join(", ")
            ),
        );
    }
    // Anexo 20, público en general: XAXX010101000 with Nombre PUBLICO EN GENERAL requires
    // InformacionGlobal, régimen 616, UsoCFDI S01 and DomicilioFiscalReceptor = LugarExpedicion.
    if r.rfc == RFC_PUBLICO_GENERAL {
        if r.uso_cfdi != "S01" && c.tipo_de_comprobante != "N" {
            v.problema("TIMBRA_PUBLICO_GENERAL", "Receptor.UsoCFDI", "con RFC XAXX010101000 el uso es S01");
        }
        if r.domicilio_fiscal_receptor != c.lugar_expedicion {
            v.problema(
                "CFDI40149",
                "Receptor.DomicilioFiscalReceptor",
                "con RFC genérico debe ser igual a LugarExpedicion",
            );
        }
        if r.nombre == NOMBRE_PUBLICO_GENERAL && c.informacion_global.is_none() && c.tipo_de_comprobante == "I" {
            v.problema(
                "CFDI40130",
                "InformacionGlobal",
                "requerido en la factura global a PUBLICO EN GENERAL: registre Periodicidad, Meses y Año",
            );
        }
    } else if c.informacion_global.is_some() {
        v.problema(
            "TIMBRA_INFORMACION_GLOBAL",
            "InformacionGlobal",
            "solo existe cuando el receptor es XAXX010101000 (público en general); quítelo",
        );
    }
    validar_residencia(v, c);
    // Anexo 20, RegimenFiscalReceptor: a generic RFC (XAXX010101000, XEXX010101000) takes 616.
    if es_rfc_generico(&r.rfc) && r.regimen_fiscal_receptor != "616" {
        v.problema(
            "CFDI40159",
            "Receptor.RegimenFiscalReceptor",
            format!("con RFC {} el régimen es 616 (Sin obligaciones fiscales)", r.rfc),
        );
    }
    if r.rfc == RFC_EXTRANJERO && r.domicilio_fiscal_receptor != c.lugar_expedicion {
        v.problema(
            "CFDI40149",
            "Receptor.DomicilioFiscalReceptor",
            "con RFC genérico debe ser igual a LugarExpedicion",
        );
    }
}

/// Receptor's ResidenciaFiscal and NumRegIdTrib (matrix CFDI40150-CFDI40156): a receiver abroad
/// (RFC XEXX010101000) gives its country (c_Pais, not MEX) and its tax id there, in the form
/// c_Pais gives for that country; a Mexican RFC (registered or XAXX010101000) gives neither.
/// With Comercio Exterior both are required of XEXX010101000 (CFDI40153, CFDI40155): the
/// complement's rule CCE20_RECEPTOR_EXTRANJERO reports that case.
fn validar_residencia(v: &mut Validador<'_>, c: &Comprobante) {
    let r = &c.receptor;
    let extranjero = r.rfc == RFC_EXTRANJERO;
    if let Some(pais) = r.residencia_fiscal.as_deref() {
        v.en_catalogo("CFDI40150", "Receptor.ResidenciaFiscal", "cfdi40/c_Pais", "Receptor.ResidenciaFiscal", pais);
        if !extranjero {
            v.problema(
                "CFDI40151",
                "Receptor.ResidenciaFiscal",
                format!("solo se registra con el RFC genérico extranjero XEXX010101000, no con {}; quítelo", r.rfc),
            );
        }
        if pais == "MEX" {
            v.problema(
                "CFDI40152",
                "Receptor.ResidenciaFiscal",
                "no puede ser MEX: es el país de residencia de un receptor en el extranjero",
            );
        }
    }
    let Some(numero) = r.num_reg_id_trib.as_deref() else { return };
    if !extranjero {
        v.problema(
            "CFDI40154",
            "Receptor.NumRegIdTrib",
            format!("solo se registra con el RFC genérico extranjero XEXX010101000, no con {}; quítelo", r.rfc),
        );
    }
    let Some(pais) = r.residencia_fiscal.as_deref() else {
        v.problema(
            "CFDI40153",
            "Receptor.ResidenciaFiscal",
            "requerido cuando se registra NumRegIdTrib: registre el país de residencia fiscal del receptor",
        );
        return;
    };
    if pais == "MEX" {
        return;
    }
    let Some(patron) = v.catalogos.patron_num_reg_id_trib(pais) else { return };
    if coincide(&patron, numero) == Some(false) {
        v.problema(
            "CFDI40156",
            "Receptor.NumRegIdTrib",
            format!("«{numero}» no tiene la forma del registro tributario de {pais} según c_Pais ({patron})"),
        );
    }
}

/// One piece of a c_Pais pattern: what one position matches and how many times.
struct Pieza {
    atomo: Atomo,
    minimo: usize,
    maximo: usize,
}

enum Atomo {
    /// Character ranges (a literal is one range).
    Clase(Vec<(char, char)>),
    /// Alternatives, each a sequence.
    Grupo(Vec<Vec<Pieza>>),
}

/// Whether all of `texto` matches `patron`, a regular expression of c_Pais (classes, groups,
/// alternatives and quantifiers). `None` when the pattern uses anything else: the check is then
/// skipped rather than guessed.
pub(crate) fn coincide(patron: &str, texto: &str) -> Option<bool> {
    let patron = patron.trim();
    let patron = patron.strip_prefix('^').unwrap_or(patron);
    let patron: Vec<char> = patron.strip_suffix('$').unwrap_or(patron).chars().collect();
    let mut i = 0;
    let alternativas = leer_alternativas(&patron, &mut i)?;
    if i != patron.len() {
        return None;
    }
    let texto: Vec<char> = texto.chars().collect();
    let largo = texto.len();
    Some(alternativas.iter().any(|seq| casa_secuencia(seq, &texto, 0, &mut |q| q == largo)))
}

fn leer_alternativas(p: &[char], i: &mut usize) -> Option<Vec<Vec<Pieza>>> {
    let mut alternativas = vec![Vec::new()];
    while let Some(&c) = p.get(*i) {
        match c {
            ')' => break,
            '|' => {
                *i += 1;
                alternativas.push(Vec::new());
            }
            _ => {
                let atomo = leer_atomo(p, i)?;
                let (minimo, maximo) = leer_cuantificador(p, i)?;
                alternativas.last_mut()?.push(Pieza { atomo, minimo, maximo });
            }
        }
    }
    Some(alternativas)
}

fn leer_atomo(p: &[char], i: &mut usize) -> Option<Atomo> {
    let c = *p.get(*i)?;
    *i += 1;
    Some(match c {
        '(' => {
            if p.get(*i) == Some(&'?') {
                if p.get(*i + 1) != Some(&':') {
                    return None;
                }
                *i += 2;
            }
            let alternativas = leer_alternativas(p, i)?;
            if p.get(*i) != Some(&')') {
                return None;
            }
            *i += 1;
            Atomo::Grupo(alternativas)
        }
        '[' => {
            if p.get(*i) == Some(&'^') {
                return None;
            }
            let mut rangos = Vec::new();
            loop {
                let mut a = *p.get(*i)?;
                *i += 1;
                if a == ']' && !rangos.is_empty() {
                    break;
                }
                if a == '\\' {
                    match escapado(*p.get(*i)?)? {
                        Escapado::Clase(clase) => {
                            *i += 1;
                            rangos.extend(clase);
                            continue;
                        }
                        Escapado::Literal(l) => {
                            *i += 1;
                            a = l;
                        }
                    }
                }
                if p.get(*i) == Some(&'-') && p.get(*i + 1).is_some_and(|b| *b != ']') {
                    let b = p[*i + 1];
                    if b == '\\' {
                        return None;
                    }
                    *i += 2;
                    rangos.push((a, b));
                } else {
                    rangos.push((a, a));
                }
            }
            Atomo::Clase(rangos)
        }
        '\\' => {
            let siguiente = *p.get(*i)?;
            *i += 1;
            match escapado(siguiente)? {
                Escapado::Clase(clase) => Atomo::Clase(clase),
                Escapado::Literal(l) => Atomo::Clase(vec![(l, l)]),
            }
        }
        '.' => Atomo::Clase(vec![('\0', char::MAX)]),
        '{' | '}' | '*' | '+' | '?' | ']' | '^' | '$' => return None,
        literal => Atomo::Clase(vec![(literal, literal)]),
    })
}

enum Escapado {
    Clase(Vec<(char, char)>),
    Literal(char),
}

fn escapado(c: char) -> Option<Escapado> {
    Some(match c {
        'd' => Escapado::Clase(vec![('0', '9')]),
        'w' => Escapado::Clase(vec![('0', '9'), ('A', 'Z'), ('a', 'z'), ('_', '_')]),
        's' => Escapado::Clase(vec![(' ', ' '), ('\t', '\t'), ('\n', '\n'), ('\r', '\r')]),
        'n' => Escapado::Literal('\n'),
        't' => Escapado::Literal('\t'),
        c if c.is_ascii_alphanumeric() => return None,
        c => Escapado::Literal(c),
    })
}

fn leer_cuantificador(p: &[char], i: &mut usize) -> Option<(usize, usize)> {
    let rango = match p.get(*i) {
        Some('?') => (0, 1),
        Some('*') => (0, usize::MAX),
        Some('+') => (1, usize::MAX),
        Some('{') => {
            let cierre = p[*i..].iter().position(|c| *c == '}')? + *i;
            let dentro: String = p[*i + 1..cierre].iter().collect();
            let (a, b) = match dentro.split_once(',') {
                Some((a, "")) => (a.parse().ok()?, usize::MAX),
                Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
                None => (dentro.parse().ok()?, dentro.parse().ok()?),
            };
            *i = cierre;
            (a, b)
        }
        _ => return Some((1, 1)),
    };
    *i += 1;
    if matches!(p.get(*i), Some('?' | '+')) {
        return None;
    }
    Some(rango)
}

fn casa_secuencia(seq: &[Pieza], texto: &[char], pos: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    match seq.split_first() {
        None => k(pos),
        Some((pieza, resto)) => casa_repeticion(pieza, 0, resto, texto, pos, k),
    }
}

fn casa_repeticion(
    pieza: &Pieza,
    n: usize,
    resto: &[Pieza],
    texto: &[char],
    pos: usize,
    k: &mut dyn FnMut(usize) -> bool,
) -> bool {
    if n < pieza.maximo
        && casa_atomo(&pieza.atomo, texto, pos, &mut |q| {
            (q != pos || n < pieza.minimo) && casa_repeticion(pieza, n + 1, resto, texto, q, k)
        })
    {
        return true;
    }
    n >= pieza.minimo && casa_secuencia(resto, texto, pos, k)
}

fn casa_atomo(atomo: &Atomo, texto: &[char], pos: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    match atomo {
        Atomo::Clase(rangos) => {
            texto.get(pos).is_some_and(|c| rangos.iter().any(|(a, b)| a <= c && c <= b)) && k(pos + 1)
        }
        Atomo::Grupo(alternativas) => alternativas.iter().any(|seq| casa_secuencia(seq, texto, pos, k)),
    }
}

fn validar_importes(v: &mut Validador<'_>, c: &Comprobante) {
    let dec = catalogos::decimales_moneda(&c.moneda);
    let mut suma_importes = Decimal::ZERO;
    let mut suma_descuentos = Decimal::ZERO;
    let mut hay_descuento = false;
    // (impuesto, factor, tasa) → (base, importe) from the concepts.
    let mut traslados: Vec<(String, String, Option<String>, Decimal, Decimal)> = Vec::new();
    let mut retenciones: Vec<(String, Decimal)> = Vec::new();
    for (i, concepto) in c.conceptos.iter().enumerate() {
        let (importe, descuento) = validar_concepto(v, i, concepto, c, dec, &mut traslados, &mut retenciones);
        suma_importes += importe;
        if let Some(d) = descuento {
            hay_descuento = true;
            suma_descuentos += d;
        }
    }
    v.decimales("CFDI40107", "SubTotal", &c.sub_total, dec);
    v.decimales("TIMBRA_DECIMALES_MONEDA", "Total", &c.total, dec);
    // Anexo 20, SubTotal: sum of the concepts' Importe on I, E and N (matrix CFDI40108); a T or
    // P has SubTotal 0 whatever its concepts' values (CFDI40109, CRP20103).
    let sub_total = v.numero("SubTotal", &c.sub_total);
    let sin_importe = matches!(c.tipo_de_comprobante.as_str(), "T" | "P");
    if let (Some(sub_total), false) = (sub_total, sin_importe) {
        if sub_total != redondear(suma_importes, dec) {
            v.problema(
                "CFDI40108",
                "SubTotal",
                format!("debe ser la suma de los importes de los conceptos: {}", redondear(suma_importes, dec)),
            );
        }
    }
    // Anexo 20, Descuento: sum of the concepts' Descuento; absent when none has one.
    let descuento = match &c.descuento {
        Some(d) => {
            v.decimales("CFDI40112", "Descuento", d, dec);
            let valor = v.numero("Descuento", d).unwrap_or_default();
            if valor != redondear(suma_descuentos, dec) {
                v.problema(
                    "CFDI40111",
                    "Descuento",
                    format!("debe ser la suma de los descuentos de los conceptos: {}", redondear(suma_descuentos, dec)),
                );
            }
            valor
        }
        None => {
            if hay_descuento && suma_descuentos != Decimal::ZERO {
                v.problema("CFDI40111", "Descuento", "requerido cuando algún concepto tiene descuento");
            }
            Decimal::ZERO
        }
    };
    // Matrix CFDI40110: Descuento at most SubTotal.
    if let (Some(sub_total), Some(_)) = (sub_total, &c.descuento) {
        if descuento > sub_total {
            v.problema(
                "CFDI40110",
                "Descuento",
                format!("{descuento} es mayor que el SubTotal {sub_total}; el descuento no puede exceder el SubTotal"),
            );
        }
    }
    // Comprobante-level Impuestos: grouped sums of the concepts'.
    let mut total_trasladados = Decimal::ZERO;
    let mut total_retenidos = Decimal::ZERO;
    match &c.impuestos {
        None => {
            if !traslados.is_empty() || !retenciones.is_empty() {
                v.problema(
                    "TIMBRA_IMPUESTOS_REQUERIDO",
                    "Impuestos",
                    "requerido cuando los conceptos tienen impuestos",
                );
            }
        }
        Some(impuestos) => {
            validar_grupos(v, impuestos);
            let mut vistos = 0;
            for (j, t) in impuestos.traslados.iter().enumerate() {
                let campo = format!("Impuestos.Traslados[{j}]");
                let tasa = t.tasa_o_cuota.as_ref().map(|n| n.texto().to_owned());
                let grupo =
                    traslados.iter().find(|(i, f, k, ..)| *i == t.impuesto && *f == t.tipo_factor && *k == tasa);
                v.decimales("CFDI40214", &format!("{campo}.Base"), &t.base, dec);
                if let Some(i) = &t.importe {
                    v.decimales("CFDI40220", &format!("{campo}.Importe"), i, dec);
                }
                let Some((_, _, _, base, importe)) = grupo.cloned() else {
                    v.problema(
                        "TIMBRA_IMPUESTOS_AGRUPADOS",
                        campo,
                        "no corresponde a ningún traslado de los conceptos",
                    );
                    continue;
                };
                vistos += 1;
                if v.numero(&format!("{campo}.Base"), &t.base) != Some(redondear(base, dec)) {
                    v.problema(
                        "CFDI40215",
                        format!("{campo}.Base"),
                        format!("debe ser la suma de las bases de los conceptos: {}", redondear(base, dec)),
                    );
                }
                if let Some(i) = &t.importe {
                    let valor = v.numero(&format!("{campo}.Importe"), i).unwrap_or_default();
                    total_trasladados += valor;
                    if valor != redondear(importe, dec) {
                        v.problema(
                            "CFDI40221",
                            format!("{campo}.Importe"),
                            format!("debe ser la suma de los importes de los conceptos: {}", redondear(importe, dec)),
                        );
                    }
                }
            }
            if vistos != traslados.len() {
                v.problema(
                    "TIMBRA_IMPUESTOS_AGRUPADOS",
                    "Impuestos.Traslados",
                    "faltan grupos de traslados de los conceptos",
                );
            }
            for (j, r) in impuestos.retenciones.iter().enumerate() {
                let campo = format!("Impuestos.Retenciones[{j}].Importe");
                let esperado = retenciones.iter().find(|(i, _)| *i == r.impuesto).map(|(_, importe)| *importe);
                v.decimales("CFDI40210", &campo, &r.importe, dec);
                let valor = v.numero(&campo, &r.importe).unwrap_or_default();
                total_retenidos += valor;
                if esperado.map(|e| redondear(e, dec)) != Some(valor) {
                    v.problema(
                        "CFDI40211",
                        campo,
                        "debe ser la suma de las retenciones de ese impuesto en los conceptos",
                    );
                }
            }
            if impuestos.retenciones.len() != retenciones.len() {
                v.problema(
                    "TIMBRA_IMPUESTOS_AGRUPADOS",
                    "Impuestos.Retenciones",
                    "una retención por impuesto de los conceptos",
                );
            }
            let hay_no_exentos = impuestos.traslados.iter().any(|t| t.importe.is_some());
            match &impuestos.total_impuestos_trasladados {
                Some(total) => {
                    v.decimales("CFDI40204", "Impuestos.TotalImpuestosTrasladados", total, dec);
                    if v.numero("Impuestos.TotalImpuestosTrasladados", total) != Some(total_trasladados) {
                        v.problema(
                            "CFDI40205",
                            "Impuestos.TotalImpuestosTrasladados",
                            format!("debe ser {total_trasladados}"),
                        );
                    }
                }
                None if hay_no_exentos => {
                    v.problema(
                        "CFDI40212",
                        "Impuestos.TotalImpuestosTrasladados",
                        "requerido cuando hay traslados no exentos",
                    );
                }
                None => {}
            }
            match &impuestos.total_impuestos_retenidos {
                Some(total) => {
                    v.decimales("CFDI40202", "Impuestos.TotalImpuestosRetenidos", total, dec);
                    if v.numero("Impuestos.TotalImpuestosRetenidos", total) != Some(total_retenidos) {
                        v.problema(
                            "CFDI40203",
                            "Impuestos.TotalImpuestosRetenidos",
                            format!("debe ser {total_retenidos}"),
                        );
                    }
                }
                None if !impuestos.retenciones.is_empty() => {
                    v.problema("CFDI40206", "Impuestos.TotalImpuestosRetenidos", "requerido cuando hay retenciones");
                }
                None => {}
            }
        }
    }
    // Anexo 20, Total = SubTotal − Descuento + trasladados − retenidos (+ impuestos locales).
    let (locales_t, locales_r) = complementos::importes_al_total(&c.complementos);
    if let (Some(total), Ok(sub_total)) = (v.numero("Total", &c.total), c.sub_total.valor()) {
        // Parsed texts may hold any Decimal: the sum is checked, and an overflow is a problem.
        let esperado = sub_total
            .checked_sub(descuento)
            .and_then(|t| t.checked_add(total_trasladados))
            .and_then(|t| t.checked_sub(total_retenidos))
            .and_then(|t| t.checked_add(locales_t))
            .and_then(|t| t.checked_sub(locales_r))
            .map(|suma| redondear(suma, dec));
        let Some(esperado) = esperado else {
            v.problema("CFDI40119", "Total", "SubTotal − Descuento + impuestos excede el rango de un decimal");
            return;
        };
        if total != esperado {
            v.problema(
                "CFDI40119",
                "Total",
                format!("debe ser SubTotal − Descuento + impuestos trasladados − retenidos = {esperado}"),
            );
        }
    }
}

/// The comprobante's grouped taxes, each node on its own: c_Impuesto (matrix CFDI40207,
/// CFDI40217), one retención per tax (CFDI40208), one traslado per tax, factor and rate
/// (CFDI40218), an exempt group without TasaOCuota nor Importe (CFDI40213), the rate in
/// c_TasaOCuota (CFDI40219).
fn validar_grupos(v: &mut Validador<'_>, impuestos: &crate::model::Impuestos) {
    let mut vistas: Vec<&str> = Vec::new();
    for (j, r) in impuestos.retenciones.iter().enumerate() {
        let campo = format!("Impuestos.Retenciones[{j}].Impuesto");
        if Impuesto::desde_codigo(&r.impuesto).is_none() {
            v.problema("CFDI40207", campo, format!("«{}» no está en el catálogo c_Impuesto", r.impuesto));
        } else if vistas.contains(&r.impuesto.as_str()) {
            v.problema(
                "CFDI40208",
                campo,
                format!("solo una retención por impuesto: sume las de {} en un solo nodo", r.impuesto),
            );
        }
        vistas.push(&r.impuesto);
    }
    let mut combinaciones: Vec<(&str, &str, Option<Decimal>)> = Vec::new();
    for (j, t) in impuestos.traslados.iter().enumerate() {
        let campo = format!("Impuestos.Traslados[{j}]");
        let impuesto = Impuesto::desde_codigo(&t.impuesto);
        if impuesto.is_none() {
            v.problema(
                "CFDI40217",
                format!("{campo}.Impuesto"),
                format!("«{}» no está en el catálogo c_Impuesto", t.impuesto),
            );
        }
        let factor = TipoFactor::desde_codigo(&t.tipo_factor);
        if factor == Some(TipoFactor::Exento) {
            if t.tasa_o_cuota.is_some() || t.importe.is_some() {
                v.problema(
                    "CFDI40213",
                    campo.clone(),
                    "un traslado Exento lleva solo Base, Impuesto y TipoFactor; quite TasaOCuota e Importe",
                );
            }
        } else if let (Some(impuesto), Some(factor), Some(tasa)) = (impuesto, factor, &t.tasa_o_cuota) {
            if !catalogos::tasa_o_cuota_permitida(impuesto, factor, tasa.texto(), false) {
                v.problema(
                    "CFDI40219",
                    format!("{campo}.TasaOCuota"),
                    format!("«{}» no está en c_TasaOCuota para este traslado", tasa.texto()),
                );
            }
        }
        let combinacion =
            (t.impuesto.as_str(), t.tipo_factor.as_str(), t.tasa_o_cuota.as_ref().and_then(|n| n.valor().ok()));
        if combinaciones.contains(&combinacion) {
            v.problema(
                "CFDI40218",
                campo,
                "solo un traslado por combinación de impuesto, tipo de factor y tasa: sume los repetidos en un solo nodo",
            );
        } else {
            combinaciones.push(combinacion);
        }
    }
}

#[allow(clippy::too_many_lines)]
fn validar_concepto(
    v: &mut Validador<'_>,
    i: usize,
    c: &Concepto,
    comprobante: &Comprobante,
    dec: u32,
    traslados: &mut Vec<(String, String, Option<String>, Decimal, Decimal)>,
    retenciones: &mut Vec<(String, Decimal)>,
) -> (Decimal, Option<Decimal>) {
    let p = |nombre: &str| format!("Conceptos[{i}].{nombre}");
    validar_claves(v, i, c, comprobante);
    let cantidad = v.numero(&p("Cantidad"), &c.cantidad).unwrap_or_default();
    let valor_unitario = v.numero(&p("ValorUnitario"), &c.valor_unitario).unwrap_or_default();
    let importe = v.numero(&p("Importe"), &c.importe).unwrap_or_default();
    // Matrix CFDI40166: ValorUnitario above zero on I, E and N (a T may carry 0; a P carries 0).
    if matches!(comprobante.tipo_de_comprobante.as_str(), "I" | "E" | "N")
        && c.valor_unitario.valor().is_ok_and(|valor| valor <= Decimal::ZERO)
    {
        v.problema(
            "CFDI40166",
            p("ValorUnitario"),
            "debe ser mayor que cero en un comprobante de ingreso, egreso o nómina",
        );
    }
    // cfdv40.xsd: Cantidad and tdCFDI t_Importe (ValorUnitario) take at most 6 decimals.
    for (campo, numero) in [("Cantidad", &c.cantidad), ("ValorUnitario", &c.valor_unitario)] {
        if numero.decimales() > 6 {
            v.problema(
                "TIMBRA_NUMERO",
                p(campo),
                format!("«{}» tiene más de 6 decimales (cfdv40.xsd admite 6)", numero.texto()),
            );
        }
    }
    v.decimales("TIMBRA_DECIMALES_MONEDA", &p("Importe"), &c.importe, dec);
    // Anexo 20, Concepto/Importe: within the limits of Cantidad × ValorUnitario.
    let inferior = limite_inferior(
        cantidad,
        c.cantidad.decimales(),
        valor_unitario,
        c.valor_unitario.decimales(),
        c.importe.decimales(),
    );
    let superior = limite_superior(
        cantidad,
        c.cantidad.decimales(),
        valor_unitario,
        c.valor_unitario.decimales(),
        c.importe.decimales(),
    );
    match (inferior, superior) {
        (Some(inferior), Some(superior)) if importe < inferior || importe > superior => v.problema(
            "CFDI40167",
            p("Importe"),
            format!("debe ser Cantidad × ValorUnitario (entre {inferior} y {superior})"),
        ),
        (Some(_), Some(_)) => {}
        _ => {
            v.problema("CFDI40167", p("Importe"), "Cantidad × ValorUnitario excede el máximo de un importe (t_Importe)")
        }
    }
    let descuento = c.descuento.as_ref().map(|d| {
        v.decimales("TIMBRA_DECIMALES_MONEDA", &p("Descuento"), d, dec);
        v.numero(&p("Descuento"), d).unwrap_or_default()
    });
    if descuento.is_some_and(|d| d > importe) {
        v.problema("CFDI40169", p("Descuento"), "no puede ser mayor que el Importe");
    }
    // Matrix CFDI40168: Descuento has at most the decimals Importe has (trailing zeros of the
    // Descuento are not counted: permissive where the matrix' text does not say).
    if let Some(d) = &c.descuento {
        let significativos = d.texto().trim().split_once('.').map_or(0, |(_, f)| f.trim_end_matches('0').len());
        if u32::try_from(significativos).unwrap_or(u32::MAX) > c.importe.decimales() {
            v.problema(
                "CFDI40168",
                p("Descuento"),
                format!(
                    "«{}» tiene más decimales que el Importe «{}»; registre el descuento con los decimales del importe",
                    d.texto(),
                    c.importe.texto()
                ),
            );
        }
    }
    validar_aduana_y_partes(v, i, c, comprobante.comercio_exterior().is_some());
    let objeto = v.catalogo("CFDI40170", &p("ObjetoImp"), &c.objeto_imp, "c_ObjetoImp", ObjetoImp::desde_codigo);
    let tiene_impuestos = c.impuestos.as_ref().is_some_and(|i| !i.traslados.is_empty() || !i.retenciones.is_empty());
    match objeto {
        Some(o) if o.requiere_impuestos() && !tiene_impuestos => {
            v.problema(
                "CFDI40171",
                p("Impuestos"),
                format!("con ObjetoImp {} se requiere el nodo Impuestos", o.codigo()),
            );
        }
        Some(o) if !o.requiere_impuestos() && tiene_impuestos => {
            v.problema(
                "CFDI40172",
                p("Impuestos"),
                format!("con ObjetoImp {} no debe existir el nodo Impuestos", o.codigo()),
            );
        }
        _ => {}
    }
    let Some(impuestos) = &c.impuestos else {
        return (importe, descuento);
    };
    // Matrix CFDI40173: a concept's Impuestos node holds traslados and/or retenciones.
    if impuestos.traslados.is_empty() && impuestos.retenciones.is_empty() {
        v.problema(
            "CFDI40173",
            p("Impuestos"),
            "el nodo Impuestos del concepto debe tener traslados o retenciones; agréguelos o quite el nodo",
        );
    }
    for (j, t) in impuestos.traslados.iter().enumerate() {
        let campo = p(&format!("Impuestos.Traslados[{j}]"));
        let base = v.numero(&format!("{campo}.Base"), &t.base).unwrap_or_default();
        // Matrix CFDI40174: Base above zero.
        if t.base.valor().is_ok_and(|b| b <= Decimal::ZERO) {
            v.problema("CFDI40174", format!("{campo}.Base"), "la base del traslado debe ser mayor que cero");
        }
        let impuesto =
            v.catalogo("CFDI40175", &format!("{campo}.Impuesto"), &t.impuesto, "c_Impuesto", Impuesto::desde_codigo);
        let factor = v.catalogo(
            "CFDI40176",
            &format!("{campo}.TipoFactor"),
            &t.tipo_factor,
            "c_TipoFactor",
            TipoFactor::desde_codigo,
        );
        let mut importe_t = Decimal::ZERO;
        if factor == Some(TipoFactor::Exento) {
            if t.tasa_o_cuota.is_some() || t.importe.is_some() {
                v.problema("CFDI40177", campo.clone(), "un traslado Exento no lleva TasaOCuota ni Importe");
            }
        } else {
            match (&t.tasa_o_cuota, &t.importe) {
                (Some(tasa), Some(monto)) => {
                    if let (Some(impuesto), Some(factor)) = (impuesto, factor) {
                        if !catalogos::tasa_o_cuota_permitida(impuesto, factor, tasa.texto(), false) {
                            v.problema(
                                "CFDI40179",
                                format!("{campo}.TasaOCuota"),
                                format!("«{}» no está en c_TasaOCuota para este traslado", tasa.texto()),
                            );
                        }
                    }
                    let valor_tasa = v.numero(&format!("{campo}.TasaOCuota"), tasa).unwrap_or_default();
                    importe_t = v.numero(&format!("{campo}.Importe"), monto).unwrap_or_default();
                    revisar_importe_impuesto(
                        v,
                        "CFDI40180",
                        &format!("{campo}.Importe"),
                        &t.base,
                        base,
                        valor_tasa,
                        monto,
                        importe_t,
                    );
                }
                _ => v.problema("CFDI40178", campo.clone(), "TasaOCuota e Importe requeridos salvo Exento"),
            }
        }
        let tasa = t.tasa_o_cuota.as_ref().map(|n| n.texto().to_owned());
        match traslados.iter_mut().find(|(i, f, k, ..)| *i == t.impuesto && *f == t.tipo_factor && *k == tasa) {
            Some(grupo) => {
                grupo.3 += base;
                grupo.4 += importe_t;
            }
            None => traslados.push((t.impuesto.clone(), t.tipo_factor.clone(), tasa, base, importe_t)),
        }
    }
    for (j, r) in impuestos.retenciones.iter().enumerate() {
        let campo = p(&format!("Impuestos.Retenciones[{j}]"));
        let base = v.numero(&format!("{campo}.Base"), &r.base).unwrap_or_default();
        // Matrix CFDI40181: Base above zero.
        if r.base.valor().is_ok_and(|b| b <= Decimal::ZERO) {
            v.problema("CFDI40181", format!("{campo}.Base"), "la base de la retención debe ser mayor que cero");
        }
        let impuesto =
            v.catalogo("CFDI40182", &format!("{campo}.Impuesto"), &r.impuesto, "c_Impuesto", Impuesto::desde_codigo);
        let factor = v.catalogo(
            "CFDI40183",
            &format!("{campo}.TipoFactor"),
            &r.tipo_factor,
            "c_TipoFactor",
            TipoFactor::desde_codigo,
        );
        if let (Some(impuesto), Some(factor)) = (impuesto, factor) {
            if factor == TipoFactor::Exento {
                v.problema(
                    "CFDI40184",
                    format!("{campo}.TipoFactor"),
                    "una retención no puede ser Exento; use Tasa o Cuota",
                );
            } else if !catalogos::tasa_o_cuota_permitida(impuesto, factor, r.tasa_o_cuota.texto(), true) {
                v.problema(
                    "CFDI40185",
                    format!("{campo}.TasaOCuota"),
                    format!("«{}» no está en c_TasaOCuota para esta retención", r.tasa_o_cuota.texto()),
                );
            }
        }
        let tasa = v.numero(&format!("{campo}.TasaOCuota"), &r.tasa_o_cuota).unwrap_or_default();
        let monto = v.numero(&format!("{campo}.Importe"), &r.importe).unwrap_or_default();
        revisar_importe_impuesto(v, "CFDI40186", &format!("{campo}.Importe"), &r.base, base, tasa, &r.importe, monto);
        match retenciones.iter_mut().find(|(i, _)| *i == r.impuesto) {
            Some(grupo) => grupo.1 += monto,
            None => retenciones.push((r.impuesto.clone(), monto)),
        }
    }
    (importe, descuento)
}

/// cfdv40.xsd NumeroPedimento: `[0-9]{2}  [0-9]{2}  [0-9]{4}  [0-9]{7}` (two spaces between the
/// year, the customs office, the patent and the number).
fn pedimento_valido(pedimento: &str) -> bool {
    let b = pedimento.as_bytes();
    b.len() == 21
        && b.iter().enumerate().all(|(i, c)| match i {
            2 | 3 | 6 | 7 | 12 | 13 => *c == b' ',
            _ => c.is_ascii_digit(),
        })
}

/// The concept's InformacionAduanera (matrix CFDI40194, CFDI40195), CuentaPredial and Parte
/// (CFDI40196-CFDI40200).
fn validar_aduana_y_partes(v: &mut Validador<'_>, i: usize, c: &Concepto, con_cce: bool) {
    let pedimentos = |v: &mut Validador<'_>, prefijo: &str, lista: &[String], patron, cce| {
        for (j, pedimento) in lista.iter().enumerate() {
            let campo = format!("{prefijo}.InformacionAduanera[{j}].NumeroPedimento");
            if con_cce {
                v.problema(
                    cce,
                    campo,
                    "no se registra con el complemento de Comercio Exterior (el pedimento va en el complemento); quítelo",
                );
            } else if !pedimento_valido(pedimento) {
                v.problema(
                    patron,
                    campo,
                    format!("«{pedimento}» no tiene la forma AA  AD  PPPP  NNNNNNN (año, aduana, patente y número, separados por dos espacios)"),
                );
            }
        }
    };
    let concepto = format!("Conceptos[{i}]");
    pedimentos(v, &concepto, &c.informacion_aduanera, "CFDI40194", "CFDI40195");
    // cfdv40.xsd CuentaPredial/Numero: letters and digits, 1 to 150 (no matrix code).
    for (j, numero) in c.cuenta_predial.iter().enumerate() {
        if numero.is_empty() || numero.chars().count() > 150 || !numero.bytes().all(|b| b.is_ascii_alphanumeric()) {
            v.problema(
                "TIMBRA_CUENTA_PREDIAL",
                format!("{concepto}.CuentaPredial[{j}].Numero"),
                format!("«{numero}» debe ser de 1 a 150 letras y dígitos, sin espacios ni guiones"),
            );
        }
    }
    for (j, parte) in c.partes.iter().enumerate() {
        let prefijo = format!("{concepto}.Parte[{j}]");
        let clave = &parte.clave_prod_serv;
        let vigente = v.dia.and_then(|dia| v.catalogos.clave_prod_serv_vigente(clave, dia));
        match (v.catalogos.clave_prod_serv(clave), vigente) {
            (Some(false), _) => v.problema(
                "CFDI40196",
                format!("{prefijo}.ClaveProdServ"),
                format!("«{clave}» no está en c_ClaveProdServ; elija una clave del catálogo"),
            ),
            (Some(true), Some(false)) => v.problema(
                "CFDI40196",
                format!("{prefijo}.ClaveProdServ"),
                format!(
                    "«{clave}» de c_ClaveProdServ no está vigente en la fecha del comprobante; use una clave vigente"
                ),
            ),
            (Some(true), _) => {}
            (None, _) => v.omitida("c_ClaveProdServ (Conceptos.ClaveProdServ)"),
        }
        let valor_unitario = parte.valor_unitario.as_ref().and_then(|n| n.valor().ok());
        if valor_unitario.is_some_and(|valor| valor <= Decimal::ZERO) {
            v.problema("CFDI40197", format!("{prefijo}.ValorUnitario"), "debe ser mayor que cero");
        }
        if let (Some(vu), Some(importe), Ok(cantidad)) = (&parte.valor_unitario, &parte.importe, parte.cantidad.valor())
        {
            if let (Ok(valor), Ok(monto)) = (vu.valor(), importe.valor()) {
                let decimales = importe.decimales();
                let inferior = limite_inferior(cantidad, parte.cantidad.decimales(), valor, vu.decimales(), decimales);
                let superior = limite_superior(cantidad, parte.cantidad.decimales(), valor, vu.decimales(), decimales);
                if let (Some(inferior), Some(superior)) = (inferior, superior) {
                    if monto < inferior || monto > superior {
                        v.problema(
                            "CFDI40198",
                            format!("{prefijo}.Importe"),
                            format!("debe ser Cantidad × ValorUnitario de la parte (entre {inferior} y {superior})"),
                        );
                    }
                }
            }
        }
        pedimentos(v, &prefijo, &parte.informacion_aduanera, "CFDI40199", "CFDI40200");
    }
}

/// The concept's codes in c_ClaveProdServ and c_ClaveUnidad, in force on the document's date
/// (a retired or not yet valid code is not a valid value: CFDI40162, CFDI40165), and the
/// traslados c_ClaveProdServ requires (Incluir IVA / IEPS trasladado "Sí": CFDI40164).
fn validar_claves(v: &mut Validador<'_>, i: usize, c: &Concepto, comprobante: &Comprobante) {
    let campo = format!("Conceptos[{i}].ClaveProdServ");
    let clave = &c.clave_prod_serv;
    match (v.catalogos.clave_prod_serv(clave), v.dia) {
        (Some(false), _) => v.problema(
            "CFDI40162",
            &campo,
            format!("«{clave}» no está en c_ClaveProdServ; elija una clave del catálogo"),
        ),
        (Some(true), Some(dia)) if v.catalogos.clave_prod_serv_vigente(clave, dia) == Some(false) => v.problema(
            "CFDI40162",
            &campo,
            format!(
                "«{clave}» de c_ClaveProdServ no está vigente el {dia}, fecha del comprobante; use una clave vigente"
            ),
        ),
        (Some(true), _) => {}
        (None, _) => v.omitida("c_ClaveProdServ (Conceptos.ClaveProdServ)"),
    }
    // Matrix CFDI40163: a code whose c_ClaveProdServ row names a complement requires it. Which
    // complement the column's text means is not mapped to a namespace: a concept with no
    // complement of its own and a comprobante with none but the TFD certainly lacks it.
    if let Some(requerido) = v.catalogos.complemento_clave_prod_serv(clave) {
        let con_complemento = c.complemento_concepto.is_some()
            || comprobante.complementos.iter().any(|k| !matches!(k, complementos::Complemento::TimbreFiscalDigital(_)));
        if !con_complemento {
            v.problema(
                "CFDI40163",
                &campo,
                format!("la clave {clave} requiere el complemento «{requerido}» (c_ClaveProdServ); agréguelo"),
            );
        }
    }
    let unidad = &c.clave_unidad;
    let campo_unidad = format!("Conceptos[{i}].ClaveUnidad");
    match (v.catalogos.clave_unidad(unidad), v.dia) {
        (Some(false), _) => v.problema(
            "CFDI40165",
            &campo_unidad,
            format!("«{unidad}» no está en c_ClaveUnidad; elija una clave del catálogo"),
        ),
        (Some(true), Some(dia)) if v.catalogos.clave_unidad_vigente(unidad, dia) == Some(false) => v.problema(
            "CFDI40165",
            &campo_unidad,
            format!(
                "«{unidad}» de c_ClaveUnidad no está vigente el {dia}, fecha del comprobante; use una clave vigente"
            ),
        ),
        (Some(true), _) => {}
        (None, _) => v.omitida("c_ClaveUnidad (Conceptos.ClaveUnidad)"),
    }
    // The flags bind a concept that itemizes the tax: IVA with ObjetoImp 02, IEPS with 02 or
    // 07. One not object of tax (01), not itemizing (03) or without IVA (06-08) has no such
    // traslado to check.
    let Some(datos) = v.catalogos.datos_clave_prod_serv(clave) else { return };
    let objeto = ObjetoImp::desde_codigo(&c.objeto_imp);
    let traslada = |impuesto: Impuesto| {
        c.impuestos.as_ref().is_some_and(|i| i.traslados.iter().any(|t| t.impuesto == impuesto.codigo()))
    };
    let desglosa_iva = objeto == Some(ObjetoImp::SiObjeto);
    let desglosa_ieps = objeto.is_some_and(ObjetoImp::requiere_impuestos);
    for (incluir, desglosa, impuesto, nombre) in [
        (datos.incluir_iva, desglosa_iva, Impuesto::Iva, "IVA (002)"),
        (datos.incluir_ieps, desglosa_ieps, Impuesto::Ieps, "IEPS (003)"),
    ] {
        if incluir == Incluir::Si && desglosa && !traslada(impuesto) {
            v.problema(
                "CFDI40164",
                format!("Conceptos[{i}].Impuestos.Traslados"),
                format!("la clave {clave} requiere un traslado de {nombre}; agréguelo al concepto"),
            );
        }
    }
}

/// Decreto de estímulos fiscales región fronteriza norte / sur: IVA at 8% (traslado 002,
/// TasaOCuota 0.080000) only when LugarExpedicion is in the border region (c_CodigoPostal's
/// estímulo column) and the ClaveProdServ is not excluded from the stimulus. Whether the issuer
/// is in the stimulus' register needs SAT's registry (left to the PAC).
fn validar_iva_frontera(v: &mut Validador<'_>, c: &Comprobante) {
    let ocho = Decimal::new(8, 2);
    let mut lugar: Option<Option<DatosCodigoPostal>> = None;
    for (i, concepto) in c.conceptos.iter().enumerate() {
        let Some(impuestos) = &concepto.impuestos else { continue };
        for (j, t) in impuestos.traslados.iter().enumerate() {
            let es_ocho = t.impuesto == Impuesto::Iva.codigo()
                && t.tipo_factor == TipoFactor::Tasa.codigo()
                && t.tasa_o_cuota.as_ref().and_then(|n| n.valor().ok()) == Some(ocho);
            if !es_ocho {
                continue;
            }
            let campo = format!("Conceptos[{i}].Impuestos.Traslados[{j}].TasaOCuota");
            let datos = *lugar.get_or_insert_with(|| v.catalogos.datos_codigo_postal(&c.lugar_expedicion));
            match datos.map(|d| d.estimulo_frontera) {
                Some(EstimuloFrontera::Ninguno) => v.problema(
                    "TIMBRA_IVA_FRONTERA",
                    &campo,
                    format!(
                        "IVA al 8% solo aplica con LugarExpedicion en la región fronteriza; «{}» no tiene el estímulo, use 0.160000",
                        c.lugar_expedicion
                    ),
                ),
                Some(_) => {}
                None => v.omitida("c_CodigoPostal (estímulo de la región fronteriza, IVA 8%)"),
            }
            if v.catalogos
                .datos_clave_prod_serv(&concepto.clave_prod_serv)
                .is_some_and(|d| !d.estimulo_franja_fronteriza)
            {
                v.problema(
                    "TIMBRA_IVA_FRONTERA",
                    &campo,
                    format!(
                        "la clave {} está excluida del estímulo de la región fronteriza; use 0.160000",
                        concepto.clave_prod_serv
                    ),
                );
            }
        }
    }
}

/// Anexo 20, Traslado/Retencion Importe: between `(Base ∓ 10^−d/2) × TasaOCuota`.
#[allow(clippy::too_many_arguments)]
fn revisar_importe_impuesto(
    v: &mut Validador<'_>,
    regla: &'static str,
    campo: &str,
    base_texto: &Numero,
    base: Decimal,
    tasa: Decimal,
    monto_texto: &Numero,
    monto: Decimal,
) {
    let decimales = monto_texto.decimales();
    let medio = diez_a_la_menos(base_texto.decimales()) * Decimal::new(5, 1);
    let (Some(inferior), Some(superior)) = ((base - medio).checked_mul(tasa), (base + medio).checked_mul(tasa)) else {
        v.problema(regla, campo, "Base × TasaOCuota excede el máximo de un importe (t_Importe)");
        return;
    };
    let inferior = inferior.round_dp_with_strategy(decimales, RoundingStrategy::ToNegativeInfinity);
    let superior = superior.round_dp_with_strategy(decimales, RoundingStrategy::ToPositiveInfinity);
    if monto < inferior || monto > superior {
        v.problema(regla, campo, format!("debe ser Base × TasaOCuota (entre {inferior} y {superior})"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogos::SinCatalogos;

    #[test]
    fn rfc() {
        assert!(rfc_valido("H&E951128469"));
        assert!(rfc_valido("IAÑL750210963"));
        assert!(!rfc_valido("EKU9003173C"));
    }

    #[test]
    fn numeros_enormes_son_problemas_no_panicos() {
        let maximo = "79228162514264337593543950335";
        let mut c = Comprobante {
            sub_total: Numero::from_texto(maximo),
            total: Numero::from_texto(maximo),
            ..Default::default()
        };
        c.conceptos.push(crate::model::Concepto {
            cantidad: Numero::from_texto(maximo),
            valor_unitario: Numero::from_texto(maximo),
            importe: Numero::from_texto(maximo),
            impuestos: Some(crate::model::ImpuestosConcepto {
                traslados: vec![crate::model::Traslado {
                    base: Numero::from_texto(maximo),
                    impuesto: "002".into(),
                    tipo_factor: "Tasa".into(),
                    tasa_o_cuota: Some(Numero::from_texto(maximo)),
                    importe: Some(Numero::from_texto(maximo)),
                }],
                retenciones: Vec::new(),
            }),
            ..Default::default()
        });
        c.conceptos.push(c.conceptos[0].clone());
        let informe = validar(&c, &SinCatalogos);
        assert!(informe.problemas.iter().any(|p| p.regla == "TIMBRA_NUMERO" && p.campo == "Conceptos[0].Cantidad"));
    }

    #[test]
    fn textos_fuera_del_patron_del_sat() {
        let mut c = Comprobante::default();
        c.receptor.nombre = "ACME\u{1}".into();
        c.emisor.nombre = "A|B".into();
        c.conceptos.push(crate::model::Concepto { descripcion: "x".repeat(1001), ..Default::default() });
        let informe = validar(&c, &SinCatalogos);
        let textos: Vec<&str> =
            informe.problemas.iter().filter(|p| p.regla == "TIMBRA_TEXTO").map(|p| p.campo.as_str()).collect();
        assert_eq!(textos, ["Emisor.Nombre", "Receptor.Nombre", "Conceptos[0].Descripcion"]);
    }

    #[test]
    fn uso_g03_con_616_sugiere_s01() {
        let mut c = Comprobante::default();
        c.receptor.rfc = "IAÑL750210963".into();
        c.receptor.regimen_fiscal_receptor = "616".into();
        c.receptor.uso_cfdi = "G03".into();
        let informe = validar(&c, &SinCatalogos);
        let problema = informe.problemas.iter().find(|p| p.regla == "CFDI40161").unwrap();
        assert_eq!(problema.campo, "Receptor.UsoCFDI");
        assert!(problema.mensaje.contains("S01"), "{}", problema.mensaje);
        assert!(informe.omitidas.iter().any(|o| o.contains("c_CodigoPostal")));
    }

    /// A small catalog layer: every code exists but a few, with the rows the rules read.
    struct Catalogo;

    const RETIRADA: &str = "10000001";
    const CON_IEPS: &str = "10000002";
    const SIN_ESTIMULO: &str = "10000003";
    const CON_COMPLEMENTO: &str = "10000004";

    impl Catalogos for Catalogo {
        fn clave_prod_serv(&self, clave: &str) -> Option<bool> {
            Some(clave != "99999999")
        }
        fn datos_clave_prod_serv(&self, clave: &str) -> Option<catalogos::DatosClaveProdServ> {
            let hasta = time::macros::date!(2020 - 12 - 31);
            Some(catalogos::DatosClaveProdServ {
                incluir_iva: Incluir::No,
                incluir_ieps: if clave == CON_IEPS { Incluir::Si } else { Incluir::Opcional },
                estimulo_franja_fronteriza: clave != SIN_ESTIMULO,
                vigencia: catalogos::Vigencia { desde: None, hasta: (clave == RETIRADA).then_some(hasta) },
            })
        }
        fn clave_unidad(&self, clave: &str) -> Option<bool> {
            Some(clave != "ZZZ")
        }
        fn vigencia_clave_unidad(&self, clave: &str) -> Option<catalogos::Vigencia> {
            // "NUE": in force only from a date after the documents'.
            let desde = time::macros::date!(2027 - 01 - 01);
            Some(catalogos::Vigencia { desde: (clave == "NUE").then_some(desde), hasta: None })
        }
        fn codigo_postal(&self, codigo: &str) -> Option<bool> {
            Some(codigo != "00001")
        }
        fn datos_codigo_postal(&self, codigo: &str) -> Option<DatosCodigoPostal> {
            Some(DatosCodigoPostal {
                estimulo_frontera: if codigo == "22000" { EstimuloFrontera::Norte } else { EstimuloFrontera::Ninguno },
                huso_horario: catalogos::HusoHorario::Centro,
                vigencia: catalogos::Vigencia::default(),
            })
        }
        fn en_catalogo(&self, _catalogo: &str, clave: &str) -> Option<bool> {
            Some(clave != "ZZZ")
        }
        fn complemento_clave_prod_serv(&self, clave: &str) -> Option<String> {
            (clave == CON_COMPLEMENTO).then(|| "Instituciones educativas privadas".to_owned())
        }
        fn patron_num_reg_id_trib(&self, pais: &str) -> Option<String> {
            (pais == "USA").then(|| "[0-9]{9}".to_owned())
        }
    }

    fn golden(nombre: &str) -> Comprobante {
        let ruta = format!("{}/tests/golden/{nombre}.xml", env!("CARGO_MANIFEST_DIR"));
        crate::parser::parsear(&std::fs::read_to_string(ruta).unwrap()).unwrap()
    }

    fn reglas(c: &Comprobante) -> Vec<&'static str> {
        validar(c, &Catalogo).problemas.iter().map(|p| p.regla).collect()
    }

    /// The golden documents pass with the catalogs loaded, so each case below fails only its rule.
    #[test]
    fn documentos_validos_con_catalogos() {
        for nombre in ["I_iva16", "I_iva8", "I_global", "I_retenciones", "E_nota_credito", "P_pagos20", "N_nomina12"] {
            let c = golden(nombre);
            assert!(reglas(&c).is_empty(), "{nombre}: {:?}", validar(&c, &Catalogo).problemas);
        }
    }

    #[test]
    fn cada_regla_nueva_tiene_su_cuerpo_que_falla() {
        type Caso = (&'static str, &'static str, fn(&mut Comprobante));
        let casos: &[Caso] = &[
            // Catalog validity at the document's date (2026-11-20).
            ("I_iva16", "CFDI40162", |c| c.conceptos[0].clave_prod_serv = RETIRADA.into()),
            ("I_iva16", "CFDI40162", |c| c.conceptos[0].clave_prod_serv = "99999999".into()),
            ("I_iva16", "CFDI40165", |c| c.conceptos[0].clave_unidad = "NUE".into()),
            ("I_iva16", "CFDI40165", |c| c.conceptos[0].clave_unidad = "ZZZ".into()),
            ("I_iva16", "CFDI40126", |c| c.lugar_expedicion = "00001".into()),
            ("I_iva16", "TIMBRA_DOMICILIO_FISCAL_RECEPTOR", |c| c.receptor.domicilio_fiscal_receptor = "00001".into()),
            // c_ClaveProdServ flags that require a traslado.
            ("I_iva16", "CFDI40164", |c| c.conceptos[0].clave_prod_serv = CON_IEPS.into()),
            // IVA 8% only in the border region, and not for excluded codes.
            ("I_iva8", "TIMBRA_IVA_FRONTERA", |c| c.lugar_expedicion = "86000".into()),
            ("I_iva8", "TIMBRA_IVA_FRONTERA", |c| c.conceptos[0].clave_prod_serv = SIN_ESTIMULO.into()),
            // Currency decimals of the comprobante's amounts and taxes.
            ("I_iva16", "CFDI40204", |c| {
                let i = c.impuestos.as_mut().unwrap();
                let texto = format!("{}0", i.total_impuestos_trasladados.as_ref().unwrap().texto());
                i.total_impuestos_trasladados = Some(Numero::from_texto(&texto));
            }),
            ("I_iva16", "CFDI40220", |c| {
                let t = &mut c.impuestos.as_mut().unwrap().traslados[0];
                let texto = format!("{}0", t.importe.as_ref().unwrap().texto());
                t.importe = Some(Numero::from_texto(&texto));
            }),
            ("I_iva16", "CFDI40214", |c| {
                let t = &mut c.impuestos.as_mut().unwrap().traslados[0];
                t.base = Numero::from_texto(format!("{}0", t.base.texto()));
            }),
            ("I_iva16", "CFDI40107", |c| c.sub_total = Numero::from_texto(format!("{}0", c.sub_total.texto()))),
            // TipoCambio by Moneda.
            ("I_iva16", "CFDI40114", |c| c.tipo_cambio = Some(Numero::from_texto("2"))),
            ("I_iva16", "CFDI40115", |c| c.moneda = "USD".into()),
            // InformacionGlobal only for the generic RFC, required on the global invoice, Año near Fecha.
            ("I_iva16", "TIMBRA_INFORMACION_GLOBAL", |c| {
                c.informacion_global = Some(crate::model::InformacionGlobal {
                    periodicidad: "01".into(),
                    meses: "11".into(),
                    ano: "2026".into(),
                });
            }),
            ("I_global", "CFDI40130", |c| c.informacion_global = None),
            ("I_global", "CFDI40136", |c| c.informacion_global.as_mut().unwrap().ano = "2024".into()),
            ("I_global", "CFDI40149", |c| c.receptor.domicilio_fiscal_receptor = "06002".into()),
            ("I_global", "CFDI40159", |c| c.receptor.regimen_fiscal_receptor = "601".into()),
            // Retención TipoFactor Exento.
            ("I_retenciones", "CFDI40184", |c| {
                let r = &mut c.conceptos[0].impuestos.as_mut().unwrap().retenciones[0];
                r.tipo_factor = "Exento".into();
            }),
        ];
        for (nombre, regla, romper) in casos {
            let mut c = golden(nombre);
            romper(&mut c);
            let problemas = validar(&c, &Catalogo).problemas;
            assert!(problemas.iter().any(|p| p.regla == *regla), "{nombre} {regla}: {problemas:?}");
        }
    }

    /// A foreign receiver (XEXX010101000) of I_iva16, valid as it is.
    fn extranjero(c: &mut Comprobante) {
        c.receptor.rfc = RFC_EXTRANJERO.into();
        c.receptor.regimen_fiscal_receptor = "616".into();
        c.receptor.uso_cfdi = "S01".into();
        c.receptor.domicilio_fiscal_receptor = c.lugar_expedicion.clone();
        c.receptor.residencia_fiscal = Some("USA".into());
        c.receptor.num_reg_id_trib = Some("123456789".into());
    }

    fn parte() -> crate::model::Parte {
        crate::model::Parte {
            clave_prod_serv: "43211500".into(),
            cantidad: Numero::from_texto("2"),
            descripcion: "Batería".into(),
            valor_unitario: Some(Numero::from_texto("10.50")),
            importe: Some(Numero::from_texto("21.00")),
            informacion_aduanera: vec!["21  47  3807  8003832".into()],
            ..Default::default()
        }
    }

    /// The rules of SAT's matrix checked since issue 29's second step: each body breaks the
    /// rule (alone where the document allows it: `solo`), and the valid forms pass.
    #[test]
    fn reglas_de_la_matriz_cada_una_con_su_cuerpo() {
        type Caso = (&'static str, &'static [&'static str], fn(&mut Comprobante));
        let casos: &[Caso] = &[
            // SubTotal of a T is 0 (Total follows it).
            ("T_traslado", &["CFDI40109", "CFDI40119"], |c| c.sub_total = Numero::from_texto("10")),
            // TipoCambio's pattern.
            ("I_usd", &["CFDI40117"], |c| c.tipo_cambio = Some(Numero::from_texto("17.2545001"))),
            ("I_usd", &["CFDI40117"], |c| c.tipo_cambio = Some(Numero::from_texto("0"))),
            ("I_usd", &["CFDI40117"], |c| c.tipo_cambio = Some(Numero::from_texto("17,25"))),
            // InformacionGlobal: periodicity 05 is régimen 621's, with bimesters only.
            ("I_global", &["CFDI40132"], |c| {
                let g = c.informacion_global.as_mut().unwrap();
                g.periodicidad = "05".into();
                g.meses = "17".into();
            }),
            ("I_global", &["CFDI40135"], |c| {
                c.emisor.rfc = "IAÑL750210963".into();
                c.emisor.regimen_fiscal = "621".into();
                let g = c.informacion_global.as_mut().unwrap();
                g.periodicidad = "05".into();
            }),
            ("I_global", &["CFDI40134"], |c| c.informacion_global.as_mut().unwrap().meses = "14".into()),
            // ResidenciaFiscal and NumRegIdTrib.
            ("I_iva16", &["CFDI40151"], |c| c.receptor.residencia_fiscal = Some("USA".into())),
            ("I_iva16", &["CFDI40153", "CFDI40154"], |c| c.receptor.num_reg_id_trib = Some("123456789".into())),
            ("I_iva16", &["CFDI40150"], |c| {
                extranjero(c);
                c.receptor.residencia_fiscal = Some("ZZZ".into());
            }),
            ("I_iva16", &["CFDI40152"], |c| {
                extranjero(c);
                c.receptor.residencia_fiscal = Some("MEX".into());
            }),
            ("I_iva16", &["CFDI40153"], |c| {
                extranjero(c);
                c.receptor.residencia_fiscal = None;
            }),
            ("I_iva16", &["CFDI40156"], |c| {
                extranjero(c);
                c.receptor.num_reg_id_trib = Some("12345-678".into());
            }),
            // A code whose c_ClaveProdServ row names a complement.
            ("I_iva16", &["CFDI40163"], |c| c.conceptos[0].clave_prod_serv = CON_COMPLEMENTO.into()),
            // Pedimentos, CuentaPredial and Parte.
            ("I_iva16", &["CFDI40194"], |c| c.conceptos[0].informacion_aduanera = vec!["21 47 3807 8003832".into()]),
            ("I_iva16", &["TIMBRA_CUENTA_PREDIAL"], |c| c.conceptos[0].cuenta_predial = vec!["12-34".into()]),
            ("I_iva16", &["CFDI40196"], |c| {
                c.conceptos[0].partes = vec![crate::model::Parte { clave_prod_serv: "99999999".into(), ..parte() }];
            }),
            ("I_iva16", &["CFDI40196"], |c| {
                c.conceptos[0].partes = vec![crate::model::Parte { clave_prod_serv: RETIRADA.into(), ..parte() }];
            }),
            ("I_iva16", &["CFDI40197", "CFDI40198"], |c| {
                c.conceptos[0].partes =
                    vec![crate::model::Parte { valor_unitario: Some(Numero::from_texto("0")), ..parte() }];
            }),
            ("I_iva16", &["CFDI40198"], |c| {
                c.conceptos[0].partes =
                    vec![crate::model::Parte { importe: Some(Numero::from_texto("30.00")), ..parte() }];
            }),
            ("I_iva16", &["CFDI40199"], |c| {
                c.conceptos[0].partes =
                    vec![crate::model::Parte { informacion_aduanera: vec!["2147  3807  8003832".into()], ..parte() }];
            }),
            // The comprobante's grouped taxes.
            // (TotalImpuestosTrasladados is then asked for the Importe: CFDI40212.)
            ("I_exento", &["CFDI40212", "CFDI40213"], |c| {
                let t = &mut c.impuestos.as_mut().unwrap().traslados[0];
                t.importe = Some(Numero::from_texto("0.00"));
            }),
        ];
        for (nombre, esperadas, romper) in casos {
            let mut c = golden(nombre);
            romper(&mut c);
            let mut obtenidas = reglas(&c);
            obtenidas.sort_unstable();
            assert_eq!(&obtenidas, esperadas, "{nombre}: {:?}", validar(&c, &Catalogo).problemas);
        }
        // Cases where the break moves other sums too: the rule is among the problems.
        type Entre = (&'static str, &'static str, fn(&mut Comprobante));
        let casos: &[Entre] = &[
            ("I_iva16", "CFDI40110", |c| c.descuento = Some(Numero::from_texto("40000.00"))),
            ("I_iva16", "CFDI40166", |c| {
                c.conceptos[1].valor_unitario = Numero::from_texto("0");
            }),
            ("I_iva16", "CFDI40168", |c| c.conceptos[0].descuento = Some(Numero::from_texto("500.001"))),
            ("I_iva16", "CFDI40173", |c| {
                c.conceptos[0].objeto_imp = "01".into();
                c.conceptos[0].impuestos = Some(crate::model::ImpuestosConcepto::default());
            }),
            ("I_iva16", "CFDI40174", |c| {
                c.conceptos[0].impuestos.as_mut().unwrap().traslados[0].base = Numero::from_texto("0");
            }),
            ("I_retenciones", "CFDI40181", |c| {
                c.conceptos[0].impuestos.as_mut().unwrap().retenciones[0].base = Numero::from_texto("0.00");
            }),
            ("I_comercio_exterior", "CFDI40195", |c| {
                c.conceptos[0].informacion_aduanera = vec!["21  47  3807  8003832".into()];
            }),
            ("I_comercio_exterior", "CFDI40200", |c| c.conceptos[0].partes = vec![parte()]),
            ("I_retenciones", "CFDI40207", |c| c.impuestos.as_mut().unwrap().retenciones[0].impuesto = "004".into()),
            ("I_retenciones", "CFDI40208", |c| {
                let i = c.impuestos.as_mut().unwrap();
                i.retenciones.push(i.retenciones[0].clone());
            }),
            ("I_iva16", "CFDI40217", |c| c.impuestos.as_mut().unwrap().traslados[0].impuesto = "004".into()),
            ("I_iva16", "CFDI40218", |c| {
                let i = c.impuestos.as_mut().unwrap();
                i.traslados.push(i.traslados[0].clone());
            }),
            ("I_iva16", "CFDI40219", |c| {
                c.impuestos.as_mut().unwrap().traslados[0].tasa_o_cuota = Some(Numero::from_texto("0.170000"));
            }),
        ];
        for (nombre, regla, romper) in casos {
            let mut c = golden(nombre);
            romper(&mut c);
            assert!(reglas(&c).contains(regla), "{nombre} {regla}: {:?}", validar(&c, &Catalogo).problemas);
        }
    }

    /// What the new rules must not refuse.
    #[test]
    fn reglas_de_la_matriz_aceptan_lo_valido() {
        type Caso = (&'static str, fn(&mut Comprobante));
        let casos: &[Caso] = &[
            // A T's concepts may carry a value; its SubTotal stays 0 (CFDI40108 is for I, E, N).
            ("T_traslado", |c| {
                c.conceptos[0].valor_unitario = Numero::from_texto("100");
                c.conceptos[0].importe = Numero::from_texto("2500");
            }),
            ("I_usd", |c| c.tipo_cambio = Some(Numero::from_texto("17.25450000"))),
            ("I_usd", |c| c.tipo_cambio = Some(Numero::from_texto("+0.000001"))),
            ("I_global", |c| {
                c.emisor.rfc = "IAÑL750210963".into();
                c.emisor.regimen_fiscal = "621".into();
                let g = c.informacion_global.as_mut().unwrap();
                g.periodicidad = "05".into();
                g.meses = "18".into();
            }),
            ("I_iva16", extranjero),
            ("I_iva16", |c| {
                c.conceptos[0].clave_prod_serv = CON_COMPLEMENTO.into();
                c.conceptos[0].complemento_concepto = Some(crate::model::XmlCrudo::default());
            }),
            ("I_iva16", |c| {
                extranjero(c);
                // A country c_Pais gives no pattern for.
                c.receptor.residencia_fiscal = Some("DEU".into());
                c.receptor.num_reg_id_trib = Some("DE 123-456".into());
            }),
            ("I_iva16", |c| {
                c.conceptos[0].informacion_aduanera = vec!["21  47  3807  8003832".into()];
                c.conceptos[0].cuenta_predial = vec!["ABC123".into()];
                c.conceptos[0].partes =
                    vec![parte(), crate::model::Parte { valor_unitario: None, importe: None, ..parte() }];
            }),
        ];
        for (nombre, cambiar) in casos {
            let mut c = golden(nombre);
            cambiar(&mut c);
            assert!(reglas(&c).is_empty(), "{nombre}: {:?}", validar(&c, &Catalogo).problemas);
        }
    }

    #[test]
    fn patrones_de_c_pais() {
        assert_eq!(coincide("[0-9]{9}", "123456789"), Some(true));
        assert_eq!(coincide("[0-9]{9}", "12345678"), Some(false));
        assert_eq!(coincide("[0-9]{9}", "1234567890"), Some(false));
        assert_eq!(coincide("[0-9]{5}(-[0-9]{4})?", "12345"), Some(true));
        assert_eq!(coincide("[0-9]{5}(-[0-9]{4})?", "12345-6789"), Some(true));
        assert_eq!(coincide("[0-9]{5}(-[0-9]{4})?", "12345-678"), Some(false));
        assert_eq!(coincide("[A-Z][0-9][A-Z] [0-9][A-Z][0-9]", "K1A 0B1"), Some(true));
        assert_eq!(coincide("^(AB|CD)+$", "ABCDAB"), Some(true));
        assert_eq!(coincide("(AB|CD)+", "ABC"), Some(false));
        assert_eq!(coincide("[^0-9]", "A"), None);
        assert_eq!(coincide("[0-9]{2", "12"), None);
        assert_eq!(coincide("a)", "a"), None);
    }

    #[test]
    fn moneda_xxx_sin_tipo_de_cambio() {
        let mut c = golden("P_pagos20");
        c.tipo_cambio = Some(Numero::from_texto("1"));
        assert!(reglas(&c).contains(&"CFDI40116"), "{:?}", reglas(&c));
    }

    #[test]
    fn fecha_dentro_de_las_72_horas_de_la_certificacion() {
        let c = golden("I_iva16");
        let fecha = leer_fecha(&c.fecha).unwrap();
        let con = |certificacion| validar_con(&c, &Catalogo, Contexto { certificacion: Some(certificacion) });
        assert!(con(fecha).es_valido());
        assert!(con(fecha + Duration::hours(71)).es_valido());
        assert!(con(fecha - Duration::minutes(4)).es_valido());
        let viejo = con(fecha + Duration::hours(73));
        assert_eq!(viejo.problemas.iter().map(|p| p.regla).collect::<Vec<_>>(), ["TIMBRA_FECHA_72_HORAS"]);
        let futuro = con(fecha - Duration::hours(1));
        assert_eq!(futuro.problemas.iter().map(|p| p.regla).collect::<Vec<_>>(), ["TIMBRA_FECHA_FUTURA"]);
        assert_eq!(futuro.problemas[0].campo, "Fecha");
        // Without a moment of certification the rule is listed as skipped.
        assert!(validar(&c, &Catalogo).omitidas.iter().any(|o| o.starts_with("Fecha")));
        assert_eq!(leer_fecha("2026-02-30T10:00:00"), None);
    }

    /// No rule id of this crate starts with `CFDI40` unless it is SAT's numbered code.
    #[test]
    fn ids_propios_no_empiezan_con_cfdi40() {
        let fuentes = [
            include_str!("validacion.rs"),
            include_str!("complementos/pagos/validacion.rs"),
            include_str!("complementos/nomina/validacion.rs"),
            include_str!("complementos/comercio_exterior/validacion.rs"),
            include_str!("complementos/carta_porte/validacion.rs"),
        ];
        let prefijo = concat!("\"CFDI40", "_");
        for fuente in fuentes {
            assert!(!fuente.contains(prefijo), "an id starting with CFDI40_ is left");
        }
    }
}
