//! Validation of a comprobante against Anexo 20 (CFDI 4.0), the Guía de llenado and the
//! SAT catalogs. Every problem is returned at once, each with a stable rule id (`regla`)
//! and a field path (`campo`).

// Each SAT rule is written as its own condition inside the branch that makes it apply, so a
// reader can match code to rule text; collapsing them would merge unrelated conditions.
#![allow(clippy::collapsible_if, clippy::collapsible_match)]

use rust_decimal::{Decimal, RoundingStrategy};

use crate::catalogos::{
    self, Catalogos, CompatibilidadUso, Exportacion, FormaPago, Impuesto, Meses, MetodoPago, ObjetoImp, Periodicidad,
    RegimenFiscal, TipoDeComprobante, TipoFactor, TipoRelacion, UsoCfdi,
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
    /// Stable rule id, e.g. `CFDI40_USO_REGIMEN`.
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
    catalogos: &'a dyn Catalogos,
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

    fn omitida(&mut self, descripcion: &str) {
        if !self.informe.omitidas.iter().any(|o| o == descripcion) {
            self.informe.omitidas.push(descripcion.to_owned());
        }
    }

    /// Parses a number; reports CFDI40_NUMERO when it is not one or when it has more than the
    /// 18 integer digits of tdCFDI `t_Importe` (which also keeps the sums and products below
    /// from overflowing).
    fn numero(&mut self, campo: &str, numero: &Numero) -> Option<Decimal> {
        match numero.valor() {
            Ok(valor) if valor.abs() >= LIMITE_IMPORTE => {
                self.problema(
                    "CFDI40_NUMERO",
                    campo,
                    format!("«{}» excede los 18 dígitos enteros de un importe (t_Importe)", numero.texto()),
                );
                None
            }
            Ok(valor) => Some(valor),
            Err(_) => {
                self.problema("CFDI40_NUMERO", campo, format!("«{}» no es un número decimal", numero.texto()));
                None
            }
        }
    }

    /// Anexo 20: amounts carry at most the decimals of the currency.
    fn decimales(&mut self, campo: &str, numero: &Numero, maximo: u32) {
        if numero.decimales() > maximo {
            self.problema(
                "CFDI40_DECIMALES_MONEDA",
                campo,
                format!("«{}» tiene más de {maximo} decimales, los que admite la moneda", numero.texto()),
            );
        }
    }

    /// A free text against its SAT attribute's pattern and length (CFDI40_TEXTO).
    fn texto(&mut self, campo: &str, texto: &str, atributo: CampoTexto) {
        if let Err(error) = TextoSat::new(atributo, texto) {
            self.problema("CFDI40_TEXTO", campo, format!("{campo} {error}"));
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

/// Validates everything at once. Large catalogs come from `catalogos`
/// ([`catalogos::SinCatalogos`] skips those checks and lists them in `omitidas`).
pub fn validar(c: &Comprobante, catalogos: &dyn Catalogos) -> Informe {
    let mut v = Validador { informe: Informe::default(), catalogos };
    validar_encabezado(&mut v, c);
    validar_partes(&mut v, c);
    validar_importes(&mut v, c);
    v.informe
}

fn validar_encabezado(v: &mut Validador<'_>, c: &Comprobante) {
    if c.version != "4.0" {
        v.problema("CFDI40_VERSION", "Version", "debe ser 4.0");
    }
    if !fecha_valida(&c.fecha) {
        v.problema("CFDI40_FECHA", "Fecha", "formato AAAA-MM-DDThh:mm:ss requerido");
    }
    let tipo = v.catalogo(
        "CFDI40_TIPO_COMPROBANTE",
        "TipoDeComprobante",
        &c.tipo_de_comprobante,
        "c_TipoDeComprobante",
        TipoDeComprobante::desde_codigo,
    );
    v.catalogo("CFDI40_EXPORTACION", "Exportacion", &c.exportacion, "c_Exportacion", Exportacion::desde_codigo);
    let forma = c
        .forma_pago
        .as_deref()
        .and_then(|f| v.catalogo("CFDI40_FORMA_PAGO", "FormaPago", f, "c_FormaPago", FormaPago::desde_codigo));
    let metodo = c
        .metodo_pago
        .as_deref()
        .and_then(|m| v.catalogo("CFDI40_METODO_PAGO", "MetodoPago", m, "c_MetodoPago", MetodoPago::desde_codigo));
    match tipo {
        // Anexo 20, FormaPago / MetodoPago: required for Ingreso and Egreso.
        Some(TipoDeComprobante::Ingreso | TipoDeComprobante::Egreso) => {
            if c.forma_pago.is_none() {
                v.problema("CFDI40_FORMA_PAGO_REQUERIDA", "FormaPago", "requerido en comprobantes de ingreso y egreso");
            }
            if c.metodo_pago.is_none() {
                v.problema(
                    "CFDI40_METODO_PAGO_REQUERIDO",
                    "MetodoPago",
                    "requerido en comprobantes de ingreso y egreso",
                );
            }
        }
        // Anexo 20: T and P carry neither FormaPago nor MetodoPago.
        Some(TipoDeComprobante::Traslado | TipoDeComprobante::Pago) => {
            if c.forma_pago.is_some() {
                v.problema("CFDI40_FORMA_PAGO_NO_PERMITIDA", "FormaPago", "no debe existir en comprobantes T y P");
            }
            if c.metodo_pago.is_some() {
                v.problema("CFDI40_METODO_PAGO_NO_PERMITIDO", "MetodoPago", "no debe existir en comprobantes T y P");
            }
        }
        _ => {}
    }
    // Anexo 20, MetodoPago: PPD requires FormaPago 99; PUE may not use 99.
    match (metodo, forma) {
        (Some(MetodoPago::Ppd), Some(f)) if f != FormaPago::PorDefinir => {
            v.problema("CFDI40_PPD_FORMA_99", "FormaPago", "con MetodoPago PPD la FormaPago debe ser 99 (Por definir)");
        }
        (Some(MetodoPago::Pue), Some(FormaPago::PorDefinir)) => {
            v.problema(
                "CFDI40_PUE_FORMA_99",
                "FormaPago",
                "con MetodoPago PUE la FormaPago no puede ser 99 (Por definir)",
            );
        }
        _ => {}
    }
    // Moneda and TipoCambio.
    let moneda = catalogos::moneda(&c.moneda);
    if moneda.is_none() {
        v.problema("CFDI40_MONEDA", "Moneda", format!("«{}» no está en el catálogo c_Moneda", c.moneda));
    }
    match (c.moneda.as_str(), &c.tipo_cambio) {
        ("XXX", Some(_)) => v.problema("CFDI40_TIPO_CAMBIO", "TipoCambio", "no debe existir con Moneda XXX"),
        ("MXN", Some(tc)) if tc.valor().ok() != Some(Decimal::ONE) => {
            v.problema("CFDI40_TIPO_CAMBIO", "TipoCambio", "con Moneda MXN debe ser 1")
        }
        ("MXN" | "XXX", _) => {}
        (_, None) if moneda.is_some() => {
            v.problema("CFDI40_TIPO_CAMBIO", "TipoCambio", "requerido cuando Moneda no es MXN ni XXX")
        }
        _ => {}
    }
    // Anexo 20, TipoDeComprobante: a Traslado totals zero.
    if matches!(tipo, Some(TipoDeComprobante::Traslado)) && c.total.valor().ok() != Some(Decimal::ZERO) {
        v.problema("CFDI40_TRASLADO_TOTAL", "Total", "un comprobante de traslado tiene Total 0");
    }
    // What each complement's guide requires of the comprobante (Pagos 2.0: tipo P; Nómina
    // 1.2: tipo N).
    complementos::validar(v, c, tipo);
    if let Some(global) = &c.informacion_global {
        v.catalogo(
            "CFDI40_PERIODICIDAD",
            "InformacionGlobal.Periodicidad",
            &global.periodicidad,
            "c_Periodicidad",
            Periodicidad::desde_codigo,
        );
        v.catalogo("CFDI40_MESES", "InformacionGlobal.Meses", &global.meses, "c_Meses", Meses::desde_codigo);
        if global.ano.len() != 4 || !global.ano.bytes().all(|b| b.is_ascii_digit()) {
            v.problema("CFDI40_ANO", "InformacionGlobal.Año", "debe ser un año de cuatro dígitos");
        }
    }
    for (i, relacionados) in c.cfdi_relacionados.iter().enumerate() {
        v.catalogo(
            "CFDI40_TIPO_RELACION",
            &format!("CfdiRelacionados[{i}].TipoRelacion"),
            &relacionados.tipo_relacion,
            "c_TipoRelacion",
            TipoRelacion::desde_codigo,
        );
        for (j, uuid) in relacionados.uuids.iter().enumerate() {
            if !uuid_valido(uuid) {
                v.problema(
                    "CFDI40_UUID_RELACIONADO",
                    format!("CfdiRelacionados[{i}].CfdiRelacionado[{j}].UUID"),
                    "no es un UUID válido",
                );
            }
        }
    }
    match v.catalogos.codigo_postal(&c.lugar_expedicion) {
        Some(false) => v.problema(
            "CFDI40_CODIGO_POSTAL",
            "LugarExpedicion",
            format!("«{}» no está en c_CodigoPostal", c.lugar_expedicion),
        ),
        Some(true) => {}
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
        v.problema("CFDI40_RFC", "Emisor.Rfc", "no tiene la forma de un RFC");
    }
    if let Some(regimen) = v.catalogo(
        "CFDI40_REGIMEN_EMISOR",
        "Emisor.RegimenFiscal",
        &c.emisor.regimen_fiscal,
        "c_RegimenFiscal",
        RegimenFiscal::desde_codigo,
    ) {
        let fisica = es_persona_fisica(&c.emisor.rfc);
        if (fisica && !regimen.aplica_fisica()) || (!fisica && !regimen.aplica_moral()) {
            v.problema(
                "CFDI40_REGIMEN_TIPO_PERSONA",
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
        v.problema("CFDI40_RFC", "Receptor.Rfc", "no tiene la forma de un RFC");
    }
    let regimen = v.catalogo(
        "CFDI40_REGIMEN_RECEPTOR",
        "Receptor.RegimenFiscalReceptor",
        &r.regimen_fiscal_receptor,
        "c_RegimenFiscal",
        RegimenFiscal::desde_codigo,
    );
    let uso = v.catalogo("CFDI40_USO_CFDI", "Receptor.UsoCFDI", &r.uso_cfdi, "c_UsoCFDI", UsoCfdi::desde_codigo);
    let generico = es_rfc_generico(&r.rfc);
    if let (Some(regimen), false) = (regimen, generico) {
        let fisica = es_persona_fisica(&r.rfc);
        if (fisica && !regimen.aplica_fisica()) || (!fisica && !regimen.aplica_moral()) {
            v.problema(
                "CFDI40_REGIMEN_TIPO_PERSONA",
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
                "CFDI40_USO_TIPO_PERSONA",
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
            "CFDI40_USO_REGIMEN",
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
        if r.regimen_fiscal_receptor != "616" {
            v.problema(
                "CFDI40_PUBLICO_GENERAL",
                "Receptor.RegimenFiscalReceptor",
                "con RFC XAXX010101000 el régimen es 616",
            );
        }
        if r.uso_cfdi != "S01" && c.tipo_de_comprobante != "N" {
            v.problema("CFDI40_PUBLICO_GENERAL", "Receptor.UsoCFDI", "con RFC XAXX010101000 el uso es S01");
        }
        if r.domicilio_fiscal_receptor != c.lugar_expedicion {
            v.problema(
                "CFDI40_PUBLICO_GENERAL",
                "Receptor.DomicilioFiscalReceptor",
                "con RFC genérico debe ser igual a LugarExpedicion",
            );
        }
        if r.nombre == NOMBRE_PUBLICO_GENERAL && c.informacion_global.is_none() && c.tipo_de_comprobante == "I" {
            v.problema(
                "CFDI40_INFORMACION_GLOBAL",
                "InformacionGlobal",
                "requerido en la factura global a PUBLICO EN GENERAL",
            );
        }
    } else if c.informacion_global.is_some() {
        v.problema("CFDI40_INFORMACION_GLOBAL", "InformacionGlobal", "solo existe cuando el receptor es XAXX010101000");
    }
    if r.rfc == RFC_EXTRANJERO && r.domicilio_fiscal_receptor != c.lugar_expedicion {
        v.problema(
            "CFDI40_EXTRANJERO",
            "Receptor.DomicilioFiscalReceptor",
            "con RFC genérico debe ser igual a LugarExpedicion",
        );
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
        let (importe, descuento) = validar_concepto(v, i, concepto, dec, &mut traslados, &mut retenciones);
        suma_importes += importe;
        if let Some(d) = descuento {
            hay_descuento = true;
            suma_descuentos += d;
        }
    }
    v.decimales("SubTotal", &c.sub_total, dec);
    v.decimales("Total", &c.total, dec);
    // Anexo 20, SubTotal: sum of the concepts' Importe.
    if let Some(sub_total) = v.numero("SubTotal", &c.sub_total) {
        if sub_total != redondear(suma_importes, dec) {
            v.problema(
                "CFDI40_SUBTOTAL",
                "SubTotal",
                format!("debe ser la suma de los importes de los conceptos: {}", redondear(suma_importes, dec)),
            );
        }
    }
    // Anexo 20, Descuento: sum of the concepts' Descuento; absent when none has one.
    let descuento = match &c.descuento {
        Some(d) => {
            v.decimales("Descuento", d, dec);
            let valor = v.numero("Descuento", d).unwrap_or_default();
            if valor != redondear(suma_descuentos, dec) {
                v.problema(
                    "CFDI40_DESCUENTO",
                    "Descuento",
                    format!("debe ser la suma de los descuentos de los conceptos: {}", redondear(suma_descuentos, dec)),
                );
            }
            valor
        }
        None => {
            if hay_descuento && suma_descuentos != Decimal::ZERO {
                v.problema("CFDI40_DESCUENTO", "Descuento", "requerido cuando algún concepto tiene descuento");
            }
            Decimal::ZERO
        }
    };
    // Comprobante-level Impuestos: grouped sums of the concepts'.
    let mut total_trasladados = Decimal::ZERO;
    let mut total_retenidos = Decimal::ZERO;
    match &c.impuestos {
        None => {
            if !traslados.is_empty() || !retenciones.is_empty() {
                v.problema(
                    "CFDI40_IMPUESTOS_REQUERIDO",
                    "Impuestos",
                    "requerido cuando los conceptos tienen impuestos",
                );
            }
        }
        Some(impuestos) => {
            let mut vistos = 0;
            for (j, t) in impuestos.traslados.iter().enumerate() {
                let campo = format!("Impuestos.Traslados[{j}]");
                let tasa = t.tasa_o_cuota.as_ref().map(|n| n.texto().to_owned());
                let grupo =
                    traslados.iter().find(|(i, f, k, ..)| *i == t.impuesto && *f == t.tipo_factor && *k == tasa);
                let Some((_, _, _, base, importe)) = grupo.cloned() else {
                    v.problema(
                        "CFDI40_IMPUESTOS_AGRUPADOS",
                        campo,
                        "no corresponde a ningún traslado de los conceptos",
                    );
                    continue;
                };
                vistos += 1;
                if v.numero(&format!("{campo}.Base"), &t.base) != Some(redondear(base, dec)) {
                    v.problema(
                        "CFDI40_IMPUESTOS_AGRUPADOS",
                        format!("{campo}.Base"),
                        format!("debe ser la suma de las bases de los conceptos: {}", redondear(base, dec)),
                    );
                }
                if let Some(i) = &t.importe {
                    let valor = v.numero(&format!("{campo}.Importe"), i).unwrap_or_default();
                    total_trasladados += valor;
                    if valor != redondear(importe, dec) {
                        v.problema(
                            "CFDI40_IMPUESTOS_AGRUPADOS",
                            format!("{campo}.Importe"),
                            format!("debe ser la suma de los importes de los conceptos: {}", redondear(importe, dec)),
                        );
                    }
                }
            }
            if vistos != traslados.len() {
                v.problema(
                    "CFDI40_IMPUESTOS_AGRUPADOS",
                    "Impuestos.Traslados",
                    "faltan grupos de traslados de los conceptos",
                );
            }
            for (j, r) in impuestos.retenciones.iter().enumerate() {
                let campo = format!("Impuestos.Retenciones[{j}].Importe");
                let esperado = retenciones.iter().find(|(i, _)| *i == r.impuesto).map(|(_, importe)| *importe);
                let valor = v.numero(&campo, &r.importe).unwrap_or_default();
                total_retenidos += valor;
                if esperado.map(|e| redondear(e, dec)) != Some(valor) {
                    v.problema(
                        "CFDI40_IMPUESTOS_AGRUPADOS",
                        campo,
                        "debe ser la suma de las retenciones de ese impuesto en los conceptos",
                    );
                }
            }
            if impuestos.retenciones.len() != retenciones.len() {
                v.problema(
                    "CFDI40_IMPUESTOS_AGRUPADOS",
                    "Impuestos.Retenciones",
                    "una retención por impuesto de los conceptos",
                );
            }
            let hay_no_exentos = impuestos.traslados.iter().any(|t| t.importe.is_some());
            match &impuestos.total_impuestos_trasladados {
                Some(total) => {
                    if v.numero("Impuestos.TotalImpuestosTrasladados", total) != Some(total_trasladados) {
                        v.problema(
                            "CFDI40_TOTAL_TRASLADADOS",
                            "Impuestos.TotalImpuestosTrasladados",
                            format!("debe ser {total_trasladados}"),
                        );
                    }
                }
                None if hay_no_exentos => {
                    v.problema(
                        "CFDI40_TOTAL_TRASLADADOS",
                        "Impuestos.TotalImpuestosTrasladados",
                        "requerido cuando hay traslados no exentos",
                    );
                }
                None => {}
            }
            match &impuestos.total_impuestos_retenidos {
                Some(total) => {
                    if v.numero("Impuestos.TotalImpuestosRetenidos", total) != Some(total_retenidos) {
                        v.problema(
                            "CFDI40_TOTAL_RETENIDOS",
                            "Impuestos.TotalImpuestosRetenidos",
                            format!("debe ser {total_retenidos}"),
                        );
                    }
                }
                None if !impuestos.retenciones.is_empty() => {
                    v.problema(
                        "CFDI40_TOTAL_RETENIDOS",
                        "Impuestos.TotalImpuestosRetenidos",
                        "requerido cuando hay retenciones",
                    );
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
            v.problema("CFDI40_TOTAL", "Total", "SubTotal − Descuento + impuestos excede el rango de un decimal");
            return;
        };
        if total != esperado {
            v.problema(
                "CFDI40_TOTAL",
                "Total",
                format!("debe ser SubTotal − Descuento + impuestos trasladados − retenidos = {esperado}"),
            );
        }
    }
}

#[allow(clippy::too_many_lines)]
fn validar_concepto(
    v: &mut Validador<'_>,
    i: usize,
    c: &Concepto,
    dec: u32,
    traslados: &mut Vec<(String, String, Option<String>, Decimal, Decimal)>,
    retenciones: &mut Vec<(String, Decimal)>,
) -> (Decimal, Option<Decimal>) {
    let p = |nombre: &str| format!("Conceptos[{i}].{nombre}");
    match v.catalogos.clave_prod_serv(&c.clave_prod_serv) {
        Some(false) => v.problema(
            "CFDI40_CLAVE_PROD_SERV",
            p("ClaveProdServ"),
            format!("«{}» no está en c_ClaveProdServ", c.clave_prod_serv),
        ),
        Some(true) => {}
        None => v.omitida("c_ClaveProdServ (Conceptos.ClaveProdServ)"),
    }
    match v.catalogos.clave_unidad(&c.clave_unidad) {
        Some(false) => v.problema(
            "CFDI40_CLAVE_UNIDAD",
            p("ClaveUnidad"),
            format!("«{}» no está en c_ClaveUnidad", c.clave_unidad),
        ),
        Some(true) => {}
        None => v.omitida("c_ClaveUnidad (Conceptos.ClaveUnidad)"),
    }
    let cantidad = v.numero(&p("Cantidad"), &c.cantidad).unwrap_or_default();
    let valor_unitario = v.numero(&p("ValorUnitario"), &c.valor_unitario).unwrap_or_default();
    let importe = v.numero(&p("Importe"), &c.importe).unwrap_or_default();
    v.decimales(&p("Importe"), &c.importe, dec);
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
            "CFDI40_IMPORTE_CONCEPTO",
            p("Importe"),
            format!("debe ser Cantidad × ValorUnitario (entre {inferior} y {superior})"),
        ),
        (Some(_), Some(_)) => {}
        _ => v.problema(
            "CFDI40_IMPORTE_CONCEPTO",
            p("Importe"),
            "Cantidad × ValorUnitario excede el máximo de un importe (t_Importe)",
        ),
    }
    let descuento = c.descuento.as_ref().map(|d| {
        v.decimales(&p("Descuento"), d, dec);
        v.numero(&p("Descuento"), d).unwrap_or_default()
    });
    if descuento.is_some_and(|d| d > importe) {
        v.problema("CFDI40_DESCUENTO_CONCEPTO", p("Descuento"), "no puede ser mayor que el Importe");
    }
    let objeto =
        v.catalogo("CFDI40_OBJETO_IMP", &p("ObjetoImp"), &c.objeto_imp, "c_ObjetoImp", ObjetoImp::desde_codigo);
    let tiene_impuestos = c.impuestos.as_ref().is_some_and(|i| !i.traslados.is_empty() || !i.retenciones.is_empty());
    match objeto {
        Some(o) if o.requiere_impuestos() && !tiene_impuestos => {
            v.problema(
                "CFDI40_OBJETO_IMP_IMPUESTOS",
                p("Impuestos"),
                format!("con ObjetoImp {} se requiere el nodo Impuestos", o.codigo()),
            );
        }
        Some(o) if !o.requiere_impuestos() && tiene_impuestos => {
            v.problema(
                "CFDI40_OBJETO_IMP_IMPUESTOS",
                p("Impuestos"),
                format!("con ObjetoImp {} no debe existir el nodo Impuestos", o.codigo()),
            );
        }
        _ => {}
    }
    let Some(impuestos) = &c.impuestos else {
        return (importe, descuento);
    };
    for (j, t) in impuestos.traslados.iter().enumerate() {
        let campo = p(&format!("Impuestos.Traslados[{j}]"));
        let base = v.numero(&format!("{campo}.Base"), &t.base).unwrap_or_default();
        let impuesto = v.catalogo(
            "CFDI40_IMPUESTO",
            &format!("{campo}.Impuesto"),
            &t.impuesto,
            "c_Impuesto",
            Impuesto::desde_codigo,
        );
        let factor = v.catalogo(
            "CFDI40_TIPO_FACTOR",
            &format!("{campo}.TipoFactor"),
            &t.tipo_factor,
            "c_TipoFactor",
            TipoFactor::desde_codigo,
        );
        let mut importe_t = Decimal::ZERO;
        if factor == Some(TipoFactor::Exento) {
            if t.tasa_o_cuota.is_some() || t.importe.is_some() {
                v.problema("CFDI40_EXENTO", campo.clone(), "un traslado Exento no lleva TasaOCuota ni Importe");
            }
        } else {
            match (&t.tasa_o_cuota, &t.importe) {
                (Some(tasa), Some(monto)) => {
                    if let (Some(impuesto), Some(factor)) = (impuesto, factor) {
                        if !catalogos::tasa_o_cuota_permitida(impuesto, factor, tasa.texto(), false) {
                            v.problema(
                                "CFDI40_TASA_O_CUOTA",
                                format!("{campo}.TasaOCuota"),
                                format!("«{}» no está en c_TasaOCuota para este traslado", tasa.texto()),
                            );
                        }
                    }
                    let valor_tasa = v.numero(&format!("{campo}.TasaOCuota"), tasa).unwrap_or_default();
                    importe_t = v.numero(&format!("{campo}.Importe"), monto).unwrap_or_default();
                    revisar_importe_impuesto(
                        v,
                        &format!("{campo}.Importe"),
                        &t.base,
                        base,
                        valor_tasa,
                        monto,
                        importe_t,
                    );
                }
                _ => v.problema(
                    "CFDI40_TRASLADO_INCOMPLETO",
                    campo.clone(),
                    "TasaOCuota e Importe requeridos salvo Exento",
                ),
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
        let impuesto = v.catalogo(
            "CFDI40_IMPUESTO",
            &format!("{campo}.Impuesto"),
            &r.impuesto,
            "c_Impuesto",
            Impuesto::desde_codigo,
        );
        let factor = v.catalogo(
            "CFDI40_TIPO_FACTOR",
            &format!("{campo}.TipoFactor"),
            &r.tipo_factor,
            "c_TipoFactor",
            TipoFactor::desde_codigo,
        );
        if let (Some(impuesto), Some(factor)) = (impuesto, factor) {
            if factor == TipoFactor::Exento
                || !catalogos::tasa_o_cuota_permitida(impuesto, factor, r.tasa_o_cuota.texto(), true)
            {
                v.problema(
                    "CFDI40_TASA_O_CUOTA",
                    format!("{campo}.TasaOCuota"),
                    format!("«{}» no está en c_TasaOCuota para esta retención", r.tasa_o_cuota.texto()),
                );
            }
        }
        let tasa = v.numero(&format!("{campo}.TasaOCuota"), &r.tasa_o_cuota).unwrap_or_default();
        let monto = v.numero(&format!("{campo}.Importe"), &r.importe).unwrap_or_default();
        revisar_importe_impuesto(v, &format!("{campo}.Importe"), &r.base, base, tasa, &r.importe, monto);
        match retenciones.iter_mut().find(|(i, _)| *i == r.impuesto) {
            Some(grupo) => grupo.1 += monto,
            None => retenciones.push((r.impuesto.clone(), monto)),
        }
    }
    (importe, descuento)
}

/// Anexo 20, Traslado/Retencion Importe: between `(Base ∓ 10^−d/2) × TasaOCuota`.
fn revisar_importe_impuesto(
    v: &mut Validador<'_>,
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
        v.problema("CFDI40_IMPORTE_IMPUESTO", campo, "Base × TasaOCuota excede el máximo de un importe (t_Importe)");
        return;
    };
    let inferior = inferior.round_dp_with_strategy(decimales, RoundingStrategy::ToNegativeInfinity);
    let superior = superior.round_dp_with_strategy(decimales, RoundingStrategy::ToPositiveInfinity);
    if monto < inferior || monto > superior {
        v.problema(
            "CFDI40_IMPORTE_IMPUESTO",
            campo,
            format!("debe ser Base × TasaOCuota (entre {inferior} y {superior})"),
        );
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
        assert!(informe.problemas.iter().any(|p| p.regla == "CFDI40_NUMERO" && p.campo == "Conceptos[0].Cantidad"));
    }

    #[test]
    fn textos_fuera_del_patron_del_sat() {
        let mut c = Comprobante::default();
        c.receptor.nombre = "ACME\u{1}".into();
        c.emisor.nombre = "A|B".into();
        c.conceptos.push(crate::model::Concepto { descripcion: "x".repeat(1001), ..Default::default() });
        let informe = validar(&c, &SinCatalogos);
        let textos: Vec<&str> =
            informe.problemas.iter().filter(|p| p.regla == "CFDI40_TEXTO").map(|p| p.campo.as_str()).collect();
        assert_eq!(textos, ["Emisor.Nombre", "Receptor.Nombre", "Conceptos[0].Descripcion"]);
    }

    #[test]
    fn uso_g03_con_616_sugiere_s01() {
        let mut c = Comprobante::default();
        c.receptor.rfc = "IAÑL750210963".into();
        c.receptor.regimen_fiscal_receptor = "616".into();
        c.receptor.uso_cfdi = "G03".into();
        let informe = validar(&c, &SinCatalogos);
        let problema = informe.problemas.iter().find(|p| p.regla == "CFDI40_USO_REGIMEN").unwrap();
        assert_eq!(problema.campo, "Receptor.UsoCFDI");
        assert!(problema.mensaje.contains("S01"), "{}", problema.mensaje);
        assert!(informe.omitidas.iter().any(|o| o.contains("c_CodigoPostal")));
    }
}
