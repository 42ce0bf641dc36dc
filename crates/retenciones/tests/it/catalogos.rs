//! Every catalog enum has exactly the codes of SAT's schema.

use std::collections::BTreeSet;
use std::path::Path;

use timbra_retenciones::catalogos::*;

fn codigos_xsd(sat: &Path, archivo: &str, tipo: &str) -> BTreeSet<String> {
    let texto = std::fs::read_to_string(sat.join("xsd").join(archivo)).unwrap();
    let documento = roxmltree::Document::parse(&texto).unwrap();
    let nodo = documento
        .descendants()
        .find(|n| n.has_tag_name("simpleType") && n.attribute("name") == Some(tipo))
        .unwrap_or_else(|| panic!("{tipo} no está en {archivo}"));
    nodo.descendants()
        .filter(|n| n.has_tag_name("enumeration"))
        .map(|n| n.attribute("value").unwrap().to_owned())
        .collect()
}

fn codigos<T: Copy>(todos: &[T], codigo: fn(T) -> &'static str) -> BTreeSet<String> {
    todos.iter().map(|t| codigo(*t).to_owned()).collect()
}

#[test]
fn los_catalogos_son_los_del_xsd() {
    let Some(sat) = crate::comun::sat() else { return };
    let casos = [
        ("catRetenciones.xsd", "c_CveRetenc", codigos(CveRetenc::TODOS, CveRetenc::codigo)),
        ("catRetenciones.xsd", "c_TipoPagoRet", codigos(TipoPagoRet::TODOS, TipoPagoRet::codigo)),
        ("catRetenciones.xsd", "c_Periodo", codigos(Mes::TODOS, Mes::codigo)),
        ("catRetenciones.xsd", "c_Periodicidad", codigos(Periodicidad::TODOS, Periodicidad::codigo)),
        ("catRetenciones.xsd", "c_TipoImpuesto", codigos(TipoImpuesto::TODOS, TipoImpuesto::codigo)),
        ("catRetenciones.xsd", "c_EntidadesFederativas", codigos(EntidadFederativa::TODOS, EntidadFederativa::codigo)),
        ("catRetenciones.xsd", "c_Ejercicio", EJERCICIOS.map(|a| a.to_string()).collect()),
        ("CatPlataformasTecnologicas.xsd", "c_TipoDeServ", codigos(TipoDeServ::TODOS, TipoDeServ::codigo)),
        ("CatPlataformasTecnologicas.xsd", "c_SubTipoServ", codigos(SubTipoServ::TODOS, SubTipoServ::codigo)),
        ("CatPlataformasTecnologicas.xsd", "c_FormaPagoServ", codigos(FormaPagoServ::TODOS, FormaPagoServ::codigo)),
        ("CatPlataformasTecnologicas.xsd", "c_TasaCuota", codigos(TasaCuota::TODOS, TasaCuota::codigo)),
        ("catCFDI.xsd", "c_TipoRelacion", codigos(TipoRelacion::TODOS, TipoRelacion::codigo)),
        ("catCFDI.xsd", "c_RegimenFiscal", codigos(RegimenFiscal::TODOS, RegimenFiscal::codigo)),
        ("catCFDI.xsd", "c_Impuesto", codigos(Impuesto::TODOS, Impuesto::codigo)),
    ];
    for (archivo, tipo, nuestros) in casos {
        assert_eq!(nuestros, codigos_xsd(&sat, archivo, tipo), "{tipo}");
    }
}

#[test]
fn meses_y_tasas() {
    assert_eq!(Mes::desde_numero(1), Some(Mes::Enero));
    assert_eq!(Mes::desde_numero(12).map(Mes::numero), Some(12));
    assert_eq!(Mes::desde_numero(0), None);
    assert_eq!(Mes::desde_numero(13), None);
    assert_eq!(TasaCuota::desde_valor("0.16".parse().unwrap()), Some(TasaCuota::Iva16));
    assert_eq!(TasaCuota::desde_valor("0.1".parse().unwrap()), None);
}
