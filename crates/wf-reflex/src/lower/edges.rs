//! Lowering the `edges` array: endpoints, ids, events and guards.

use std::collections::HashMap;

use wf_diagnostics::{Diagnostic, Label, Span, codes};
use wf_model::{Attribute, Edge, NodeId, Value, Workflow};

use super::attribute;
use crate::json::{Json, Member};
use crate::schema::{Reader, inner};

const EDGE_MEMBERS: &[&str] = &["id", "from", "to", "event", "guard"];

pub(super) fn lower_edges(
    reader: &mut Reader,
    json: &Json,
    workflow: &mut Workflow,
    index: &HashMap<String, NodeId>,
) {
    let Some(items) = reader.array(json, "the workflow `edges`") else {
        return;
    };
    let mut ids: HashMap<String, Span> = HashMap::new();
    for item in items {
        if let Some(edge) = lower_edge(reader, item, index, &mut ids) {
            workflow.edges.push(edge);
        }
    }
}

fn lower_edge(
    reader: &mut Reader,
    item: &Json,
    index: &HashMap<String, NodeId>,
    ids: &mut HashMap<String, Span>,
) -> Option<Edge> {
    let members = reader.object(item, "an edge")?;
    let fields = reader.members(members, "the edge", EDGE_MEMBERS);
    let mut attributes = Vec::new();
    for name in ["id", "event"] {
        match fields.get(name) {
            Some(m) => {
                if reader
                    .string(&m.value, &format!("the edge `{name}`"))
                    .is_some()
                {
                    attributes.push(attribute(reader, m));
                }
            }
            None => reader.missing(item, "the edge", name),
        }
    }
    if let Some(Attribute {
        value: Value::String(id),
        value_span,
        ..
    }) = attributes.iter().find(|a| a.key == "id")
    {
        if let Some(&first) = ids.get(id) {
            let first = reader.at(first);
            reader
                .schema_error(
                    value_span.span,
                    format!("two edges have the id `{id}`: edge ids must be unique in a workflow"),
                    "repeated here",
                )
                .labels
                .push(Label::new(first, "first used here"));
        } else {
            ids.insert(id.clone(), value_span.span);
        }
    }
    let event = attributes.iter().find(|a| a.key == "event");
    let label = event.and_then(|a| match &a.value {
        Value::String(s) => Some(s.clone()),
        _ => None,
    });
    let label_span = event.map(|a| a.value_span);
    let guard = fields
        .get("guard")
        .and_then(|m| crate::guards::lower_guard(reader, &m.value));
    let from = endpoint(reader, item, fields.get("from"), "from", index);
    let to = endpoint(reader, item, fields.get("to"), "to", index);
    let ((from, from_span), (to, to_span)) = (from?, to?);
    Some(Edge {
        from,
        to,
        span: reader.at(item.span),
        from_span: reader.at(from_span),
        to_span: reader.at(to_span),
        label,
        label_span,
        guard,
        attributes,
    })
}

/// The node an edge's `from` or `to` names; WF0014 when there is none.
fn endpoint(
    reader: &mut Reader,
    edge: &Json,
    member: Option<&Member>,
    name: &str,
    index: &HashMap<String, NodeId>,
) -> Option<(NodeId, Span)> {
    let Some(member) = member else {
        reader.missing(edge, "the edge", name);
        return None;
    };
    let target = reader.string(&member.value, &format!("the edge `{name}`"))?;
    let span = inner(member.value.span);
    match index.get(target) {
        Some(&id) => Some((id, span)),
        None => {
            let mut known: Vec<&str> = index.keys().map(String::as_str).collect();
            known.sort_unstable();
            let listed = if known.len() > 8 {
                format!("{}, …", known[..8].join(", "))
            } else {
                known.join(", ")
            };
            reader.diagnostics.push(
                Diagnostic::new(
                    &codes::REFLEX_UNKNOWN_NODE,
                    format!(
                        "the edge's `{name}` names `{target}`, which is not a node of this workflow"
                    ),
                    reader.at(span),
                )
                .with_primary_label("no such node")
                .with_help(format!(
                    "define the node in `nodes` or name one that exists (nodes: {listed})"
                )),
            );
            None
        }
    }
}
