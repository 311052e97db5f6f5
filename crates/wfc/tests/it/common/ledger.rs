//! Runs whose tools append to a ledger file (`$WFC_TEST_LEDGER`), for the
//! tests of effects that must happen once (`effects`, `saga`): a scratch
//! directory per test, `wfc` run with the ledger there, and expected
//! traces kept beside the fixtures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use insta_cmd::get_cargo_bin;

use super::repo_root;

/// A fresh scratch directory `AREA/NAME` for the ledger and the run's files.
pub fn scratch(area: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(area).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `wfc ARGS` from the repository root, with the ledger in `dir`
/// (`kill`: the fixtures' tools that can kill wfc do, once).
pub fn wfc(dir: &Path, kill: bool, args: &[&str]) -> Output {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(repo_root())
        .args(args)
        .env("WFC_TEST_LEDGER", dir.join("ledger"))
        .env_remove("WFC_TEST_KILL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if kill {
        cmd.env("WFC_TEST_KILL", "1");
    }
    cmd.output().unwrap()
}

/// What the tools wrote to the ledger, in order.
pub fn ledger(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("ledger")).unwrap_or_default()
}

/// `dir/name` as a string, for a command line.
pub fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_owned()
}

/// Checks `got` against the expected trace `FIXTURES/NAME.trace`;
/// `UPDATE_TRACES=1` rewrites it instead (review its diff).
pub fn expect_trace(fixtures: &str, name: &str, got: &str) {
    let file = repo_root().join(fixtures).join(format!("{name}.trace"));
    if std::env::var_os("UPDATE_TRACES").is_some() {
        std::fs::write(&file, got).unwrap();
    }
    let want = std::fs::read_to_string(&file).unwrap_or_default();
    assert_eq!(
        got,
        want,
        "{} differs from this run:\n{got}",
        file.display()
    );
}
