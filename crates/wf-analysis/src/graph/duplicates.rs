//! WF0210: an edge written twice, with the same label, guard and
//! attributes.

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{Edge, Workflow};

use crate::guards::expr_label;

/// What makes two edges the same edge: endpoints, label, guard (as
/// written back, so spans do not count) and attributes (in key order).
fn identity(edge: &Edge) -> (u32, u32, Option<&str>, Option<String>, Vec<String>) {
    let mut attributes: Vec<String> = edge
        .attributes
        .iter()
        .map(|a| format!("{}={:?}", a.key, a.value))
        .collect();
    attributes.sort();
    (
        edge.from.0,
        edge.to.0,
        edge.label.as_deref(),
        edge.guard.as_ref().map(|g| expr_label(&g.expr)),
        attributes,
    )
}

/// WF0210 for each edge that repeats an earlier edge exactly. Routing
/// picks one of two identical edges as surely as it would the one: the
/// second is noise at best, and at worst a copy meant to be edited (a
/// different target, a different condition) that never was.
pub fn duplicate_edges(workflow: &Workflow) -> Vec<Diagnostic> {
    let mut first: HashMap<_, &Edge> = HashMap::default();
    let mut out = Vec::new();
    for edge in &workflow.edges {
        match first.entry(identity(edge)) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(edge);
            }
            std::collections::hash_map::Entry::Occupied(earlier) => {
                let from = &workflow.node(edge.from).name;
                let to = &workflow.node(edge.to).name;
                out.push(
                    Diagnostic::new(
                        &codes::DUPLICATE_EDGE,
                        format!("the edge `{from} -> {to}` is written twice, identically"),
                        edge.span,
                    )
                    .with_primary_label("the same edge again")
                    .with_label(earlier.get().span, "first written here")
                    .with_help(
                        "remove one of them, or give this one the target, label or condition it was meant to have",
                    ),
                );
            }
        }
    }
    out
}
