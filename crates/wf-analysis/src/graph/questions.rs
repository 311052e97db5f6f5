//! WF0321: a `.wf` `human` node with `freeform = true` takes free text,
//! which the runtime writes to the node's one declared write (docs/
//! language.md, "Questions"): it must declare exactly one, of type
//! `string` (or untyped).

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{NodeKind, SourceFormat, Value, Workflow};

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
