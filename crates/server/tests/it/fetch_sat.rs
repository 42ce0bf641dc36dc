//! `scripts/fetch-sat.sh`, the documented way to get SAT's files, run against a local mirror
//! of SAT's URLs built from the SAT folder the tests use (`scripts/sat/test-fetch.sh`): the
//! folder it writes validates a sample with xmllint, gives SAT's cadena with xsltproc, and
//! equals the tests' folder file for file.

use std::path::Path;
use std::process::Command;

#[test]
fn fetch_sat_builds_the_folder_the_tests_read_from_a_mirror_of_sats_urls() {
    let Some(sat) = timbra_testkit::sat("certs/certs.csv") else { return };
    if !timbra_testkit::tools(&["python3", "curl", "unzip", "openssl", "xmllint", "xsltproc"]) {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/sat/test-fetch.sh");
    let output = Command::new("bash").arg(script).arg(&sat).output().unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
