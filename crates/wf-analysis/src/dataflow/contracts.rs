//! WF0301 to WF0304: the diagnostics of the must-analysis.

use wf_diagnostics::{Applicability, Diagnostic, Fix, codes};
use wf_model::{NodeId, SourceFormat, Workflow};

use super::CalleeView;
use super::flow::{FlowResult, written_keys};
use super::witness;
use crate::names::is_reserved;
use crate::suggest::{SuggestionIndex, name_source_text};
use crate::text::join_truncated;

/// How many terminals one diagnostic labels at most.
const MAX_TERMINAL_LABELS: usize = 8;
/// How many writers elsewhere one diagnostic labels at most.
const MAX_WRITER_LABELS: usize = 3;

/// Adds the witness path (a note and a label on the entry) to `diagnostic`.
/// `path` is the one [`super::FlowFacts`] found for this finding.
fn with_path(
    diagnostic: Diagnostic,
    workflow: &Workflow,
    path: Option<&[NodeId]>,
    key: &str,
    target: NodeId,
    what: &str,
) -> Diagnostic {
    match path {
        Some(path) if path.len() == 1 => diagnostic.with_note(format!(
            "`{}` is the entry: only the workflow's `needs` are available when it starts",
            workflow.node(target).name
        )),
        Some(path) => {
            let entry = workflow.node(path[0]);
            diagnostic
                .with_label(entry.name_span, "a run starts here")
                .with_note(format!(
                    "on the path {}, nothing writes `{key}`{what}",
                    witness::render(workflow, path)
                ))
        }
        None => diagnostic,
    }
}

/// Labels up to [`MAX_WRITER_LABELS`] nodes that do write `key`, to show
/// that the key exists but is written on other paths only.
fn with_writers(mut diagnostic: Diagnostic, workflow: &Workflow, key: &str) -> Diagnostic {
    let writers = workflow
        .nodes
        .iter()
        .filter(|n| written_keys(n).any(|k| k == key));
    for node in writers.take(MAX_WRITER_LABELS) {
        diagnostic = diagnostic.with_label(
            node.name_span,
            format!(
                "`{key}` is written by `{}`, but not on that path",
                node.name
            ),
        );
    }
    diagnostic
}

/// Whether any node of `workflow` writes `key`.
fn written_anywhere(workflow: &Workflow, key: &str) -> bool {
    workflow
        .nodes
        .iter()
        .any(|n| written_keys(n).any(|k| k == key))
}

/// WF0301 for every missing required read.
pub fn missing_reads(
    workflow: &Workflow,
    flow: &FlowResult,
    paths: &[Option<Vec<NodeId>>],
) -> Vec<Diagnostic> {
    if flow.missing_reads.is_empty() {
        return Vec::new();
    }
    // Keys something provides, for "did you mean" on keys nothing writes.
    let mut provided: Vec<&str> = workflow.needs.iter().map(|k| k.key.as_str()).collect();
    provided.extend(workflow.nodes.iter().flat_map(written_keys));
    let mut seen = rustc_hash::FxHashSet::default();
    provided.retain(|k| seen.insert(*k));
    let mut suggestions = SuggestionIndex::new(provided);
    flow.missing_reads
        .iter()
        .zip(paths)
        .map(|(&(v, i), path)| {
            let node = workflow.node(v);
            let read = &node.reads[i];
            let key = &read.key;
            let diagnostic = Diagnostic::new(
                &codes::READ_NOT_WRITTEN,
                format!(
                    "node `{}` reads `{key}`, which is not written on every path from the entry",
                    node.name
                ),
                read.span,
            )
            .with_primary_label(format!("`{key}` may be missing here"));
            let diagnostic = with_path(diagnostic, workflow, path.as_deref(), key, v, " before it");
            let written = written_anywhere(workflow, key);
            let diagnostic = if written {
                with_writers(diagnostic, workflow, key)
            } else {
                diagnostic.with_note(format!(
                    "nothing in workflow `{}` writes `{key}`",
                    workflow.name
                ))
            };
            let suggestion = if written { None } else { suggestions.suggest(key) };
            if let Some(better) = suggestion {
                return diagnostic
                    .with_help(format!("did you mean `{better}`?"))
                    .with_fix(Fix::replace(
                        format!("read `{better}` instead"),
                        read.span,
                        name_source_text(better),
                        Applicability::MaybeIncorrect,
                    ));
            }
            let help = if workflow.format == SourceFormat::ReflexJson {
                format!(
                    "write `{key}` on every path to `{}` (a guaranteed `outputs` entry), or make the input optional with `\"required\": false`",
                    node.name
                )
            } else {
                format!(
                    "write `{key}` on every path to `{}`, add it to the workflow's `needs`, or make the read optional with `{}?`",
                    node.name,
                    name_source_text(key)
                )
            };
            diagnostic
                .with_help(help)
                .with_fix(Fix::replace(
                    format!("make the read of `{key}` optional"),
                    wf_diagnostics::Span::new(
                        read.span.span.end as usize,
                        read.span.span.end as usize,
                    )
                    .in_file(read.span.file),
                    "?".to_string(),
                    Applicability::MaybeIncorrect,
                ))
        })
        .collect()
}

/// WF0302 for every callee need not available at its call node.
/// `callee_model(v)` is the workflow the call node `v` invokes.
pub fn missing_needs<'a>(
    workflow: &Workflow,
    flow: &FlowResult,
    paths: &[Option<Vec<NodeId>>],
    callee_model: impl Fn(NodeId) -> Option<&'a Workflow>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (&(v, i), path) in flow.missing_needs.iter().zip(paths) {
        let node = workflow.node(v);
        let Some(call) = &node.call else { continue };
        let Some(callee) = callee_model(v) else {
            continue;
        };
        let need = &callee.needs[i];
        let key = &need.key;
        let diagnostic = Diagnostic::new(
            &codes::CALLEE_NEED_UNAVAILABLE,
            format!(
                "workflow `{}` needs `{key}`, which is not available on every path to the call node `{}`",
                callee.name, node.name
            ),
            call.workflow_span,
        )
        .with_primary_label(format!("`{}` may start without `{key}` here", callee.name))
        .with_label(need.span, format!("`{}` needs `{key}` here", callee.name));
        let diagnostic = with_path(
            diagnostic,
            workflow,
            path.as_deref(),
            key,
            v,
            " before the call",
        );
        let diagnostic = if written_anywhere(workflow, key) {
            with_writers(diagnostic, workflow, key)
        } else {
            diagnostic
        };
        out.push(diagnostic.with_help(format!(
            "write `{key}` on every path to `{}`, or add `needs {}` to workflow `{}`",
            node.name,
            name_source_text(key),
            workflow.name
        )));
    }
    out
}

/// WF0303 for every `gives` key some terminal is reached without.
pub fn missing_gives(
    workflow: &Workflow,
    flow: &FlowResult,
    paths: &[Option<Vec<NodeId>>],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for ((g, terminals), path) in flow.missing_gives.iter().zip(paths) {
        let gives = &workflow.gives[*g];
        let key = &gives.key;
        let mut diagnostic = Diagnostic::new(
            &codes::GIVES_NOT_WRITTEN,
            format!(
                "workflow `{}` gives `{key}`, but it is not written on every path to a terminal",
                workflow.name
            ),
            gives.span,
        )
        .with_primary_label(format!("`{key}` is promised on every completion"));
        for &t in terminals.iter().take(MAX_TERMINAL_LABELS) {
            diagnostic = diagnostic.with_label(
                workflow.node(t).name_span,
                format!("a run can complete here without `{key}`"),
            );
        }
        if terminals.len() > MAX_TERMINAL_LABELS {
            diagnostic = diagnostic.with_note(format!(
                "and {} more terminals",
                terminals.len() - MAX_TERMINAL_LABELS
            ));
        }
        let diagnostic = with_path(diagnostic, workflow, path.as_deref(), key, terminals[0], "");
        let diagnostic = if written_anywhere(workflow, key) {
            diagnostic
        } else {
            diagnostic.with_note(format!(
                "nothing in workflow `{}` writes `{key}`",
                workflow.name
            ))
        };
        // A need is the caller's value: it stays in the caller's frame, and
        // the run fails a completion that did not write the key itself.
        let diagnostic = if workflow.needs.iter().any(|n| n.key == *key) {
            diagnostic.with_note(format!(
                "`{key}` is also in `needs`, but a need is the caller's value: it does not count as written by `{}`",
                workflow.name
            ))
        } else {
            diagnostic
        };
        out.push(diagnostic.with_help(format!(
            "write `{key}` on every path to each terminal (an `exit` node's own `writes` count), or remove it from `gives`"
        )));
    }
    out
}

/// WF0304 for every return-map entry of `workflow` whose child key the
/// callee does not guarantee. `callee(v)` is what the call node `v` sees of
/// its callee (span-free); `callee_model(v)` the callee itself, read only
/// to report.
pub fn return_maps<'a>(
    workflow: &Workflow,
    callee: impl Fn(NodeId) -> Option<CalleeView<'a>>,
    callee_model: impl Fn(NodeId) -> Option<&'a Workflow>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (v, node) in workflow.nodes.iter().enumerate() {
        let v = NodeId(v as u32);
        let Some(call) = &node.call else { continue };
        let Some(view) = callee(v) else {
            continue;
        };
        let Some(completion) = &view.guarantees.completion else {
            continue;
        };
        for entry in &call.return_map {
            let key = &entry.child;
            // Reserved keys are WF0106 already.
            if view.interface.gives.iter().any(|g| g == key) || is_reserved(key).is_some() {
                continue;
            }
            let written = view.guarantees.written.contains(key);
            let lacking = completion.get(key);
            if written && lacking.is_none() {
                continue; // written on every path to every terminal
            }
            let Some(callee) = callee_model(v) else {
                continue;
            };
            let mut diagnostic = Diagnostic::new(
                &codes::RETURN_MAP_NOT_GUARANTEED,
                format!(
                    "workflow `{}` does not guarantee `{key}`, which the return map of `{}` takes",
                    callee.name, node.name
                ),
                entry.child_span,
            )
            .with_primary_label(format!("`{}` may complete without `{key}`", callee.name));
            if let Some(lacking) = lacking {
                for &t in lacking {
                    diagnostic = diagnostic.with_label(
                        callee.node(t).name_span,
                        format!("`{}` can complete here without `{key}`", callee.name),
                    );
                }
            } else {
                diagnostic = diagnostic.with_label(
                    callee.name_span,
                    format!("nothing in `{}` writes `{key}`", callee.name),
                );
            }
            let gives: Vec<&str> = callee.gives.iter().map(|g| g.key.as_str()).collect();
            diagnostic = diagnostic.with_note(if gives.is_empty() {
                format!("`{}` gives nothing", callee.name)
            } else {
                format!(
                    "`{}` gives {}",
                    callee.name,
                    join_truncated(gives.iter().map(|g| format!("`{g}`")), 8)
                )
            });
            let suggestion = if written {
                None
            } else {
                SuggestionIndex::new(gives.iter().copied()).suggest(key)
            };
            diagnostic = match suggestion {
                Some(better) => diagnostic
                    .with_help(format!("did you mean `{better}`?"))
                    .with_fix(Fix::replace(
                        format!("take `{better}` instead"),
                        entry.child_span,
                        name_source_text(better),
                        Applicability::MaybeIncorrect,
                    )),
                None => diagnostic.with_help(format!(
                    "add `{}` to the `gives` of `{}` and write it on every path to its terminals, or take a key it gives",
                    name_source_text(key),
                    callee.name
                )),
            };
            out.push(diagnostic);
        }
    }
    out
}
