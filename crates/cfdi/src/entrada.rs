//! JSON of the complement builders, read and written without a JSON library (the crate stays
//! free of serde): a small RFC 8259 reader into [`Valor`] and [`Objeto`], which hands out the
//! members a builder asks for, names every problem by its JSON path
//! (`cartaPorte.ubicaciones[1].domicilio.estado`) and refuses members nobody asked for (a
//! misspelt name is an error, not a silent omission); and [`Miembros`] with
//! [`Valor::a_texto`], which write a model back with the same names.
//!
//! Numbers keep their text (`250`, `1500.5`: never a float), and a numeric attribute may come
//! as a JSON number or as a string holding one; a text attribute must be a JSON string, so a
//! postal code or a catalog code never loses a leading zero. `null` reads as absent.

use crate::construccion::{ErrorConstruccion, invalido};
use crate::numero::Numero;

/// A JSON value. Numbers keep their text.
#[derive(Clone, Debug, PartialEq)]
pub enum Valor {
    /// `null`.
    Nulo,
    /// `true` / `false`.
    Logico(bool),
    /// A number, as written.
    Numero(String),
    /// A string, unescaped.
    Texto(String),
    /// An array.
    Lista(Vec<Valor>),
    /// An object, members in document order.
    Objeto(Vec<(String, Valor)>),
}

/// Reads a JSON document (one value, surrounding whitespace allowed).
///
/// # Errors
/// [`ErrorConstruccion::Invalido`] with campo `json` and the byte offset of the problem.
pub fn leer(texto: &str) -> Result<Valor, ErrorConstruccion> {
    let mut lector = LectorJson { bytes: texto.as_bytes(), pos: 0, profundidad: 0 };
    lector.blancos();
    let valor = lector.valor()?;
    lector.blancos();
    if lector.pos != lector.bytes.len() {
        return Err(lector.error("hay texto después del valor JSON"));
    }
    Ok(valor)
}

/// Deepest nesting accepted (no input can exhaust the stack).
const PROFUNDIDAD_MAXIMA: usize = 64;

struct LectorJson<'t> {
    bytes: &'t [u8],
    pos: usize,
    profundidad: usize,
}

impl LectorJson<'_> {
    fn error(&self, mensaje: &str) -> ErrorConstruccion {
        invalido("json", format!("{mensaje} (posición {})", self.pos))
    }

    fn blancos(&mut self) {
        while self.bytes.get(self.pos).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn literal(&mut self, texto: &str, valor: Valor) -> Result<Valor, ErrorConstruccion> {
        if self.bytes[self.pos..].starts_with(texto.as_bytes()) {
            self.pos += texto.len();
            Ok(valor)
        } else {
            Err(self.error("valor JSON inválido"))
        }
    }

    fn valor(&mut self) -> Result<Valor, ErrorConstruccion> {
        match self.bytes.get(self.pos) {
            None => Err(self.error("el JSON termina antes de tiempo")),
            Some(b'n') => self.literal("null", Valor::Nulo),
            Some(b't') => self.literal("true", Valor::Logico(true)),
            Some(b'f') => self.literal("false", Valor::Logico(false)),
            Some(b'"') => self.cadena().map(Valor::Texto),
            Some(b'[' | b'{') => {
                self.profundidad += 1;
                if self.profundidad > PROFUNDIDAD_MAXIMA {
                    return Err(self.error("el JSON anida demasiados niveles"));
                }
                let valor = if self.bytes[self.pos] == b'[' { self.lista() } else { self.objeto() };
                self.profundidad -= 1;
                valor
            }
            Some(b'-' | b'0'..=b'9') => self.numero(),
            Some(_) => Err(self.error("valor JSON inválido")),
        }
    }

    fn numero(&mut self) -> Result<Valor, ErrorConstruccion> {
        let inicio = self.pos;
        let digitos = |l: &mut Self| {
            let desde = l.pos;
            while l.bytes.get(l.pos).is_some_and(u8::is_ascii_digit) {
                l.pos += 1;
            }
            l.pos > desde
        };
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        if !digitos(self) {
            return Err(self.error("número JSON inválido"));
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if !digitos(self) {
                return Err(self.error("número JSON inválido"));
            }
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !digitos(self) {
                return Err(self.error("número JSON inválido"));
            }
        }
        // Only ASCII was consumed.
        Ok(Valor::Numero(String::from_utf8_lossy(&self.bytes[inicio..self.pos]).into_owned()))
    }

    fn hex4(&mut self) -> Result<u32, ErrorConstruccion> {
        let texto = self.bytes.get(self.pos..self.pos + 4).ok_or_else(|| self.error("escape \\u incompleto"))?;
        let texto = std::str::from_utf8(texto).map_err(|_| self.error("escape \\u inválido"))?;
        let valor = u32::from_str_radix(texto, 16).map_err(|_| self.error("escape \\u inválido"))?;
        self.pos += 4;
        Ok(valor)
    }

    fn cadena(&mut self) -> Result<String, ErrorConstruccion> {
        self.pos += 1;
        let mut salida: Vec<u8> = Vec::new();
        loop {
            let Some(&byte) = self.bytes.get(self.pos) else {
                return Err(self.error("cadena JSON sin cerrar"));
            };
            self.pos += 1;
            match byte {
                b'"' => break,
                b'\\' => {
                    let Some(&escape) = self.bytes.get(self.pos) else {
                        return Err(self.error("cadena JSON sin cerrar"));
                    };
                    self.pos += 1;
                    let caracter = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let alto = self.hex4()?;
                            let codigo = if (0xD800..0xDC00).contains(&alto) {
                                if !self.bytes[self.pos..].starts_with(b"\\u") {
                                    return Err(self.error("sustituto UTF-16 sin pareja"));
                                }
                                self.pos += 2;
                                let bajo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&bajo) {
                                    return Err(self.error("sustituto UTF-16 sin pareja"));
                                }
                                0x10000 + ((alto - 0xD800) << 10) + (bajo - 0xDC00)
                            } else {
                                alto
                            };
                            char::from_u32(codigo).ok_or_else(|| self.error("escape \\u inválido"))?
                        }
                        _ => return Err(self.error("escape JSON inválido")),
                    };
                    let mut buffer = [0u8; 4];
                    salida.extend_from_slice(caracter.encode_utf8(&mut buffer).as_bytes());
                }
                0x00..=0x1F => return Err(self.error("carácter de control sin escapar en una cadena JSON")),
                otro => salida.push(otro),
            }
        }
        // The input is a &str and escapes push whole characters, so the bytes are UTF-8.
        String::from_utf8(salida).map_err(|_| self.error("cadena JSON no es UTF-8"))
    }

    fn lista(&mut self) -> Result<Valor, ErrorConstruccion> {
        self.pos += 1;
        let mut elementos = Vec::new();
        self.blancos();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Valor::Lista(elementos));
        }
        loop {
            self.blancos();
            elementos.push(self.valor()?);
            self.blancos();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Valor::Lista(elementos));
                }
                _ => return Err(self.error("se esperaba «,» o «]»")),
            }
        }
    }

    fn objeto(&mut self) -> Result<Valor, ErrorConstruccion> {
        self.pos += 1;
        let mut miembros: Vec<(String, Valor)> = Vec::new();
        self.blancos();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Valor::Objeto(miembros));
        }
        loop {
            self.blancos();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.error("se esperaba el nombre de un miembro"));
            }
            let nombre = self.cadena()?;
            if miembros.iter().any(|(existente, _)| *existente == nombre) {
                return Err(self.error(&format!("el miembro «{nombre}» aparece dos veces")));
            }
            self.blancos();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.error("se esperaba «:»"));
            }
            self.pos += 1;
            self.blancos();
            let valor = self.valor()?;
            miembros.push((nombre, valor));
            self.blancos();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Valor::Objeto(miembros));
                }
                _ => return Err(self.error("se esperaba «,» o «}»")),
            }
        }
    }
}

impl Valor {
    /// The value as compact JSON text (strings escaped per RFC 8259; numbers as kept).
    pub fn a_texto(&self) -> String {
        let mut salida = String::new();
        self.escribir(&mut salida);
        salida
    }

    fn escribir(&self, salida: &mut String) {
        match self {
            Valor::Nulo => salida.push_str("null"),
            Valor::Logico(valor) => salida.push_str(if *valor { "true" } else { "false" }),
            Valor::Numero(texto) => salida.push_str(texto),
            Valor::Texto(texto) => escribir_cadena(salida, texto),
            Valor::Lista(elementos) => {
                salida.push('[');
                for (indice, elemento) in elementos.iter().enumerate() {
                    if indice > 0 {
                        salida.push(',');
                    }
                    elemento.escribir(salida);
                }
                salida.push(']');
            }
            Valor::Objeto(miembros) => {
                salida.push('{');
                for (indice, (nombre, valor)) in miembros.iter().enumerate() {
                    if indice > 0 {
                        salida.push(',');
                    }
                    escribir_cadena(salida, nombre);
                    salida.push(':');
                    valor.escribir(salida);
                }
                salida.push('}');
            }
        }
    }
}

fn escribir_cadena(salida: &mut String, texto: &str) {
    salida.push('"');
    for caracter in texto.chars() {
        match caracter {
            '"' => salida.push_str("\\\""),
            '\\' => salida.push_str("\\\\"),
            '\n' => salida.push_str("\\n"),
            '\r' => salida.push_str("\\r"),
            '\t' => salida.push_str("\\t"),
            c if u32::from(c) < 0x20 => salida.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => salida.push(c),
        }
    }
    salida.push('"');
}

/// The members of a JSON object being written from a model, in order; absent values and empty
/// lists are left out.
#[derive(Default)]
pub struct Miembros(Vec<(String, Valor)>);

impl Miembros {
    /// A text attribute.
    pub fn texto(&mut self, nombre: &str, valor: Option<&str>) {
        if let Some(valor) = valor {
            self.0.push((nombre.to_owned(), Valor::Texto(valor.to_owned())));
        }
    }

    /// A decimal attribute: a string that keeps the number's text.
    pub fn decimal(&mut self, nombre: &str, valor: Option<&Numero>) {
        self.texto(nombre, valor.map(Numero::texto));
    }

    /// A whole-number attribute (`xs:int`): a JSON number when its text is one, else a string.
    pub fn entero(&mut self, nombre: &str, valor: Option<&Numero>) {
        if let Some(valor) = valor {
            let texto = valor.texto();
            let digitos = texto.strip_prefix('-').unwrap_or(texto);
            let numero = !digitos.is_empty() && digitos.bytes().all(|b| b.is_ascii_digit());
            let valor = if numero { Valor::Numero(texto.to_owned()) } else { Valor::Texto(texto.to_owned()) };
            self.0.push((nombre.to_owned(), valor));
        }
    }

    /// A child object.
    pub fn objeto(&mut self, nombre: &str, valor: Option<Valor>) {
        if let Some(valor) = valor {
            self.0.push((nombre.to_owned(), valor));
        }
    }

    /// A list of child objects (left out when empty).
    pub fn lista(&mut self, nombre: &str, elementos: impl Iterator<Item = Valor>) {
        let elementos: Vec<Valor> = elementos.collect();
        if !elementos.is_empty() {
            self.0.push((nombre.to_owned(), Valor::Lista(elementos)));
        }
    }

    /// The object.
    pub fn valor(self) -> Valor {
        Valor::Objeto(self.0)
    }
}

/// The JSON name of a SAT name: camelCase with a leading acronym lower-cased (`IdCCP` →
/// `idCCP`, `RFCFigura` → `rfcFigura`, `IDUbicacion` → `idUbicacion`, `PermSCT` →
/// `permSCT`, `TotalUSD` → `totalUSD`).
pub fn nombre_json(nombre_sat: &str) -> String {
    let mayusculas = nombre_sat.chars().take_while(char::is_ascii_uppercase).count();
    let total = nombre_sat.chars().count();
    let bajar = match mayusculas {
        n if n == total => n,
        0 | 1 => 1,
        n => n - 1,
    };
    nombre_sat
        .chars()
        .enumerate()
        .map(|(indice, caracter)| if indice < bajar { caracter.to_ascii_lowercase() } else { caracter })
        .collect()
}

/// The JSON path of a complement's validation field (`CartaPorte.Ubicaciones[1].Domicilio.Estado`
/// → `cartaPorte.ubicaciones[1].domicilio.estado`): the complements report SAT's names, with
/// their repeated elements indexed under the same container the JSON uses, so a problem can
/// point at the member of the body to fix.
pub fn ruta_json(campo: &str) -> String {
    campo
        .split('.')
        .map(|segmento| match segmento.split_once('[') {
            Some((nombre, indice)) => format!("{}[{indice}", nombre_json(nombre)),
            None => nombre_json(segmento),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Whether `texto` is a plain decimal (`-`? digits, `.` digits?): what a numeric attribute
/// of SAT's schemas accepts (no exponent, no `+`).
fn decimal_plano(texto: &str) -> bool {
    let sin_signo = texto.strip_prefix('-').unwrap_or(texto);
    let (entero, fraccion) = sin_signo.split_once('.').unwrap_or((sin_signo, "0"));
    !entero.is_empty()
        && !fraccion.is_empty()
        && entero.bytes().all(|b| b.is_ascii_digit())
        && fraccion.bytes().all(|b| b.is_ascii_digit())
}

/// A JSON object being read into a model: each member is taken once by name, and
/// [`Objeto::terminar`] refuses the ones left.
pub struct Objeto<'a> {
    ruta: String,
    miembros: Vec<(&'a str, &'a Valor)>,
}

impl<'a> Objeto<'a> {
    /// The object `valor` found at `ruta` (`cartaPorte`).
    ///
    /// # Errors
    /// When `valor` is not an object.
    pub fn de(valor: &'a Valor, ruta: &str) -> Result<Self, ErrorConstruccion> {
        match valor {
            Valor::Objeto(miembros) => Ok(Self {
                ruta: ruta.to_owned(),
                miembros: miembros
                    .iter()
                    .filter(|(_, valor)| !matches!(valor, Valor::Nulo))
                    .map(|(nombre, valor)| (nombre.as_str(), valor))
                    .collect(),
            }),
            _ => Err(invalido(ruta, "debe ser un objeto JSON")),
        }
    }

    fn ruta(&self, nombre: &str) -> String {
        if self.ruta.is_empty() { nombre.to_owned() } else { format!("{}.{nombre}", self.ruta) }
    }

    fn tomar(&mut self, nombre: &str) -> Option<&'a Valor> {
        let indice = self.miembros.iter().position(|(existente, _)| *existente == nombre)?;
        Some(self.miembros.remove(indice).1)
    }

    /// An optional text member.
    ///
    /// # Errors
    /// When present and not a JSON string.
    pub fn texto(&mut self, nombre: &str) -> Result<Option<String>, ErrorConstruccion> {
        match self.tomar(nombre) {
            None => Ok(None),
            Some(Valor::Texto(texto)) => Ok(Some(texto.clone())),
            Some(_) => Err(invalido(self.ruta(nombre), "debe ser una cadena de texto JSON")),
        }
    }

    /// A required text member.
    ///
    /// # Errors
    /// When absent or not a JSON string.
    pub fn texto_req(&mut self, nombre: &str) -> Result<String, ErrorConstruccion> {
        self.texto(nombre)?.ok_or_else(|| invalido(self.ruta(nombre), "es requerido"))
    }

    /// An optional numeric member: a JSON number or a string holding a plain decimal, its
    /// text kept.
    ///
    /// # Errors
    /// When present and neither.
    pub fn numero(&mut self, nombre: &str) -> Result<Option<Numero>, ErrorConstruccion> {
        let texto = match self.tomar(nombre) {
            None => return Ok(None),
            Some(Valor::Numero(texto) | Valor::Texto(texto)) => texto.trim(),
            Some(_) => return Err(invalido(self.ruta(nombre), "debe ser un número o una cadena con un número")),
        };
        if !decimal_plano(texto) {
            return Err(invalido(
                self.ruta(nombre),
                format!("«{texto}» no es un número decimal (dígitos y punto, sin exponente)"),
            ));
        }
        Ok(Some(Numero::from_texto(texto)))
    }

    /// A required numeric member.
    ///
    /// # Errors
    /// When absent or not a number.
    pub fn numero_req(&mut self, nombre: &str) -> Result<Numero, ErrorConstruccion> {
        self.numero(nombre)?.ok_or_else(|| invalido(self.ruta(nombre), "es requerido"))
    }

    /// An optional object member.
    ///
    /// # Errors
    /// When present and not an object.
    pub fn objeto(&mut self, nombre: &str) -> Result<Option<Objeto<'a>>, ErrorConstruccion> {
        let ruta = self.ruta(nombre);
        self.tomar(nombre).map(|valor| Objeto::de(valor, &ruta)).transpose()
    }

    /// A required object member.
    ///
    /// # Errors
    /// When absent or not an object.
    pub fn objeto_req(&mut self, nombre: &str) -> Result<Objeto<'a>, ErrorConstruccion> {
        self.objeto(nombre)?.ok_or_else(|| invalido(self.ruta(nombre), "es requerido"))
    }

    /// An array of objects (absent: empty).
    ///
    /// # Errors
    /// When present and not an array of objects.
    pub fn lista(&mut self, nombre: &str) -> Result<Vec<Objeto<'a>>, ErrorConstruccion> {
        let ruta = self.ruta(nombre);
        match self.tomar(nombre) {
            None => Ok(Vec::new()),
            Some(Valor::Lista(elementos)) => elementos
                .iter()
                .enumerate()
                .map(|(indice, valor)| Objeto::de(valor, &format!("{ruta}[{indice}]")))
                .collect(),
            Some(_) => Err(invalido(ruta, "debe ser un arreglo JSON de objetos")),
        }
    }

    /// Ends the reading: a member nobody asked for is an error.
    ///
    /// # Errors
    /// Naming the first unknown member.
    pub fn terminar(&mut self) -> Result<(), ErrorConstruccion> {
        match self.miembros.first() {
            None => Ok(()),
            Some((nombre, _)) => Err(invalido(self.ruta(nombre), "miembro desconocido")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lee_json_y_conserva_numeros() {
        let valor = leer(r#" {"a": [1, -2.50, 3e2], "b": "x\u00f1\"\n", "c": null, "d": true} "#).unwrap();
        let Valor::Objeto(miembros) = &valor else { panic!() };
        assert_eq!(
            miembros[0].1,
            Valor::Lista(vec![Valor::Numero("1".into()), Valor::Numero("-2.50".into()), Valor::Numero("3e2".into())])
        );
        assert_eq!(miembros[1].1, Valor::Texto("xñ\"\n".into()));
        assert_eq!(leer(r#""\ud83d\ude00""#).unwrap(), Valor::Texto("😀".into()));
    }

    #[test]
    fn nombres_y_rutas_json() {
        for (sat, json) in [
            ("IdCCP", "idCCP"),
            ("RFCFigura", "rfcFigura"),
            ("IDUbicacion", "idUbicacion"),
            ("PermSCT", "permSCT"),
            ("TranspInternac", "transpInternac"),
            ("UUIDComercioExt", "uuidComercioExt"),
            ("TotalUSD", "totalUSD"),
            ("CURP", "curp"),
            ("RemolquesCCP", "remolquesCCP"),
        ] {
            assert_eq!(nombre_json(sat), json);
        }
        assert_eq!(
            ruta_json("CartaPorte.Mercancias.Mercancia[0].CantidadTransporta[1].IDOrigen"),
            "cartaPorte.mercancias.mercancia[0].cantidadTransporta[1].idOrigen"
        );
        assert_eq!(ruta_json("ComercioExterior.TipoCambioUSD"), "comercioExterior.tipoCambioUSD");
    }

    #[test]
    fn escribe_y_relee() {
        let texto = r#"{"a":[1,"x\"\\\n\u0001ñ"],"b":{"c":null,"d":false},"e":"2.50"}"#;
        let valor = leer(texto).unwrap();
        assert_eq!(valor.a_texto(), texto);
        assert_eq!(leer(&valor.a_texto()).unwrap(), valor);
    }

    #[test]
    fn errores_localizados_nunca_panico() {
        for malo in ["", "{", "[1,]", "{\"a\" 1}", "01x", "\"\\x\"", "{\"a\":1,\"a\":2}", "\"\u{1}\"", "[", "-", "1."] {
            assert!(leer(malo).is_err(), "{malo:?}");
        }
        let profundo = "[".repeat(1000);
        assert!(leer(&profundo).is_err());
    }

    #[test]
    fn objeto_nombra_la_ruta_y_rechaza_miembros_desconocidos() {
        let valor = leer(r#"{"n": "1.5", "m": 2, "t": 5, "x": {"y": []}, "z": 1}"#).unwrap();
        let mut o = Objeto::de(&valor, "raiz").unwrap();
        assert_eq!(o.numero("n").unwrap().unwrap().texto(), "1.5");
        assert_eq!(o.numero_req("m").unwrap().texto(), "2");
        let error = o.texto("t").unwrap_err();
        assert!(error.to_string().starts_with("raiz.t:"), "{error}");
        let mut x = o.objeto_req("x").unwrap();
        assert!(x.lista("y").unwrap().is_empty());
        x.terminar().unwrap();
        assert!(o.texto_req("falta").unwrap_err().to_string().contains("raiz.falta"));
        assert!(o.terminar().unwrap_err().to_string().contains("raiz.z"));
        let valor = leer(r#"{"n": "1e3"}"#).unwrap();
        assert!(Objeto::de(&valor, "r").unwrap().numero("n").is_err());
    }
}
