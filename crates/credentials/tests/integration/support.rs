//! Helpers: locating SAT test files, running OpenSSL, pinned dates.

use std::path::{Path, PathBuf};
use std::process::Command;

use time::OffsetDateTime;
use time::macros::datetime;

/// The date every validity check is pinned to.
pub const PINNED: OffsetDateTime = datetime!(2026-11-22 00:00:00 UTC);

/// Password of every SAT test key.
pub const SAT_PASSWORD: &[u8] = b"12345678a";

/// SAT's folder when it holds the test certificates; `None` after a reported skip otherwise.
pub fn sat_dir() -> Option<PathBuf> {
    timbra_testkit::sat("certs/certs.csv")
}

/// `certs/` in SAT's folder.
pub fn certs_dir() -> Option<PathBuf> {
    sat_dir().map(|dir| dir.join("certs"))
}

/// Whether a command-line tool runs; `None` after a reported skip when not.
pub fn tool(name: &str) -> Option<()> {
    timbra_testkit::tools(&[name]).then_some(())
}

/// Runs a command, asserting success; returns stdout.
pub fn run(program: &str, args: &[&str]) -> Vec<u8> {
    let output =
        Command::new(program).args(args).output().unwrap_or_else(|error| panic!("cannot run {program}: {error}"));
    assert!(output.status.success(), "{program} {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

/// Runs a command; returns (success, stdout+stderr).
pub fn run_status(program: &str, args: &[&str]) -> (bool, String) {
    let output =
        Command::new(program).args(args).output().unwrap_or_else(|error| panic!("cannot run {program}: {error}"));
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.success(), text)
}

/// A scratch folder removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let path = std::env::temp_dir().join(format!(
            "timbra-credentials-{name}-{}-{}",
            std::process::id(),
            OffsetDateTime::now_utc().unix_timestamp_nanos()
        ));
        std::fs::create_dir_all(&path).unwrap();
        Scratch(path)
    }

    pub fn file(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }

    pub fn write(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.file(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One row of `certs.csv`.
#[derive(Debug, Clone)]
pub struct CertRow {
    pub cer: String,
    pub key: Option<String>,
    pub rfc: String,
    pub kind: String,
    pub serial: String,
    pub not_before: OffsetDateTime,
    pub not_after: OffsetDateTime,
    pub expired_at_pinned: bool,
    pub organization: String,
}

/// Splits one CSV line (RFC 4180 quotes, no embedded newlines).
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut characters = line.chars().peekable();
    while let Some(character) = characters.next() {
        match (character, quoted) {
            ('"', true) if characters.peek() == Some(&'"') => {
                field.push('"');
                characters.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (other, _) => field.push(other),
        }
    }
    fields.push(field);
    fields
}

/// The rows of `certs.csv`.
pub fn cert_rows(certs: &Path) -> Vec<CertRow> {
    let text = std::fs::read_to_string(certs.join("certs.csv")).unwrap();
    let parse_time = |text: &str| OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).unwrap();
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let fields = split_csv(line);
            CertRow {
                cer: fields[0].clone(),
                key: Some(fields[1].clone()).filter(|key| !key.is_empty()),
                rfc: fields[2].clone(),
                kind: fields[3].clone(),
                serial: fields[4].clone(),
                not_before: parse_time(&fields[5]),
                not_after: parse_time(&fields[6]),
                expired_at_pinned: fields[7] == "yes",
                organization: fields[8].clone(),
            }
        })
        .collect()
}
