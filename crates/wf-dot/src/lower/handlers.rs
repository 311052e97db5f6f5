//! Attractor handler types: from `shape` and `type` (spec section 2.8) to
//! the model's node kinds.

use wf_model::{Node, NodeKind, Value};

/// The shape-to-handler table of spec section 2.8: each shape with the
/// handler type it runs.
pub const SHAPE_HANDLERS: &[(&str, &str)] = &[
    ("Mdiamond", "start"),
    ("Msquare", "exit"),
    ("box", "codergen"),
    ("hexagon", "wait.human"),
    ("diamond", "conditional"),
    ("component", "parallel"),
    ("tripleoctagon", "parallel.fan_in"),
    ("parallelogram", "tool"),
    ("house", "stack.manager_loop"),
];

/// The handler a lowered pipeline node runs: its `type` when set; else
/// `start` for the entry node and `exit` for exit nodes (the front end
/// resolved them by shape, `type` or id, and a node found by id is a start
/// or exit, not an LLM stage); else the handler of its `shape` (`box`, the
/// default shape, and unknown shapes run `codergen`). The compiler and the
/// language server's hover both ask this.
pub fn node_handler(node: &Node, is_entry: bool) -> &str {
    if let Some(ty) = attribute_text(node, "type")
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        return ty;
    }
    if is_entry {
        return "start";
    }
    if node.kind == NodeKind::Exit {
        return "exit";
    }
    handler_type(attribute_text(node, "shape"), None)
}

/// The text of a lowered node's attribute `key`, when it is a string or a
/// bare word.
fn attribute_text<'n>(node: &'n Node, key: &str) -> Option<&'n str> {
    node.attributes
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| match &a.value {
            Value::String(s) | Value::Ref(s) => Some(s.as_str()),
            _ => None,
        })
}

/// The handler type a node runs: its `type` when set and not empty, else
/// the handler of its `shape` (`box` when unset). A shape outside the
/// table runs the default handler, `codergen`, as for `box`.
pub fn handler_type<'a>(shape: Option<&'a str>, ty: Option<&'a str>) -> &'a str {
    if let Some(ty) = ty.map(str::trim).filter(|t| !t.is_empty()) {
        return ty;
    }
    let shape = shape.unwrap_or("box");
    SHAPE_HANDLERS
        .iter()
        .find(|(s, _)| *s == shape)
        .map_or("codergen", |(_, h)| h)
}

/// The model kind of a handler type. `start` and `conditional` do no work
/// and always succeed, like a `branch`; `stack.manager_loop` and unknown
/// (custom) handlers are steps the agent performs.
pub fn kind_of_handler(handler: &str) -> NodeKind {
    match handler {
        "start" | "conditional" => NodeKind::Branch,
        "exit" => NodeKind::Exit,
        "wait.human" => NodeKind::Human,
        "parallel" => NodeKind::Parallel,
        "parallel.fan_in" => NodeKind::Join,
        "tool" => NodeKind::Tool,
        _ => NodeKind::Step,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_overrides_shape() {
        assert_eq!(handler_type(Some("hexagon"), None), "wait.human");
        assert_eq!(handler_type(Some("hexagon"), Some("tool")), "tool");
        assert_eq!(handler_type(Some("hexagon"), Some(" ")), "wait.human");
        assert_eq!(handler_type(None, None), "codergen");
        assert_eq!(handler_type(Some("ellipse"), None), "codergen");
        assert_eq!(kind_of_handler("parallel.fan_in"), NodeKind::Join);
        assert_eq!(kind_of_handler("my.custom"), NodeKind::Step);
    }
}
