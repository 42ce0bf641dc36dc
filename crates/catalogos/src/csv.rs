//! The CSV layout of SAT's catalog files as published here: UTF-8, comma separated, RFC 4180
//! quoting (a quoted field may hold commas, doubled quotes and line breaks), first row the
//! header, `\n` or `\r\n` line ends.

/// The records of `texto`, each with the line it starts on (from 1); blank lines are skipped.
pub(crate) fn registros(texto: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
    let texto = texto.strip_prefix('\u{feff}').unwrap_or(texto);
    let mut registros = Vec::new();
    let mut campos = Vec::new();
    let mut campo = String::new();
    let mut linea = 1;
    let mut inicio = 1;
    let mut entre_comillas = false;
    // A field that was quoted: what follows its closing quote must be a separator.
    let mut cerrado = false;
    let mut caracteres = texto.chars().peekable();
    while let Some(c) = caracteres.next() {
        if entre_comillas {
            match c {
                '"' if caracteres.peek() == Some(&'"') => {
                    caracteres.next();
                    campo.push('"');
                }
                '"' => {
                    entre_comillas = false;
                    cerrado = true;
                }
                '\n' => {
                    linea += 1;
                    campo.push(c);
                }
                _ => campo.push(c),
            }
            continue;
        }
        match c {
            ',' => {
                campos.push(std::mem::take(&mut campo));
                cerrado = false;
            }
            '\r' if caracteres.peek() == Some(&'\n') => {}
            '\n' => {
                campos.push(std::mem::take(&mut campo));
                if !(campos.len() == 1 && campos[0].is_empty()) {
                    registros.push((inicio, std::mem::take(&mut campos)));
                }
                campos.clear();
                cerrado = false;
                linea += 1;
                inicio = linea;
            }
            '"' if campo.is_empty() && !cerrado => entre_comillas = true,
            _ if cerrado => return Err(format!("line {linea}: text after a closing quote")),
            '"' => return Err(format!("line {linea}: a quote inside an unquoted field")),
            _ => campo.push(c),
        }
    }
    if entre_comillas {
        return Err(format!("line {inicio}: a quoted field is not closed"));
    }
    if !campo.is_empty() || !campos.is_empty() || cerrado {
        campos.push(campo);
        registros.push((inicio, campos));
    }
    Ok(registros)
}

#[cfg(test)]
mod tests {
    use super::registros;

    fn campos(texto: &str) -> Vec<Vec<String>> {
        registros(texto).unwrap().into_iter().map(|(_, campos)| campos).collect()
    }

    #[test]
    fn reads_quoted_fields_and_both_line_ends() {
        let texto =
            "id,texto\r\n01,\"Sueldos, Salarios  Rayas\"\n02,\"dice \"\"hola\"\"\"\n03,\"dos\nlíneas\"\n\n04,\n";
        assert_eq!(
            campos(texto),
            vec![
                vec!["id", "texto"],
                vec!["01", "Sueldos, Salarios  Rayas"],
                vec!["02", "dice \"hola\""],
                vec!["03", "dos\nlíneas"],
                vec!["04", ""],
            ]
        );
        let lineas: Vec<usize> = registros(texto).unwrap().into_iter().map(|(linea, _)| linea).collect();
        assert_eq!(lineas, [1, 2, 3, 4, 7]);
        assert_eq!(campos("\u{feff}a,b\n1,2"), vec![vec!["a", "b"], vec!["1", "2"]]);
    }

    #[test]
    fn refuses_broken_quoting() {
        assert!(registros("a\n\"abierto\n").unwrap_err().contains("line 2"));
        assert!(registros("a\n\"x\"y\n").is_err());
        assert!(registros("a\nx\"y\n").is_err());
    }
}
