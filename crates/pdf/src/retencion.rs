//! The printed representation of a stamped CFDI de Retenciones e Información de Pagos 2.0:
//! issuer and receiver, the kind of retention and its period, the totals and each tax
//! withheld, the Servicios de Plataformas Tecnológicas summary when present, and the seal
//! block with the QR code SAT defines for retentions (its retention verification service:
//! `https://prodretencionverificacion.clouda.sat.gob.mx/?id=…&re=…&rr=…|&nr=…&tt=…&fe=…`).

use rust_decimal::Decimal;
use timbra_retenciones::{Receptor, Retenciones};

use crate::lienzo::{ALTO_PAGINA, ANCHO_PAGINA, Alineacion, Estilo, Lienzo, MARGEN, Tinta};

const ANCHO_UTIL: f32 = ANCHO_PAGINA - 2.0 * MARGEN;
const LIMITE: f32 = ALTO_PAGINA - MARGEN - 20.0;
const ETIQUETA: Estilo = Estilo::gris(6.5);
const VALOR: Estilo = Estilo::normal(8.0);
const SELLO: Estilo = Estilo::normal(6.0);
const QR_LADO: f32 = 100.0;

/// SAT's verification URL of a stamped retention (the QR's content): the UUID, the issuer's
/// RFC, the receiver's RFC (`rr`) or foreign tax id (`nr`), `MontoTotOperacion` and the last
/// eight characters of the issuer's `Sello`. `None` without a stamp.
pub fn url_verificacion(r: &Retenciones) -> Option<String> {
    let tfd = r.timbre()?;
    let receptor = match &r.receptor {
        Receptor::Nacional(nacional) => format!("&rr={}", nacional.rfc_r.as_str()),
        Receptor::Extranjero(extranjero) => {
            extranjero.num_reg_id_trib_r.as_deref().map(|nr| format!("&nr={nr}")).unwrap_or_default()
        }
    };
    let sello = r.sello.trim();
    let fe = &sello[sello.len().saturating_sub(8)..];
    Some(format!(
        "https://prodretencionverificacion.clouda.sat.gob.mx/?id={}&re={}{receptor}&tt={}&fe={fe}",
        tfd.uuid,
        r.emisor.rfc_e.as_str(),
        r.totales.monto_tot_operacion
    ))
}

/// `$1,234.56` for an amount as written in the XML.
fn dinero(valor: Decimal) -> String {
    let texto = format!("{:.2}", valor.round_dp(2));
    let (entero, decimales) = texto.split_once('.').unwrap_or((&texto, "00"));
    let (signo, digitos) = entero.strip_prefix('-').map_or(("", entero), |d| ("-", d));
    let mut agrupado = String::new();
    for (i, c) in digitos.chars().enumerate() {
        if i > 0 && (digitos.len() - i) % 3 == 0 {
            agrupado.push(',');
        }
        agrupado.push(c);
    }
    format!("{signo}${agrupado}.{decimales}")
}

struct Hoja<'f> {
    lienzo: Lienzo<'f>,
    y: f32,
}

impl Hoja<'_> {
    fn asegurar(&mut self, alto: f32) {
        if self.y + alto > LIMITE {
            self.lienzo.nueva_pagina();
            self.y = MARGEN + 8.0;
        }
    }

    fn barra(&mut self, titulo: &str) {
        self.asegurar(40.0);
        self.y += 4.0;
        self.lienzo.rect(MARGEN, self.y, ANCHO_UTIL, 12.0, Tinta::Barra);
        self.lienzo.texto(MARGEN + 3.0, self.y + 8.8, ANCHO_UTIL, Alineacion::Izquierda, Estilo::negrita(7.5), titulo);
        self.y += 16.0;
    }

    /// Label/value pairs in `columnas` columns.
    fn campos(&mut self, entradas: &[(&str, String)], columnas: usize) {
        let ancho = (ANCHO_UTIL - 10.0 * (columnas - 1) as f32) / columnas as f32;
        for fila in entradas.chunks(columnas) {
            let lineas: Vec<Vec<String>> =
                fila.iter().map(|(_, valor)| self.lienzo.partir(valor, ancho, VALOR)).collect();
            let mas = lineas.iter().map(Vec::len).max().unwrap_or(1);
            let alto = ETIQUETA.interlineado() + mas as f32 * VALOR.interlineado() + 3.0;
            self.asegurar(alto);
            for (i, ((etiqueta, _), lineas)) in fila.iter().zip(&lineas).enumerate() {
                let x = MARGEN + i as f32 * (ancho + 10.0);
                let mut y = self.y + ETIQUETA.tamano;
                self.lienzo.texto(x, y, ancho, Alineacion::Izquierda, ETIQUETA, etiqueta);
                for linea in lineas {
                    y += VALOR.interlineado();
                    self.lienzo.texto(x, y, ancho, Alineacion::Izquierda, VALOR, linea);
                }
            }
            self.y += alto;
        }
    }

    /// A table of right-aligned amounts after the first column.
    fn tabla(&mut self, titulos: &[&str], filas: &[Vec<String>]) {
        let ancho = ANCHO_UTIL / titulos.len() as f32;
        let cabecera = Estilo::negrita(6.5);
        self.asegurar(30.0);
        self.lienzo.rect(MARGEN, self.y, ANCHO_UTIL, 11.0, Tinta::Barra);
        for (i, titulo) in titulos.iter().enumerate() {
            let alineacion = if i == 0 { Alineacion::Izquierda } else { Alineacion::Derecha };
            self.lienzo.texto(MARGEN + i as f32 * ancho + 1.5, self.y + 8.0, ancho - 3.0, alineacion, cabecera, titulo);
        }
        self.y += 13.0;
        for fila in filas {
            self.asegurar(10.0);
            for (i, celda) in fila.iter().enumerate() {
                let alineacion = if i == 0 { Alineacion::Izquierda } else { Alineacion::Derecha };
                let texto = self.lienzo.partir(celda, ancho - 3.0, VALOR).into_iter().next().unwrap_or_default();
                self.lienzo.texto(
                    MARGEN + i as f32 * ancho + 1.5,
                    self.y + 7.5,
                    ancho - 3.0,
                    alineacion,
                    VALOR,
                    &texto,
                );
            }
            self.y += 10.0;
            self.lienzo.linea(MARGEN, self.y, ANCHO_UTIL);
            self.y += 1.0;
        }
        self.y += 2.0;
    }
}

/// Lays out the retention `r` (stamped: `tfd` is its timbre) with the QR of [`url_verificacion`].
pub(crate) fn maquetar<'f>(
    r: &Retenciones,
    cadena_tfd: &str,
    qr: (usize, Vec<bool>),
    sandbox: bool,
    lienzo: Lienzo<'f>,
) -> Lienzo<'f> {
    let mut h = Hoja { lienzo, y: MARGEN };
    let tfd = r.timbre();
    // Header: issuer left, the document's title right.
    let nombre = Estilo::negrita(12.0);
    let mut y = h.y + 12.0;
    for linea in h.lienzo.partir(&r.emisor.nom_den_raz_soc_e, 320.0, nombre) {
        h.lienzo.texto(MARGEN, y, 320.0, Alineacion::Izquierda, nombre, &linea);
        y += nombre.interlineado();
    }
    h.lienzo.texto(
        MARGEN + 330.0,
        h.y + 12.0,
        ANCHO_UTIL - 330.0,
        Alineacion::Derecha,
        Estilo::negrita(11.0),
        "CFDI de Retenciones e Información de Pagos",
    );
    h.y = y + 2.0;
    let regimen = r.emisor.regimen_fiscal_e;
    h.campos(
        &[
            ("RFC del emisor", r.emisor.rfc_e.as_str().to_owned()),
            ("Régimen fiscal", format!("{} - {}", regimen.codigo(), regimen.descripcion())),
            ("Folio interno", r.folio_int.clone().unwrap_or_default()),
            ("Folio fiscal (UUID)", tfd.map(|t| t.uuid.clone()).unwrap_or_default()),
            ("Fecha de expedición", timbra_retenciones::formato_fecha_hora(r.fecha_exp)),
            ("Lugar de expedición (C.P.)", r.lugar_exp_retenc.as_str().to_owned()),
            ("No. de certificado del emisor", r.no_certificado.clone()),
            ("Fecha de certificación", tfd.map(|t| t.fecha_timbrado.clone()).unwrap_or_default()),
        ],
        4,
    );

    h.barra("RECEPTOR");
    let receptor = match &r.receptor {
        Receptor::Nacional(n) => vec![
            ("Nacionalidad", "Nacional".to_owned()),
            ("RFC", n.rfc_r.as_str().to_owned()),
            ("Nombre, denominación o razón social", n.nom_den_raz_soc_r.clone()),
            ("Domicilio fiscal (C.P.)", n.domicilio_fiscal_r.as_str().to_owned()),
        ],
        Receptor::Extranjero(e) => vec![
            ("Nacionalidad", "Extranjero".to_owned()),
            ("Núm. de registro de identidad fiscal", e.num_reg_id_trib_r.clone().unwrap_or_default()),
            ("Nombre, denominación o razón social", e.nom_den_raz_soc_r.clone()),
        ],
    };
    h.campos(&receptor, 4);

    h.barra("RETENCIÓN Y PERIODO");
    let mut datos = vec![
        ("Clave de retención", format!("{} - {}", r.cve_retenc.codigo(), r.cve_retenc.descripcion())),
        (
            "Periodo",
            format!("{:02} a {:02} de {}", r.periodo.mes_ini.numero(), r.periodo.mes_fin.numero(), r.periodo.ejercicio),
        ),
    ];
    if let Some(descripcion) = &r.desc_retenc {
        datos.push(("Descripción", descripcion.clone()));
    }
    if let Some(rel) = &r.cfdi_reten_relacionados {
        datos.push(("CFDI relacionado", format!("{} ({})", rel.uuid, rel.tipo_relacion.codigo())));
    }
    h.campos(&datos, 2);

    h.barra("TOTALES");
    let t = &r.totales;
    let mut totales = vec![
        ("Monto total de la operación", dinero(t.monto_tot_operacion)),
        ("Monto total gravado", dinero(t.monto_tot_grav)),
        ("Monto total exento", dinero(t.monto_tot_exent)),
        ("Monto total retenido", dinero(t.monto_tot_ret)),
    ];
    if let Some(utilidad) = t.utilidad_bimestral {
        totales.push(("Utilidad bimestral", dinero(utilidad)));
    }
    if let Some(isr) = t.isr_correspondiente {
        totales.push(("ISR correspondiente", dinero(isr)));
    }
    h.campos(&totales, 4);
    if !t.imp_retenidos.is_empty() {
        let filas: Vec<Vec<String>> = t
            .imp_retenidos
            .iter()
            .map(|i| {
                vec![
                    i.impuesto_ret.map(|x| format!("{} - {}", x.codigo(), x.descripcion())).unwrap_or_default(),
                    i.base_ret.map(dinero).unwrap_or_default(),
                    dinero(i.monto_ret),
                    format!("{} - {}", i.tipo_pago_ret.codigo(), i.tipo_pago_ret.descripcion()),
                ]
            })
            .collect();
        h.tabla(&["Impuesto retenido", "Base", "Monto retenido", "Tipo de pago"], &filas);
    }

    if let Some(p) = r.plataformas_tecnologicas() {
        h.barra("SERVICIOS DE PLATAFORMAS TECNOLÓGICAS 1.0");
        h.campos(
            &[
                ("Periodicidad", p.periodicidad.codigo().to_owned()),
                ("Número de servicios", p.num_serv.to_string()),
                ("Total de servicios sin IVA", dinero(p.mon_tot_serv_siva)),
                ("IVA trasladado", dinero(p.total_iva_trasladado)),
                ("IVA retenido", dinero(p.total_iva_retenido)),
                ("ISR retenido", dinero(p.total_isr_retenido)),
                ("Diferencia IVA entregado", dinero(p.dif_iva_entregado_prest_serv)),
                ("Comisión por uso de la plataforma", dinero(p.mon_totalpor_uso_plataforma)),
            ],
            4,
        );
        let filas: Vec<Vec<String>> = p
            .servicios
            .iter()
            .map(|s| {
                vec![
                    timbra_retenciones::formato_fecha(s.fecha_serv),
                    format!("{} / {}", s.tipo_de_serv.codigo(), s.forma_pago_serv.codigo()),
                    dinero(s.precio_serv_sin_iva),
                    s.comision_del_servicio.as_ref().map(|c| dinero(c.importe)).unwrap_or_default(),
                ]
            })
            .collect();
        h.tabla(&["Fecha del servicio", "Tipo / forma de pago", "Precio sin IVA", "Comisión"], &filas);
    }

    // Seals and QR.
    let x = MARGEN + QR_LADO + 12.0;
    let ancho = ANCHO_UTIL - QR_LADO - 12.0;
    let bloques = [
        ("Sello digital del emisor", r.sello.trim().to_owned()),
        (crate::documento::etiqueta_sello_sat(sandbox), tfd.map(|t| t.sello_sat.trim().to_owned()).unwrap_or_default()),
        ("Cadena original del complemento de certificación digital del SAT", cadena_tfd.to_owned()),
        (
            "RFC del proveedor de certificación · No. de certificado del SAT",
            tfd.map(|t| format!("{} · {}", t.rfc_prov_certif, t.no_certificado_sat)).unwrap_or_default(),
        ),
    ];
    let partidos: Vec<(&str, Vec<String>)> =
        bloques.iter().map(|(etiqueta, texto)| (*etiqueta, h.lienzo.partir(texto, ancho, SELLO))).collect();
    let alto: f32 =
        partidos.iter().map(|(_, l)| ETIQUETA.interlineado() + l.len() as f32 * SELLO.interlineado() + 3.0).sum();
    h.asegurar(alto.max(QR_LADO) + 8.0);
    h.y += 6.0;
    h.lienzo.linea(MARGEN, h.y, ANCHO_UTIL);
    h.y += 4.0;
    h.lienzo.qr(MARGEN, h.y, QR_LADO, qr.0, qr.1);
    let mut y = h.y;
    for (etiqueta, lineas) in partidos {
        y += ETIQUETA.interlineado();
        h.lienzo.texto(x, y, ancho, Alineacion::Izquierda, Estilo { negrita: true, ..ETIQUETA }, etiqueta);
        for linea in lineas {
            y += SELLO.interlineado();
            h.lienzo.texto(x, y, ancho, Alineacion::Izquierda, SELLO, &linea);
        }
        y += 3.0;
    }
    let mut lienzo = h.lienzo;
    let total = lienzo.paginas.len();
    let paginas = std::mem::take(&mut lienzo.paginas);
    let pie = ALTO_PAGINA - MARGEN + 4.0;
    for (indice, ops) in paginas.into_iter().enumerate() {
        lienzo.paginas.push(ops);
        if sandbox {
            lienzo.marca_pruebas();
        }
        lienzo.linea(MARGEN, pie - 9.0, ANCHO_UTIL);
        lienzo.texto(
            MARGEN,
            pie,
            ANCHO_UTIL,
            Alineacion::Izquierda,
            ETIQUETA,
            "Este documento es una representación impresa de un CFDI de Retenciones e Información de Pagos versión 2.0",
        );
        lienzo.texto(
            MARGEN,
            pie,
            ANCHO_UTIL,
            Alineacion::Derecha,
            ETIQUETA,
            &format!("Página {} de {total}", indice + 1),
        );
    }
    lienzo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_print_grouped_with_two_decimals() {
        assert_eq!(dinero(Decimal::new(123456789, 2)), "$1,234,567.89");
        assert_eq!(dinero(Decimal::new(5, 1)), "$0.50");
        assert_eq!(dinero(Decimal::new(-100000, 0)), "-$100,000.00");
    }
}
