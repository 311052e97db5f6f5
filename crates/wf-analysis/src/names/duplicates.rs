//! WF0102 duplicate nodes. (WF0101, duplicate workflows, depends on
//! imports: `db::names`.)

use wf_diagnostics::{Diagnostic, FileSpan, codes};

/// WF0102: node `name` of workflow `workflow` is declared again at `span`
/// after its first declaration at `first`.
pub fn duplicate_node(workflow: &str, name: &str, span: FileSpan, first: FileSpan) -> Diagnostic {
    Diagnostic::new(
        &codes::DUPLICATE_NODE,
        format!("node `{name}` is defined more than once in workflow `{workflow}`"),
        span,
    )
    .with_primary_label(format!("`{name}` redefined here"))
    .with_label(first, "first defined here")
    .with_help("rename one of them: node names must be unique within a workflow (only the first definition is used)")
}
