//! What an Attractor pipeline (`.dot`) keeps in the IR beyond the model:
//! each node's handler type and a tool node's `tool_command`.

use std::collections::HashSet;

use wf_model::{Node, NodeKind, Value, Workflow};

use super::{CompileError, Cx};
use crate::types::{IrNode, Opcode};

/// The indices of the workflow's exit nodes (the front end resolved them
/// by shape, `type` or id).
pub fn exit_nodes(w: &Workflow) -> HashSet<usize> {
    w.nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == NodeKind::Exit)
        .map(|(i, _)| i)
        .collect()
}

/// The handler a node runs (`wf_dot::node_handler`).
pub fn handler_of(node: &Node, is_entry: bool, is_exit: bool) -> &str {
    wf_dot::node_handler(node, is_entry, is_exit)
}

/// A tool node's command: Attractor's `tool_command` (fabro writes
/// `script`) becomes the engine's `command` when `command` is not set.
pub fn tool_command(cx: &mut Cx, node: &Node, ir: &mut IrNode) -> Result<(), CompileError> {
    if ir.op != Opcode::Tool || ir.engine.command.is_some() {
        return Ok(());
    }
    let Some(a) = node
        .attributes
        .iter()
        .find(|a| matches!(a.key.as_str(), "tool_command" | "script"))
    else {
        return Ok(());
    };
    match &a.value {
        Value::String(s) | Value::Ref(s) => {
            ir.engine.command = Some(cx.strings.intern(s));
            Ok(())
        }
        _ => Err(cx.error(Some(a.value_span), format!("`{}` must be a string", a.key))),
    }
}
