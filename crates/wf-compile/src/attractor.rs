//! What an Attractor pipeline (`.dot`) keeps in the IR beyond the model:
//! a tool node's `tool_command` (the handler type is `wf_dot::node_handler`).

use wf_model::{Node, Value};

use super::{CompileError, Cx};
use wf_ir::{IrNode, Opcode};

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
