//! The layout of the printed CFDI: header (issuer, document data, folio fiscal), receiver,
//! general data, the concept table (flowing over pages, its header repeated), taxes and
//! totals with the amount in words, complements (Pagos, Nómina) and the seal block with the
//! QR code.

use timbra_cfdi::carta_porte::{CartaPorte, Domicilio};
use timbra_cfdi::comercio_exterior::{ComercioExterior, DomicilioCce};
use timbra_cfdi::model::{Comprobante, Concepto};
use timbra_cfdi::nomina::Nomina;
use timbra_cfdi::numero::Numero;
use timbra_cfdi::pagos::Pagos;
use timbra_cfdi::tfd::TimbreFiscalDigital;

use crate::letra::importe_con_letra;
use crate::lienzo::{ALTO_PAGINA, ANCHO_PAGINA, Alineacion, Estilo, Lienzo, MARGEN, Tinta};
use crate::textos;

const ANCHO_UTIL: f32 = ANCHO_PAGINA - 2.0 * MARGEN;
/// Lowest baseline of content; the footer lives below.
const LIMITE: f32 = ALTO_PAGINA - MARGEN - 20.0;
const ETIQUETA: Estilo = Estilo::gris(6.5);
const VALOR: Estilo = Estilo::normal(8.0);
const CELDA: Estilo = Estilo::normal(7.0);
const CELDA_NOTA: Estilo = Estilo::gris(6.0);
const CELDA_LINEA: f32 = 8.6;
const SELLO: Estilo = Estilo::normal(6.0);
const QR_LADO: f32 = 100.0;

/// What the layout needs besides the comprobante.
pub(crate) struct Timbrado<'a> {
    pub(crate) tfd: &'a TimbreFiscalDigital,
    pub(crate) cadena_tfd: &'a str,
    pub(crate) qr_lado: usize,
    pub(crate) qr_modulos: Vec<bool>,
    /// The Carta Porte QR (SAT's verificaccp URL), side and modules, when it carries one.
    pub(crate) qr_ccp: Option<(String, usize, Vec<bool>)>,
}

/// A table column: title, width and alignment.
struct Columna {
    titulo: &'static str,
    ancho: f32,
    alineacion: Alineacion,
}

const fn col(titulo: &'static str, ancho: f32, alineacion: Alineacion) -> Columna {
    Columna { titulo, ancho, alineacion }
}

const CONCEPTOS: [Columna; 8] = [
    col("Clave prod./serv.", 50.0, Alineacion::Izquierda),
    col("Cantidad", 44.0, Alineacion::Derecha),
    col("Clave unidad", 48.0, Alineacion::Izquierda),
    col("Descripción", 198.0, Alineacion::Izquierda),
    col("Valor unitario", 58.0, Alineacion::Derecha),
    col("Descuento", 48.0, Alineacion::Derecha),
    col("Importe", 62.0, Alineacion::Derecha),
    col("Obj. imp.", 32.0, Alineacion::Izquierda),
];

const DOCUMENTOS_PAGO: [Columna; 8] = [
    col("Id. documento", 150.0, Alineacion::Izquierda),
    col("Serie y folio", 62.0, Alineacion::Izquierda),
    col("Moneda", 36.0, Alineacion::Izquierda),
    col("Parcialidad", 44.0, Alineacion::Derecha),
    col("Saldo anterior", 66.0, Alineacion::Derecha),
    col("Importe pagado", 66.0, Alineacion::Derecha),
    col("Saldo insoluto", 66.0, Alineacion::Derecha),
    col("Obj. imp.", 50.0, Alineacion::Izquierda),
];

const PERCEPCIONES: [Columna; 6] = [
    col("Tipo", 40.0, Alineacion::Izquierda),
    col("Clave", 50.0, Alineacion::Izquierda),
    col("Concepto", 240.0, Alineacion::Izquierda),
    col("Importe gravado", 70.0, Alineacion::Derecha),
    col("Importe exento", 70.0, Alineacion::Derecha),
    col("Importe", 70.0, Alineacion::Derecha),
];

const DEDUCCIONES: [Columna; 4] = [
    col("Tipo", 40.0, Alineacion::Izquierda),
    col("Clave", 50.0, Alineacion::Izquierda),
    col("Concepto", 380.0, Alineacion::Izquierda),
    col("Importe", 70.0, Alineacion::Derecha),
];

const OTROS_PAGOS: [Columna; 5] = [
    col("Tipo", 40.0, Alineacion::Izquierda),
    col("Clave", 50.0, Alineacion::Izquierda),
    col("Concepto", 240.0, Alineacion::Izquierda),
    col("Subsidio causado", 140.0, Alineacion::Derecha),
    col("Importe", 70.0, Alineacion::Derecha),
];

const INCAPACIDADES: [Columna; 3] = [
    col("Días", 60.0, Alineacion::Derecha),
    col("Tipo de incapacidad", 340.0, Alineacion::Izquierda),
    col("Importe monetario", 140.0, Alineacion::Derecha),
];

const UBICACIONES: [Columna; 6] = [
    col("Tipo", 40.0, Alineacion::Izquierda),
    col("Id.", 52.0, Alineacion::Izquierda),
    col("RFC remitente / destinatario", 110.0, Alineacion::Izquierda),
    col("Fecha y hora de salida / llegada", 92.0, Alineacion::Izquierda),
    col("Distancia (km)", 50.0, Alineacion::Derecha),
    col("Domicilio", 196.0, Alineacion::Izquierda),
];

const MERCANCIAS_CP: [Columna; 7] = [
    col("Bienes transp.", 50.0, Alineacion::Izquierda),
    col("Descripción", 190.0, Alineacion::Izquierda),
    col("Cantidad", 48.0, Alineacion::Derecha),
    col("Clave unidad", 44.0, Alineacion::Izquierda),
    col("Peso (kg)", 56.0, Alineacion::Derecha),
    col("Material peligroso", 70.0, Alineacion::Izquierda),
    col("Fracción arancelaria", 82.0, Alineacion::Izquierda),
];

const FIGURAS: [Columna; 5] = [
    col("Tipo de figura", 80.0, Alineacion::Izquierda),
    col("RFC", 90.0, Alineacion::Izquierda),
    col("Licencia", 90.0, Alineacion::Izquierda),
    col("Nombre", 180.0, Alineacion::Izquierda),
    col("Residencia / Reg. trib.", 100.0, Alineacion::Izquierda),
];

const MERCANCIAS_CCE: [Columna; 6] = [
    col("No. identificación", 90.0, Alineacion::Izquierda),
    col("Fracción arancelaria", 80.0, Alineacion::Izquierda),
    col("Cantidad aduana", 70.0, Alineacion::Derecha),
    col("Unidad aduana", 60.0, Alineacion::Izquierda),
    col("Valor unitario aduana", 120.0, Alineacion::Derecha),
    col("Valor en dólares", 120.0, Alineacion::Derecha),
];

const SEPARACION_COLUMNAS: f32 = 4.0;

/// The cursor over the pages.
/// The issuer's logo: PNG bytes and their size in pixels.
pub(crate) struct Logo {
    pub(crate) png: Vec<u8>,
    pub(crate) ancho: u32,
    pub(crate) alto: u32,
}

/// What the issuer's branding adds to the page.
pub(crate) struct Adornos<'a> {
    pub(crate) logo: Option<Logo>,
    pub(crate) nota_pie: Option<&'a str>,
    pub(crate) notas: Option<&'a str>,
}

/// The box a logo fits in, keeping its proportions (points).
const LOGO_ANCHO: f32 = 160.0;
const LOGO_ALTO: f32 = 56.0;

struct Maqueta<'a, 'f> {
    lienzo: Lienzo<'f>,
    y: f32,
    /// Repeated at the top of each new page while a table is being drawn.
    tabla: Option<&'static [Columna]>,
    comprobante: &'a Comprobante,
    uuid: &'a str,
}

pub(crate) fn maquetar<'f>(
    comprobante: &Comprobante,
    timbrado: Timbrado<'_>,
    adornos: &Adornos<'_>,
    sandbox: bool,
    lienzo: Lienzo<'f>,
) -> Lienzo<'f> {
    let mut m = Maqueta { lienzo, y: MARGEN, tabla: None, comprobante, uuid: &timbrado.tfd.uuid };
    if let Some(logo) = &adornos.logo {
        let escala = (LOGO_ANCHO / logo.ancho.max(1) as f32).min(LOGO_ALTO / logo.alto.max(1) as f32);
        let (ancho, alto) = (logo.ancho as f32 * escala, logo.alto as f32 * escala);
        m.lienzo.imagen(MARGEN, m.y, ancho, alto, logo.png.clone());
        m.y += alto + 4.0;
    }
    m.encabezado(timbrado.tfd);
    m.receptor();
    m.datos_generales();
    m.conceptos();
    m.totales();
    if let Some(notas) = adornos.notas.map(str::trim).filter(|notas| !notas.is_empty()) {
        m.notas(notas);
    }
    if let Some(pagos) = comprobante.pagos() {
        m.pagos(pagos);
    }
    for nomina in comprobante.nominas() {
        m.nomina(nomina);
    }
    if let Some(carta_porte) = comprobante.carta_porte() {
        m.carta_porte(carta_porte, timbrado.qr_ccp.as_ref());
    }
    if let Some(cce) = comprobante.comercio_exterior() {
        m.comercio_exterior(cce);
    }
    m.sellos(&timbrado, sandbox);
    let mut lienzo = m.lienzo;
    pies(&mut lienzo, adornos.nota_pie, sandbox);
    lienzo
}

impl Maqueta<'_, '_> {
    /// Starts a new page when `alto` points do not fit below the cursor.
    fn asegurar(&mut self, alto: f32) {
        if self.y + alto > LIMITE {
            self.salto();
        }
    }

    fn salto(&mut self) {
        self.lienzo.nueva_pagina();
        self.y = MARGEN + 8.0;
        let c = self.comprobante;
        let serie_folio = serie_folio(c);
        let texto =
            format!("{} · RFC {} · {} · Folio fiscal {}", c.emisor.nombre, c.emisor.rfc, serie_folio, self.uuid);
        let estilo = Estilo::gris(7.0);
        let linea = self.lienzo.partir(&texto, ANCHO_UTIL, estilo).into_iter().next().unwrap_or_default();
        self.lienzo.texto(MARGEN, self.y, ANCHO_UTIL, Alineacion::Izquierda, estilo, &linea);
        self.y += 5.0;
        self.lienzo.linea(MARGEN, self.y, ANCHO_UTIL);
        self.y += 8.0;
        if let Some(columnas) = self.tabla {
            self.cabecera_tabla(columnas);
        }
    }

    /// A shaded bar with a section title.
    fn barra(&mut self, titulo: &str) {
        self.asegurar(40.0);
        self.y += 4.0;
        self.lienzo.rect(MARGEN, self.y, ANCHO_UTIL, 12.0, Tinta::Barra);
        let estilo = Estilo { tinta: Tinta::SobreBarra, ..Estilo::negrita(7.5) };
        self.lienzo.texto(MARGEN + 3.0, self.y + 8.8, ANCHO_UTIL, Alineacion::Izquierda, estilo, titulo);
        self.y += 16.0;
    }

    /// The document's notes (the stamp body's `notas`), wrapped.
    fn notas(&mut self, notas: &str) {
        self.barra("Notas");
        for linea in self.lienzo.partir(notas, ANCHO_UTIL, VALOR) {
            self.asegurar(VALOR.interlineado());
            self.y += VALOR.interlineado();
            self.lienzo.texto(MARGEN, self.y, ANCHO_UTIL, Alineacion::Izquierda, VALOR, &linea);
        }
        self.y += 4.0;
    }

    /// Label/value pairs in `columnas` columns; values wrap inside their column.
    fn campos(&mut self, entradas: &[(&str, String)], columnas: usize) {
        let columnas = columnas.max(1);
        let ancho = (ANCHO_UTIL - SEPARACION_COLUMNAS * (columnas - 1) as f32) / columnas as f32;
        for fila in entradas.chunks(columnas) {
            let lineas: Vec<Vec<String>> =
                fila.iter().map(|(_, valor)| self.lienzo.partir(valor, ancho, VALOR)).collect();
            let mas_lineas = lineas.iter().map(Vec::len).max().unwrap_or(1);
            let alto = ETIQUETA.interlineado() + mas_lineas as f32 * VALOR.interlineado() + 3.0;
            self.asegurar(alto);
            for (indice, ((etiqueta, _), lineas)) in fila.iter().zip(&lineas).enumerate() {
                let x = MARGEN + indice as f32 * (ancho + SEPARACION_COLUMNAS);
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

    fn encabezado(&mut self, tfd: &TimbreFiscalDigital) {
        let c = self.comprobante;
        let izquierda = 300.0;
        let x_derecha = MARGEN + izquierda + 16.0;
        let ancho_derecha = ANCHO_UTIL - izquierda - 16.0;

        // Issuer, left.
        let mut y = self.y + 12.0;
        let nombre = Estilo::negrita(12.0);
        for linea in self.lienzo.partir(&c.emisor.nombre, izquierda, nombre) {
            self.lienzo.texto(MARGEN, y, izquierda, Alineacion::Izquierda, nombre, &linea);
            y += nombre.interlineado();
        }
        let mut datos = vec![
            ("RFC", c.emisor.rfc.clone()),
            ("Régimen fiscal", textos::regimen(&c.emisor.regimen_fiscal)),
            ("Lugar de expedición (C.P.)", c.lugar_expedicion.clone()),
        ];
        if let Some(fac) = &c.emisor.fac_atr_adquirente {
            datos.push(("Fac. atr. adquirente", fac.clone()));
        }
        for (etiqueta, valor) in datos {
            y += ETIQUETA.interlineado();
            self.lienzo.texto(MARGEN, y, izquierda, Alineacion::Izquierda, ETIQUETA, etiqueta);
            for linea in self.lienzo.partir(&valor, izquierda, VALOR) {
                y += VALOR.interlineado();
                self.lienzo.texto(MARGEN, y, izquierda, Alineacion::Izquierda, VALOR, &linea);
            }
            y += 3.0;
        }
        let fin_izquierda = y;

        // Document data, right.
        let mut y = self.y + 12.0;
        let titulo = Estilo::negrita(13.0);
        self.lienzo.texto(
            x_derecha,
            y,
            ancho_derecha,
            Alineacion::Derecha,
            titulo,
            textos::titulo(&c.tipo_de_comprobante),
        );
        y += 6.0;
        let derecha = [
            ("Tipo de comprobante", textos::tipo_comprobante(&c.tipo_de_comprobante)),
            ("Serie y folio", serie_folio(c)),
            ("Folio fiscal (UUID)", tfd.uuid.clone()),
            ("Fecha y hora de emisión", textos::fecha(&c.fecha)),
            ("Fecha y hora de certificación", textos::fecha(&tfd.fecha_timbrado)),
            ("No. de certificado del emisor", c.no_certificado.clone()),
            ("No. de certificado del SAT", tfd.no_certificado_sat.clone()),
        ];
        for (etiqueta, valor) in derecha {
            y += ETIQUETA.interlineado();
            self.lienzo.texto(x_derecha, y, ancho_derecha, Alineacion::Derecha, ETIQUETA, etiqueta);
            for linea in self.lienzo.partir(&valor, ancho_derecha, VALOR) {
                y += VALOR.interlineado();
                self.lienzo.texto(x_derecha, y, ancho_derecha, Alineacion::Derecha, VALOR, &linea);
            }
            y += 1.5;
        }
        self.y = fin_izquierda.max(y) + 6.0;
        self.lienzo.linea(MARGEN, self.y, ANCHO_UTIL);
        self.y += 2.0;
    }

    fn receptor(&mut self) {
        let r = &self.comprobante.receptor;
        self.barra("RECEPTOR");
        let mut entradas = vec![
            ("Nombre o razón social", r.nombre.clone()),
            ("RFC", r.rfc.clone()),
            ("Domicilio fiscal (C.P.)", r.domicilio_fiscal_receptor.clone()),
            ("Régimen fiscal", textos::regimen(&r.regimen_fiscal_receptor)),
            ("Uso del CFDI", textos::uso_cfdi(&r.uso_cfdi)),
        ];
        if let Some(residencia) = &r.residencia_fiscal {
            entradas.push(("Residencia fiscal", residencia.clone()));
        }
        if let Some(registro) = &r.num_reg_id_trib {
            entradas.push(("Núm. de registro de identidad fiscal", registro.clone()));
        }
        self.campos(&entradas, 3);
    }

    fn datos_generales(&mut self) {
        let c = self.comprobante;
        self.barra("DATOS DEL COMPROBANTE");
        let mut entradas = vec![("Moneda", c.moneda.clone())];
        if let Some(tipo_cambio) = &c.tipo_cambio {
            entradas.push(("Tipo de cambio", tipo_cambio.texto().to_owned()));
        }
        if let Some(forma) = &c.forma_pago {
            entradas.push(("Forma de pago", textos::forma_pago(forma)));
        }
        if let Some(metodo) = &c.metodo_pago {
            entradas.push(("Método de pago", textos::metodo_pago(metodo)));
        }
        entradas.push(("Exportación", textos::exportacion(&c.exportacion)));
        if let Some(condiciones) = &c.condiciones_de_pago {
            entradas.push(("Condiciones de pago", condiciones.clone()));
        }
        if let Some(confirmacion) = &c.confirmacion {
            entradas.push(("Confirmación", confirmacion.clone()));
        }
        if let Some(global) = &c.informacion_global {
            entradas.push((
                "Información global",
                format!("{} · meses {} · año {}", textos::periodicidad(&global.periodicidad), global.meses, global.ano),
            ));
        }
        self.campos(&entradas, 3);
        for relacionados in &c.cfdi_relacionados {
            let entradas = [(
                "CFDI relacionados",
                format!("{}: {}", textos::tipo_relacion(&relacionados.tipo_relacion), relacionados.uuids.join(", ")),
            )];
            self.campos(&entradas, 1);
        }
    }

    fn cabecera_tabla(&mut self, columnas: &[Columna]) {
        let estilo = Estilo::negrita(6.5);
        let titulos: Vec<Vec<String>> =
            columnas.iter().map(|columna| self.lienzo.partir(columna.titulo, columna.ancho, estilo)).collect();
        let lineas = titulos.iter().map(Vec::len).max().unwrap_or(1);
        let alto = 4.0 + lineas as f32 * estilo.interlineado();
        self.lienzo.rect(MARGEN, self.y, ANCHO_UTIL, alto, Tinta::Barra);
        let mut x = MARGEN;
        for (columna, titulo) in columnas.iter().zip(&titulos) {
            let mut y = self.y + 1.5 + estilo.tamano;
            for linea in titulo {
                self.lienzo.texto(x + 1.5, y, columna.ancho - 3.0, columna.alineacion, estilo, linea);
                y += estilo.interlineado();
            }
            x += columna.ancho;
        }
        self.y += alto + 2.0;
    }

    /// Starts a table: its header, repeated on every page until [`Self::fin_tabla`].
    fn inicio_tabla(&mut self, columnas: &'static [Columna]) {
        self.asegurar(40.0);
        self.tabla = Some(columnas);
        self.cabecera_tabla(columnas);
    }

    fn fin_tabla(&mut self) {
        self.tabla = None;
        self.y += 2.0;
    }

    /// One table row; each cell a list of styled paragraphs, wrapped to the column. The row
    /// moves whole to the next page when it fits there; a row taller than a page flows line
    /// by line.
    fn fila(&mut self, columnas: &[Columna], celdas: Vec<Vec<(String, Estilo)>>) {
        let lineas: Vec<Vec<(String, Estilo)>> = columnas
            .iter()
            .zip(celdas)
            .map(|(columna, parrafos)| {
                parrafos
                    .into_iter()
                    .flat_map(|(texto, estilo)| {
                        self.lienzo
                            .partir(&texto, columna.ancho - 3.0, estilo)
                            .into_iter()
                            .map(move |linea| (linea, estilo))
                    })
                    .collect()
            })
            .collect();
        let total = lineas.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let alto = total as f32 * CELDA_LINEA + 3.0;
        if alto <= LIMITE - MARGEN - 60.0 {
            self.asegurar(alto);
        }
        for indice in 0..total {
            self.asegurar(CELDA_LINEA);
            let mut x = MARGEN;
            for (columna, celda) in columnas.iter().zip(&lineas) {
                if let Some((texto, estilo)) = celda.get(indice) {
                    self.lienzo.texto(x + 1.5, self.y + 6.8, columna.ancho - 3.0, columna.alineacion, *estilo, texto);
                }
                x += columna.ancho;
            }
            self.y += CELDA_LINEA;
        }
        self.y += 1.5;
        self.lienzo.linea(MARGEN, self.y, ANCHO_UTIL);
        self.y += 1.5;
    }

    fn conceptos(&mut self) {
        self.barra("CONCEPTOS");
        self.inicio_tabla(&CONCEPTOS);
        let c = self.comprobante;
        for concepto in &c.conceptos {
            let celdas = celdas_concepto(concepto);
            self.fila(&CONCEPTOS, celdas);
        }
        self.fin_tabla();
    }

    fn totales(&mut self) {
        let c = self.comprobante;
        let mut filas: Vec<(String, String)> = vec![("Subtotal".into(), textos::dinero(&c.sub_total))];
        if let Some(descuento) = &c.descuento {
            filas.push(("Descuento".into(), textos::dinero(descuento)));
        }
        if let Some(impuestos) = &c.impuestos {
            for traslado in &impuestos.traslados {
                let etiqueta = format!(
                    "{} trasladado {} (base {})",
                    textos::impuesto(&traslado.impuesto),
                    textos::tasa(&traslado.tipo_factor, traslado.tasa_o_cuota.as_ref()),
                    textos::cantidad(&traslado.base)
                );
                let valor = traslado.importe.as_ref().map_or_else(|| "Exento".to_owned(), textos::dinero);
                filas.push((etiqueta, valor));
            }
            for retencion in &impuestos.retenciones {
                filas.push((
                    format!("{} retenido", textos::impuesto(&retencion.impuesto)),
                    textos::dinero(&retencion.importe),
                ));
            }
        }
        if let Some(locales) = c.impuestos_locales() {
            for traslado in &locales.traslados_locales {
                filas.push((
                    format!(
                        "{} {}% (local trasladado)",
                        traslado.imp_loc_trasladado,
                        traslado.tasa_de_traslado.texto()
                    ),
                    textos::dinero(&traslado.importe),
                ));
            }
            for retencion in &locales.retenciones_locales {
                filas.push((
                    format!("{} {}% (local retenido)", retencion.imp_loc_retenido, retencion.tasa_de_retencion.texto()),
                    textos::dinero(&retencion.importe),
                ));
            }
        }
        let total = ("Total".to_owned(), textos::dinero(&c.total));

        let ancho_bloque = 250.0;
        let x_bloque = MARGEN + ANCHO_UTIL - ancho_bloque;
        let ancho_valor = 80.0;
        let ancho_etiqueta = ancho_bloque - ancho_valor - 4.0;
        let etiquetas: Vec<Vec<String>> =
            filas.iter().map(|(etiqueta, _)| self.lienzo.partir(etiqueta, ancho_etiqueta, VALOR)).collect();
        let alto_filas: f32 = etiquetas.iter().map(|l| l.len() as f32 * VALOR.interlineado() + 1.0).sum();
        let alto = alto_filas + 22.0;

        let letra = importe_con_letra(c.total.valor().unwrap_or_default(), &c.moneda);
        let ancho_letra = ANCHO_UTIL - ancho_bloque - 16.0;
        let lineas_letra = self.lienzo.partir(&letra, ancho_letra, Estilo::negrita(8.0));
        let alto = alto.max(12.0 + lineas_letra.len() as f32 * 10.0);
        self.asegurar(alto + 4.0);
        self.y += 4.0;

        let mut y = self.y;
        for ((_, valor), lineas) in filas.iter().zip(&etiquetas) {
            let primera = y + VALOR.tamano;
            self.lienzo.texto(x_bloque + ancho_etiqueta + 4.0, primera, ancho_valor, Alineacion::Derecha, VALOR, valor);
            for (indice, linea) in lineas.iter().enumerate() {
                let base = primera + indice as f32 * VALOR.interlineado();
                self.lienzo.texto(x_bloque, base, ancho_etiqueta, Alineacion::Derecha, VALOR, linea);
            }
            y += lineas.len() as f32 * VALOR.interlineado() + 1.0;
        }
        self.lienzo.rect(x_bloque, y + 1.0, ancho_bloque, 14.0, Tinta::Barra);
        let negrita = Estilo::negrita(9.0);
        self.lienzo.texto(x_bloque, y + 11.0, ancho_etiqueta, Alineacion::Derecha, negrita, &total.0);
        self.lienzo.texto(
            x_bloque + ancho_etiqueta + 4.0,
            y + 11.0,
            ancho_valor,
            Alineacion::Derecha,
            negrita,
            &total.1,
        );

        let mut y_letra = self.y + ETIQUETA.tamano;
        self.lienzo.texto(MARGEN, y_letra, ancho_letra, Alineacion::Izquierda, ETIQUETA, "Importe con letra");
        for linea in &lineas_letra {
            y_letra += 10.0;
            self.lienzo.texto(MARGEN, y_letra, ancho_letra, Alineacion::Izquierda, Estilo::negrita(8.0), linea);
        }
        self.y += alto + 4.0;
    }

    fn pagos(&mut self, pagos: &Pagos) {
        self.barra("COMPLEMENTO PARA RECEPCIÓN DE PAGOS 2.0");
        self.campos(&[("Monto total de pagos", textos::dinero(&pagos.totales.monto_total_pagos))], 3);
        for (numero, pago) in pagos.pagos.iter().enumerate() {
            let mut entradas = vec![
                ("Pago", format!("{} de {}", numero + 1, pagos.pagos.len())),
                ("Fecha de pago", textos::fecha(&pago.fecha_pago)),
                ("Forma de pago", textos::forma_pago(&pago.forma_de_pago_p)),
                ("Moneda", pago.moneda_p.clone()),
                ("Monto", textos::dinero(&pago.monto)),
            ];
            if let Some(tipo_cambio) = &pago.tipo_cambio_p {
                entradas.push(("Tipo de cambio", tipo_cambio.texto().to_owned()));
            }
            if let Some(operacion) = &pago.num_operacion {
                entradas.push(("Número de operación", operacion.clone()));
            }
            self.campos(&entradas, 4);
            self.inicio_tabla(&DOCUMENTOS_PAGO);
            for docto in &pago.doctos_relacionados {
                let serie_folio =
                    [docto.serie.as_deref(), docto.folio.as_deref()].into_iter().flatten().collect::<Vec<_>>();
                let celdas = vec![
                    vec![(docto.id_documento.clone(), CELDA)],
                    vec![(serie_folio.join(" "), CELDA)],
                    vec![(docto.moneda_dr.clone(), CELDA)],
                    vec![(docto.num_parcialidad.clone(), CELDA)],
                    vec![(textos::cantidad(&docto.imp_saldo_ant), CELDA)],
                    vec![(textos::cantidad(&docto.imp_pagado), CELDA)],
                    vec![(textos::cantidad(&docto.imp_saldo_insoluto), CELDA)],
                    vec![(docto.objeto_imp_dr.clone(), CELDA)],
                ];
                self.fila(&DOCUMENTOS_PAGO, celdas);
            }
            self.fin_tabla();
        }
    }

    /// The payroll receipt: the worker's and the period's data, then percepciones,
    /// deducciones, otros pagos and incapacidades as tables, and the totals of the complement.
    fn nomina(&mut self, nomina: &Nomina) {
        self.barra("COMPLEMENTO DE NÓMINA 1.2");
        let r = &nomina.receptor;
        let mut entradas = vec![
            ("Tipo de nómina", textos::tipo_nomina(&nomina.tipo_nomina)),
            ("Fecha de pago", nomina.fecha_pago.clone()),
            ("Periodo", format!("{} a {}", nomina.fecha_inicial_pago, nomina.fecha_final_pago)),
            ("Días pagados", nomina.num_dias_pagados.texto().to_owned()),
            ("CURP", r.curp.clone()),
            ("Núm. de empleado", r.num_empleado.clone()),
            ("Periodicidad de pago", textos::periodicidad_pago(&r.periodicidad_pago)),
            ("Tipo de contrato", textos::tipo_contrato(&r.tipo_contrato)),
            ("Tipo de régimen", textos::tipo_regimen(&r.tipo_regimen)),
            ("Entidad federativa", r.clave_ent_fed.clone()),
        ];
        let opcionales = [
            ("NSS", r.num_seguridad_social.clone()),
            ("Puesto", r.puesto.clone()),
            ("Departamento", r.departamento.clone()),
            ("Inicio de relación laboral", r.fecha_inicio_rel_laboral.clone()),
            ("Antigüedad", r.antiguedad.clone()),
            ("Tipo de jornada", r.tipo_jornada.clone()),
            ("Riesgo del puesto", r.riesgo_puesto.clone()),
            ("Sindicalizado", r.sindicalizado.clone()),
            ("Salario base de cotización", r.salario_base_cot_apor.as_ref().map(textos::dinero)),
            ("Salario diario integrado", r.salario_diario_integrado.as_ref().map(textos::dinero)),
            ("Banco", r.banco.clone()),
            ("Cuenta bancaria", r.cuenta_bancaria.clone()),
            ("Registro patronal", nomina.emisor.as_ref().and_then(|e| e.registro_patronal.clone())),
        ];
        entradas.extend(opcionales.into_iter().filter_map(|(etiqueta, valor)| valor.map(|v| (etiqueta, v))));
        self.campos(&entradas, 4);

        let celda = |texto: &str| vec![(texto.to_owned(), CELDA)];
        let numero = |n: &Numero| vec![(textos::cantidad(n), CELDA)];
        if let Some(percepciones) = &nomina.percepciones {
            self.barra("PERCEPCIONES");
            self.inicio_tabla(&PERCEPCIONES);
            for p in &percepciones.percepciones {
                let mut concepto = celda(&p.concepto);
                for horas in &p.horas_extra {
                    concepto.push((
                        format!(
                            "Horas extra {}: {} h en {} días, pagado {}",
                            textos::tipo_horas(&horas.tipo_horas),
                            horas.horas_extra,
                            horas.dias,
                            textos::dinero(&horas.importe_pagado)
                        ),
                        CELDA_NOTA,
                    ));
                }
                let importe =
                    p.importe_gravado.valor().unwrap_or_default() + p.importe_exento.valor().unwrap_or_default();
                let importe =
                    Numero::con_decimales(importe, p.importe_gravado.decimales().max(p.importe_exento.decimales()));
                let celdas = vec![
                    celda(&p.tipo_percepcion),
                    celda(&p.clave),
                    concepto,
                    numero(&p.importe_gravado),
                    numero(&p.importe_exento),
                    numero(&importe),
                ];
                self.fila(&PERCEPCIONES, celdas);
            }
            self.fin_tabla();
            let mut totales = vec![
                ("Total gravado", textos::dinero(&percepciones.total_gravado)),
                ("Total exento", textos::dinero(&percepciones.total_exento)),
            ];
            let opcionales = [
                ("Total sueldos", &percepciones.total_sueldos),
                ("Total separación e indemnización", &percepciones.total_separacion_indemnizacion),
                ("Total jubilación, pensión, retiro", &percepciones.total_jubilacion_pension_retiro),
            ];
            totales.extend(
                opcionales.into_iter().filter_map(|(etiqueta, n)| n.as_ref().map(|n| (etiqueta, textos::dinero(n)))),
            );
            self.campos(&totales, 4);
        }
        if let Some(deducciones) = &nomina.deducciones {
            self.barra("DEDUCCIONES");
            self.inicio_tabla(&DEDUCCIONES);
            for d in &deducciones.deducciones {
                let celdas = vec![celda(&d.tipo_deduccion), celda(&d.clave), celda(&d.concepto), numero(&d.importe)];
                self.fila(&DEDUCCIONES, celdas);
            }
            self.fin_tabla();
            let totales = [
                ("Total impuestos retenidos", &deducciones.total_impuestos_retenidos),
                ("Total otras deducciones", &deducciones.total_otras_deducciones),
            ];
            let totales: Vec<_> = totales
                .into_iter()
                .filter_map(|(etiqueta, n)| n.as_ref().map(|n| (etiqueta, textos::dinero(n))))
                .collect();
            self.campos(&totales, 4);
        }
        if !nomina.otros_pagos.is_empty() {
            self.barra("OTROS PAGOS");
            self.inicio_tabla(&OTROS_PAGOS);
            for o in &nomina.otros_pagos {
                let causado = o.subsidio_al_empleo.as_ref().map(|s| numero(&s.subsidio_causado)).unwrap_or_default();
                let celdas =
                    vec![celda(&o.tipo_otro_pago), celda(&o.clave), celda(&o.concepto), causado, numero(&o.importe)];
                self.fila(&OTROS_PAGOS, celdas);
            }
            self.fin_tabla();
        }
        if !nomina.incapacidades.is_empty() {
            self.barra("INCAPACIDADES");
            self.inicio_tabla(&INCAPACIDADES);
            for i in &nomina.incapacidades {
                let celdas = vec![
                    celda(&i.dias_incapacidad),
                    celda(&textos::tipo_incapacidad(&i.tipo_incapacidad)),
                    i.importe_monetario.as_ref().map(numero).unwrap_or_default(),
                ];
                self.fila(&INCAPACIDADES, celdas);
            }
            self.fin_tabla();
        }
        let resumen = [
            ("Total percepciones", &nomina.total_percepciones),
            ("Total deducciones", &nomina.total_deducciones),
            ("Total otros pagos", &nomina.total_otros_pagos),
        ];
        let mut resumen: Vec<_> =
            resumen.into_iter().filter_map(|(etiqueta, n)| n.as_ref().map(|n| (etiqueta, textos::dinero(n)))).collect();
        resumen.push(("Neto a pagar", textos::dinero(&self.comprobante.total)));
        self.barra("RESUMEN DEL RECIBO");
        self.campos(&resumen, 4);
    }

    /// Carta Porte 3.1: its header data, the route (ubicaciones), the goods, the vehicle with
    /// its permits, insurance and trailers, the transport figures (operator), and the QR that
    /// SAT's Guía de llenado asks for (the IdCCP verification URL).
    fn carta_porte(&mut self, cp: &CartaPorte, qr: Option<&(String, usize, Vec<bool>)>) {
        self.barra(&format!("COMPLEMENTO CARTA PORTE {}", cp.version));
        let mut entradas = vec![("IdCCP", cp.id_ccp.clone()), ("Transporte internacional", cp.transp_internac.clone())];
        if let Some(total) = &cp.total_dist_rec {
            entradas.push(("Distancia total recorrida (km)", textos::cantidad(total)));
        }
        if let Some(es) = &cp.entrada_salida_merc {
            entradas.push(("Entrada / salida de mercancía", es.clone()));
        }
        if let Some(pais) = &cp.pais_origen_destino {
            entradas.push(("País de origen / destino", pais.clone()));
        }
        if let Some(via) = &cp.via_entrada_salida {
            entradas.push(("Vía de entrada / salida", via.clone()));
        }
        if !cp.regimenes_aduaneros.is_empty() {
            let regimenes: Vec<&str> = cp.regimenes_aduaneros.iter().map(|r| r.regimen_aduanero.as_str()).collect();
            entradas.push(("Regímenes aduaneros", regimenes.join(", ")));
        }
        let m = &cp.mercancias;
        entradas.push(("Peso bruto total", format!("{} {}", textos::cantidad(&m.peso_bruto_total), m.unidad_peso)));
        entradas.push(("Número total de mercancías", m.num_total_mercancias.texto().to_owned()));
        self.campos(&entradas, 4);

        self.barra("CARTA PORTE · UBICACIONES (RUTA)");
        self.inicio_tabla(&UBICACIONES);
        for u in &cp.ubicaciones {
            let mut rfc = vec![(u.rfc_remitente_destinatario.clone(), CELDA)];
            if let Some(nombre) = &u.nombre_remitente_destinatario {
                rfc.push((nombre.clone(), CELDA_NOTA));
            }
            let celdas = vec![
                vec![(u.tipo_ubicacion.clone(), CELDA)],
                vec![(u.id_ubicacion.clone().unwrap_or_default(), CELDA)],
                rfc,
                vec![(textos::fecha(&u.fecha_hora_salida_llegada), CELDA)],
                vec![(u.distancia_recorrida.as_ref().map(textos::cantidad).unwrap_or_default(), CELDA)],
                vec![(u.domicilio.as_ref().map(domicilio_cp).unwrap_or_default(), CELDA)],
            ];
            self.fila(&UBICACIONES, celdas);
        }
        self.fin_tabla();

        self.barra("CARTA PORTE · MERCANCÍAS");
        self.inicio_tabla(&MERCANCIAS_CP);
        for mercancia in &m.mercancia {
            let mut peligroso = vec![(mercancia.material_peligroso.clone().unwrap_or_else(|| "No".into()), CELDA)];
            if let Some(clave) = &mercancia.cve_material_peligroso {
                let embalaje = mercancia.embalaje.as_deref().map(|e| format!(" · embalaje {e}")).unwrap_or_default();
                peligroso.push((format!("UN {clave}{embalaje}"), CELDA_NOTA));
            }
            let celdas = vec![
                vec![(mercancia.bienes_transp.clone(), CELDA)],
                vec![(mercancia.descripcion.clone(), CELDA)],
                vec![(textos::cantidad(&mercancia.cantidad), CELDA)],
                vec![(mercancia.clave_unidad.clone(), CELDA)],
                vec![(textos::cantidad(&mercancia.peso_en_kg), CELDA)],
                peligroso,
                vec![(mercancia.fraccion_arancelaria.clone().unwrap_or_default(), CELDA)],
            ];
            self.fila(&MERCANCIAS_CP, celdas);
        }
        self.fin_tabla();

        if let Some(auto) = &m.autotransporte {
            self.barra("CARTA PORTE · AUTOTRANSPORTE (VEHÍCULO)");
            let v = &auto.identificacion_vehicular;
            let s = &auto.seguros;
            let mut entradas = vec![
                ("Permiso SCT", auto.perm_sct.clone()),
                ("Número de permiso SCT", auto.num_permiso_sct.clone()),
                ("Configuración vehicular", v.config_vehicular.clone()),
                ("Peso bruto vehicular (t)", textos::cantidad(&v.peso_bruto_vehicular)),
                ("Placa", v.placa_vm.clone()),
                ("Año modelo", v.anio_modelo_vm.texto().to_owned()),
                ("Aseguradora resp. civil · póliza", format!("{} · {}", s.asegura_resp_civil, s.poliza_resp_civil)),
            ];
            if let (Some(aseguradora), Some(poliza)) = (&s.asegura_med_ambiente, &s.poliza_med_ambiente) {
                entradas.push(("Aseguradora medio ambiente · póliza", format!("{aseguradora} · {poliza}")));
            }
            if let (Some(aseguradora), Some(poliza)) = (&s.asegura_carga, &s.poliza_carga) {
                entradas.push(("Aseguradora de la carga · póliza", format!("{aseguradora} · {poliza}")));
            }
            for remolque in &auto.remolques {
                entradas
                    .push(("Remolque (subtipo · placa)", format!("{} · {}", remolque.sub_tipo_rem, remolque.placa)));
            }
            self.campos(&entradas, 4);
        }
        let medios = [
            (m.transporte_maritimo.is_some(), "Transporte marítimo"),
            (m.transporte_aereo.is_some(), "Transporte aéreo"),
            (m.transporte_ferroviario.is_some(), "Transporte ferroviario"),
        ];
        let otros: Vec<&str> = medios.iter().filter(|(presente, _)| *presente).map(|(_, nombre)| *nombre).collect();
        if !otros.is_empty() {
            self.campos(&[("Otros medios de transporte", otros.join(", "))], 1);
        }

        if !cp.figura_transporte.is_empty() {
            self.barra("CARTA PORTE · FIGURAS DEL TRANSPORTE (OPERADOR)");
            self.inicio_tabla(&FIGURAS);
            for figura in &cp.figura_transporte {
                let tipo = match figura.tipo_figura.as_str() {
                    "01" => "01 Operador",
                    "02" => "02 Propietario",
                    "03" => "03 Arrendador",
                    "04" => "04 Notificado",
                    "05" => "05 Integrante de coordinados",
                    otro => otro,
                };
                let extranjero = [figura.residencia_fiscal_figura.as_deref(), figura.num_reg_id_trib_figura.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" · ");
                let celdas = vec![
                    vec![(tipo.to_owned(), CELDA)],
                    vec![(figura.rfc_figura.clone().unwrap_or_default(), CELDA)],
                    vec![(figura.num_licencia.clone().unwrap_or_default(), CELDA)],
                    vec![(figura.nombre_figura.clone(), CELDA)],
                    vec![(extranjero, CELDA)],
                ];
                self.fila(&FIGURAS, celdas);
            }
            self.fin_tabla();
        }

        if let Some((url, lado, modulos)) = qr {
            let ancho = ANCHO_UTIL - QR_LADO - 12.0;
            let lineas = self.lienzo.partir(url, ancho, SELLO);
            self.asegurar(QR_LADO + 8.0);
            self.y += 4.0;
            self.lienzo.qr(MARGEN, self.y, QR_LADO, *lado, modulos.clone());
            let x = MARGEN + QR_LADO + 12.0;
            let mut y = self.y + ETIQUETA.interlineado();
            let titulo = "Código QR de la Carta Porte (verificación del IdCCP ante el SAT)";
            self.lienzo.texto(x, y, ancho, Alineacion::Izquierda, Estilo { negrita: true, ..ETIQUETA }, titulo);
            for linea in lineas {
                y += SELLO.interlineado();
                self.lienzo.texto(x, y, ancho, Alineacion::Izquierda, SELLO, &linea);
            }
            self.y += QR_LADO + 4.0;
        }
    }

    /// Comercio Exterior 2.0: the export data and the goods in customs terms.
    fn comercio_exterior(&mut self, cce: &ComercioExterior) {
        self.barra(&format!("COMPLEMENTO DE COMERCIO EXTERIOR {}", cce.version));
        let mut entradas = vec![
            ("Clave de pedimento", cce.clave_de_pedimento.clone()),
            ("Certificado de origen", if cce.certificado_origen.texto() == "1" { "Sí" } else { "No" }.to_owned()),
        ];
        if let Some(numero) = &cce.num_certificado_origen {
            entradas.push(("Folio del certificado de origen", numero.clone()));
        }
        if let Some(exportador) = &cce.numero_exportador_confiable {
            entradas.push(("Exportador confiable", exportador.clone()));
        }
        if let Some(incoterm) = &cce.incoterm {
            entradas.push(("Incoterm", incoterm.clone()));
        }
        if let Some(motivo) = &cce.motivo_traslado {
            entradas.push(("Motivo del traslado", motivo.clone()));
        }
        entradas.push(("Tipo de cambio USD", cce.tipo_cambio_usd.texto().to_owned()));
        entradas.push(("Total USD", textos::dinero(&cce.total_usd)));
        if let Some(emisor) = &cce.emisor {
            entradas.push(("Domicilio del emisor (exportador)", domicilio_cce(&emisor.domicilio)));
        }
        if let Some(receptor) = &cce.receptor {
            if let Some(registro) = &receptor.num_reg_id_trib {
                entradas.push(("Reg. de identidad fiscal del receptor", registro.clone()));
            }
            if let Some(domicilio) = &receptor.domicilio {
                entradas.push(("Domicilio del receptor", domicilio_cce(domicilio)));
            }
        }
        for destinatario in &cce.destinatario {
            let domicilios: Vec<String> = destinatario.domicilio.iter().map(domicilio_cce).collect();
            let nombre = destinatario.nombre.clone().unwrap_or_default();
            entradas.push(("Destinatario", format!("{nombre} {}", domicilios.join("; ")).trim().to_owned()));
        }
        if let Some(observaciones) = &cce.observaciones {
            entradas.push(("Observaciones", observaciones.clone()));
        }
        self.campos(&entradas, 3);
        self.inicio_tabla(&MERCANCIAS_CCE);
        for m in &cce.mercancias {
            let mut identificacion = vec![(m.no_identificacion.clone(), CELDA)];
            for d in &m.descripciones_especificas {
                let detalle =
                    [Some(d.marca.as_str()), d.modelo.as_deref(), d.sub_modelo.as_deref(), d.numero_serie.as_deref()]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" · ");
                identificacion.push((detalle, CELDA_NOTA));
            }
            let celdas = vec![
                identificacion,
                vec![(m.fraccion_arancelaria.clone().unwrap_or_default(), CELDA)],
                vec![(m.cantidad_aduana.as_ref().map(textos::cantidad).unwrap_or_default(), CELDA)],
                vec![(m.unidad_aduana.clone().unwrap_or_default(), CELDA)],
                vec![(m.valor_unitario_aduana.as_ref().map(textos::dinero).unwrap_or_default(), CELDA)],
                vec![(textos::dinero(&m.valor_dolares), CELDA)],
            ];
            self.fila(&MERCANCIAS_CCE, celdas);
        }
        self.fin_tabla();
    }

    fn sellos(&mut self, timbrado: &Timbrado<'_>, sandbox: bool) {
        let c = self.comprobante;
        let tfd = timbrado.tfd;
        let x = MARGEN + QR_LADO + 12.0;
        let ancho = ANCHO_UTIL - QR_LADO - 12.0;
        let bloques = [
            ("Sello digital del CFDI", c.sello.trim().to_owned()),
            (etiqueta_sello_sat(sandbox), tfd.sello_sat.trim().to_owned()),
            ("Cadena original del complemento de certificación digital del SAT", timbrado.cadena_tfd.to_owned()),
            (
                "RFC del proveedor de certificación · No. de certificado del SAT · Fecha de certificación",
                format!(
                    "{} · {} · {}",
                    tfd.rfc_prov_certif,
                    tfd.no_certificado_sat,
                    textos::fecha(&tfd.fecha_timbrado)
                ),
            ),
        ];
        let partidos: Vec<(&str, Vec<String>)> =
            bloques.iter().map(|(etiqueta, texto)| (*etiqueta, self.lienzo.partir(texto, ancho, SELLO))).collect();
        let alto_texto: f32 =
            partidos.iter().map(|(_, l)| ETIQUETA.interlineado() + l.len() as f32 * SELLO.interlineado() + 3.0).sum();
        self.asegurar(alto_texto.max(QR_LADO) + 8.0);
        self.y += 6.0;
        self.lienzo.linea(MARGEN, self.y, ANCHO_UTIL);
        self.y += 4.0;
        self.lienzo.qr(MARGEN, self.y, QR_LADO, timbrado.qr_lado, timbrado.qr_modulos.clone());
        let mut y = self.y;
        for (etiqueta, lineas) in partidos {
            y += ETIQUETA.interlineado();
            self.lienzo.texto(x, y, ancho, Alineacion::Izquierda, Estilo { negrita: true, ..ETIQUETA }, etiqueta);
            for linea in lineas {
                y += SELLO.interlineado();
                self.lienzo.texto(x, y, ancho, Alineacion::Izquierda, SELLO, &linea);
            }
            y += 3.0;
        }
        self.y += alto_texto.max(QR_LADO);
    }
}

/// A Carta Porte address on one line: street and numbers, colonia, municipio, state, country
/// and postal code, as present.
fn domicilio_cp(d: &Domicilio) -> String {
    let calle = [d.calle.as_deref(), d.numero_exterior.as_deref(), d.numero_interior.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    [Some(calle.as_str()).filter(|c| !c.is_empty()), d.colonia.as_deref(), d.municipio.as_deref()]
        .into_iter()
        .flatten()
        .map(str::to_owned)
        .chain([format!("{}, {}, C.P. {}", d.estado, d.pais, d.codigo_postal)])
        .collect::<Vec<_>>()
        .join(", ")
}

/// A Comercio Exterior address on one line.
fn domicilio_cce(d: &DomicilioCce) -> String {
    let calle = [Some(d.calle.as_str()), d.numero_exterior.as_deref(), d.numero_interior.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    [Some(calle.as_str()), d.colonia.as_deref(), d.municipio.as_deref()]
        .into_iter()
        .flatten()
        .filter(|parte| !parte.is_empty())
        .map(str::to_owned)
        .chain([format!("{}, {}, C.P. {}", d.estado, d.pais, d.codigo_postal)])
        .collect::<Vec<_>>()
        .join(", ")
}

fn serie_folio(c: &Comprobante) -> String {
    match (c.serie.as_deref(), c.folio.as_deref()) {
        (Some(serie), Some(folio)) => format!("{serie}-{folio}"),
        (Some(solo), None) | (None, Some(solo)) => solo.to_owned(),
        (None, None) => "—".to_owned(),
    }
}

fn celdas_concepto(concepto: &Concepto) -> Vec<Vec<(String, Estilo)>> {
    let mut clave = vec![(concepto.clave_prod_serv.clone(), CELDA)];
    if let Some(sku) = &concepto.no_identificacion {
        clave.push((format!("No. ident. {sku}"), CELDA_NOTA));
    }
    let mut unidad = vec![(concepto.clave_unidad.clone(), CELDA)];
    if let Some(nombre) = &concepto.unidad {
        unidad.push((nombre.clone(), CELDA_NOTA));
    }
    let mut descripcion = vec![(concepto.descripcion.clone(), CELDA)];
    if let Some(impuestos) = &concepto.impuestos {
        for traslado in &impuestos.traslados {
            let importe =
                traslado.importe.as_ref().map_or_else(String::new, |i| format!(" importe {}", textos::cantidad(i)));
            descripcion.push((
                format!(
                    "Traslado {} {} base {}{}",
                    textos::impuesto(&traslado.impuesto),
                    textos::tasa(&traslado.tipo_factor, traslado.tasa_o_cuota.as_ref()),
                    textos::cantidad(&traslado.base),
                    importe
                ),
                CELDA_NOTA,
            ));
        }
        for retencion in &impuestos.retenciones {
            descripcion.push((
                format!(
                    "Retención {} {} base {} importe {}",
                    textos::impuesto(&retencion.impuesto),
                    textos::tasa(&retencion.tipo_factor, Some(&retencion.tasa_o_cuota)),
                    textos::cantidad(&retencion.base),
                    textos::cantidad(&retencion.importe)
                ),
                CELDA_NOTA,
            ));
        }
    }
    if let Some(terceros) = &concepto.a_cuenta_terceros {
        descripcion.push((
            format!(
                "A cuenta de terceros: {} RFC {} régimen {} C.P. {}",
                terceros.nombre, terceros.rfc, terceros.regimen_fiscal, terceros.domicilio_fiscal
            ),
            CELDA_NOTA,
        ));
    }
    if !concepto.informacion_aduanera.is_empty() {
        descripcion.push((format!("Pedimento: {}", concepto.informacion_aduanera.join(", ")), CELDA_NOTA));
    }
    if !concepto.cuenta_predial.is_empty() {
        descripcion.push((format!("Cuenta predial: {}", concepto.cuenta_predial.join(", ")), CELDA_NOTA));
    }
    for parte in &concepto.partes {
        descripcion.push((
            format!("Parte: {} {} × {}", parte.clave_prod_serv, parte.descripcion, parte.cantidad.texto()),
            CELDA_NOTA,
        ));
    }
    let numero = |n: &Numero| vec![(textos::cantidad(n), CELDA)];
    vec![
        clave,
        numero(&concepto.cantidad),
        unidad,
        descripcion,
        numero(&concepto.valor_unitario),
        concepto.descuento.as_ref().map(numero).unwrap_or_default(),
        numero(&concepto.importe),
        vec![(concepto.objeto_imp.clone(), CELDA)],
    ]
}

/// The label of the SAT seal's block: a sandbox timbre is sealed by timbra's test certificate.
pub(crate) fn etiqueta_sello_sat(sandbox: bool) -> &'static str {
    if sandbox {
        "Sello digital del SAT: sello de pruebas (sandbox), no emitido por el SAT"
    } else {
        "Sello digital del SAT"
    }
}

/// "Página i de n" and the legend on every page (and the sandbox mark on a test document's).
fn pies(lienzo: &mut Lienzo<'_>, nota_pie: Option<&str>, sandbox: bool) {
    let total = lienzo.paginas.len();
    let estilo = Estilo::gris(6.5);
    let y = ALTO_PAGINA - MARGEN + 4.0;
    let nota = nota_pie
        .map(str::trim)
        .filter(|nota| !nota.is_empty())
        .and_then(|nota| lienzo.partir(nota, ANCHO_UTIL, estilo).into_iter().next());
    let paginas = std::mem::take(&mut lienzo.paginas);
    for (indice, ops) in paginas.into_iter().enumerate() {
        lienzo.paginas.push(ops);
        if sandbox {
            lienzo.marca_pruebas();
        }
        if let Some(nota) = &nota {
            lienzo.texto(MARGEN, y - 12.0, ANCHO_UTIL, Alineacion::Izquierda, estilo, nota);
        }
        lienzo.linea(MARGEN, y - 9.0, ANCHO_UTIL);
        lienzo.texto(
            MARGEN,
            y,
            ANCHO_UTIL,
            Alineacion::Izquierda,
            estilo,
            "Este documento es una representación impresa de un CFDI versión 4.0",
        );
        lienzo.texto(MARGEN, y, ANCHO_UTIL, Alineacion::Derecha, estilo, &format!("Página {} de {total}", indice + 1));
    }
}
