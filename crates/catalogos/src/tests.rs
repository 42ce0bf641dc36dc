//! The shipped edition: it reads, has SAT's row counts, and the index answers from it.

use timbra_cfdi::catalogos::{Catalogos, EstimuloFrontera, HusoHorario, Incluir, SinCatalogos};
use time::macros::date;

use crate::registros::{ClaveProdServ, ClaveUnidad, CodigoPostal, Moneda, Pais, RegimenFiscal, UsoCfdi};
use crate::*;

#[test]
fn the_shipped_edition_reads_with_sats_row_counts() {
    assert_eq!(Edicion::fecha_incluida().unwrap(), date!(2026 - 08 - 06));
    let edicion = Edicion::incluida().unwrap();
    assert_eq!(edicion.fecha, date!(2026 - 08 - 06));
    let filas = |id: &str| edicion.catalogo(id).unwrap_or_else(|| panic!("{id} is missing")).filas.len();
    assert_eq!(filas(CLAVE_PROD_SERV), 52_514);
    assert_eq!(filas(CODIGO_POSTAL), 95_749);
    assert_eq!(filas(CLAVE_UNIDAD), 2_418);
    assert_eq!(filas(PAIS), 250);
    assert_eq!(filas(MONEDA), 183);
    assert_eq!(filas(REGIMEN_FISCAL), 19);
    assert_eq!(filas(USO_CFDI), 24);
    assert_eq!(filas("cfdi40/c_Municipio"), 2_478);
    assert_eq!(filas("nomina12/c_Estado"), 96);
    assert_eq!(filas("cancelacion/c_MotivoCancelacion"), 4);
    assert_eq!(edicion.catalogos.len(), 39);

    let claves = ClaveProdServ::leer(edicion.catalogo(CLAVE_PROD_SERV).unwrap()).unwrap();
    let cafe = claves.iter().find(|c| c.clave == "50201706").unwrap();
    assert_eq!(cafe.descripcion, "Café");
    let gasolina = claves.iter().find(|c| c.clave == "15101506").unwrap();
    assert_eq!(gasolina.vigencia.hasta, Some(date!(2020 - 01 - 15)));
    assert_eq!(claves.iter().filter(|c| c.incluir_iva == Incluir::Si).count(), 4);
    assert_eq!(ClaveUnidad::leer(edicion.catalogo(CLAVE_UNIDAD).unwrap()).unwrap().len(), 2_418);
    let codigos = CodigoPostal::leer(edicion.catalogo(CODIGO_POSTAL).unwrap()).unwrap();
    let tijuana = codigos.iter().find(|c| c.codigo_postal == "22000").unwrap();
    assert_eq!((tijuana.estado.as_str(), tijuana.huso_horario), ("BCN", HusoHorario::Noroeste));
    assert_eq!(tijuana.estimulo_frontera, EstimuloFrontera::Norte);
    let monedas = Moneda::leer(edicion.catalogo(MONEDA).unwrap()).unwrap();
    assert_eq!(monedas.iter().find(|m| m.clave == "KWD").unwrap().decimales, 3);
    assert!(Pais::leer(edicion.catalogo(PAIS).unwrap()).unwrap().iter().any(|p| p.clave == "MEX"));
    let regimenes = RegimenFiscal::leer(edicion.catalogo(REGIMEN_FISCAL).unwrap()).unwrap();
    assert!(regimenes.iter().any(|r| r.clave == "626" && r.aplica_fisica && r.aplica_moral));
    let usos = UsoCfdi::leer(edicion.catalogo(USO_CFDI).unwrap()).unwrap();
    let cn01 = usos.iter().find(|u| u.clave == "CN01").unwrap();
    assert_eq!(cn01.regimenes_receptores, ["605"]);
}

#[test]
fn the_index_answers_membership_validity_and_row_data() {
    let indice = Indice::desde_edicion(&Edicion::incluida().unwrap()).unwrap();
    assert_eq!(indice.clave_prod_serv("50201706"), Some(true));
    assert_eq!(indice.clave_prod_serv("99999999"), Some(false));
    // Retired on 2020-01-15: in force that day, not the next.
    assert_eq!(indice.clave_prod_serv_vigente("15101506", date!(2020 - 01 - 15)), Some(true));
    assert_eq!(indice.clave_prod_serv_vigente("15101506", date!(2026 - 11 - 20)), Some(false));
    // In force from 2019-01-07 only.
    assert_eq!(indice.clave_prod_serv_vigente("01010101", date!(2019 - 01 - 06)), Some(false));
    assert_eq!(indice.clave_prod_serv_vigente("99999999", date!(2026 - 11 - 20)), Some(false));
    let datos = indice.datos_clave_prod_serv("50201706").unwrap();
    assert!(datos.estimulo_franja_fronteriza);
    assert_eq!(indice.clave_unidad("H87"), Some(true));
    assert_eq!(indice.clave_unidad("ZZZ"), Some(false));
    assert_eq!(indice.clave_unidad_vigente("H87", date!(2026 - 11 - 20)), Some(true));
    assert_eq!(indice.codigo_postal("06600"), Some(true));
    assert_eq!(indice.codigo_postal("00001"), Some(false));
    assert_eq!(indice.datos_codigo_postal("77500").unwrap().huso_horario, HusoHorario::Sureste);
    assert_eq!(indice.en_catalogo(PAIS, "USA"), Some(true));
    assert_eq!(indice.en_catalogo(PAIS, "QQQ"), Some(false));
    // c_Pais' tax-id pattern, where the edition gives one (matrix CFDI40156).
    assert_eq!(indice.patron_num_reg_id_trib("USA").as_deref(), Some("[0-9]{9}"));
    assert_eq!(indice.patron_num_reg_id_trib("DEU"), None);
    // c_ClaveProdServ's `complemento` column is empty in this edition (CFDI40163 has nothing to
    // ask for yet).
    assert_eq!(indice.complemento_clave_prod_serv("50201706"), None);
    let mut con_complemento = Indice::default();
    con_complemento.con_complementos([("86121700".to_owned(), "Instituciones educativas privadas".to_owned())]);
    assert!(con_complemento.complemento_clave_prod_serv("86121700").is_some());
    // c_FormaPago's bank-data columns (Pagos 2.0, CRP20224-CRP20229).
    let transferencia = indice.datos_forma_pago("03").unwrap();
    assert!(transferencia.permite_cuenta_ordenante && transferencia.permite_tipo_cadena_pago);
    assert_eq!(transferencia.patron_cuenta_beneficiario.as_deref(), Some("[0-9]{10}|[0-9]{18}"));
    let efectivo = indice.datos_forma_pago("01").unwrap();
    assert!(!efectivo.permite_cuenta_ordenante && !efectivo.permite_rfc_beneficiario);
    assert_eq!(efectivo.patron_cuenta_ordenante, None);
    assert_eq!(indice.en_catalogo(CLAVE_UNIDAD, "H87"), Some(true));
    assert_eq!(indice.vigente_en_catalogo("nomina12/c_TipoPercepcion", "001", date!(2016 - 10 - 31)), Some(false));
    assert_eq!(indice.vigente_en_catalogo("nomina12/c_TipoPercepcion", "001", date!(2016 - 11 - 01)), Some(true));
    assert_eq!(indice.en_catalogo("cfdi40/c_Colonia", "0001"), None);
    assert_eq!(indice.filas().len(), 39);

    // Without catalogs nothing is answered, so validation lists the checks as skipped.
    assert_eq!(SinCatalogos.clave_prod_serv_vigente("50201706", date!(2026 - 11 - 20)), None);
    assert_eq!(SinCatalogos.en_catalogo(PAIS, "USA"), None);
    assert_eq!(Indice::default().codigo_postal("06600"), None);
}

#[test]
fn reads_a_folder_and_its_edition_date() {
    let dir = std::env::temp_dir().join(format!("timbra-catalogos-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("cfdi40")).unwrap();
    std::fs::write(dir.join("cfdi40/c_Meses.csv"), "id,texto,vigencia_desde,vigencia_hasta\n01,Enero,2022-01-01,\n")
        .unwrap();
    std::fs::write(dir.join("cfdi40/notas.txt"), "not a catalog").unwrap();
    let edicion = Edicion::leer_directorio(&dir, None).unwrap();
    assert_eq!((edicion.fecha, edicion.catalogos.len()), (date!(2022 - 01 - 01), 1));
    std::fs::write(dir.join("edicion.txt"), "2026-09-01\n").unwrap();
    assert_eq!(Edicion::leer_directorio(&dir, None).unwrap().fecha, date!(2026 - 09 - 01));
    assert_eq!(Edicion::leer_directorio(&dir, Some(date!(2026 - 10 - 01))).unwrap().fecha, date!(2026 - 10 - 01));
    std::fs::write(dir.join("cfdi40/c_Meses.csv"), b"id,texto\n01,Ene\xf1o\n").unwrap();
    assert!(Edicion::leer_directorio(&dir, None).unwrap_err().to_string().contains("not UTF-8"));
    std::fs::remove_dir_all(&dir).unwrap();
    let vacio = std::env::temp_dir().join(format!("timbra-catalogos-vacio-{}", std::process::id()));
    std::fs::create_dir_all(&vacio).unwrap();
    assert!(Edicion::leer_directorio(&vacio, None).unwrap_err().to_string().contains("no catalog found"));
    std::fs::remove_dir_all(&vacio).unwrap();
}
