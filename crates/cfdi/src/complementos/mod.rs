//! The complements of `cfdi:Complemento`, each one a unit, and the one place that lists
//! them.
//!
//! Every complement lives in its own module, which owns its model, its XML writing, its
//! parsing, its cadena original fragment (from the model and from the XML, as SAT's XSLT
//! does), its validation rules and its builder helpers. It implements the crate's `Unidad` trait for
//! the type of its root element. This module is the registry: the [`Complemento`] enum and the
//! dispatch functions that the generic writer ([`crate::escritura`]), parser
//! ([`crate::parser`]), cadena ([`crate::cadena`]) and validation ([`crate::validacion`])
//! call; none of those knows any complement.
//!
//! Adding a complement touches its new module and this file: a variant of [`Complemento`]
//! and one line in each function below (the compiler points at every `match`; the lists
//! it cannot check are in `leer`, `plantilla`, `espacio_registrado` and `validar`).

pub mod carta_porte;
pub mod comercio_exterior;
pub mod implocal;
pub mod nomina;
pub mod pagos;
pub mod tfd;

use roxmltree::Node;
use rust_decimal::Decimal;

use crate::cadena::{self, Cadena, CadenaError};
use crate::catalogos::TipoDeComprobante;
use crate::escritura::Escritor;
use crate::model::{Comprobante, XmlCrudo};
use crate::parser::{ErrorParseo, Lector};
use crate::validacion::Validador;

use self::carta_porte::CartaPorte;
use self::comercio_exterior::ComercioExterior;
use self::implocal::ImpuestosLocales;
use self::nomina::Nomina;
use self::pagos::Pagos;
use self::tfd::TimbreFiscalDigital;

/// One child of `cfdi:Complemento`.
#[derive(Clone, Debug, PartialEq)]
pub enum Complemento {
    /// Complemento para recepción de pagos 2.0.
    Pagos(Box<Pagos>),
    /// Complemento de nómina 1.2.
    Nomina(Box<Nomina>),
    /// Complemento de impuestos locales 1.0.
    ImpuestosLocales(Box<ImpuestosLocales>),
    /// Complemento Carta Porte 3.1.
    CartaPorte(Box<CartaPorte>),
    /// Complemento de comercio exterior 2.0.
    ComercioExterior(Box<ComercioExterior>),
    /// Timbre fiscal digital 1.1 added by the PAC.
    TimbreFiscalDigital(Box<TimbreFiscalDigital>),
    /// Any other complement, kept as raw XML.
    Otro(XmlCrudo),
}

/// What a complement module provides for the type of its root element.
pub(crate) trait Unidad: Sized {
    /// Namespace URI of the complement.
    const ESPACIO: &'static str;
    /// Local name of its root element.
    const ELEMENTO: &'static str;
    /// The `xmlns:` attribute and schema location declared on `cfdi:Comprobante` (Anexo 20:
    /// every complement's namespace and schema are declared), or `None` when the element
    /// declares its own.
    const DECLARACION_EN_RAIZ: Option<(&'static str, &'static str)>;

    /// Whether `nodo` is this complement's root element, to be read into the model.
    fn reconoce(nodo: Node<'_, '_>) -> bool {
        nodo.tag_name().namespace() == Some(Self::ESPACIO) && nodo.tag_name().name() == Self::ELEMENTO
    }

    /// Reads the element into the model.
    fn leer(lector: &Lector<'_, '_>, nodo: Node<'_, '_>) -> Result<Self, ErrorParseo>;

    /// Writes the element inside `cfdi:Complemento`.
    fn escribir(&self, escritor: &mut Escritor);

    /// Appends its part of the Comprobante's cadena original, from the model.
    fn cadena(&self, cadena: &mut Cadena);

    /// Applies its template of `cadenaoriginal_4_0.xslt` to the element read from the XML;
    /// `false` when the stylesheet has no template for it (XSLT's built-in rule applies).
    fn plantilla(cadena: &mut Cadena, nodo: Node<'_, '_>) -> bool;

    /// Checks the rules the complement's Guía de llenado sets on the comprobante of `tipo`.
    fn validar(_validador: &mut Validador<'_>, _comprobante: &Comprobante, _tipo: Option<TipoDeComprobante>) {}

    /// Amounts added to and subtracted from `Total` (Anexo 20, Total), if the complement
    /// carries any.
    fn importes_al_total(&self) -> Option<(Decimal, Decimal)> {
        None
    }
}

/// Reads one child of `cfdi:Complemento`: a registered complement into its model, any other
/// as raw XML.
pub(crate) fn leer(lector: &Lector<'_, '_>, nodo: Node<'_, '_>) -> Result<Complemento, ErrorParseo> {
    Ok(if Pagos::reconoce(nodo) {
        Complemento::Pagos(Box::new(Pagos::leer(lector, nodo)?))
    } else if Nomina::reconoce(nodo) {
        Complemento::Nomina(Box::new(Nomina::leer(lector, nodo)?))
    } else if ImpuestosLocales::reconoce(nodo) {
        Complemento::ImpuestosLocales(Box::new(ImpuestosLocales::leer(lector, nodo)?))
    } else if CartaPorte::reconoce(nodo) {
        Complemento::CartaPorte(Box::new(CartaPorte::leer(lector, nodo)?))
    } else if ComercioExterior::reconoce(nodo) {
        Complemento::ComercioExterior(Box::new(ComercioExterior::leer(lector, nodo)?))
    } else if TimbreFiscalDigital::reconoce(nodo) {
        Complemento::TimbreFiscalDigital(Box::new(TimbreFiscalDigital::leer(lector, nodo)?))
    } else {
        Complemento::Otro(lector.crudo(nodo))
    })
}

/// Writes one child of `cfdi:Complemento`.
pub(crate) fn escribir(escritor: &mut Escritor, complemento: &Complemento) {
    match complemento {
        Complemento::Pagos(pagos) => pagos.escribir(escritor),
        Complemento::Nomina(nomina) => nomina.escribir(escritor),
        Complemento::ImpuestosLocales(locales) => locales.escribir(escritor),
        Complemento::CartaPorte(carta_porte) => carta_porte.escribir(escritor),
        Complemento::ComercioExterior(cce) => cce.escribir(escritor),
        Complemento::TimbreFiscalDigital(tfd) => tfd.escribir(escritor),
        Complemento::Otro(crudo) => escritor.crudo("cfdi:Complemento", &crudo.xml),
    }
}

/// `(xmlns attribute, namespace, schema location)` of each complement declared on the root,
/// once each, in the order they first appear.
pub(crate) fn declaraciones_en_raiz(complementos: &[Complemento]) -> Vec<(&'static str, &'static str, &'static str)> {
    fn de<T: Unidad>() -> Option<(&'static str, &'static str, &'static str)> {
        T::DECLARACION_EN_RAIZ.map(|(atributo, esquema)| (atributo, T::ESPACIO, esquema))
    }
    let mut declaraciones: Vec<(&'static str, &'static str, &'static str)> = Vec::new();
    for complemento in complementos {
        let declaracion = match complemento {
            Complemento::Pagos(_) => de::<Pagos>(),
            Complemento::Nomina(_) => de::<Nomina>(),
            Complemento::ImpuestosLocales(_) => de::<ImpuestosLocales>(),
            Complemento::CartaPorte(_) => de::<CartaPorte>(),
            Complemento::ComercioExterior(_) => de::<ComercioExterior>(),
            Complemento::TimbreFiscalDigital(_) => de::<TimbreFiscalDigital>(),
            Complemento::Otro(_) => None,
        };
        if let Some(declaracion) = declaracion
            && !declaraciones.iter().any(|(_, espacio, _)| *espacio == declaracion.1)
        {
            declaraciones.push(declaracion);
        }
    }
    declaraciones
}

/// Appends one complement's part of the cadena original, from the model.
pub(crate) fn cadena(k: &mut Cadena, complemento: &Complemento) -> Result<(), CadenaError> {
    match complemento {
        Complemento::Pagos(pagos) => pagos.cadena(k),
        Complemento::Nomina(nomina) => nomina.cadena(k),
        Complemento::ImpuestosLocales(locales) => locales.cadena(k),
        Complemento::CartaPorte(carta_porte) => carta_porte.cadena(k),
        Complemento::ComercioExterior(cce) => cce.cadena(k),
        Complemento::TimbreFiscalDigital(tfd) => tfd.cadena(k),
        Complemento::Otro(crudo) => cadena::cadena_de_fragmento(k, &crudo.xml)?,
    }
    Ok(())
}

/// Applies the template of `cadenaoriginal_4_0.xslt` matching `nodo`, if a registered
/// complement has one; `false` otherwise.
pub(crate) fn plantilla(k: &mut Cadena, nodo: Node<'_, '_>) -> bool {
    let espacio = nodo.tag_name().namespace();
    let nombre = nodo.tag_name().name();
    let es = |espacio_unidad: &str, elemento: &str| espacio == Some(espacio_unidad) && nombre == elemento;
    if es(Pagos::ESPACIO, Pagos::ELEMENTO) {
        Pagos::plantilla(k, nodo)
    } else if es(Nomina::ESPACIO, Nomina::ELEMENTO) {
        Nomina::plantilla(k, nodo)
    } else if es(ImpuestosLocales::ESPACIO, ImpuestosLocales::ELEMENTO) {
        ImpuestosLocales::plantilla(k, nodo)
    } else if es(CartaPorte::ESPACIO, CartaPorte::ELEMENTO) {
        CartaPorte::plantilla(k, nodo)
    } else if es(ComercioExterior::ESPACIO, ComercioExterior::ELEMENTO) {
        ComercioExterior::plantilla(k, nodo)
    } else if es(TimbreFiscalDigital::ESPACIO, TimbreFiscalDigital::ELEMENTO) {
        TimbreFiscalDigital::plantilla(k, nodo)
    } else {
        false
    }
}

/// Whether `espacio` belongs to a registered complement: its stylesheet is included by
/// `cadenaoriginal_4_0.xslt`, so its elements without a template follow XSLT's built-in
/// rule instead of being an unsupported complement.
pub(crate) fn espacio_registrado(espacio: &str) -> bool {
    [
        Pagos::ESPACIO,
        Nomina::ESPACIO,
        ImpuestosLocales::ESPACIO,
        CartaPorte::ESPACIO,
        ComercioExterior::ESPACIO,
        TimbreFiscalDigital::ESPACIO,
    ]
    .contains(&espacio)
}

/// Checks every complement's rules on the comprobante of `tipo` (present or not: a type
/// may require its complement).
pub(crate) fn validar(v: &mut Validador<'_>, c: &Comprobante, tipo: Option<TipoDeComprobante>) {
    Pagos::validar(v, c, tipo);
    Nomina::validar(v, c, tipo);
    ImpuestosLocales::validar(v, c, tipo);
    CartaPorte::validar(v, c, tipo);
    ComercioExterior::validar(v, c, tipo);
    TimbreFiscalDigital::validar(v, c, tipo);
}

/// Amounts the first complement that carries any adds to and subtracts from `Total`
/// (Anexo 20, Total: `+ impuestos locales trasladados − retenidos`); zero when none does.
pub(crate) fn importes_al_total(complementos: &[Complemento]) -> (Decimal, Decimal) {
    complementos
        .iter()
        .find_map(|complemento| match complemento {
            Complemento::Pagos(pagos) => pagos.importes_al_total(),
            Complemento::Nomina(nomina) => nomina.importes_al_total(),
            Complemento::ImpuestosLocales(locales) => locales.importes_al_total(),
            Complemento::CartaPorte(carta_porte) => carta_porte.importes_al_total(),
            Complemento::ComercioExterior(cce) => cce.importes_al_total(),
            Complemento::TimbreFiscalDigital(tfd) => tfd.importes_al_total(),
            Complemento::Otro(_) => None,
        })
        .unwrap_or((Decimal::ZERO, Decimal::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{cadena, escritura, parser};

    /// One of each registered complement goes through the registry: written, read back into
    /// the same variant, and given the same cadena from the model as from the XML.
    #[test]
    fn cada_complemento_registrado_recorre_escritura_lectura_y_cadena() {
        let registrados = vec![
            Complemento::Pagos(Box::default()),
            Complemento::Nomina(Box::default()),
            Complemento::ImpuestosLocales(Box::default()),
            Complemento::CartaPorte(Box::default()),
            Complemento::ComercioExterior(Box::default()),
            Complemento::TimbreFiscalDigital(Box::default()),
        ];
        let comprobante = Comprobante { version: "4.0".into(), complementos: registrados, ..Comprobante::default() };
        let xml = escritura::escribir(&comprobante).unwrap();
        let leido = parser::parsear(&xml).unwrap();
        assert_eq!(leido.complementos, comprobante.complementos);
        assert_eq!(cadena::desde_comprobante(&leido).unwrap(), cadena::desde_xml(&xml).unwrap());
        for (_, espacio, _) in declaraciones_en_raiz(&comprobante.complementos) {
            assert!(espacio_registrado(espacio), "{espacio}");
            assert!(xml.contains(espacio), "{espacio}");
        }
    }
}
