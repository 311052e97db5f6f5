//! What an Attractor pipeline (`.dot`) keeps in the IR beyond the model:
//! each node's handler type and a tool node's `tool_command`.

use std::collections::HashSet;

use wf_model::{Node, NodeKind, Value, Workflow};

use super::{CompileError, Cx};
use crate::types::{IrNode, Opcode};

/// The text of attribute `key`, when it is a string or a bare word.
fn text<'n>(node: &'n Node, key: &str) -> Option<&'n str> {
    node.attributes
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| match &a.value {
            Value::String(s) | Value::Ref(s) => Some(s.as_str()),
            _ => None,
        })
}

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

/// The handler a node runs: its `type` when set; else `start` for the
/// entry node and `exit` for exit nodes (the spec resolves both by id too,
/// and a node found that way is a start or exit, not an LLM stage); else
/// the handler of its `shape` (`box`, the default shape, and unknown
/// shapes run `codergen`).
pub fn handler_of(node: &Node, is_entry: bool, is_exit: bool) -> &str {
    if let Some(ty) = text(node, "type").map(str::trim).filter(|t| !t.is_empty()) {
        return ty;
    }
    if is_entry {
        return "start";
    }
    if is_exit {
        return "exit";
    }
    wf_dot::handler_type(text(node, "shape"), None)
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
