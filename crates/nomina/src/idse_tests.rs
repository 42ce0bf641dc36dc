//! IDSE DISPMAG records against the positions of PAYROLL_EXTRAS_2026.md §6.3.

use rust_decimal_macros::dec;
use time::macros::date;

use super::*;

fn con_digito(base: &str, validar: fn(&str) -> Result<(), String>) -> String {
    (0..10).map(|d| format!("{base}{d}")).find(|s| validar(s).is_ok()).unwrap()
}

const RP: &str = "Y5412345108";

fn registro(movimiento: MovimientoIdse) -> RegistroIdse {
    RegistroIdse {
        clave: "E-001".into(),
        nss: Some(con_digito("1234567890", validar_nss)),
        curp: con_digito("PEGJ900101HDFRRN0", validar_curp),
        apellido_paterno: "Pérez".into(),
        apellido_materno: "Gómez".into(),
        nombres: "Juan".into(),
        fecha: date!(2026 - 07 - 15),
        guia: "12345".into(),
        movimiento,
    }
}

fn alta() -> MovimientoIdse {
    MovimientoIdse::Alta {
        sbc: dec!(419.73),
        tipo_trabajador: 1,
        tipo_salario: TipoSalario::Fijo,
        jornada: 0,
        umf: "27".into(),
    }
}

fn pos(linea: &str, desde: usize, hasta: usize) -> &str {
    &linea[desde - 1..hasta]
}

fn una(r: RegistroIdse) -> String {
    let a = archivo_idse(RP, &[r]).unwrap();
    assert_eq!((a.registros, a.problemas.len()), (1, 0), "{:?}", a.problemas);
    let l = a.contenido.strip_suffix("\r\n").unwrap().to_owned();
    assert_eq!(l.len(), ANCHO);
    l
}

fn comunes(l: &str) {
    assert_eq!(pos(l, 1, 11), RP);
    assert_eq!(pos(l, 12, 22), con_digito("1234567890", validar_nss));
    assert_eq!(pos(l, 23, 49).trim_end(), "PEREZ");
    assert_eq!(pos(l, 50, 76).trim_end(), "GOMEZ");
    assert_eq!(pos(l, 77, 103).trim_end(), "JUAN");
    assert_eq!(pos(l, 119, 126), "15072026");
    assert_eq!(pos(l, 134, 138), "12345");
    assert_eq!(pos(l, 139, 148), "E-001     ");
    assert_eq!(pos(l, 168, 168), "9");
}

#[test]
fn alta_08() {
    let l = una(registro(alta()));
    comunes(&l);
    assert_eq!(pos(&l, 104, 109), "041973");
    assert_eq!(pos(&l, 110, 115), "      ");
    assert_eq!((pos(&l, 116, 116), pos(&l, 117, 117), pos(&l, 118, 118)), ("1", "0", "0"));
    assert_eq!(pos(&l, 127, 129), "027");
    assert_eq!(pos(&l, 130, 131), "  ");
    assert_eq!(pos(&l, 132, 133), "08");
    assert_eq!(pos(&l, 149, 149), " ");
    assert_eq!(pos(&l, 150, 167), con_digito("PEGJ900101HDFRRN0", validar_curp));
}

#[test]
fn modificacion_07() {
    let l = una(registro(MovimientoIdse::ModificacionSalario {
        sbc: dec!(2932.75),
        tipo_salario: TipoSalario::Mixto,
        jornada: 6,
    }));
    comunes(&l);
    assert_eq!(pos(&l, 104, 109), "293275");
    assert_eq!(pos(&l, 110, 116), "       ");
    assert_eq!((pos(&l, 117, 117), pos(&l, 118, 118)), ("2", "6"));
    assert_eq!(pos(&l, 127, 131), "     ");
    assert_eq!(pos(&l, 132, 133), "07");
    assert_eq!(pos(&l, 149, 149), " ");
    assert_eq!(pos(&l, 150, 167), con_digito("PEGJ900101HDFRRN0", validar_curp));
}

#[test]
fn baja_02() {
    let causas = [
        (MotivoBaja::Renuncia, "2"),
        (MotivoBaja::DespidoJustificado, "8"),
        (MotivoBaja::DespidoInjustificado, "6"),
        (MotivoBaja::MutuoAcuerdo, "6"),
        (MotivoBaja::Muerte, "4"),
    ];
    for (motivo, causa) in causas {
        let l = una(registro(MovimientoIdse::Baja { motivo }));
        comunes(&l);
        assert_eq!(pos(&l, 104, 118), " ".repeat(15));
        assert_eq!(pos(&l, 127, 131), "     ");
        assert_eq!(pos(&l, 132, 133), "02");
        assert_eq!(pos(&l, 149, 149), causa);
        assert_eq!(pos(&l, 150, 167), " ".repeat(18));
    }
    // A baja does not need the CURP.
    let sin_curp =
        RegistroIdse { curp: String::new(), ..registro(MovimientoIdse::Baja { motivo: MotivoBaja::Renuncia }) };
    assert_eq!(archivo_idse(RP, &[sin_curp]).unwrap().registros, 1);
}

// §6.4: no NSS → left out and listed; the rest is written. Bad codes and sizes likewise.
#[test]
fn problemas() {
    let sin_nss = RegistroIdse { clave: "E-002".into(), nss: None, ..registro(alta()) };
    let tipo_malo = registro(MovimientoIdse::Alta {
        sbc: dec!(419.73),
        tipo_trabajador: 5,
        tipo_salario: TipoSalario::Fijo,
        jornada: 0,
        umf: "27".into(),
    });
    let sbc_grande =
        registro(MovimientoIdse::ModificacionSalario { sbc: dec!(10000), tipo_salario: TipoSalario::Fijo, jornada: 0 });
    let umf_mala = registro(MovimientoIdse::Alta {
        sbc: dec!(419.73),
        tipo_trabajador: 1,
        tipo_salario: TipoSalario::Variable,
        jornada: 0,
        umf: "1234".into(),
    });
    let a = archivo_idse(RP, &[registro(alta()), sin_nss, tipo_malo, sbc_grande, umf_mala]).unwrap();
    assert_eq!(a.registros, 1);
    assert_eq!(a.problemas.iter().map(|p| p.indice).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    assert_eq!(a.problemas[0].clave, "E-002");
    assert!(archivo_idse("123", &[]).is_err());
}
