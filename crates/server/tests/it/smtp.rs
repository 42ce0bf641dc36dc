//! A small SMTP server on loopback for the e-mail tests: speaks enough of RFC 5321 (EHLO/HELO,
//! MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT) for a real client, keeps every
//! message it accepted, and can refuse messages with a 5xx.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A message as the server received it.
#[derive(Clone, Debug)]
pub struct Recibido {
    /// `MAIL FROM` address.
    pub from: String,
    /// `RCPT TO` addresses.
    pub rcpt: Vec<String>,
    /// The message (headers and body), dot-unstuffed, CRLF line ends.
    pub data: Vec<u8>,
}

impl Recibido {
    /// The message parsed.
    pub fn parsed(&self) -> mail_parser::Message<'_> {
        mail_parser::MessageParser::default().parse(&self.data).expect("a parseable message")
    }

    /// The message's attachments in order: (file name, decoded bytes).
    pub fn adjuntos(&self) -> Vec<(String, Vec<u8>)> {
        use mail_parser::MimeHeaders;
        self.parsed()
            .attachments()
            .map(|parte| (parte.attachment_name().unwrap_or_default().to_owned(), parte.contents().to_vec()))
            .collect()
    }
}

#[derive(Default)]
struct Estado {
    recibidos: Vec<Recibido>,
    /// Refuse every `MAIL FROM` with this reply (`550 ...`) while set.
    rechazo: Option<String>,
    /// `MAIL FROM` commands seen (accepted or refused).
    intentos: usize,
}

/// The server; it stops when dropped.
pub struct Smtp {
    /// `smtp://127.0.0.1:PORT` (no TLS, no credentials).
    pub url: String,
    estado: Arc<Mutex<Estado>>,
    tarea: tokio::task::JoinHandle<()>,
}

impl Drop for Smtp {
    fn drop(&mut self) {
        self.tarea.abort();
    }
}

impl Smtp {
    /// On a free port.
    pub async fn start() -> Self {
        Self::start_on(0).await
    }

    /// On `port` (0: any free one).
    pub async fn start_on(port: u16) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let estado = Arc::new(Mutex::new(Estado::default()));
        let compartido = estado.clone();
        let tarea = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let estado = compartido.clone();
                tokio::spawn(async move {
                    let _ = sesion(socket, estado).await;
                });
            }
        });
        Self { url: format!("smtp://127.0.0.1:{port}"), estado, tarea }
    }

    /// Refuse every message with `reply` (e.g. `550 5.7.1 no`).
    pub fn refuse(&self, reply: &str) {
        self.estado.lock().unwrap().rechazo = Some(reply.to_owned());
    }

    /// The messages accepted so far.
    pub fn received(&self) -> Vec<Recibido> {
        self.estado.lock().unwrap().recibidos.clone()
    }

    /// `MAIL FROM` commands seen, refused ones included.
    pub fn attempts(&self) -> usize {
        self.estado.lock().unwrap().intentos
    }
}

async fn sesion(socket: tokio::net::TcpStream, estado: Arc<Mutex<Estado>>) -> std::io::Result<()> {
    let (lectura, mut escritura) = socket.into_split();
    let mut lectura = BufReader::new(lectura);
    escritura.write_all(b"220 prueba.local ESMTP timbra-test\r\n").await?;
    let mut from = String::new();
    let mut rcpt = Vec::new();
    let mut linea = String::new();
    loop {
        linea.clear();
        if lectura.read_line(&mut linea).await? == 0 {
            return Ok(());
        }
        let comando = linea.trim_end().to_owned();
        let mayusculas = comando.to_ascii_uppercase();
        let respuesta: String = if mayusculas.starts_with("EHLO") {
            "250-prueba.local\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n".into()
        } else if mayusculas.starts_with("HELO") {
            "250 prueba.local\r\n".into()
        } else if mayusculas.starts_with("MAIL FROM:") {
            let mut estado = estado.lock().unwrap();
            estado.intentos += 1;
            match &estado.rechazo {
                Some(rechazo) => format!("{rechazo}\r\n"),
                None => {
                    from = direccion(&comando["MAIL FROM:".len()..]);
                    rcpt.clear();
                    "250 2.1.0 OK\r\n".into()
                }
            }
        } else if mayusculas.starts_with("RCPT TO:") {
            rcpt.push(direccion(&comando["RCPT TO:".len()..]));
            "250 2.1.5 OK\r\n".into()
        } else if mayusculas == "DATA" {
            escritura.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
            let mut data = Vec::new();
            loop {
                let mut renglon = Vec::new();
                if lectura.read_until(b'\n', &mut renglon).await? == 0 {
                    return Ok(());
                }
                if renglon == b".\r\n" || renglon == b".\n" {
                    break;
                }
                let sin_punto = if renglon.starts_with(b"..") { &renglon[1..] } else { &renglon[..] };
                data.extend_from_slice(sin_punto);
            }
            estado.lock().unwrap().recibidos.push(Recibido { from: from.clone(), rcpt: rcpt.clone(), data });
            "250 2.0.0 queued\r\n".into()
        } else if mayusculas == "RSET" || mayusculas == "NOOP" {
            "250 OK\r\n".into()
        } else if mayusculas == "QUIT" {
            escritura.write_all(b"221 bye\r\n").await?;
            return Ok(());
        } else {
            "502 5.5.2 not implemented\r\n".into()
        };
        escritura.write_all(respuesta.as_bytes()).await?;
    }
}

/// `<a@b>` (and any parameters after it) to `a@b`.
fn direccion(argumento: &str) -> String {
    let argumento = argumento.trim();
    let fin = argumento.find('>').map_or(argumento.len(), |i| i + 1);
    argumento[..fin].trim_matches(['<', '>']).to_owned()
}
