//! WF0305: keys that guards or string interpolations read but nothing in
//! the workflow provides. O(size of the workflow) plus the suggestion
//! index's near-linear look-ups.

use rustc_hash::FxHashSet as HashSet;

use wf_diagnostics::{Applicability, Diagnostic, FileSpan, Fix, codes};
use wf_model::{Expr, Workflow};

use super::flow::written_keys;
use crate::suggest::{SuggestionIndex, is_plain_identifier};

/// Pushes the keys `expr` reads (as the guard checks resolve them: see
/// [`crate::guards::keys_read`], so a misspelled status compared with
/// `outcome` is WF0403's, not an unwritten key), with their spans and
/// whether the span is exactly the key as written, so a fix may replace it.
/// The span of an `exists(…)` key is the whole call: no fix there.
fn guard_keys<'a>(expr: &'a Expr, out: &mut Vec<(&'a str, FileSpan, bool)>) {
    crate::guards::keys_read(expr, &mut |key, span| {
        // A bare key or a backtick key is at most two bytes longer than
        // the key; `exists(key)` is longer.
        let replaceable = span.span.len() as usize <= key.len() + 2;
        out.push((key, span, replaceable));
    });
}

/// How to write `key` as a guard operand: bare when it is an identifier
/// path, otherwise in backticks.
fn guard_key_text(key: &str) -> String {
    if key.split('.').all(is_plain_identifier) {
        key.to_string()
    } else {
        format!("`{key}`")
    }
}

/// WF0305 for one workflow. Silent for an incomplete workflow: a `writes`
/// line lost to a syntax error would make every read of its keys look
/// unwritten.
pub fn unwritten_keys(workflow: &Workflow) -> Vec<Diagnostic> {
    if workflow.incomplete {
        return Vec::new();
    }
    let mut provided: Vec<&str> = workflow.needs.iter().map(|k| k.key.as_str()).collect();
    for node in &workflow.nodes {
        provided.extend(written_keys(node));
    }
    let known: HashSet<&str> = provided.iter().copied().collect();
    let mut seen = HashSet::default();
    provided.retain(|k| seen.insert(*k));
    let mut index = SuggestionIndex::new(provided.iter().copied());
    let mut out = Vec::new();

    // (key, span of the key as written, whether a fix may rewrite the span)
    let mut guard_reads = Vec::new();
    for edge in &workflow.edges {
        if let Some(guard) = &edge.guard {
            guard_keys(&guard.expr, &mut guard_reads);
        }
    }
    // A chain `a -> b -> c when …` copies its guard to each edge: report
    // each written key once.
    let mut reported = HashSet::default();
    for (key, span, replaceable) in guard_reads {
        if known.contains(key) || !reported.insert(span) {
            continue;
        }
        // `exists(k)` probes for a key that may come from a caller's frame
        // or not at all: that it may be missing is the point, so only a
        // near miss of a known key (a probable typo) is worth a warning.
        let suggestion = index.suggest(key);
        if !replaceable && suggestion.is_none() {
            continue;
        }
        let diagnostic = Diagnostic::new(
            &codes::UNWRITTEN_KEY,
            format!(
                "a guard reads `{key}`, which nothing in workflow `{}` writes",
                workflow.name
            ),
            span,
        )
        .with_primary_label("never written, so the guard always sees it missing");
        out.push(finish(diagnostic, suggestion, |s| {
            replaceable.then(|| (span, guard_key_text(s)))
        }));
    }
    let interpolations = workflow
        .interpolated_reads
        .iter()
        .chain(workflow.nodes.iter().flat_map(|n| &n.interpolated_reads));
    for read in interpolations {
        if known.contains(read.key.as_str()) {
            continue;
        }
        let key = &read.key;
        let diagnostic = Diagnostic::new(
            &codes::UNWRITTEN_KEY,
            format!(
                "`${key}` interpolates `{key}`, which nothing in workflow `{}` writes",
                workflow.name
            ),
            read.span,
        )
        .with_primary_label("never written, so nothing can be substituted");
        out.push(finish(diagnostic, index.suggest(key), |s| {
            // Only identifier paths can be interpolated.
            s.split('.')
                .all(is_plain_identifier)
                .then(|| (read.span, s.to_string()))
        }));
    }
    out
}

/// Adds the did-you-mean help and fix, or the generic help.
fn finish(
    diagnostic: Diagnostic,
    suggestion: Option<&str>,
    edit: impl Fn(&str) -> Option<(FileSpan, String)>,
) -> Diagnostic {
    match suggestion {
        Some(better) => {
            let diagnostic = diagnostic.with_help(format!("did you mean `{better}`?"));
            match edit(better) {
                Some((location, replacement)) => diagnostic.with_fix(Fix::replace(
                    format!("use `{better}`"),
                    location,
                    replacement,
                    Applicability::MaybeIncorrect,
                )),
                None => diagnostic,
            }
        }
        None => diagnostic.with_help(
            "write the key in a node (`writes`) or a return map, or declare it in the workflow's `needs`",
        ),
    }
}
