//! Rules of SAT's Guía de llenado del complemento Carta Porte 3.1 that need no registry, each
//! with its id (`CP31_*`), the field path (`CartaPorte.Ubicaciones[1].FechaHoraSalidaLlegada`)
//! and a message that says what to fix.
//!
//! Catalogs: the small ones of `catCartaPorte.xsd` are checked here against their codes
//! ([`super::catalogo`]); the large ones are checked by shape here and by membership through
//! [`crate::catalogos::Catalogos::en_catalogo`] under the ids `cartaporte/c_ClaveProdServCP`,
//! `cartaporte/c_MaterialPeligroso`, `cartaporte/c_ClaveUnidadPeso`, `cartaporte/c_Estaciones`,
//! `cartaporte/c_NumAutorizacionNaviero`, `cartaporte/c_CodigoTransporteAereo`,
//! `cartaporte/c_DerechosDePaso` and `comext/c_FraccionArancelaria`
//! (skipped, and listed in `omitidas`, while the catalog layer does not hold them).

use rust_decimal::Decimal;

use super::catalogo::*;
use super::construccion::id_ccp_valido;
use super::*;
use crate::catalogos::ESTADOS_MEXICO;
use crate::tipos::RFC_EXTRANJERO;
use crate::validacion::{fecha_valida, rfc_valido};

/// c_ConfigAutotransporte: every configuration code.
pub const CONFIGURACIONES_AUTOTRANSPORTE: &[&str] = CONFIG_AUTOTRANSPORTE;

/// What a vehicle configuration says about trailers (Remolques).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remolques {
    /// A rigid vehicle (C2, C3, VL): no trailer.
    Ninguno,
    /// The configuration pulls trailers (an `R` remolque or `S` semirremolque in its code,
    /// such as C2R2, T3S2, T3S2R4): at least one Remolque.
    Requeridos,
    /// Special vehicles and cranes (OTROEV, OTROEGP, OTROSG, OTROEVGP, GPL…): either.
    Opcionales,
}

/// What `config` (c_ConfigAutotransporte) requires of Remolques; `None` when the code is not
/// in the catalog. Read from the code as SAT builds it (tractor `C`/`T` and axles, then
/// `S`/`R` and axles per trailer), which is what the catalog's Remolque column says.
pub fn remolques_de_configuracion(config: &str) -> Option<Remolques> {
    if !CONFIG_AUTOTRANSPORTE.contains(&config) {
        return None;
    }
    Some(match config {
        "C2" | "C3" | "VL" => Remolques::Ninguno,
        c if (c.starts_with('C') || c.starts_with('T')) && c[1..].contains(['S', 'R']) => Remolques::Requeridos,
        _ => Remolques::Opcionales,
    })
}

/// Whether the text has `n` ASCII digits.
fn digitos(texto: &str, n: &[usize]) -> bool {
    n.contains(&texto.len()) && texto.bytes().all(|b| b.is_ascii_digit())
}

fn valor(numero: &Numero) -> Option<Decimal> {
    numero.valor().ok()
}

/// Reports `regla` when `codigo` is not one of `codigos` (a small catalog).
fn codigo(v: &mut Validador<'_>, regla: &'static str, campo: &str, codigo: &str, codigos: &[&str], catalogo: &str) {
    if !codigos.contains(&codigo) {
        v.problema(regla, campo, format!("«{codigo}» no está en el catálogo {catalogo}"));
    }
}

fn opcion(
    v: &mut Validador<'_>,
    regla: &'static str,
    campo: &str,
    valor: Option<&str>,
    codigos: &[&str],
    catalogo: &str,
) {
    if let Some(valor) = valor {
        codigo(v, regla, campo, valor, codigos, catalogo);
    }
}

/// A large catalog: its id in the catalog layer, the attribute it types (for `omitidas`) and
/// the shape of its codes (for the message).
struct Grande {
    catalogo: &'static str,
    atributo: &'static str,
    forma: &'static str,
}

/// A large catalog: its shape here, its membership through the catalog layer.
fn forma(v: &mut Validador<'_>, regla: &'static str, campo: &str, clave: &str, correcta: bool, grande: &Grande) {
    if correcta {
        v.en_catalogo(regla, campo, grande.catalogo, grande.atributo, clave);
    } else {
        let nombre = grande.catalogo.rsplit('/').next().unwrap_or(grande.catalogo);
        v.problema(regla, campo, format!("«{clave}» no tiene la forma de una clave de {nombre} ({})", grande.forma));
    }
}

/// Whether `texto` is ASCII uppercase letters and digits, with the optional extra bytes.
fn alfanumerico(texto: &str, extra: &[u8]) -> bool {
    !texto.is_empty() && texto.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || extra.contains(&b))
}

pub(super) fn validar(v: &mut Validador<'_>, c: &Comprobante, tipo: Option<TipoDeComprobante>) {
    let mut cartas = c.complementos.iter().filter_map(|complemento| match complemento {
        Complemento::CartaPorte(carta_porte) => Some(carta_porte.as_ref()),
        _ => None,
    });
    let Some(cp) = cartas.next() else { return };
    if cartas.next().is_some() {
        v.problema(
            "CP31_UNICO",
            "Complemento",
            "un comprobante lleva un solo complemento Carta Porte; quite los demás",
        );
    }
    if !matches!(tipo, Some(TipoDeComprobante::Ingreso | TipoDeComprobante::Traslado)) {
        v.problema(
            "CP31_TIPO_COMPROBANTE",
            "TipoDeComprobante",
            "el complemento Carta Porte va en un comprobante de ingreso (I) o de traslado (T)",
        );
    }
    validar_carta_porte(v, cp);
}

fn validar_carta_porte(v: &mut Validador<'_>, cp: &CartaPorte) {
    if cp.version != VERSION {
        v.problema("CP31_VERSION", "CartaPorte.Version", "debe ser 3.1");
    }
    if !id_ccp_valido(&cp.id_ccp) {
        v.problema(
            "CP31_ID_CCP",
            "CartaPorte.IdCCP",
            "debe ser CCC seguido de los 33 caracteres de un UUID (CCCxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
        );
    }
    validar_internacional(v, cp);
    validar_ubicaciones(v, cp);
    validar_mercancias(v, cp);
    if let Some(auto) = &cp.mercancias.autotransporte {
        validar_autotransporte(v, cp, auto);
    }
    validar_otros_transportes(v, &cp.mercancias);
    validar_figuras(v, cp);
    opcion(
        v,
        "CP31_CATALOGO",
        "CartaPorte.UbicacionPoloOrigen",
        cp.ubicacion_polo_origen.as_deref(),
        REGISTRO_ISTMO,
        "c_RegistroISTMO",
    );
    opcion(
        v,
        "CP31_CATALOGO",
        "CartaPorte.UbicacionPoloDestino",
        cp.ubicacion_polo_destino.as_deref(),
        REGISTRO_ISTMO,
        "c_RegistroISTMO",
    );
}

/// TranspInternac Sí ↔ EntradaSalidaMerc, PaisOrigenDestino, ViaEntradaSalida and
/// RegimenesAduaneros; the goods of an international move carry FraccionArancelaria, and those
/// entering the country their DocumentacionAduanera.
fn validar_internacional(v: &mut Validador<'_>, cp: &CartaPorte) {
    let internacional = match cp.transp_internac.as_str() {
        "Sí" => true,
        "No" => false,
        otro => {
            v.problema("CP31_TRANSP_INTERNAC", "CartaPorte.TranspInternac", format!("«{otro}»: debe ser Sí o No"));
            return;
        }
    };
    let campos = [
        ("EntradaSalidaMerc", cp.entrada_salida_merc.is_some()),
        ("PaisOrigenDestino", cp.pais_origen_destino.is_some()),
        ("ViaEntradaSalida", cp.via_entrada_salida.is_some()),
        ("RegimenesAduaneros", !cp.regimenes_aduaneros.is_empty()),
    ];
    for (campo, presente) in campos {
        if internacional && !presente {
            v.problema(
                "CP31_INTERNACIONAL",
                format!("CartaPorte.{campo}"),
                "se requiere cuando TranspInternac es Sí (transporte internacional)",
            );
        } else if !internacional && presente {
            v.problema(
                "CP31_INTERNACIONAL",
                format!("CartaPorte.{campo}"),
                "no debe existir cuando TranspInternac es No; quítelo o declare TranspInternac Sí",
            );
        }
    }
    if let Some(entrada) = cp.entrada_salida_merc.as_deref()
        && !matches!(entrada, "Entrada" | "Salida")
    {
        v.problema("CP31_CATALOGO", "CartaPorte.EntradaSalidaMerc", format!("«{entrada}»: debe ser Entrada o Salida"));
    }
    if cp.pais_origen_destino.as_deref() == Some("MEX") {
        v.problema(
            "CP31_PAIS_ORIGEN_DESTINO",
            "CartaPorte.PaisOrigenDestino",
            "es el país de origen o destino fuera de México; no puede ser MEX",
        );
    }
    opcion(
        v,
        "CP31_CATALOGO",
        "CartaPorte.ViaEntradaSalida",
        cp.via_entrada_salida.as_deref(),
        CVE_TRANSPORTE,
        "c_CveTransporte",
    );
    for (i, regimen) in cp.regimenes_aduaneros.iter().enumerate() {
        codigo(
            v,
            "CP31_REGIMEN_ADUANERO",
            &format!("CartaPorte.RegimenesAduaneros[{i}].RegimenAduanero"),
            &regimen.regimen_aduanero,
            REGIMEN_ADUANERO,
            "c_RegimenAduanero",
        );
    }
    if !internacional {
        return;
    }
    let entrada = cp.entrada_salida_merc.as_deref() == Some("Entrada");
    for (i, mercancia) in cp.mercancias.mercancia.iter().enumerate() {
        let campo = format!("CartaPorte.Mercancias.Mercancia[{i}]");
        if mercancia.fraccion_arancelaria.is_none() {
            v.problema(
                "CP31_FRACCION_REQUERIDA",
                format!("{campo}.FraccionArancelaria"),
                "se requiere la fracción arancelaria de cada mercancía cuando TranspInternac es Sí",
            );
        }
        if entrada && mercancia.documentacion_aduanera.is_empty() {
            v.problema(
                "CP31_DOCUMENTACION_ADUANERA",
                format!("{campo}.DocumentacionAduanera"),
                "se requiere el documento aduanero de la mercancía que entra al país (EntradaSalidaMerc Entrada)",
            );
        }
    }
}

fn validar_domicilio(v: &mut Validador<'_>, campo: &str, d: &Domicilio) {
    if d.pais == "MEX" {
        if !ESTADOS_MEXICO.contains(&d.estado.as_str()) {
            v.problema(
                "CP31_ESTADO",
                format!("{campo}.Estado"),
                format!("«{}» no es una clave de estado de México de c_Estado (p. ej. HID, QUE, CMX)", d.estado),
            );
        }
        if !digitos(&d.codigo_postal, &[5]) {
            v.problema(
                "CP31_CODIGO_POSTAL",
                format!("{campo}.CodigoPostal"),
                format!("«{}»: en México el código postal son 5 dígitos (c_CodigoPostal)", d.codigo_postal),
            );
        }
    }
}

fn validar_ubicaciones(v: &mut Validador<'_>, cp: &CartaPorte) {
    let (mut origenes, mut destinos) = (0, 0);
    let mut ids: Vec<&str> = Vec::new();
    for (i, u) in cp.ubicaciones.iter().enumerate() {
        let campo = format!("CartaPorte.Ubicaciones[{i}]");
        let prefijo = match u.tipo_ubicacion.as_str() {
            "Origen" => {
                origenes += 1;
                "OR"
            }
            "Destino" => {
                destinos += 1;
                "DE"
            }
            otro => {
                v.problema(
                    "CP31_UBICACIONES",
                    format!("{campo}.TipoUbicacion"),
                    format!("«{otro}»: debe ser Origen o Destino"),
                );
                ""
            }
        };
        if let Some(id) = u.id_ubicacion.as_deref() {
            if !prefijo.is_empty() && (!id.starts_with(prefijo) || !digitos(&id[prefijo.len().min(id.len())..], &[6])) {
                v.problema(
                    "CP31_ID_UBICACION",
                    format!("{campo}.IDUbicacion"),
                    format!("«{id}»: una ubicación {} se identifica con {prefijo} y 6 dígitos", u.tipo_ubicacion),
                );
            }
            if ids.contains(&id) {
                v.problema("CP31_ID_UBICACION", format!("{campo}.IDUbicacion"), format!("«{id}» está repetido"));
            }
            ids.push(id);
        }
        if !rfc_valido(&u.rfc_remitente_destinatario) {
            v.problema(
                "CP31_RFC_UBICACION",
                format!("{campo}.RFCRemitenteDestinatario"),
                "no tiene la forma de un RFC (use XEXX010101000 para un residente en el extranjero)",
            );
        }
        if u.rfc_remitente_destinatario == RFC_EXTRANJERO
            && (u.num_reg_id_trib.is_none() || u.residencia_fiscal.is_none())
        {
            v.problema(
                "CP31_EXTRANJERO_UBICACION",
                format!("{campo}.NumRegIdTrib"),
                "con RFC XEXX010101000 se requieren NumRegIdTrib y ResidenciaFiscal del remitente o destinatario",
            );
        }
        if !fecha_valida(&u.fecha_hora_salida_llegada) {
            v.problema(
                "CP31_FECHA",
                format!("{campo}.FechaHoraSalidaLlegada"),
                "formato AAAA-MM-DDThh:mm:ss requerido",
            );
        }
        if cp.mercancias.autotransporte.is_some() && prefijo == "DE" && u.distancia_recorrida.is_none() {
            v.problema(
                "CP31_DISTANCIA_RECORRIDA",
                format!("{campo}.DistanciaRecorrida"),
                "se requiere la distancia recorrida hasta cada destino en autotransporte",
            );
        }
        opcion(
            v,
            "CP31_CATALOGO",
            &format!("{campo}.TipoEstacion"),
            u.tipo_estacion.as_deref(),
            TIPO_ESTACION,
            "c_TipoEstacion",
        );
        if let Some(estacion) = u.num_estacion.as_deref() {
            let correcta = (2..=8).contains(&estacion.len()) && alfanumerico(estacion, b".");
            forma(
                v,
                "CP31_CATALOGO_FORMA",
                &format!("{campo}.NumEstacion"),
                estacion,
                correcta,
                &Grande {
                    catalogo: "cartaporte/c_Estaciones",
                    atributo: "Ubicacion.NumEstacion",
                    forma: "letras mayúsculas y dígitos, p. ej. PM001",
                },
            );
        }
        if let Some(d) = &u.domicilio {
            validar_domicilio(v, &format!("{campo}.Domicilio"), d);
        }
    }
    if origenes == 0 || destinos == 0 {
        v.problema(
            "CP31_UBICACIONES",
            "CartaPorte.Ubicaciones",
            "se requieren al menos una ubicación Origen y una Destino",
        );
    }
    // The move starts at an origin: each destination is reached after the earliest departure.
    let salida = cp
        .ubicaciones
        .iter()
        .filter(|u| u.tipo_ubicacion == "Origen" && fecha_valida(&u.fecha_hora_salida_llegada))
        .map(|u| u.fecha_hora_salida_llegada.as_str())
        .min();
    if let Some(salida) = salida {
        for (i, u) in cp.ubicaciones.iter().enumerate() {
            if u.tipo_ubicacion == "Destino"
                && fecha_valida(&u.fecha_hora_salida_llegada)
                && u.fecha_hora_salida_llegada.as_str() <= salida
            {
                v.problema(
                    "CP31_FECHAS_ORDEN",
                    format!("CartaPorte.Ubicaciones[{i}].FechaHoraSalidaLlegada"),
                    format!("la llegada al destino debe ser posterior a la salida del origen ({salida})"),
                );
            }
        }
    }
    match (super::construccion::suma_distancias(cp), &cp.total_dist_rec) {
        (Ok(Some(suma)), Some(total)) if valor(total) != Some(suma) => v.problema(
            "CP31_TOTAL_DIST_REC",
            "CartaPorte.TotalDistRec",
            format!("debe ser {suma}, la suma de DistanciaRecorrida de las ubicaciones"),
        ),
        (Ok(Some(suma)), None) => v.problema(
            "CP31_TOTAL_DIST_REC",
            "CartaPorte.TotalDistRec",
            format!("se requiere cuando las ubicaciones registran DistanciaRecorrida: {suma}"),
        ),
        (Err(_), _) => v.problema(
            "CP31_TOTAL_DIST_REC",
            "CartaPorte.Ubicaciones",
            "DistanciaRecorrida debe ser un número decimal en cada ubicación",
        ),
        _ => {}
    }
}

#[allow(clippy::too_many_lines)]
fn validar_mercancias(v: &mut Validador<'_>, cp: &CartaPorte) {
    let m = &cp.mercancias;
    let numero = m.mercancia.len();
    if valor(&m.num_total_mercancias) != Some(Decimal::from(numero)) {
        v.problema(
            "CP31_NUM_TOTAL_MERCANCIAS",
            "CartaPorte.Mercancias.NumTotalMercancias",
            format!("debe ser {numero}, el número de elementos Mercancia"),
        );
    }
    match super::construccion::suma_pesos(m) {
        Ok(peso) if valor(&m.peso_bruto_total) != Some(peso) => v.problema(
            "CP31_PESO_BRUTO_TOTAL",
            "CartaPorte.Mercancias.PesoBrutoTotal",
            format!("debe ser {peso}, la suma de PesoEnKg de las mercancías"),
        ),
        Ok(_) => {}
        Err(_) => v.problema(
            "CP31_PESO_BRUTO_TOTAL",
            "CartaPorte.Mercancias.Mercancia",
            "PesoEnKg debe ser un número decimal en cada mercancía",
        ),
    }
    let unidad = &m.unidad_peso;
    forma(
        v,
        "CP31_UNIDAD_PESO",
        "CartaPorte.Mercancias.UnidadPeso",
        unidad,
        (2..=3).contains(&unidad.len()) && unidad.bytes().all(|b| b.is_ascii_alphanumeric()),
        &Grande {
            catalogo: "cartaporte/c_ClaveUnidadPeso",
            atributo: "Mercancias.UnidadPeso",
            forma: "2 o 3 letras o dígitos, p. ej. KGM",
        },
    );
    let origenes: Vec<&str> = cp
        .ubicaciones
        .iter()
        .filter(|u| u.tipo_ubicacion == "Origen")
        .filter_map(|u| u.id_ubicacion.as_deref())
        .collect();
    let destinos: Vec<&str> = cp
        .ubicaciones
        .iter()
        .filter(|u| u.tipo_ubicacion == "Destino")
        .filter_map(|u| u.id_ubicacion.as_deref())
        .collect();
    for (i, mercancia) in m.mercancia.iter().enumerate() {
        let campo = format!("CartaPorte.Mercancias.Mercancia[{i}]");
        let p = |nombre: &str| format!("{campo}.{nombre}");
        forma(
            v,
            "CP31_BIENES_TRANSP",
            &p("BienesTransp"),
            &mercancia.bienes_transp,
            digitos(&mercancia.bienes_transp, &[8]),
            &Grande {
                catalogo: "cartaporte/c_ClaveProdServCP",
                atributo: "Mercancia.BienesTransp",
                forma: "8 dígitos",
            },
        );
        let peligroso = match mercancia.material_peligroso.as_deref() {
            Some("Sí") => true,
            Some("No") | None => false,
            Some(otro) => {
                v.problema("CP31_MATERIAL_PELIGROSO", p("MaterialPeligroso"), format!("«{otro}»: debe ser Sí o No"));
                false
            }
        };
        if peligroso {
            for (nombre, presente) in [
                ("CveMaterialPeligroso", mercancia.cve_material_peligroso.is_some()),
                ("Embalaje", mercancia.embalaje.is_some()),
            ] {
                if !presente {
                    v.problema(
                        "CP31_MATERIAL_PELIGROSO",
                        p(nombre),
                        "se requiere cuando MaterialPeligroso es Sí (clave del material y tipo de embalaje)",
                    );
                }
            }
        } else if mercancia.cve_material_peligroso.is_some() {
            v.problema(
                "CP31_MATERIAL_PELIGROSO",
                p("CveMaterialPeligroso"),
                "sólo existe cuando MaterialPeligroso es Sí; declare MaterialPeligroso Sí o quite la clave",
            );
        }
        if let Some(clave) = mercancia.cve_material_peligroso.as_deref() {
            let correcta = digitos(clave, &[3, 4])
                || (clave.len() == 5 && clave.as_bytes()[0].is_ascii_uppercase() && digitos(&clave[1..], &[4]));
            forma(
                v,
                "CP31_CVE_MATERIAL_PELIGROSO",
                &p("CveMaterialPeligroso"),
                clave,
                correcta,
                &Grande {
                    catalogo: "cartaporte/c_MaterialPeligroso",
                    atributo: "Mercancia.CveMaterialPeligroso",
                    forma: "número ONU de 4 dígitos o una letra y 4 dígitos, p. ej. 1203",
                },
            );
        }
        opcion(v, "CP31_EMBALAJE", &p("Embalaje"), mercancia.embalaje.as_deref(), TIPO_EMBALAJE, "c_TipoEmbalaje");
        opcion(
            v,
            "CP31_CATALOGO",
            &p("SectorCOFEPRIS"),
            mercancia.sector_cofepris.as_deref(),
            SECTOR_COFEPRIS,
            "c_SectorCOFEPRIS",
        );
        opcion(
            v,
            "CP31_CATALOGO",
            &p("FormaFarmaceutica"),
            mercancia.forma_farmaceutica.as_deref(),
            FORMA_FARMACEUTICA,
            "c_FormaFarmaceutica",
        );
        opcion(
            v,
            "CP31_CATALOGO",
            &p("CondicionesEspTransp"),
            mercancia.condiciones_esp_transp.as_deref(),
            CONDICIONES_ESPECIALES,
            "c_CondicionesEspeciales",
        );
        opcion(v, "CP31_CATALOGO", &p("TipoMateria"), mercancia.tipo_materia.as_deref(), TIPO_MATERIA, "c_TipoMateria");
        // CartaPorte31.xsd types ClaveSTCC by pattern (6 or 7 digits) while c_ClaveProdSTCC
        // lists codes of 2 to 5 digits, so only the schema's shape is checked.
        if let Some(stcc) = mercancia.clave_stcc.as_deref()
            && !digitos(stcc, &[6, 7])
        {
            v.problema(
                "CP31_CATALOGO_FORMA",
                p("ClaveSTCC"),
                format!("«{stcc}» no tiene la forma de ClaveSTCC (6 o 7 dígitos)"),
            );
        }
        if let Some(fraccion) = mercancia.fraccion_arancelaria.as_deref() {
            forma(
                v,
                "CP31_FRACCION_ARANCELARIA",
                &p("FraccionArancelaria"),
                fraccion,
                digitos(fraccion, &[8, 10]),
                &Grande {
                    catalogo: "comext/c_FraccionArancelaria",
                    atributo: "Mercancia.FraccionArancelaria",
                    forma: "8 o 10 dígitos",
                },
            );
        }
        for (j, documento) in mercancia.documentacion_aduanera.iter().enumerate() {
            let campo = p(&format!("DocumentacionAduanera[{j}]"));
            codigo(
                v,
                "CP31_TIPO_DOCUMENTO",
                &format!("{campo}.TipoDocumento"),
                &documento.tipo_documento,
                DOCUMENTO_ADUANERO,
                "c_DocumentoAduanero",
            );
            if documento.tipo_documento == "01" && documento.num_pedimento.is_none() {
                v.problema(
                    "CP31_DOCUMENTACION_ADUANERA",
                    format!("{campo}.NumPedimento"),
                    "con TipoDocumento 01 (pedimento) se requiere el número de pedimento",
                );
            }
            if documento.tipo_documento != "01" && documento.ident_doc_aduanero.is_none() {
                v.problema(
                    "CP31_DOCUMENTACION_ADUANERA",
                    format!("{campo}.IdentDocAduanero"),
                    "con un TipoDocumento distinto de 01 se requiere el identificador del documento aduanero",
                );
            }
        }
        for (j, cantidad) in mercancia.cantidad_transporta.iter().enumerate() {
            let campo = p(&format!("CantidadTransporta[{j}]"));
            if !origenes.contains(&cantidad.id_origen.as_str()) {
                v.problema(
                    "CP31_CANTIDAD_TRANSPORTA",
                    format!("{campo}.IDOrigen"),
                    format!("«{}» no es el IDUbicacion de ninguna ubicación Origen", cantidad.id_origen),
                );
            }
            if !destinos.contains(&cantidad.id_destino.as_str()) {
                v.problema(
                    "CP31_CANTIDAD_TRANSPORTA",
                    format!("{campo}.IDDestino"),
                    format!("«{}» no es el IDUbicacion de ninguna ubicación Destino", cantidad.id_destino),
                );
            }
            opcion(
                v,
                "CP31_CATALOGO",
                &format!("{campo}.CvesTransporte"),
                cantidad.cves_transporte.as_deref(),
                CVE_TRANSPORTE,
                "c_CveTransporte",
            );
        }
    }
}

fn validar_autotransporte(v: &mut Validador<'_>, cp: &CartaPorte, auto: &Autotransporte) {
    const A: &str = "CartaPorte.Mercancias.Autotransporte";
    codigo(v, "CP31_PERM_SCT", &format!("{A}.PermSCT"), &auto.perm_sct, TIPO_PERMISO, "c_TipoPermiso");
    let vehiculo = &auto.identificacion_vehicular;
    let config = vehiculo.config_vehicular.as_str();
    match remolques_de_configuracion(config) {
        None => v.problema(
            "CP31_CONFIG_VEHICULAR",
            format!("{A}.IdentificacionVehicular.ConfigVehicular"),
            format!("«{config}» no está en el catálogo c_ConfigAutotransporte"),
        ),
        Some(Remolques::Requeridos) if auto.remolques.is_empty() => v.problema(
            "CP31_REMOLQUE",
            format!("{A}.Remolques"),
            format!("la configuración {config} arrastra remolque o semirremolque: registre sus Remolques"),
        ),
        Some(Remolques::Ninguno) if !auto.remolques.is_empty() => v.problema(
            "CP31_REMOLQUE",
            format!("{A}.Remolques"),
            format!(
                "la configuración {config} es un vehículo sin remolque: quite los Remolques o corrija ConfigVehicular"
            ),
        ),
        _ => {}
    }
    let anio = vehiculo.anio_modelo_vm.texto();
    if !(digitos(anio, &[4]) && (anio.starts_with("19") || anio.starts_with("20"))) {
        v.problema(
            "CP31_ANIO_MODELO",
            format!("{A}.IdentificacionVehicular.AnioModeloVM"),
            format!("«{anio}» no es un año de cuatro dígitos (19xx o 20xx)"),
        );
    }
    for (i, remolque) in auto.remolques.iter().enumerate() {
        codigo(
            v,
            "CP31_SUBTIPO_REM",
            &format!("{A}.Remolques[{i}].SubTipoRem"),
            &remolque.sub_tipo_rem,
            SUB_TIPO_REM,
            "c_SubTipoRem",
        );
    }
    let s = &auto.seguros;
    let peligroso = cp.mercancias.mercancia.iter().any(|m| m.material_peligroso.as_deref() == Some("Sí"));
    if peligroso {
        for (nombre, presente) in [
            ("AseguraMedAmbiente", s.asegura_med_ambiente.is_some()),
            ("PolizaMedAmbiente", s.poliza_med_ambiente.is_some()),
        ] {
            if !presente {
                v.problema(
                    "CP31_SEGURO_AMBIENTAL",
                    format!("{A}.Seguros.{nombre}"),
                    "se requiere el seguro de daños al medio ambiente cuando se transporta material peligroso",
                );
            }
        }
    }
    for (asegura, poliza, a, p) in [
        ("AseguraMedAmbiente", "PolizaMedAmbiente", &s.asegura_med_ambiente, &s.poliza_med_ambiente),
        ("AseguraCarga", "PolizaCarga", &s.asegura_carga, &s.poliza_carga),
    ] {
        if a.is_some() != p.is_some() {
            let falta = if a.is_some() { poliza } else { asegura };
            v.problema(
                "CP31_SEGURO_PAR",
                format!("{A}.Seguros.{falta}"),
                format!("{asegura} y {poliza} van juntos: registre la aseguradora y su póliza"),
            );
        }
    }
    if !cp.figura_transporte.iter().any(|f| f.tipo_figura == "01") {
        v.problema(
            "CP31_FIGURA_REQUERIDA",
            "CartaPorte.FiguraTransporte",
            "el autotransporte requiere la figura del operador (TipoFigura 01)",
        );
    }
}

fn validar_otros_transportes(v: &mut Validador<'_>, m: &Mercancias) {
    if let Some(t) = &m.transporte_maritimo {
        const T: &str = "CartaPorte.Mercancias.TransporteMaritimo";
        opcion(v, "CP31_PERM_SCT", &format!("{T}.PermSCT"), t.perm_sct.as_deref(), TIPO_PERMISO, "c_TipoPermiso");
        codigo(
            v,
            "CP31_CATALOGO",
            &format!("{T}.TipoEmbarcacion"),
            &t.tipo_embarcacion,
            CONFIG_MARITIMA,
            "c_ConfigMaritima",
        );
        codigo(v, "CP31_CATALOGO", &format!("{T}.TipoCarga"), &t.tipo_carga, CLAVE_TIPO_CARGA, "c_ClaveTipoCarga");
        let naviero = &t.num_autorizacion_naviero;
        forma(
            v,
            "CP31_CATALOGO_FORMA",
            &format!("{T}.NumAutorizacionNaviero"),
            naviero,
            naviero.len() >= 8 && alfanumerico(naviero, b"/-"),
            &Grande {
                catalogo: "cartaporte/c_NumAutorizacionNaviero",
                atributo: "TransporteMaritimo.NumAutorizacionNaviero",
                forma: "p. ej. ANC001/2022",
            },
        );
        for (i, contenedor) in t.contenedor.iter().enumerate() {
            let campo = format!("{T}.Contenedor[{i}]");
            codigo(
                v,
                "CP31_CATALOGO",
                &format!("{campo}.TipoContenedor"),
                &contenedor.tipo_contenedor,
                CONTENEDOR_MARITIMO,
                "c_ContenedorMaritimo",
            );
            for (j, remolque) in contenedor.remolques_ccp.iter().enumerate() {
                codigo(
                    v,
                    "CP31_SUBTIPO_REM",
                    &format!("{campo}.RemolquesCCP[{j}].SubTipoRemCCP"),
                    &remolque.sub_tipo_rem_ccp,
                    SUB_TIPO_REM,
                    "c_SubTipoRem",
                );
            }
        }
    }
    if let Some(t) = &m.transporte_aereo {
        const T: &str = "CartaPorte.Mercancias.TransporteAereo";
        codigo(v, "CP31_PERM_SCT", &format!("{T}.PermSCT"), &t.perm_sct, TIPO_PERMISO, "c_TipoPermiso");
        let transportista = &t.codigo_transportista;
        forma(
            v,
            "CP31_CATALOGO_FORMA",
            &format!("{T}.CodigoTransportista"),
            transportista,
            transportista.len() == 5 && transportista.starts_with("CA") && digitos(&transportista[2..], &[3]),
            &Grande {
                catalogo: "cartaporte/c_CodigoTransporteAereo",
                atributo: "TransporteAereo.CodigoTransportista",
                forma: "CA y 3 dígitos",
            },
        );
    }
    if let Some(t) = &m.transporte_ferroviario {
        const T: &str = "CartaPorte.Mercancias.TransporteFerroviario";
        codigo(
            v,
            "CP31_CATALOGO",
            &format!("{T}.TipoDeServicio"),
            &t.tipo_de_servicio,
            TIPO_DE_SERVICIO,
            "c_TipoDeServicio",
        );
        codigo(
            v,
            "CP31_CATALOGO",
            &format!("{T}.TipoDeTrafico"),
            &t.tipo_de_trafico,
            TIPO_DE_TRAFICO,
            "c_TipoDeTrafico",
        );
        for (i, derecho) in t.derechos_de_paso.iter().enumerate() {
            let clave = &derecho.tipo_derecho_de_paso;
            forma(
                v,
                "CP31_CATALOGO_FORMA",
                &format!("{T}.DerechosDePaso[{i}].TipoDerechoDePaso"),
                clave,
                clave.len() == 6 && clave.starts_with("CDP") && digitos(&clave[3..], &[3]),
                &Grande {
                    catalogo: "cartaporte/c_DerechosDePaso",
                    atributo: "DerechosDePaso.TipoDerechoDePaso",
                    forma: "CDP y 3 dígitos",
                },
            );
        }
        for (i, carro) in t.carro.iter().enumerate() {
            codigo(
                v,
                "CP31_CATALOGO",
                &format!("{T}.Carro[{i}].TipoCarro"),
                &carro.tipo_carro,
                TIPO_CARRO,
                "c_TipoCarro",
            );
            for (j, contenedor) in carro.contenedor.iter().enumerate() {
                codigo(
                    v,
                    "CP31_CATALOGO",
                    &format!("{T}.Carro[{i}].Contenedor[{j}].TipoContenedor"),
                    &contenedor.tipo_contenedor,
                    CONTENEDOR,
                    "c_Contenedor",
                );
            }
        }
    }
}

fn validar_figuras(v: &mut Validador<'_>, cp: &CartaPorte) {
    for (i, figura) in cp.figura_transporte.iter().enumerate() {
        let campo = format!("CartaPorte.FiguraTransporte[{i}]");
        codigo(
            v,
            "CP31_TIPO_FIGURA",
            &format!("{campo}.TipoFigura"),
            &figura.tipo_figura,
            FIGURA_TRANSPORTE,
            "c_FiguraTransporte",
        );
        if figura.tipo_figura == "01" && figura.num_licencia.is_none() {
            v.problema(
                "CP31_FIGURA_OPERADOR",
                format!("{campo}.NumLicencia"),
                "el operador (TipoFigura 01) requiere su número de licencia",
            );
        }
        let extranjera = figura.num_reg_id_trib_figura.is_some() && figura.residencia_fiscal_figura.is_some();
        match &figura.rfc_figura {
            Some(rfc) if !rfc_valido(rfc) => v.problema(
                "CP31_FIGURA_IDENTIDAD",
                format!("{campo}.RFCFigura"),
                format!("«{rfc}» no tiene la forma de un RFC"),
            ),
            None if !extranjera => v.problema(
                "CP31_FIGURA_IDENTIDAD",
                format!("{campo}.RFCFigura"),
                "se requiere el RFC de la figura, o NumRegIdTribFigura y ResidenciaFiscalFigura si reside en el extranjero",
            ),
            _ => {}
        }
        if matches!(figura.tipo_figura.as_str(), "02" | "03") && figura.partes_transporte.is_empty() {
            v.problema(
                "CP31_PARTE_TRANSPORTE",
                format!("{campo}.PartesTransporte"),
                "el propietario o arrendador (TipoFigura 02 o 03) requiere las partes del transporte que le corresponden",
            );
        }
        for (j, parte) in figura.partes_transporte.iter().enumerate() {
            codigo(
                v,
                "CP31_CATALOGO",
                &format!("{campo}.PartesTransporte[{j}].ParteTransporte"),
                &parte.parte_transporte,
                PARTE_TRANSPORTE,
                "c_ParteTransporte",
            );
        }
        if let Some(d) = &figura.domicilio {
            validar_domicilio(v, &format!("{campo}.Domicilio"), d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogos::{Catalogos, Exportacion, ObjetoImp, SinCatalogos};
    use crate::construccion::{NuevoComprobante, NuevoConcepto};
    use crate::entrada::{Valor, leer};
    use crate::model::{Emisor, Receptor};

    /// A traslado carrying the Carta Porte of issue 33's example body: valid.
    fn base() -> Comprobante {
        let Valor::Objeto(cuerpo) = leer(super::super::construccion::EJEMPLO).unwrap() else { panic!() };
        let mut carta_porte = super::super::leer_json(&cuerpo[0].1, "cartaPorte").unwrap();
        super::super::completar(&mut carta_porte, || super::super::id_ccp([7; 16])).unwrap();
        let emisor = Emisor {
            rfc: "EKU9003173C9".into(),
            nombre: "ESCUELA KEMPER URGATE".into(),
            regimen_fiscal: "601".into(),
            fac_atr_adquirente: None,
        };
        NuevoComprobante {
            tipo: TipoDeComprobante::Traslado,
            serie: None,
            folio: None,
            fecha: "2026-11-30T10:00:00".into(),
            forma_pago: None,
            metodo_pago: None,
            condiciones_de_pago: None,
            moneda: "XXX".into(),
            tipo_cambio: None,
            exportacion: Exportacion::NoAplica,
            lugar_expedicion: "86000".into(),
            receptor: Receptor {
                rfc: emisor.rfc.clone(),
                nombre: emisor.nombre.clone(),
                domicilio_fiscal_receptor: "86000".into(),
                residencia_fiscal: None,
                num_reg_id_trib: None,
                regimen_fiscal_receptor: "601".into(),
                uso_cfdi: "S01".into(),
            },
            emisor,
            informacion_global: None,
            cfdi_relacionados: Vec::new(),
            conceptos: vec![NuevoConcepto::new(
                "24112700",
                Decimal::from(100),
                "XBX",
                "Cajas de cartón",
                Decimal::ZERO,
                ObjetoImp::NoObjeto,
            )],
            impuestos_locales: None,
            complementos: vec![Complemento::CartaPorte(Box::new(carta_porte))],
        }
        .construir()
        .unwrap()
    }

    fn cp(c: &mut Comprobante) -> &mut CartaPorte {
        c.complementos
            .iter_mut()
            .find_map(|complemento| match complemento {
                Complemento::CartaPorte(carta_porte) => Some(carta_porte.as_mut()),
                _ => None,
            })
            .unwrap()
    }

    fn reglas(c: &Comprobante) -> Vec<&'static str> {
        crate::validacion::validar(c, &SinCatalogos).problemas.iter().map(|p| p.regla).collect()
    }

    fn internacional(c: &mut Comprobante) -> &mut CartaPorte {
        let cp = cp(c);
        cp.transp_internac = "Sí".into();
        cp.entrada_salida_merc = Some("Entrada".into());
        cp.pais_origen_destino = Some("USA".into());
        cp.via_entrada_salida = Some("01".into());
        cp.regimenes_aduaneros = vec![RegimenAduaneroCcp { regimen_aduanero: "IMD".into() }];
        cp.mercancias.mercancia[0].fraccion_arancelaria = Some("4819100100".into());
        cp.mercancias.mercancia[0].documentacion_aduanera = vec![DocumentacionAduanera {
            tipo_documento: "01".into(),
            num_pedimento: Some("26  47  3807  6001234".into()),
            ..DocumentacionAduanera::default()
        }];
        cp
    }

    fn peligroso(c: &mut Comprobante) -> &mut Mercancia {
        let m = &mut cp(c).mercancias.mercancia[0];
        m.material_peligroso = Some("Sí".into());
        m.cve_material_peligroso = Some("1203".into());
        m.embalaje = Some("1A1".into());
        m
    }

    fn auto(c: &mut Comprobante) -> &mut Autotransporte {
        cp(c).mercancias.autotransporte.as_mut().unwrap()
    }

    #[test]
    fn cada_regla_tiene_su_cuerpo_que_falla() {
        let valido = base();
        assert!(reglas(&valido).is_empty(), "{:?}", crate::validacion::validar(&valido, &SinCatalogos).problemas);
        let mut internacional_valido = valido.clone();
        internacional(&mut internacional_valido);
        assert!(reglas(&internacional_valido).is_empty(), "{:?}", reglas(&internacional_valido));
        type Caso = (&'static str, fn(&mut Comprobante));
        let casos: &[Caso] = &[
            ("CP31_UNICO", |c| c.complementos.push(c.complementos[0].clone())),
            ("CP31_TIPO_COMPROBANTE", |c| c.tipo_de_comprobante = "E".into()),
            ("CP31_VERSION", |c| cp(c).version = "3.0".into()),
            ("CP31_ID_CCP", |c| cp(c).id_ccp = "CCC-123".into()),
            ("CP31_TRANSP_INTERNAC", |c| cp(c).transp_internac = "Si".into()),
            ("CP31_INTERNACIONAL", |c| cp(c).transp_internac = "Sí".into()),
            ("CP31_INTERNACIONAL", |c| cp(c).via_entrada_salida = Some("01".into())),
            ("CP31_PAIS_ORIGEN_DESTINO", |c| internacional(c).pais_origen_destino = Some("MEX".into())),
            ("CP31_REGIMEN_ADUANERO", |c| internacional(c).regimenes_aduaneros[0].regimen_aduanero = "XXX".into()),
            ("CP31_FRACCION_REQUERIDA", |c| internacional(c).mercancias.mercancia[0].fraccion_arancelaria = None),
            ("CP31_DOCUMENTACION_ADUANERA", |c| {
                internacional(c).mercancias.mercancia[0].documentacion_aduanera.clear()
            }),
            ("CP31_DOCUMENTACION_ADUANERA", |c| {
                internacional(c).mercancias.mercancia[0].documentacion_aduanera[0].num_pedimento = None;
            }),
            ("CP31_TIPO_DOCUMENTO", |c| {
                internacional(c).mercancias.mercancia[0].documentacion_aduanera[0].tipo_documento = "99".into();
            }),
            ("CP31_FRACCION_ARANCELARIA", |c| {
                internacional(c).mercancias.mercancia[0].fraccion_arancelaria = Some("48191".into());
            }),
            ("CP31_ESTADO", |c| cp(c).ubicaciones[0].domicilio.as_mut().unwrap().estado = "Hidalgo".into()),
            ("CP31_CODIGO_POSTAL", |c| cp(c).ubicaciones[0].domicilio.as_mut().unwrap().codigo_postal = "4250".into()),
            ("CP31_UBICACIONES", |c| cp(c).ubicaciones[1].tipo_ubicacion = "Origen".into()),
            ("CP31_UBICACIONES", |c| cp(c).ubicaciones[1].tipo_ubicacion = "Intermedia".into()),
            ("CP31_ID_UBICACION", |c| cp(c).ubicaciones[1].id_ubicacion = Some("OR000002".into())),
            ("CP31_RFC_UBICACION", |c| cp(c).ubicaciones[1].rfc_remitente_destinatario = "XIA190128".into()),
            ("CP31_EXTRANJERO_UBICACION", |c| cp(c).ubicaciones[1].rfc_remitente_destinatario = RFC_EXTRANJERO.into()),
            ("CP31_FECHA", |c| cp(c).ubicaciones[1].fecha_hora_salida_llegada = "2026-12-01 14:00".into()),
            ("CP31_FECHAS_ORDEN", |c| cp(c).ubicaciones[1].fecha_hora_salida_llegada = "2026-12-01T07:59:59".into()),
            ("CP31_DISTANCIA_RECORRIDA", |c| cp(c).ubicaciones[1].distancia_recorrida = None),
            ("CP31_TOTAL_DIST_REC", |c| cp(c).total_dist_rec = Some(Numero::from_texto("300"))),
            ("CP31_TOTAL_DIST_REC", |c| cp(c).total_dist_rec = None),
            ("CP31_NUM_TOTAL_MERCANCIAS", |c| cp(c).mercancias.num_total_mercancias = Numero::from_texto("2")),
            ("CP31_PESO_BRUTO_TOTAL", |c| cp(c).mercancias.peso_bruto_total = Numero::from_texto("1400")),
            ("CP31_UNIDAD_PESO", |c| cp(c).mercancias.unidad_peso = "KILOS".into()),
            ("CP31_BIENES_TRANSP", |c| cp(c).mercancias.mercancia[0].bienes_transp = "2411270".into()),
            ("CP31_MATERIAL_PELIGROSO", |c| cp(c).mercancias.mercancia[0].material_peligroso = Some("Sí".into())),
            ("CP31_MATERIAL_PELIGROSO", |c| cp(c).mercancias.mercancia[0].cve_material_peligroso = Some("1203".into())),
            ("CP31_CVE_MATERIAL_PELIGROSO", |c| peligroso(c).cve_material_peligroso = Some("12AB".into())),
            ("CP31_EMBALAJE", |c| peligroso(c).embalaje = Some("9Z9".into())),
            ("CP31_CANTIDAD_TRANSPORTA", |c| {
                cp(c).mercancias.mercancia[0].cantidad_transporta = vec![CantidadTransporta {
                    cantidad: Numero::from_texto("100"),
                    id_origen: "OR000009".into(),
                    id_destino: "DE000001".into(),
                    cves_transporte: None,
                }];
            }),
            ("CP31_PERM_SCT", |c| auto(c).perm_sct = "TPAF99".into()),
            ("CP31_CONFIG_VEHICULAR", |c| auto(c).identificacion_vehicular.config_vehicular = "C9".into()),
            ("CP31_REMOLQUE", |c| auto(c).identificacion_vehicular.config_vehicular = "T3S2".into()),
            ("CP31_REMOLQUE", |c| {
                auto(c).remolques = vec![Remolque { sub_tipo_rem: "CTR004".into(), placa: "47XY2Z".into() }]
            }),
            ("CP31_SUBTIPO_REM", |c| {
                let a = auto(c);
                a.identificacion_vehicular.config_vehicular = "T3S2".into();
                a.remolques = vec![Remolque { sub_tipo_rem: "CTR999".into(), placa: "47XY2Z".into() }];
            }),
            ("CP31_SEGURO_AMBIENTAL", |c| {
                peligroso(c);
            }),
            ("CP31_SEGURO_PAR", |c| auto(c).seguros.asegura_carga = Some("SEGUROS SA".into())),
            ("CP31_ANIO_MODELO", |c| auto(c).identificacion_vehicular.anio_modelo_vm = Numero::from_texto("1890")),
            ("CP31_FIGURA_REQUERIDA", |c| cp(c).figura_transporte.clear()),
            ("CP31_TIPO_FIGURA", |c| cp(c).figura_transporte[0].tipo_figura = "07".into()),
            ("CP31_FIGURA_OPERADOR", |c| cp(c).figura_transporte[0].num_licencia = None),
            ("CP31_FIGURA_IDENTIDAD", |c| cp(c).figura_transporte[0].rfc_figura = None),
            ("CP31_PARTE_TRANSPORTE", |c| {
                let figura = TiposFigura {
                    tipo_figura: "02".into(),
                    rfc_figura: Some("EKU9003173C9".into()),
                    nombre_figura: "ESCUELA KEMPER URGATE".into(),
                    ..TiposFigura::default()
                };
                cp(c).figura_transporte.push(figura);
            }),
            ("CP31_CATALOGO", |c| cp(c).ubicaciones[0].tipo_estacion = Some("09".into())),
            ("CP31_CATALOGO_FORMA", |c| cp(c).ubicaciones[0].num_estacion = Some("¿?".into())),
        ];
        for (regla, romper) in casos {
            let mut c = valido.clone();
            romper(&mut c);
            let encontradas = reglas(&c);
            assert!(encontradas.contains(regla), "{regla}: {encontradas:?}");
            let problema =
                crate::validacion::validar(&c, &SinCatalogos).problemas.into_iter().find(|p| p.regla == *regla);
            let problema = problema.unwrap();
            assert!(problema.campo.starts_with("CartaPorte") || !problema.campo.is_empty(), "{problema:?}");
        }
    }

    /// Large catalogs: skipped and listed while the catalog layer does not hold them, checked
    /// when it does.
    #[test]
    fn catalogos_grandes_por_la_capa_de_catalogos() {
        let c = base();
        let informe = crate::validacion::validar(&c, &SinCatalogos);
        assert!(
            informe.omitidas.iter().any(|o| o == "cartaporte/c_ClaveProdServCP (Mercancia.BienesTransp)"),
            "{:?}",
            informe.omitidas
        );
        struct SinMaterial;
        impl Catalogos for SinMaterial {
            fn en_catalogo(&self, catalogo: &str, _clave: &str) -> Option<bool> {
                Some(catalogo != "cartaporte/c_ClaveProdServCP")
            }
        }
        let informe = crate::validacion::validar(&c, &SinMaterial);
        let problema = informe.problemas.iter().find(|p| p.regla == "CP31_BIENES_TRANSP").unwrap();
        assert_eq!(problema.campo, "CartaPorte.Mercancias.Mercancia[0].BienesTransp");
        assert!(problema.mensaje.contains("c_ClaveProdServCP"), "{}", problema.mensaje);
    }

    #[test]
    fn configuraciones_y_remolques() {
        assert_eq!(remolques_de_configuracion("C2"), Some(Remolques::Ninguno));
        assert_eq!(remolques_de_configuracion("VL"), Some(Remolques::Ninguno));
        assert_eq!(remolques_de_configuracion("C2R2"), Some(Remolques::Requeridos));
        assert_eq!(remolques_de_configuracion("T3S2R4"), Some(Remolques::Requeridos));
        assert_eq!(remolques_de_configuracion("OTROSG"), Some(Remolques::Opcionales));
        assert_eq!(remolques_de_configuracion("GPLUTA"), Some(Remolques::Opcionales));
        assert_eq!(remolques_de_configuracion("X9"), None);
        assert_eq!(CONFIGURACIONES_AUTOTRANSPORTE.len(), 36);
    }
}
