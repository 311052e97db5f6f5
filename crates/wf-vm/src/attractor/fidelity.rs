//! Context fidelity and thread resolution (seed section 5.4).

use serde_json::Value;

use crate::agent::DecisionContext;

/// The fidelity modes of the seed.
pub const MODES: &[&str] = &[
    "full",
    "truncate",
    "compact",
    "summary:low",
    "summary:medium",
    "summary:high",
];

/// The default when nothing sets a fidelity.
pub const DEFAULT: &str = "compact";

fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The fidelity of the node `cx` is at: the incoming edge's `fidelity`,
/// else the node's, else the graph's `default_fidelity`, else `compact`;
/// and, when it is `full`, the thread key: the node's `thread_id`, else
/// the edge's, else the graph's `thread_id`, else the node's first
/// `class`, else the previous node's id.
pub fn resolve(cx: &DecisionContext<'_>) -> (String, Option<String>) {
    let edge = cx.incoming_edge.map(|e| &cx.workflow.edges[e.0 as usize]);
    let fidelity = edge
        .and_then(|e| text(e.spec.get("fidelity")))
        .or_else(|| text(cx.node.spec.get("fidelity")))
        .or_else(|| text(cx.workflow.spec.get("default_fidelity")))
        .unwrap_or_else(|| DEFAULT.to_string());
    if fidelity != "full" {
        return (fidelity, None);
    }
    let class = match cx.node.spec.get("class") {
        Some(Value::String(s)) => s
            .split(',')
            .map(str::trim)
            .find(|c| !c.is_empty())
            .map(str::to_string),
        Some(Value::Array(items)) => items.first().and_then(|v| text(Some(v))),
        _ => None,
    };
    let thread = text(cx.node.spec.get("thread_id"))
        .or_else(|| edge.and_then(|e| text(e.spec.get("thread_id"))))
        .or_else(|| text(cx.workflow.spec.get("thread_id")))
        .or(class)
        .or_else(|| edge.map(|e| cx.str(cx.workflow.nodes[e.from.0 as usize].id).to_string()));
    (fidelity, thread)
}
