//! Rules of SAT's Guía de llenado del complemento de Comercio Exterior 2.0 (and the CFDI 4.0
//! rules that tie the comprobante to it) that need no registry, each with its id (`CCE20_*`),
//! the field path and a message that says what to fix.
//!
//! Catalogs: c_ClavePedimento, c_INCOTERM, c_MotivoTraslado and c_UnidadAduana (small, from
//! `catComExt.xsd`) are checked here; c_FraccionArancelaria by shape (8 or 10 digits) here
//! and by membership through [`crate::catalogos::Catalogos::en_catalogo`] under
//! `comext/c_FraccionArancelaria` (skipped, and listed in `omitidas`, while not loaded).

use rust_decimal::Decimal;

use super::construccion::total_usd;
use super::*;
use crate::catalogos::ESTADOS_MEXICO;
use crate::construccion::redondear;
use crate::tipos::RFC_EXTRANJERO;

/// c_ClavePedimento of `catComExt.xsd`.
const CLAVE_PEDIMENTO: &[&str] = &["A1"];
/// c_INCOTERM of `catComExt.xsd`.
const INCOTERM: &[&str] =
    &["CFR", "CIF", "CPT", "CIP", "DAF", "DAP", "DAT", "DES", "DEQ", "DDU", "DDP", "EXW", "FCA", "FAS", "FOB", "DPU"];
/// c_MotivoTraslado of `catComExt.xsd`.
const MOTIVO_TRASLADO: &[&str] = &["01", "02", "03", "04", "05", "99"];
/// c_UnidadAduana of `catComExt.xsd`.
const UNIDAD_ADUANA: &[&str] = &[
    "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19",
    "20", "21", "22", "99",
];

fn digitos(texto: &str, largos: &[usize]) -> bool {
    largos.contains(&texto.len()) && texto.bytes().all(|b| b.is_ascii_digit())
}

fn codigo(v: &mut Validador<'_>, regla: &'static str, campo: &str, codigo: &str, codigos: &[&str], catalogo: &str) {
    if !codigos.contains(&codigo) {
        v.problema(regla, campo, format!("«{codigo}» no está en el catálogo {catalogo}"));
    }
}

pub(super) fn validar(v: &mut Validador<'_>, c: &Comprobante, tipo: Option<TipoDeComprobante>) {
    let mut complementos = c.complementos.iter().filter_map(|complemento| match complemento {
        Complemento::ComercioExterior(cce) => Some(cce.as_ref()),
        _ => None,
    });
    let cce = complementos.next();
    if complementos.next().is_some() {
        v.problema("CCE20_UNICO", "Complemento", "un comprobante lleva un solo complemento de Comercio Exterior");
    }
    // Anexo 20, Exportacion: 02 (definitiva con clave A1) goes with the complement, and the
    // complement only with 02.
    match (cce, c.exportacion.as_str()) {
        (None, "02") => v.problema(
            "CFDI40122",
            "Complemento",
            "con Exportacion 02 (definitiva con clave A1) se requiere el complemento de Comercio Exterior 2.0",
        ),
        (Some(_), exportacion) if exportacion != "02" => v.problema(
            "CCE20_EXPORTACION",
            "Exportacion",
            format!("«{exportacion}»: un comprobante con Comercio Exterior declara Exportacion 02"),
        ),
        _ => {}
    }
    let Some(cce) = cce else { return };
    if !matches!(tipo, Some(TipoDeComprobante::Ingreso | TipoDeComprobante::Egreso | TipoDeComprobante::Traslado)) {
        v.problema(
            "CCE20_TIPO_COMPROBANTE",
            "TipoDeComprobante",
            "el complemento de Comercio Exterior va en un comprobante de ingreso, egreso o traslado",
        );
    }
    validar_encabezado(v, c, cce, tipo);
    validar_receptor(v, c);
    validar_domicilios(v, cce);
    validar_mercancias(v, c, cce);
}

fn validar_encabezado(v: &mut Validador<'_>, c: &Comprobante, cce: &ComercioExterior, tipo: Option<TipoDeComprobante>) {
    if cce.version != VERSION {
        v.problema("CCE20_VERSION", "ComercioExterior.Version", "debe ser 2.0");
    }
    codigo(
        v,
        "CCE20_CLAVE_PEDIMENTO",
        "ComercioExterior.ClaveDePedimento",
        &cce.clave_de_pedimento,
        CLAVE_PEDIMENTO,
        "c_ClavePedimento",
    );
    match (cce.certificado_origen.texto(), &cce.num_certificado_origen) {
        ("1", None) => v.problema(
            "CCE20_CERTIFICADO_ORIGEN",
            "ComercioExterior.NumCertificadoOrigen",
            "con CertificadoOrigen 1 se requiere el folio del certificado de origen",
        ),
        ("0", Some(_)) => v.problema(
            "CCE20_CERTIFICADO_ORIGEN",
            "ComercioExterior.NumCertificadoOrigen",
            "con CertificadoOrigen 0 no se registra folio de certificado de origen",
        ),
        ("0" | "1", _) => {}
        (otro, _) => v.problema(
            "CCE20_CERTIFICADO_ORIGEN",
            "ComercioExterior.CertificadoOrigen",
            format!("«{otro}»: debe ser 0 (no funge como certificado de origen) o 1"),
        ),
    }
    match &cce.incoterm {
        Some(incoterm) => codigo(v, "CCE20_INCOTERM", "ComercioExterior.Incoterm", incoterm, INCOTERM, "c_INCOTERM"),
        None if matches!(tipo, Some(TipoDeComprobante::Ingreso)) => v.problema(
            "CCE20_INCOTERM",
            "ComercioExterior.Incoterm",
            "una venta de exportación (tipo I) declara su Incoterm (p. ej. FOB, EXW)",
        ),
        None => {}
    }
    let traslado = matches!(tipo, Some(TipoDeComprobante::Traslado));
    match (&cce.motivo_traslado, traslado) {
        (None, true) => v.problema(
            "CCE20_MOTIVO_TRASLADO",
            "ComercioExterior.MotivoTraslado",
            "un comprobante de traslado con Comercio Exterior declara el motivo del traslado",
        ),
        (Some(_), false) => v.problema(
            "CCE20_MOTIVO_TRASLADO",
            "ComercioExterior.MotivoTraslado",
            "sólo se registra en un comprobante de traslado (T); quítelo",
        ),
        (Some(motivo), true) => {
            codigo(
                v,
                "CCE20_MOTIVO_TRASLADO",
                "ComercioExterior.MotivoTraslado",
                motivo,
                MOTIVO_TRASLADO,
                "c_MotivoTraslado",
            );
        }
        (None, false) => {}
    }
    if cce.motivo_traslado.as_deref() == Some("05") && cce.propietario.is_empty() {
        v.problema(
            "CCE20_PROPIETARIO",
            "ComercioExterior.Propietario",
            "con MotivoTraslado 05 (envío de mercancías propiedad de terceros) se requiere el Propietario",
        );
    }
    match cce.tipo_cambio_usd.valor() {
        Ok(tc) if tc > Decimal::ZERO => {
            if c.moneda == "USD" && c.tipo_cambio.as_ref().and_then(|t| t.valor().ok()) != Some(tc) {
                v.problema(
                    "CCE20_TIPO_CAMBIO_USD",
                    "ComercioExterior.TipoCambioUSD",
                    "con Moneda USD debe ser igual al TipoCambio del comprobante",
                );
            }
        }
        _ => v.problema(
            "CCE20_TIPO_CAMBIO_USD",
            "ComercioExterior.TipoCambioUSD",
            "debe ser el tipo de cambio del dólar, un número mayor que cero",
        ),
    }
    match total_usd(cce) {
        Ok(total) if cce.total_usd.valor().ok() != Some(total) => v.problema(
            "CCE20_TOTAL_USD",
            "ComercioExterior.TotalUSD",
            format!("debe ser {total}, la suma de ValorDolares de las mercancías"),
        ),
        Ok(_) => {}
        Err(_) => v.problema(
            "CCE20_TOTAL_USD",
            "ComercioExterior.Mercancias",
            "ValorDolares debe ser un número decimal en cada mercancía",
        ),
    }
}

/// Guía de llenado CFDI 4.0 with Comercio Exterior 2.0: a receiver abroad (RFC
/// XEXX010101000) gives its country and foreign tax id on the comprobante's Receptor.
fn validar_receptor(v: &mut Validador<'_>, c: &Comprobante) {
    let r = &c.receptor;
    if r.rfc != RFC_EXTRANJERO {
        return;
    }
    match r.residencia_fiscal.as_deref() {
        None => v.problema(
            "CCE20_RECEPTOR_EXTRANJERO",
            "Receptor.ResidenciaFiscal",
            "con RFC XEXX010101000 se requiere el país de residencia fiscal del receptor",
        ),
        Some("MEX") => v.problema(
            "CCE20_RECEPTOR_EXTRANJERO",
            "Receptor.ResidenciaFiscal",
            "un receptor en el extranjero no tiene residencia fiscal MEX",
        ),
        Some(_) => {}
    }
    if r.num_reg_id_trib.is_none() {
        v.problema(
            "CCE20_RECEPTOR_EXTRANJERO",
            "Receptor.NumRegIdTrib",
            "con RFC XEXX010101000 se requiere el número de registro de identidad fiscal del receptor en su país",
        );
    }
}

fn validar_domicilio_mexicano(v: &mut Validador<'_>, regla: &'static str, campo: &str, d: &DomicilioCce) {
    if !ESTADOS_MEXICO.contains(&d.estado.as_str()) {
        v.problema(
            regla,
            format!("{campo}.Estado"),
            format!("«{}» no es una clave de estado de México de c_Estado", d.estado),
        );
    }
    if !digitos(&d.codigo_postal, &[5]) {
        v.problema(
            regla,
            format!("{campo}.CodigoPostal"),
            format!("«{}»: en México el código postal son 5 dígitos", d.codigo_postal),
        );
    }
}

fn validar_domicilios(v: &mut Validador<'_>, cce: &ComercioExterior) {
    if let Some(emisor) = &cce.emisor {
        let d = &emisor.domicilio;
        if d.pais != "MEX" {
            v.problema(
                "CCE20_DOMICILIO_EMISOR",
                "ComercioExterior.Emisor.Domicilio.Pais",
                "el domicilio del emisor (exportador) está en México: Pais MEX",
            );
        }
        validar_domicilio_mexicano(v, "CCE20_DOMICILIO_EMISOR", "ComercioExterior.Emisor.Domicilio", d);
    }
    let mut otros: Vec<(String, &DomicilioCce)> = Vec::new();
    if let Some(d) = cce.receptor.as_ref().and_then(|r| r.domicilio.as_ref()) {
        otros.push(("ComercioExterior.Receptor.Domicilio".to_owned(), d));
    }
    for (i, destinatario) in cce.destinatario.iter().enumerate() {
        for (j, d) in destinatario.domicilio.iter().enumerate() {
            otros.push((format!("ComercioExterior.Destinatario[{i}].Domicilio[{j}]"), d));
        }
    }
    for (campo, d) in otros {
        if d.pais == "MEX" {
            validar_domicilio_mexicano(v, "CCE20_ESTADO", &campo, d);
        }
    }
}

fn validar_mercancias(v: &mut Validador<'_>, c: &Comprobante, cce: &ComercioExterior) {
    for (i, concepto) in c.conceptos.iter().enumerate() {
        match &concepto.no_identificacion {
            None => v.problema(
                "CCE20_NO_IDENTIFICACION",
                format!("Conceptos[{i}].NoIdentificacion"),
                "con Comercio Exterior cada concepto lleva NoIdentificacion para relacionarlo con su Mercancia",
            ),
            Some(sku) if !cce.mercancias.iter().any(|m| &m.no_identificacion == sku) => v.problema(
                "CCE20_NO_IDENTIFICACION",
                format!("Conceptos[{i}].NoIdentificacion"),
                format!("«{sku}» no tiene una Mercancia con el mismo NoIdentificacion en el complemento"),
            ),
            Some(_) => {}
        }
    }
    for (i, m) in cce.mercancias.iter().enumerate() {
        let campo = format!("ComercioExterior.Mercancias[{i}]");
        if !c.conceptos.iter().any(|concepto| concepto.no_identificacion.as_ref() == Some(&m.no_identificacion)) {
            v.problema(
                "CCE20_MERCANCIA_SIN_CONCEPTO",
                format!("{campo}.NoIdentificacion"),
                format!("«{}» no es el NoIdentificacion de ningún concepto del comprobante", m.no_identificacion),
            );
        }
        if let Some(fraccion) = m.fraccion_arancelaria.as_deref() {
            if digitos(fraccion, &[8, 10]) {
                v.en_catalogo(
                    "CCE20_FRACCION_ARANCELARIA",
                    format!("{campo}.FraccionArancelaria"),
                    "comext/c_FraccionArancelaria",
                    "Mercancia.FraccionArancelaria",
                    fraccion,
                );
            } else {
                v.problema(
                    "CCE20_FRACCION_ARANCELARIA",
                    format!("{campo}.FraccionArancelaria"),
                    format!("«{fraccion}» no tiene la forma de una fracción arancelaria (8 o 10 dígitos, c_FraccionArancelaria)"),
                );
            }
        }
        let aduana = [m.cantidad_aduana.is_some(), m.unidad_aduana.is_some(), m.valor_unitario_aduana.is_some()];
        if aduana.contains(&true) && aduana.contains(&false) {
            v.problema(
                "CCE20_ADUANA_GRUPO",
                campo.clone(),
                "CantidadAduana, UnidadAduana y ValorUnitarioAduana se registran juntos o ninguno",
            );
        }
        if let Some(unidad) = m.unidad_aduana.as_deref() {
            codigo(v, "CCE20_UNIDAD_ADUANA", &format!("{campo}.UnidadAduana"), unidad, UNIDAD_ADUANA, "c_UnidadAduana");
        }
        if let (Some(cantidad), Some(unitario), Ok(dolares)) =
            (&m.cantidad_aduana, &m.valor_unitario_aduana, m.valor_dolares.valor())
            && let (Ok(cantidad), Ok(unitario)) = (cantidad.valor(), unitario.valor())
            && m.unidad_aduana.as_deref() != Some("99")
            && let Some(producto) = cantidad.checked_mul(unitario)
            && redondear(producto, 2) != redondear(dolares, 2)
        {
            v.problema(
                "CCE20_VALOR_DOLARES",
                format!("{campo}.ValorDolares"),
                format!("debe ser CantidadAduana × ValorUnitarioAduana = {}", redondear(producto, 2)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogos::{Exportacion, FormaPago, MetodoPago, ObjetoImp, SinCatalogos};
    use crate::construccion::{NuevoComprobante, NuevoConcepto, NuevoImpuesto};
    use crate::model::{Emisor, Receptor};

    /// An export sale in dollars to a receiver abroad with its Comercio Exterior: valid.
    fn base() -> Comprobante {
        let cce = super::super::construir(super::super::construccion::EJEMPLO).unwrap();
        let concepto = |sku: &str, cantidad: i64, valor: i64| {
            let mut c = NuevoConcepto::new(
                "43211503",
                Decimal::from(cantidad),
                "H87",
                "Equipo de cómputo",
                Decimal::from(valor),
                ObjetoImp::SiObjeto,
            );
            c.no_identificacion = Some(sku.into());
            c.impuestos = Some(vec![NuevoImpuesto::iva(Decimal::ZERO)]);
            c
        };
        NuevoComprobante {
            tipo: TipoDeComprobante::Ingreso,
            serie: None,
            folio: None,
            fecha: "2026-11-30T10:00:00".into(),
            forma_pago: Some(FormaPago::TransferenciaElectronica),
            metodo_pago: Some(MetodoPago::Pue),
            condiciones_de_pago: None,
            moneda: "USD".into(),
            tipo_cambio: Some(Decimal::new(172_545, 4)),
            exportacion: Exportacion::DefinitivaA1,
            lugar_expedicion: "86000".into(),
            emisor: Emisor {
                rfc: "EKU9003173C9".into(),
                nombre: "ESCUELA KEMPER URGATE".into(),
                regimen_fiscal: "601".into(),
                fac_atr_adquirente: None,
            },
            receptor: Receptor {
                rfc: RFC_EXTRANJERO.into(),
                nombre: "ACME INC".into(),
                domicilio_fiscal_receptor: "86000".into(),
                residencia_fiscal: Some("USA".into()),
                num_reg_id_trib: Some("123456789".into()),
                regimen_fiscal_receptor: "616".into(),
                uso_cfdi: "S01".into(),
            },
            informacion_global: None,
            cfdi_relacionados: Vec::new(),
            conceptos: vec![concepto("LAP-14", 2, 950), concepto("MOU-01", 1, 100)],
            impuestos_locales: None,
            complementos: vec![Complemento::ComercioExterior(Box::new(cce))],
        }
        .construir()
        .unwrap()
    }

    fn cce(c: &mut Comprobante) -> &mut ComercioExterior {
        c.complementos
            .iter_mut()
            .find_map(|complemento| match complemento {
                Complemento::ComercioExterior(cce) => Some(cce.as_mut()),
                _ => None,
            })
            .unwrap()
    }

    fn reglas(c: &Comprobante) -> Vec<&'static str> {
        crate::validacion::validar(c, &SinCatalogos).problemas.iter().map(|p| p.regla).collect()
    }

    #[test]
    fn cada_regla_tiene_su_cuerpo_que_falla() {
        let valido = base();
        assert!(reglas(&valido).is_empty(), "{:?}", crate::validacion::validar(&valido, &SinCatalogos).problemas);
        type Caso = (&'static str, fn(&mut Comprobante));
        let casos: &[Caso] = &[
            ("CCE20_UNICO", |c| c.complementos.push(c.complementos[0].clone())),
            ("CCE20_EXPORTACION", |c| c.exportacion = "01".into()),
            ("CFDI40122", |c| c.complementos.clear()),
            ("CCE20_TIPO_COMPROBANTE", |c| c.tipo_de_comprobante = "N".into()),
            ("CCE20_VERSION", |c| cce(c).version = "1.1".into()),
            ("CCE20_CLAVE_PEDIMENTO", |c| cce(c).clave_de_pedimento = "B1".into()),
            ("CCE20_CERTIFICADO_ORIGEN", |c| cce(c).certificado_origen = Numero::from_texto("1")),
            ("CCE20_CERTIFICADO_ORIGEN", |c| cce(c).num_certificado_origen = Some("CO-123456".into())),
            ("CCE20_INCOTERM", |c| cce(c).incoterm = Some("XXX".into())),
            ("CCE20_INCOTERM", |c| cce(c).incoterm = None),
            ("CCE20_MOTIVO_TRASLADO", |c| cce(c).motivo_traslado = Some("01".into())),
            ("CCE20_MOTIVO_TRASLADO", |c| c.tipo_de_comprobante = "T".into()),
            ("CCE20_PROPIETARIO", |c| {
                c.tipo_de_comprobante = "T".into();
                cce(c).motivo_traslado = Some("05".into());
            }),
            ("CCE20_TIPO_CAMBIO_USD", |c| cce(c).tipo_cambio_usd = Numero::from_texto("17.0")),
            ("CCE20_TIPO_CAMBIO_USD", |c| cce(c).tipo_cambio_usd = Numero::from_texto("0")),
            ("CCE20_TOTAL_USD", |c| cce(c).total_usd = Numero::from_texto("1999.00")),
            ("CCE20_NO_IDENTIFICACION", |c| c.conceptos[0].no_identificacion = Some("OTRO".into())),
            ("CCE20_NO_IDENTIFICACION", |c| c.conceptos[1].no_identificacion = None),
            ("CCE20_MERCANCIA_SIN_CONCEPTO", |c| {
                c.conceptos.truncate(1);
            }),
            ("CCE20_RECEPTOR_EXTRANJERO", |c| c.receptor.num_reg_id_trib = None),
            ("CCE20_RECEPTOR_EXTRANJERO", |c| c.receptor.residencia_fiscal = Some("MEX".into())),
            ("CCE20_DOMICILIO_EMISOR", |c| cce(c).emisor.as_mut().unwrap().domicilio.pais = "USA".into()),
            ("CCE20_DOMICILIO_EMISOR", |c| cce(c).emisor.as_mut().unwrap().domicilio.estado = "Tabasco".into()),
            ("CCE20_ESTADO", |c| {
                let d = cce(c).receptor.as_mut().unwrap().domicilio.as_mut().unwrap();
                d.pais = "MEX".into();
            }),
            ("CCE20_FRACCION_ARANCELARIA", |c| cce(c).mercancias[0].fraccion_arancelaria = Some("84713".into())),
            ("CCE20_ADUANA_GRUPO", |c| cce(c).mercancias[0].unidad_aduana = None),
            ("CCE20_UNIDAD_ADUANA", |c| cce(c).mercancias[0].unidad_aduana = Some("50".into())),
            ("CCE20_VALOR_DOLARES", |c| {
                cce(c).mercancias[0].valor_unitario_aduana = Some(Numero::from_texto("900.00"))
            }),
        ];
        for (regla, romper) in casos {
            let mut c = valido.clone();
            romper(&mut c);
            let encontradas = reglas(&c);
            assert!(encontradas.contains(regla), "{regla}: {encontradas:?}");
        }
    }
}
