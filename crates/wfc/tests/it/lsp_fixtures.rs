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

/// The diagnostics of a `wfc check --format json` report as (file, code,
/// severity, range): the range 1-based `line:column-line:column`, as
/// [`wf_test_support::lsp::canonical`] writes the server's (the fixture is ASCII, so
/// columns in characters and in UTF-16 units agree).
fn check_report_diagnostics(report: &serde_json::Value) -> Vec<(String, String, String, String)> {
    let mut out: Vec<_> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let at = |p: &serde_json::Value| format!("{}:{}", p["line"], p["column"]);
            (
                d["file"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                format!("{}-{}", at(&d["start"]), at(&d["end"])),
            )
        })
        .collect();
    out.sort();
    out
}

/// The diagnostics the server published, in the shape of
/// [`check_report_diagnostics`], files relative to `root_uri`.
fn published_diagnostics(
    client: &wf_test_support::lsp::Client,
    root_uri: &str,
) -> Vec<(String, String, String, String)> {
    let mut out = Vec::new();
    for (uri, diagnostics) in &client.published {
        let file = uri
            .strip_prefix(&format!("{root_uri}/"))
            .unwrap_or_else(|| panic!("published outside the workspace: {uri}"));
        for d in diagnostics.as_array().unwrap() {
            let severity = match d["severity"].as_u64() {
                Some(1) => "error",
                Some(2) => "warning",
                Some(3) => "info",
                other => panic!("unexpected severity {other:?}"),
            };
            out.push((
                file.to_string(),
                d["code"].as_str().unwrap().to_string(),
                severity.to_string(),
                wf_test_support::lsp::canonical(&d["range"])
                    .as_str()
                    .unwrap()
                    .to_string(),
            ));
        }
    }
    out.sort();
    out
}

/// Runs `wfc` in `dir` and returns its JSON report.
fn wfc_json(dir: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wfc"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "wfc {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The server loads a workspace folder with `wfc check`'s loader: on the
/// mixed project of `tests/lsp/mixed_project/` (`.wf` with an import,
/// `.dot`, Reflex `.json`, `wf.toml` lint levels; and, loaded by neither,
/// a git-ignored file and folder, a hidden folder, a `.gv` diagram, a
/// package manifest, an IR file written by `wfc build` and a broken one)
/// both read the same files and report the same diagnostics (files, codes,
/// severities, ranges). An IR file opened in the editor is verified as
/// `wfc check FILE` verifies it.
#[test]
fn server_loads_what_check_reads() {
    let fixture = repo_root().join("tests/lsp/mixed_project");
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().canonicalize().unwrap();
    drop(script::Session::new(&fixture, &root));
    // `.gitignore` applies inside a git repository, as git reads it.
    std::fs::create_dir(root.join(".git")).unwrap();
    let built = std::process::Command::new(env!("CARGO_BIN_EXE_wfc"))
        .args(["build", "lib/review.wf", "-o", "review.ir.json"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");

    let report = wfc_json(&root, &["check", "--format", "json"]);
    let checked = check_report_diagnostics(&report);
    let files: std::collections::BTreeSet<&str> = checked.iter().map(|d| d.0.as_str()).collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        ["greet.json", "main.wf", "pipeline.dot"],
        "{checked:?}"
    );
    // Those three and `lib/review.wf`, which is clean.
    assert_eq!(report["summary"]["files"], 4);
    assert!(
        checked
            .iter()
            .any(|d| d.0 == "main.wf" && d.1 == "WF0205" && d.2 == "error"),
        "wf.toml denies unreachable nodes: {checked:?}"
    );

    let root_uri = format!("file://{}", root.display());
    let mut client =
        wf_test_support::lsp::Client::spawn(std::path::Path::new(env!("CARGO_BIN_EXE_wfc")), &root);
    client.request(
        "initialize",
        serde_json::json!({"processId": null, "capabilities": {},
            "workspaceFolders": [{"uri": root_uri, "name": "mixed"}],
            "initializationOptions": {"debounceMs": 0}}),
    );
    client.notify("initialized", serde_json::json!({}));
    client.settle();
    assert_eq!(published_diagnostics(&client, &root_uri), checked);

    // Which files the server holds: a document of the workspace has
    // symbols (possibly none), any other file has none at all.
    let mut holds = |file: &str| {
        let reply = client.request(
            "textDocument/documentSymbol",
            serde_json::json!({"textDocument": {"uri": format!("{root_uri}/{file}")}}),
        );
        !reply["result"].is_null()
    };
    for file in ["main.wf", "lib/review.wf", "pipeline.dot", "greet.json"] {
        assert!(holds(file), "the server does not hold {file}");
    }
    for file in [
        "ignored.wf",
        "scratch/draft.wf",
        ".hidden/secret.wf",
        "diagram.gv",
        "package.json",
        "review.ir.json",
        "old.ir.json",
    ] {
        assert!(!holds(file), "the server holds {file}");
    }

    // An IR file opened in the editor: WF0011 where `wfc check` puts it.
    let report = wfc_json(&root, &["check", "--format", "json", "old.ir.json"]);
    let checked = check_report_diagnostics(&report);
    assert_eq!(checked.len(), 1, "{checked:?}");
    assert_eq!(checked[0].1, "WF0011");
    let text = std::fs::read_to_string(root.join("old.ir.json")).unwrap();
    client.notify(
        "textDocument/didOpen",
        serde_json::json!({"textDocument": {"uri": format!("{root_uri}/old.ir.json"),
            "languageId": "json", "version": 1, "text": text}}),
    );
    client.settle();
    let published: Vec<_> = published_diagnostics(&client, &root_uri)
        .into_iter()
        .filter(|d| d.0 == "old.ir.json")
        .collect();
    assert_eq!(published, checked);
    client.shutdown();

    // Named on the command line, ignored and hidden files are read.
    let report = wfc_json(
        &root,
        &[
            "check",
            "--format",
            "json",
            "ignored.wf",
            ".hidden/secret.wf",
        ],
    );
    assert_eq!(report["summary"]["files"], 2);
}
