//! The `names` family (WF01xx): duplicate definitions, references to
//! things that do not exist, and reserved names.
//!
//! Every check here works on the [`Program`] model except duplicate nodes,
//! which lowering must detect because it keeps only the first definition
//! (it calls [`duplicate_node`]).

mod duplicates;
mod references;
mod reserved;

use wf_diagnostics::Diagnostic;
use wf_model::Program;

pub use duplicates::{duplicate_node, duplicate_workflows};
pub use references::{undeclared_nodes, unknown_entry, unknown_workflows};
pub use reserved::{is_reserved, reserved_names};

/// Runs every model-level names check over the whole program.
pub fn check_names(program: &Program) -> Vec<Diagnostic> {
    let mut out = duplicate_workflows(program);
    out.extend(unknown_workflows(program));
    for workflow in &program.workflows {
        out.extend(unknown_entry(workflow));
        out.extend(undeclared_nodes(workflow));
        out.extend(reserved_names(workflow));
    }
    out
}

#[cfg(test)]
mod tests;
