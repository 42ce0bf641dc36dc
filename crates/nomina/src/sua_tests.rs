//! SUA workers and movements records against the positions of PAYROLL_EXTRAS_2026.md §6.1–§6.2.

use rust_decimal_macros::dec;
use time::macros::date;

use super::*;

/// `base` completed with the check digit that `validar` accepts.
pub(crate) fn con_digito(base: &str, validar: fn(&str) -> Result<(), String>) -> String {
    (0..10).map(|d| format!("{base}{d}")).find(|s| validar(s).is_ok()).unwrap()
}

pub(crate) fn nss() -> String {
    con_digito("1234567890", validar_nss)
}

pub(crate) fn curp() -> String {
    con_digito("PEGJ900101HDFRRN0", validar_curp)
}

const RP: &str = "Y5412345108";

fn trabajador() -> TrabajadorSua {
    TrabajadorSua {
        clave: "E-001".into(),
        nss: Some(nss()),
        rfc: "PEGJ900101AB1".into(),
        curp: curp(),
        apellido_paterno: "Pérez".into(),
        apellido_materno: "Gómez".into(),
        nombres: "Juan Ñandú".into(),
        tipo_trabajador: 1,
        jornada: 0,
        fecha_alta: date!(2026 - 03 - 02),
        salario_diario_integrado: dec!(419.73),
        clave_ubicacion: None,
        credito_infonavit: None,
    }
}

/// Positions are 1-based and inclusive, as the layout tables print them.
fn pos(linea: &str, desde: usize, hasta: usize) -> &str {
    &linea[desde - 1..hasta]
}

#[test]
fn registro_de_trabajador() {
    let a = archivo_trabajadores(RP, &[trabajador()]).unwrap();
    assert_eq!((a.registros, a.problemas.len()), (1, 0));
    assert!(a.contenido.ends_with("\r\n"));
    let l = a.contenido.trim_end_matches("\r\n");
    assert_eq!(l.len(), ANCHO_TRABAJADOR);
    assert_eq!(pos(l, 1, 11), RP);
    assert_eq!(pos(l, 12, 22), nss());
    assert_eq!(pos(l, 23, 35), "PEGJ900101AB1");
    assert_eq!(pos(l, 36, 53), curp());
    assert_eq!(pos(l, 54, 103).trim_end(), "PEREZ$GOMEZ$JUAN NANDU");
    assert_eq!(pos(l, 104, 104), "1");
    assert_eq!(pos(l, 105, 105), "0");
    assert_eq!(pos(l, 106, 113), "02032026");
    assert_eq!(pos(l, 114, 120), "0041973");
    assert_eq!(pos(l, 121, 137), "E-001            ");
    assert_eq!(pos(l, 138, 147), "          ");
    assert_eq!(pos(l, 148, 164), "00000000000000000");
}

#[test]
fn credito_infonavit() {
    let mut t = trabajador();
    t.clave_ubicacion = Some("PLANTA-NORTE".into());
    t.credito_infonavit = Some(CreditoInfonavit {
        numero: "1234567890".into(),
        inicio_descuento: date!(2026 - 04 - 01),
        tipo_descuento: 1,
        valor_descuento: dec!(20.5),
    });
    let a = archivo_trabajadores(RP, &[t.clone()]).unwrap();
    let l = a.contenido.trim_end_matches("\r\n");
    assert_eq!(pos(l, 121, 137), "PLANTA-NORTE     ");
    assert_eq!(pos(l, 138, 147), "1234567890");
    assert_eq!(pos(l, 148, 155), "01042026");
    assert_eq!(pos(l, 156, 156), "1");
    assert_eq!(pos(l, 157, 164), "00205000");
    // Protheus: the type must be 1, 2 or 3, and the value at most 9999.9999.
    if let Some(c) = t.credito_infonavit.as_mut() {
        c.tipo_descuento = 4;
    }
    assert_eq!(archivo_trabajadores(RP, &[t.clone()]).unwrap().problemas.len(), 1);
    if let Some(c) = t.credito_infonavit.as_mut() {
        c.tipo_descuento = 2;
        c.valor_descuento = dec!(10000);
    }
    assert_eq!(archivo_trabajadores(RP, &[t]).unwrap().registros, 0);
}

// §6.4: a worker without NSS is left out and listed; the file is built for the rest.
#[test]
fn sin_nss_se_omite() {
    let sin = TrabajadorSua { clave: "E-002".into(), nss: None, ..trabajador() };
    let malo = TrabajadorSua { clave: "E-003".into(), nss: Some("12345678901".into()), ..trabajador() };
    let curp_mala = TrabajadorSua { clave: "E-004".into(), curp: "XXXX".into(), ..trabajador() };
    let a = archivo_trabajadores(RP, &[trabajador(), sin, malo, curp_mala, trabajador()]).unwrap();
    assert_eq!(a.registros, 2);
    assert_eq!(a.contenido.lines().count(), 2);
    let claves: Vec<(usize, &str)> = a.problemas.iter().map(|p| (p.indice, p.clave.as_str())).collect();
    assert_eq!(claves, vec![(1, "E-002"), (2, "E-003"), (3, "E-004")]);
    assert!(a.problemas[0].mensaje.contains("NSS"));
    assert!(archivo_trabajadores("Y541234510", &[trabajador()]).is_err());
    assert_eq!(archivo_trabajadores(RP, &[]).unwrap().contenido, "");
}

#[test]
fn registros_de_movimientos() {
    let base = MovimientoSua {
        clave: "E-001".into(),
        nss: Some(nss()),
        tipo: TipoMovimientoSua::ModificacionSalario,
        fecha: date!(2026 - 05 - 16),
        folio_incapacidad: None,
        dias: 0,
        salario_diario_integrado: dec!(1049.32),
    };
    let incapacidad = MovimientoSua {
        tipo: TipoMovimientoSua::Incapacidad,
        folio_incapacidad: Some("AB123456".into()),
        dias: 3,
        ..base.clone()
    };
    let sin_folio = MovimientoSua { folio_incapacidad: None, ..incapacidad.clone() };
    let sin_nss = MovimientoSua { nss: None, ..base.clone() };
    let a = archivo_movimientos(RP, &[base, incapacidad, sin_folio, sin_nss]).unwrap();
    assert_eq!((a.registros, a.problemas.len()), (2, 2));
    let lineas: Vec<&str> = a.contenido.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert!(lineas.iter().all(|l| l.len() == ANCHO_MOVIMIENTO));
    let m = lineas[0];
    assert_eq!(pos(m, 1, 11), RP);
    assert_eq!(pos(m, 12, 22), nss());
    assert_eq!(pos(m, 23, 24), "07");
    assert_eq!(pos(m, 25, 32), "16052026");
    assert_eq!(pos(m, 33, 40), "        ");
    assert_eq!(pos(m, 41, 42), "00");
    assert_eq!(pos(m, 43, 49), "0104932");
    let i = lineas[1];
    assert_eq!((pos(i, 23, 24), pos(i, 33, 40), pos(i, 41, 42)), ("12", "AB123456", "03"));
    assert_eq!(
        [TipoMovimientoSua::Baja, TipoMovimientoSua::Reingreso, TipoMovimientoSua::Ausentismo].map(|t| t.clave()),
        ["02", "08", "11"]
    );
}
