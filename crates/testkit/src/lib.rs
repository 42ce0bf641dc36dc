//! Dev-only helpers shared by the tests: where SAT's files are, whether a tool is installed,
//! and [`skip`], which never lets a missing prerequisite pass silently.
//!
//! A skip panics when the matching `TIMBRA_REQUIRE_*` variable asks for the prerequisite;
//! otherwise it prints a loud line on stderr and appends one line to the file named by
//! `TIMBRA_SKIP_LOG`, which `./test.sh` sums up after `cargo test`, in the last lines a person
//! reads (the test runner hides the stderr of passing tests).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why a check did not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// SAT's schemas, stylesheets, certificates or the samples beside them.
    SatFiles,
    /// A command-line tool (`xmllint`, `zbarimg`, `caddy`, …).
    Tool,
    /// PostgreSQL: the check ran on SQLite only.
    Database,
    /// Chromium and chromedriver for the dashboard's browser test.
    Browser,
    /// The project's own documents beside the clone (`../shared/spec/SPEC.md`).
    Shared,
}

impl Reason {
    /// The word written to the skip log (`./test.sh` groups by it).
    pub fn code(self) -> &'static str {
        match self {
            Reason::SatFiles => "sat",
            Reason::Tool => "tool",
            Reason::Database => "database",
            Reason::Browser => "browser",
            Reason::Shared => "shared",
        }
    }

    /// Whether the environment asks for this prerequisite, so a missing one fails the test.
    fn required(self) -> bool {
        let on = |name: &str| std::env::var(name).is_ok_and(|value| value == "1");
        match self {
            Reason::SatFiles | Reason::Shared => on("TIMBRA_REQUIRE_SAT"),
            // CI installs every tool; TIMBRA_REQUIRE_SAT has always covered the oracle's tools.
            Reason::Tool => on("TIMBRA_REQUIRE_SAT") || on("TIMBRA_REQUIRE_TOOLS") || std::env::var_os("CI").is_some(),
            Reason::Database => on("TIMBRA_REQUIRE_POSTGRES") || std::env::var_os("CI").is_some(),
            Reason::Browser => on("TIMBRA_REQUIRE_BROWSER"),
        }
    }

    /// How to get `what`, as the summary prints it.
    fn fix(self, what: &str) -> String {
        match self {
            Reason::SatFiles => "run scripts/fetch-sat.sh ../shared/sat or set TIMBRA_SAT_DIR".to_owned(),
            Reason::Tool => format!("apt-get install {}", package(what)),
            Reason::Database => {
                "set TIMBRA_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test)".to_owned()
            }
            Reason::Browser => "apt-get install chromium chromium-driver".to_owned(),
            Reason::Shared => "put the project's shared/ folder beside the clone".to_owned(),
        }
    }

    /// The summary's heading for `what`, e.g. "need zbarimg".
    fn label(self, what: &str) -> String {
        match self {
            Reason::SatFiles => "need SAT's files".to_owned(),
            Reason::Tool => format!("need {what}"),
            Reason::Database => "ran without PostgreSQL (on SQLite only, or not at all)".to_owned(),
            Reason::Browser => "need chromium and chromedriver".to_owned(),
            Reason::Shared => format!("need {what}"),
        }
    }
}

/// The Debian package that installs a tool.
fn package(tool: &str) -> &str {
    match tool {
        "xmllint" => "libxml2-utils",
        "pdftotext" | "pdftoppm" | "pdfinfo" | "pdfimages" => "poppler-utils",
        "zbarimg" => "zbar-tools",
        "chromedriver" => "chromium-driver",
        initdb if initdb.starts_with("initdb") => "postgresql-15",
        other => other,
    }
}

/// Records that the running test skipped `what` (all of it or part of its checks) for `reason`.
///
/// Panics instead when the environment requires it (`TIMBRA_REQUIRE_SAT=1` for SAT's files and
/// tools, `TIMBRA_REQUIRE_BROWSER=1`, `TIMBRA_REQUIRE_POSTGRES=1`; `CI` for tools and the
/// database).
pub fn skip(reason: Reason, what: &str) {
    let fix = reason.fix(what);
    let test = test_name();
    assert!(!reason.required(), "{test} needs {what}, which is required here: {fix}");
    eprintln!("\n!!!!! SKIPPED ({}): {test} lacks {what}; {fix} !!!!!\n", reason.code());
    let Some(log) = std::env::var_os("TIMBRA_SKIP_LOG").filter(|log| !log.is_empty()) else { return };
    // One line per skip: reason, summary heading, fix, test, what. Tabs never occur in them.
    let clean = |text: &str| text.replace(['\t', '\n'], " ");
    let line = format!(
        "{}\t{}\t{}\t{}\t{}\n",
        reason.code(),
        clean(&reason.label(what)),
        clean(&fix),
        clean(&test),
        clean(what)
    );
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut file| file.write_all(line.as_bytes()));
    if let Err(error) = written {
        eprintln!("cannot append to TIMBRA_SKIP_LOG {}: {error}", Path::new(&log).display());
    }
}

/// `crate::module::test`, from the test thread's name and the package cargo runs.
fn test_name() -> String {
    let thread = std::thread::current().name().unwrap_or("unnamed thread").to_owned();
    match std::env::var("CARGO_PKG_NAME") {
        Ok(package) => format!("{package}: {thread}"),
        Err(_) => thread,
    }
}

/// The folder of SAT's files: `$TIMBRA_SAT_DIR`, else `<workspace>/../shared/sat` (a clone with
/// `shared/` beside it). `TIMBRA_SAT_DIR=none` means "no SAT files", to see the skips.
/// `None` when the folder does not exist; nothing is reported (see [`sat`]).
pub fn sat_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TIMBRA_SAT_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) if dir == "none" => return None,
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/sat"),
    };
    dir.is_dir().then_some(dir)
}

/// SAT's folder when it holds `needs` (a path inside it, e.g. `certs/certs.csv`); otherwise a
/// [`skip`] for SAT's files and `None`.
pub fn sat(needs: &str) -> Option<PathBuf> {
    match sat_dir() {
        Some(dir) if dir.join(needs).exists() => Some(dir),
        Some(dir) => {
            skip(Reason::SatFiles, &format!("{} in {}", needs, dir.display()));
            None
        }
        None => {
            skip(Reason::SatFiles, &format!("SAT's files ({needs}; TIMBRA_SAT_DIR unset or none, no ../shared/sat)"));
            None
        }
    }
}

/// `TIMBRA_TEST_POSTGRES_URL` when set; `None` after a reported skip otherwise (the caller
/// runs on SQLite only, or not at all).
pub fn postgres_url() -> Option<String> {
    match std::env::var("TIMBRA_TEST_POSTGRES_URL").map(|url| url.trim().to_owned()) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            skip(Reason::Database, "PostgreSQL (TIMBRA_TEST_POSTGRES_URL)");
            None
        }
    }
}

/// Whether the command-line tool `name` is installed (it can be started).
pub fn tool(name: &str) -> bool {
    // Some tools answer `--version` with a failure status; starting is what matters.
    Command::new(name)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// Whether every tool in `names` is installed; a [`skip`] for each missing one otherwise.
pub fn tools(names: &[&str]) -> bool {
    let mut all = true;
    for name in names {
        if !tool(name) {
            skip(Reason::Tool, name);
            all = false;
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_map_to_their_packages() {
        assert_eq!(Reason::Tool.fix("zbarimg"), "apt-get install zbar-tools");
        assert_eq!(Reason::Tool.fix("pdftotext"), "apt-get install poppler-utils");
        assert_eq!(Reason::Tool.label("caddy"), "need caddy");
    }

    #[test]
    fn a_missing_tool_is_told_apart_from_an_installed_one() {
        assert!(tool("cargo"));
        assert!(!tool("timbra-no-such-tool"));
    }
}
