//! WF0106: names reserved for the engine. Keys starting with `_` and the
//! `internal` namespace belong to the runtime (the behaviour-tree audit's
//! "reserved keys"), so user workflows must not declare or use them as node
//! ids or blackboard keys.

use wf_diagnostics::{Diagnostic, FileSpan, codes};
use wf_model::Workflow;

/// Why a name is reserved, or `None` when it is not.
pub fn is_reserved(name: &str) -> Option<&'static str> {
    if name.starts_with('_') {
        Some("uses the reserved `_` prefix")
    } else if name == "internal" || name.starts_with("internal.") {
        Some("is in the reserved `internal` namespace")
    } else {
        None
    }
}

/// WF0106 for every node id (declared, or implicit at its first mention)
/// and every blackboard key written in the workflow's `needs`, `gives`,
/// `reads`, `writes` and return maps.
pub fn reserved_names(workflow: &Workflow) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut check = |what: &str, name: &str, span: FileSpan| {
        if let Some(why) = is_reserved(name) {
            out.push(
                Diagnostic::new(&codes::RESERVED_NAME, format!("{what} `{name}` {why}"), span)
                    .with_primary_label("reserved for the engine")
                    .with_help("names starting with `_` and the `internal` namespace are reserved for the engine; choose another name"),
            );
        }
    };
    for key in workflow.needs.iter().chain(&workflow.gives) {
        check("key", &key.key, key.span);
    }
    for node in &workflow.nodes {
        check("node id", &node.name, node.name_span);
        for read in &node.reads {
            check("key", &read.key, read.span);
        }
        for write in &node.writes {
            check("key", &write.key, write.span);
        }
        for entry in node.call.iter().flat_map(|c| &c.return_map) {
            check("key", &entry.parent, entry.parent_span);
            check("key", &entry.child, entry.child_span);
        }
    }
    out
}
