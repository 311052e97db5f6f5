//! Parses and lowers every pipeline of the shared Attractor corpus
//! (`../shared/corpus/attractor/`, next to the repository; never copied into
//! it) and snapshots, per file, the count of diagnostics by code, so any
//! change in behaviour shows up in review.
//!
//! Without the corpus the test prints that it was skipped, unless
//! `WFC_REQUIRE_CORPUS` is set (CI sets it), in which case it fails.
//! `WFC_CORPUS` points at another copy of the corpus folder.

use std::collections::BTreeMap;
use std::fmt::Write;

use wf_test_support::corpus;

use wf_diagnostics::{FileId, Severity};

#[test]
fn corpus_parses_and_lowers() {
    let Some(dir) = corpus::shared_corpus("attractor") else {
        return;
    };
    let files = corpus::files_under(&dir, &["dot", "fabro", "gv"]);
    assert!(
        files.len() >= 276,
        "expected the 276 corpus files, found {}",
        files.len()
    );
    let mut summary = String::new();
    let mut clean = 0;
    let mut without_errors = 0;
    let mut workflows = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let lowered = wf_dot::parse_and_lower(&text, FileId(0));
        workflows += lowered.program.workflows.len();
        for d in &lowered.diagnostics {
            let span = d.primary.location.span;
            assert!(
                span.start <= span.end && span.end as usize <= text.len(),
                "{}: span out of range for {}",
                path.display(),
                d.code.code
            );
        }
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for d in &lowered.diagnostics {
            *counts.entry(d.code.code).or_default() += 1;
        }
        if counts.is_empty() {
            clean += 1;
        }
        if !lowered
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
        {
            without_errors += 1;
        }
        if !counts.is_empty() {
            let name = path.strip_prefix(&dir).unwrap().display().to_string();
            let list: Vec<String> = counts.iter().map(|(c, n)| format!("{c}×{n}")).collect();
            writeln!(summary, "{name}: {}", list.join(" ")).unwrap();
        }
    }
    let header = format!(
        "{} files, {} lowered to a workflow, {} without any diagnostic, {} without errors\n\n",
        files.len(),
        workflows,
        clean,
        without_errors
    );
    insta::assert_snapshot!("corpus_summary", format!("{header}{summary}"));
}
