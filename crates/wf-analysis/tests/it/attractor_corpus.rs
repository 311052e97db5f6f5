//! Runs every check over the Attractor corpus (`../shared/corpus/attractor`,
//! never copied into the project) and snapshots the diagnostic counts by
//! code, so the real-world effect of a check is visible in review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use wf_analysis::imports::LoadFailure;

use wf_diagnostics::Severity;

use wf_test_support::corpus;

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
        let rel = path.strip_prefix(&dir).unwrap().display().to_string();
        let (_, diagnostics) = diagnose(&dir, path, &text);
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

/// Every diagnostic of a pipeline's text, as `corpus_summary` computes them:
/// `wfc check`'s, through the database, with the corpus folder as the
/// project root and the child pipelines the file names loaded from disk
/// (`text` stands at `path`, which may hold another text). Only the file's
/// own diagnostics: its children are corpus files checked on their own.
fn diagnose(
    root: &Path,
    path: &Path,
    text: &str,
) -> (wf_model::Program, Vec<wf_diagnostics::Diagnostic>) {
    let mut db = wf_analysis::Database::new(root);
    db.set_one_shot();
    let shown = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let id = db.set_file(path, shown, text);
    db.load_imports(|child| {
        let text = std::fs::read_to_string(child).map_err(|_| LoadFailure::NotFound)?;
        Ok((child.display().to_string(), text))
    });
    let diagnostics = db
        .diagnostics()
        .into_iter()
        .filter(|d| d.primary.location.file == id)
        .collect();
    (db.program(), diagnostics)
}

/// `text` with `range` replaced by `by`.
fn edit(text: &str, range: std::ops::Range<usize>, by: &str) -> String {
    let mut out = text.to_string();
    out.replace_range(range, by);
    out
}

/// The first `outcome` read by a condition, and where.
fn first_outcome(expr: &wf_model::Expr) -> Option<wf_diagnostics::Span> {
    use wf_model::Expr;
    match expr {
        Expr::Name(n, at) if n == "outcome" => Some(at.span),
        Expr::Binary(l, _, r, _) => first_outcome(l).or_else(|| first_outcome(r)),
        Expr::Not(e, _) => first_outcome(e),
        _ => None,
    }
}

/// The bug classes issue 18 found missed, seeded one at a time into every
/// corpus pipeline they apply to (in memory), each of which must then be
/// detected by its code, at the place of the mutation:
///
/// - a start node found by id that lost its `Mdiamond` shape (`box`): WF0807;
/// - a misspelt `outcome` key in a condition (`outcoe`): WF0808;
/// - an unterminated quote in a condition value: WF0606;
/// - the operator `=>` in a condition: WF0606.
#[test]
fn seeded_bugs_are_detected() {
    let Some(dir) = corpus::shared_corpus("attractor") else {
        return;
    };
    // Per class: (seeded, detected, the files where it was missed).
    let mut tally: BTreeMap<&str, (usize, usize, Vec<String>)> = BTreeMap::new();
    let mut record = |class, mutated: Option<(String, usize)>, code: &str, rel: &str| {
        let Some((text, at)) = mutated else { return };
        let (_, found) = diagnose(&dir, &dir.join(rel), &text);
        let hit = found.iter().any(|d| {
            let span = d.primary.location.span;
            d.code.code == code && (span.start as usize..=span.end as usize).contains(&at)
        });
        let entry: &mut (usize, usize, Vec<String>) = tally.entry(class).or_default();
        entry.0 += 1;
        if hit {
            entry.1 += 1;
        } else {
            entry.2.push(rel.to_string());
        }
    };
    for path in corpus::files_under(&dir, &["dot", "fabro", "gv"]) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let rel = path.strip_prefix(&dir).unwrap().display().to_string();
        let (program, found) = diagnose(&dir, &path, &text);
        if found.iter().any(|d| d.severity == Severity::Error) {
            continue; // seeded bugs are measured on valid pipelines only
        }
        let Some(workflow) = program.workflows.first() else {
            continue;
        };
        // A start found by its id that loses its shape.
        let start = workflow
            .nodes
            .iter()
            .find(|n| matches!(n.name.as_str(), "start" | "Start"));
        let shape = start.and_then(|n| {
            n.attributes.iter().find(|a| {
                a.key == "shape"
                    && matches!(&a.value, wf_model::Value::String(v) if v == "Mdiamond")
                    && n.span.span.start <= a.value_span.span.start
                    && a.value_span.span.end <= n.span.span.end
            })
        });
        let lost_shape = shape.map(|a| {
            let s = a.value_span.span;
            let name = start.unwrap().name_span.span.start as usize;
            (edit(&text, s.start as usize..s.end as usize, "box"), name)
        });
        record("start lost its shape", lost_shape, "WF0807", &rel);
        let guards: Vec<_> = workflow
            .edges
            .iter()
            .filter_map(|e| e.guard.as_ref())
            .collect();
        // A misspelt `outcome` key.
        let outcome = guards.iter().find_map(|g| first_outcome(&g.expr));
        let typo = outcome.map(|s| {
            let (start, end) = (s.start as usize, s.end as usize);
            (edit(&text, start..end, "outcoe"), start)
        });
        record("misspelt outcome key", typo, "WF0808", &rel);
        // An unterminated quote: `\"` (a quote in the condition, escaped
        // in the DOT string) before the value of the first `=` clause.
        let quoted = guards.iter().find_map(|g| {
            // The condition's text, inside the DOT string's quotes.
            let s = g.span.span;
            let (mut start, mut end) = (s.start as usize, s.end as usize);
            if text[start..end].starts_with('"')
                && text[start..end].ends_with('"')
                && end > start + 1
            {
                (start, end) = (start + 1, end - 1);
            }
            let body = &text[start..end];
            let eq = body.find('=').filter(|&i| !body[..i].ends_with('!'))?;
            let at = start + eq + 1;
            (text[..start].ends_with('"') && !body.contains('"') && !body.contains('\\'))
                .then(|| (edit(&text, at..at, "\\\""), at))
        });
        record("unterminated quote", quoted, "WF0606", &rel);
        // `=>` for `=`.
        let arrow = guards.iter().find_map(|g| {
            let s = g.span.span;
            let body = &text[s.start as usize..s.end as usize];
            let eq = body
                .char_indices()
                .find(|&(i, c)| {
                    c == '='
                        && !body[..i].ends_with(['!', '=', '<', '>'])
                        && !body[i + 1..].starts_with('=')
                })?
                .0;
            let at = s.start as usize + eq;
            Some((edit(&text, at..at + 1, "=>"), at))
        });
        record("operator =>", arrow, "WF0606", &rel);
    }
    let report: Vec<String> = tally
        .iter()
        .map(|(class, (seeded, detected, missed))| {
            format!("{class}: {detected} of {seeded} detected; missed in {missed:?}")
        })
        .collect();
    eprintln!("{}", report.join("\n"));
    assert_eq!(tally.len(), 4, "a class was never seeded: {report:#?}");
    for (class, (seeded, detected, _)) in &tally {
        assert!(*seeded >= 10, "{class}: only {seeded} pipelines to seed");
        assert_eq!(detected, seeded, "{report:#?}");
    }
}
