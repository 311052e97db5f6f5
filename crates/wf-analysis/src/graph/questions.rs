//! WF0321: a `.wf` `human` node with `freeform = true` takes free text,
//! which the runtime writes to the node's one declared write (docs/
//! language.md, "Questions"): it must declare exactly one, of type
//! `string` (or untyped). WF0322: one with `choices = multiple` takes one
//! or more of its `options`, written as a list: it needs options, exactly
//! one declared write of type `list` (or untyped), and cannot be freeform.

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{Node, NodeKind, SourceFormat, Value, Workflow};

/// WF0321 for every freeform `human` node without its one string write.
pub fn freeform_without_write(workflow: &Workflow) -> Vec<Diagnostic> {
    if workflow.format == SourceFormat::Dot {
        // A gate's text goes to `human.gate.text` (docs/attractor.md).
        return Vec::new();
    }
    let mut out = Vec::new();
    for n in workflow.node_ids() {
        let node = workflow.node(n);
        let freeform = node
            .attributes
            .iter()
            .find(|a| a.key == "freeform" && a.value == Value::Bool(true));
        let (NodeKind::Human, Some(attr)) = (node.kind, freeform) else {
            continue;
        };
        // Freeform and multi-select at once is WF0322's.
        if node.attributes.iter().any(|a| {
            a.key == "choices"
                && matches!(&a.value, Value::Ref(w) | Value::String(w) if w == "multiple")
        }) {
            continue;
        }
        let name = &node.name;
        let problem = match node.writes.as_slice() {
            [] => Some((
                format!("freeform human node `{name}` declares no key for its answer"),
                attr.key_span,
                "the text typed here would have nowhere to go".to_owned(),
            )),
            [one] => match one.ty.as_deref() {
                Some(ty) if ty != "string" => Some((
                    format!(
                        "freeform human node `{name}` writes its answer to `{}`, declared `{ty}`: the answer is text",
                        one.key
                    ),
                    one.ty_span.unwrap_or(one.span),
                    "declared here".to_owned(),
                )),
                _ => None,
            },
            [_, second, ..] => Some((
                format!(
                    "freeform human node `{name}` declares {} writes: its answer goes to exactly one key",
                    node.writes.len()
                ),
                second.span,
                "a second key".to_owned(),
            )),
        };
        if let Some((message, span, label)) = problem {
            out.push(
                Diagnostic::new(&codes::FREEFORM_WITHOUT_WRITE, message, span)
                    .with_primary_label(label)
                    .with_help(format!(
                        "declare the one key the answer is written to, for example `writes {name}.answer: string`"
                    )),
            );
        }
    }
    out
}

/// WF0322 for every misused multi-select `human` node.
pub fn multiple_misused(workflow: &Workflow) -> Vec<Diagnostic> {
    if workflow.format == SourceFormat::Dot {
        return Vec::new();
    }
    let mut out = Vec::new();
    for n in workflow.node_ids() {
        let node = workflow.node(n);
        let attr = |key: &str| node.attributes.iter().find(|a| a.key == key);
        let multiple = attr("choices")
            .filter(|a| matches!(&a.value, Value::Ref(w) | Value::String(w) if w == "multiple"));
        let (NodeKind::Human, Some(choices)) = (node.kind, multiple) else {
            continue;
        };
        let name = &node.name;
        let example = || {
            format!(
                "{name} {{ choices = multiple  options = [\"[A] Alpha\", \"[B] Beta\"]  writes {name}.chosen: list }}"
            )
        };
        let problem = if let Some(f) = attr("freeform").filter(|a| a.value == Value::Bool(true)) {
            Some((
                format!("human node `{name}` is both freeform and multi-select"),
                f.key_span,
                "a question takes text or options, not both".to_owned(),
                "remove `freeform = true` or `choices = multiple`".to_owned(),
            ))
        } else if !has_options(node) {
            Some((
                format!("multi-select human node `{name}` lists no `options`"),
                choices.value_span,
                "the person would have nothing to pick".to_owned(),
                format!("list the options, for example `{}`", example()),
            ))
        } else {
            match node.writes.as_slice() {
                [one] if one.ty.as_deref().is_none_or(|t| t == "list" || t == "any") => None,
                [one] => Some((
                    format!(
                        "multi-select human node `{name}` writes its answer to `{}`, declared `{}`: the answer is a list of labels",
                        one.key,
                        one.ty.as_deref().unwrap_or("?")
                    ),
                    one.ty_span.unwrap_or(one.span),
                    "declared here".to_owned(),
                    format!("declare it `writes {}: list`", one.key),
                )),
                writes => Some((
                    format!(
                        "multi-select human node `{name}` declares {} writes: its answer goes to exactly one key",
                        writes.len()
                    ),
                    writes.get(1).map_or(choices.value_span, |w| w.span),
                    "the answer needs one key".to_owned(),
                    format!(
                        "declare the one key the answer is written to, for example `writes {name}.chosen: list`"
                    ),
                )),
            }
        };
        if let Some((message, span, label, help)) = problem {
            out.push(
                Diagnostic::new(&codes::MULTIPLE_CHOICE_MISUSED, message, span)
                    .with_primary_label(label)
                    .with_help(help),
            );
        }
    }
    out
}

/// Whether `node` lists at least one option (a non-empty string or list of
/// non-empty strings).
fn has_options(node: &Node) -> bool {
    node.attributes
        .iter()
        .find(|a| a.key == "options")
        .is_some_and(|a| match &a.value {
            Value::List(items) => {
                !items.is_empty()
                    && items
                        .iter()
                        .all(|i| matches!(i, Value::String(s) if !s.trim().is_empty()))
            }
            Value::String(s) => !s.trim().is_empty(),
            _ => false,
        })
}
