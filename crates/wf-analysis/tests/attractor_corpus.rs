//! Runs every check over the Attractor corpus (`../shared/corpus/attractor`,
//! never copied into the project) and snapshots the diagnostic counts by
//! code, so the real-world effect of a check is visible in review.

use std::collections::{BTreeMap, BTreeSet};

use wf_diagnostics::{FileId, Severity};

#[path = "../../../tests/support/corpus.rs"]
mod corpus;

#[test]
fn corpus_summary() {
    let Some(dir) = corpus::shared_corpus("attractor") else {
        return;
    };
    let files = corpus::files_under(&dir, &["dot", "fabro", "gv"]);
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut clean = 0;
    let mut without_errors = 0;
    let mut attractor_hits = String::new();
    let mut errors = String::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue; // not UTF-8: the front end's concern, not the checks'
        };
        let lowered = wf_dot::parse_and_lower(&text, FileId(0));
        let mut diagnostics = lowered.diagnostics.clone();
        diagnostics
            .iter_mut()
            .for_each(wf_analysis::attractor::annotate);
        diagnostics.extend(wf_analysis::check_program(&lowered.program));
        let rel = path.strip_prefix(&dir).unwrap().display().to_string();
        if diagnostics.iter().all(|d| d.severity == Severity::Info) {
            clean += 1;
        }
        match diagnostics.iter().find(|d| d.severity == Severity::Error) {
            None => without_errors += 1,
            // Each file with errors, and why (its first error), for review.
            Some(d) => errors.push_str(&format!("{rel}: {} {}\n", d.code.code, d.message)),
        }
        let mut seen = BTreeSet::new();
        for d in &diagnostics {
            let key = format!("{} {} ({})", d.code.code, d.code.name, d.severity.as_str());
            let entry = counts.entry(key.clone()).or_default();
            entry.0 += 1;
            if seen.insert(key) {
                entry.1 += 1;
            }
            // Every finding of the typo checks and of the rules that are
            // new to Attractor is listed, for review.
            if matches!(
                d.code.code,
                "WF0515"
                    | "WF0805"
                    | "WF0806"
                    | "WF0807"
                    | "WF0808"
                    | "WF0809"
                    | "WF0810"
                    | "WF0811"
                    | "WF0812"
                    | "WF0813"
                    | "WF0814"
            ) {
                let line = text[..d.primary.location.span.start as usize]
                    .lines()
                    .count();
                attractor_hits.push_str(&format!("{rel}:{line}: {} {}\n", d.code.code, d.message));
            }
        }
    }
    let mut summary = format!(
        "files: {}\nno warning or error: {clean}\nno error: {without_errors}\n\ndiagnostics by code (count in files):\n",
        files.len()
    );
    for (code, (n, f)) in &counts {
        summary.push_str(&format!("{code}: {n} in {f}\n"));
    }
    summary.push_str("\nfiles with errors, and the first error of each:\n");
    summary.push_str(&errors);
    summary.push_str("\nfindings of the typo checks and the rules new to Attractor:\n");
    if attractor_hits.is_empty() {
        summary.push_str("none\n");
    }
    summary.push_str(&attractor_hits);
    insta::assert_snapshot!("corpus_summary", summary);
}
