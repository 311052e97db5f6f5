//! WF0101 duplicate workflows and WF0102 duplicate nodes.

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Diagnostic, FileSpan, codes};
use wf_model::Program;

/// WF0101: one error per workflow whose name an earlier workflow (in any
/// file of the program) already uses, pointing back at the first.
pub fn duplicate_workflows(program: &Program) -> Vec<Diagnostic> {
    let mut first: HashMap<&str, FileSpan> = HashMap::default();
    let mut out = Vec::new();
    for workflow in &program.workflows {
        match first.get(workflow.name.as_str()) {
            Some(&original) => out.push(
                Diagnostic::new(
                    &codes::DUPLICATE_WORKFLOW,
                    format!("workflow `{}` is defined more than once", workflow.name),
                    workflow.name_span,
                )
                .with_primary_label(format!("`{}` redefined here", workflow.name))
                .with_label(original, "first defined here")
                .with_help("rename one of them: workflow names must be unique across all files checked together"),
            ),
            None => {
                first.insert(&workflow.name, workflow.name_span);
            }
        }
    }
    out
}

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
