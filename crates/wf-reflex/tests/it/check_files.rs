//! The Reflex test files under `tests/check/reflex/`.
//!
//! JSON has no comments, so each `NAME.json` has its expectations beside it
//! in `NAME.expect`: one line per diagnostic, `LINE:COLUMN
//! severity[CODE]: message` (the primary span's start; the message may be
//! cut short, it must start the actual one). Every diagnostic must be
//! expected and every expectation met (an empty `.expect` means the file
//! checks clean). The rendered human output, with the source, is also
//! snapshotted in `tests/check/reflex/snapshots/`.

use std::path::{Path, PathBuf};

use wf_diagnostics::Sources;
use wf_render::{self as render, Format, RenderOptions};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn run_case(root: &Path, path: &Path) -> Result<String, String> {
    let shown = path.strip_prefix(root).unwrap().display().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let expect_path = path.with_extension("expect");
    let expected = std::fs::read_to_string(&expect_path)
        .map_err(|e| format!("{}: {e}", expect_path.display()))?;
    let mut sources = Sources::new();
    let id = sources.add(shown.clone(), text);
    let diagnostics = wf_analysis::check_sources(&sources);
    let mut actual: Vec<String> = diagnostics
        .iter()
        .map(|d| {
            assert_eq!(
                d.primary.location.file, id,
                "{shown}: a diagnostic in another file"
            );
            let at = sources.get(id).line_col(d.primary.location.span.start);
            format!(
                "{}:{} {}[{}]: {}",
                at.line,
                at.column,
                d.severity.as_str(),
                d.code.code,
                d.message
            )
        })
        .collect();
    let mut missing = Vec::new();
    for line in expected.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match actual.iter().position(|a| a.starts_with(line)) {
            Some(i) => {
                actual.remove(i);
            }
            None => missing.push(line.to_string()),
        }
    }
    let rendered = render::render(
        &diagnostics,
        &sources,
        Format::Human,
        &RenderOptions { color: false },
    );
    if !missing.is_empty() || !actual.is_empty() {
        return Err(format!(
            "{shown}: diagnostics differ from {}\n  missing:    {missing:?}\n  unexpected: {actual:?}\nrendered:\n{rendered}",
            expect_path.display()
        ));
    }
    let file = sources.get(id);
    Ok(format!(
        "----- {} -----\n{}----- diagnostics -----\n{rendered}",
        file.path, file.text
    ))
}

#[test]
fn reflex_check_files() {
    let root = repo_root();
    let dir = root.join("tests/check/reflex");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "the Reflex test files are missing");
    let mut failures = Vec::new();
    for case in &cases {
        match run_case(&root, case) {
            Ok(snapshot) => {
                let name = case.file_stem().unwrap().to_string_lossy().to_string();
                let snapshots = dir.join("snapshots");
                let result = std::panic::catch_unwind(move || {
                    let mut settings = insta::Settings::clone_current();
                    settings.set_snapshot_path(snapshots);
                    settings.set_prepend_module_to_snapshot(false);
                    settings.set_omit_expression(true);
                    settings.bind(|| insta::assert_snapshot!(name, snapshot));
                });
                if result.is_err() {
                    failures.push(format!("{}: snapshot differs", case.display()));
                }
            }
            Err(failure) => failures.push(failure),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
