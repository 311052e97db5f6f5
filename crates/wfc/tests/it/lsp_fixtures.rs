//! Fixture sessions over the real `wfc lsp` binary: every directory under
//! `tests/lsp/` holds source files (cursors marked `$0`…`$9`) and a
//! `session.lsp` script of requests; the session is replayed over stdio
//! and its transcript (each command and the server's reply) is
//! snapshotted in `tests/lsp/snapshots/`. The format is described in
//! `docs/testing.md` ("Language server fixtures").
//!
//! `WFC_LSP_FIXTURE=name` runs one session only.

mod render;
mod script;

use crate::common;

use common::repo_root;

/// Reads a script: `#` comments and blank lines skipped, indented lines
/// continue the command above (for long JSON parameters).
fn commands(script: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in script.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if line.starts_with(char::is_whitespace)
            && let Some(last) = out.last_mut()
        {
            last.push(' ');
            last.push_str(trimmed);
        } else {
            out.push(trimmed.to_string());
        }
    }
    out
}

#[test]
fn lsp_fixture_sessions() {
    let fixtures = repo_root().join("tests/lsp");
    let only = std::env::var("WFC_LSP_FIXTURE").ok();
    let mut dirs: Vec<_> = std::fs::read_dir(&fixtures)
        .expect("tests/lsp")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("session.lsp").is_file())
        .filter(|p| {
            only.as_ref()
                .is_none_or(|o| p.file_name().is_some_and(|n| n == o.as_str()))
        })
        .collect();
    dirs.sort();
    assert!(
        !dirs.is_empty(),
        "no fixture sessions under {}",
        fixtures.display()
    );
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(fixtures.join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let script = std::fs::read_to_string(dir.join("session.lsp")).unwrap();
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().canonicalize().unwrap();
        let mut session = script::Session::new(&dir, &root);
        for command in commands(&script) {
            session.run(&command);
        }
        let transcript = session.finish();
        settings.set_input_file(dir.join("session.lsp"));
        settings.bind(|| insta::assert_snapshot!(name, transcript));
    }
}
