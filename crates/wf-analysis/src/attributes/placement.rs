//! Attributes in the wrong place or missing: WF0507 a `tool` without a
//! command, WF0508 an attribute where it has no effect, WF0509 one
//! attribute under both of its names.

use wf_diagnostics::{Applicability, Diagnostic, Fix, codes};
use wf_model::{Attribute, Edge, Node, NodeKind, Value};

use super::schema::{AttrSpec, Place, kinds_text, lookup};
use crate::suggest::closeness;

/// Keys people write for a tool's command in other systems.
const COMMAND_SPELLINGS: &[&str] = &["tool_command", "cmd", "run", "script", "shell", "exec"];

/// WF0507 for a `tool` node whose `command` is missing or blank. When the
/// node has an attribute that is probably the command under another name,
/// the diagnostic points at it and offers to rename it.
pub fn tool_command(node: &Node) -> Option<Diagnostic> {
    if node.kind != NodeKind::Tool {
        return None;
    }
    if let Some(command) = node.attributes.iter().find(|a| a.key == "command") {
        let Value::String(text) = &command.value else {
            return None; // a wrong type is WF0501's
        };
        if !text.trim().is_empty() {
            return None;
        }
        return Some(
            Diagnostic::new(
                &codes::MISSING_TOOL_COMMAND,
                format!("tool node `{}` has an empty command", node.name),
                command.value_span,
            )
            .with_primary_label("nothing to run")
            .with_help("write the command the node runs, such as `command = \"make test\"`"),
        );
    }
    let diagnostic = Diagnostic::new(
        &codes::MISSING_TOOL_COMMAND,
        format!("tool node `{}` has no `command`", node.name),
        node.name_span,
    )
    .with_primary_label("a `tool` node runs its `command`, and this one has none");
    let misnamed = node.attributes.iter().find(|a| {
        matches!(a.value, Value::String(_))
            && (COMMAND_SPELLINGS.contains(&a.key.as_str())
                || closeness(&a.key, "command").is_some())
    });
    Some(match misnamed {
        Some(attribute) => diagnostic
            .with_label(
                attribute.key_span,
                "probably the command, under another name",
            )
            .with_help(format!("rename `{}` to `command`", attribute.key))
            .with_fix(Fix::replace(
                format!("rename `{}` to `command`", attribute.key),
                attribute.key_span,
                "command",
                Applicability::MaybeIncorrect,
            )),
        None => diagnostic.with_help(
            "add `command = \"…\"` to the node, or make it a `step` if an agent does the work",
        ),
    })
}

/// WF0508 for a node attribute that only means something on other kinds.
pub fn misplaced_on_node(node: &Node, attribute: &Attribute, spec: &AttrSpec) -> Diagnostic {
    let kinds = kinds_text(spec);
    let kind = node.kind.as_str();
    let help = match spec.key {
        "command" => format!(
            "make `{}` a `tool` node to run the command, or rename the attribute if it is meant for the agent",
            node.name
        ),
        "default" => format!(
            "only a `human` node waits for an answer; remove `default` from `{}`",
            node.name
        ),
        _ => format!("set `{}` on a {kinds} node, or remove it", spec.key),
    };
    Diagnostic::new(
        &codes::MISPLACED_ATTRIBUTE,
        format!("`{}` has no effect on a `{kind}` node", spec.key),
        attribute.key_span,
    )
    .with_primary_label(format!("only {kinds} nodes use `{}`", spec.key))
    .with_label(
        node.name_span,
        format!("`{}` is a `{kind}` node", node.name),
    )
    .with_help(help)
}

/// WF0508 for `condition = …` on an edge: the Attractor guard attribute,
/// which `.wf` carries along unread (guards are written `when …`).
pub fn edge_condition(edge: &Edge) -> Option<Diagnostic> {
    let attribute = edge.attributes.iter().find(|a| a.key == "condition")?;
    let mut diagnostic = Diagnostic::new(
        &codes::MISPLACED_ATTRIBUTE,
        "`condition` has no effect on a `.wf` edge",
        attribute.key_span,
    )
    .with_primary_label("not a guard: the edge is taken whatever it says")
    .with_help("write the guard after the edge's target: `a -> b when outcome == success`");
    if edge.guard.is_some() {
        diagnostic = diagnostic.with_note("the edge already has a `when` guard");
    }
    Some(diagnostic)
}

/// WF0509 for each attribute of `attributes` set under a second name
/// (`max_retries`) beside its main one (`retries`), at the later of the
/// two. Blocks hold a handful of attributes, so the pairwise search is
/// O(block size²) on tiny inputs and linear overall.
pub fn aliases(place: Place, attributes: &[Attribute], out: &mut Vec<Diagnostic>) {
    for alias in attributes {
        let Some(main) = lookup(place, &alias.key).and_then(|s| s.alias_of) else {
            continue;
        };
        let Some(original) = attributes.iter().find(|a| a.key == main) else {
            continue;
        };
        let (first, second) = if original.key_span < alias.key_span {
            (original, alias)
        } else {
            (alias, original)
        };
        out.push(
            Diagnostic::new(
                &codes::CONFLICTING_ATTRIBUTE_ALIASES,
                format!("`{}` and `{}` set the same attribute", alias.key, main),
                second.key_span,
            )
            .with_primary_label(format!("`{}` sets it again", second.key))
            .with_label(first.key_span, format!("`{}` sets it first", first.key))
            .with_help(format!(
                "keep only `{main}` (`{}` is the Attractor spelling)",
                alias.key
            )),
        );
    }
}
