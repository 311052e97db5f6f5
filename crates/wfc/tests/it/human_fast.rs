//! Human reports of real diagnostics, drawn by our own renderer and by
//! ariadne, must be the same bytes: every diagnostic `wfc check` finds in
//! the Attractor corpus (when present) and in the repository's `tests/` and
//! `examples/`, with and without colour. Reports the fast path leaves to
//! ariadne are counted and printed (`--nocapture`).

use std::path::{Path, PathBuf};

use wf_render::{human_report_ariadne, human_report_fast};

use wf_test_support::corpus;

/// The repository root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Checks every source file under `dir` in one database, as `wfc check
/// DIR` does, and compares both renderings of each diagnostic. Returns how
/// many reports were drawn by the fast path, and how many in all.
fn compare_dir(dir: &Path) -> (usize, usize) {
    let files = corpus::files_under(dir, &["wf", "dot", "gv", "fabro", "json"]);
    let mut inputs = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let is_json = path.extension().is_some_and(|e| e == "json");
        if is_json && !wf_reflex::looks_like_reflex(&text) {
            continue;
        }
        let shown = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        inputs.push((path, shown, text));
    }
    let mut db = wf_analysis::Database::new(dir);
    db.set_files(inputs);
    db.load_imports(|path| match std::fs::read_to_string(path) {
        Ok(text) => Ok((path.display().to_string(), text)),
        Err(_) => Err(wf_analysis::imports::LoadFailure::NotFound),
    });
    let diagnostics = db.diagnostics();
    let sources = db.take_sources_for(&diagnostics);
    let (mut fast, mut total) = (0, 0);
    for d in &diagnostics {
        for color in [false, true] {
            total += 1;
            let Some(ours) = human_report_fast(d, &sources, color) else {
                continue;
            };
            fast += 1;
            if on_a_long_line(d, &sources) {
                // Ours shows a window of the line; ariadne the whole line.
                continue;
            }
            let whole = human_report_ariadne(d, &sources, color, false);
            assert_eq!(
                ours, whole,
                "{d:#?}\n--- ariadne\n{whole}\n--- ours\n{ours}"
            );
            let windowed = human_report_ariadne(d, &sources, color, true);
            assert_eq!(ours, windowed, "{d:#?}\n(windowed)");
        }
    }
    eprintln!(
        "{}: {fast} of {total} reports drawn by the fast path, {} by ariadne",
        dir.display(),
        total - fast
    );
    (fast, total)
}

/// Whether a label of `d` is on a line longer than the fast path shows
/// whole (`MAX_LINE_CHARS`, 200 characters), which it cuts to a window.
fn on_a_long_line(d: &wf_diagnostics::Diagnostic, sources: &wf_diagnostics::Sources) -> bool {
    std::iter::once(&d.primary).chain(&d.labels).any(|label| {
        sources.try_get(label.location.file).is_some_and(|f| {
            let at = (label.location.span.start as usize).min(f.text.len());
            let start = f.text[..at].rfind('\n').map_or(0, |i| i + 1);
            let end = f.text[at..].find('\n').map_or(f.text.len(), |i| at + i);
            f.text[start..end].chars().count() > 200
        })
    })
}

#[test]
fn repository_reports_match_ariadne() {
    let mut fast = 0;
    let mut total = 0;
    for dir in ["tests", "examples"] {
        let (f, t) = compare_dir(&repo().join(dir));
        fast += f;
        total += t;
    }
    assert!(
        total > 100,
        "only {total} reports: is the test reading the right folders?"
    );
    assert!(
        fast * 10 >= total * 8,
        "{fast} of {total} reports drawn by the fast path"
    );
}

#[test]
fn corpus_reports_match_ariadne() {
    let Some(dir) = corpus::shared_corpus("attractor") else {
        return;
    };
    let (fast, total) = compare_dir(&dir);
    assert!(total > 0);
    // Issue 5: well under a tenth of the corpus's reports fall back.
    assert!(
        fast * 10 >= total * 9,
        "{fast} of {total} reports drawn by the fast path"
    );
}
