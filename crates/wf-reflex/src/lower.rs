//! Lowering a parsed Reflex workflow document into the model.
//!
//! The mapping is documented in `docs/reflex.md`; in short: `id` is the
//! workflow name, `entry` the entry node, each node's `spec` members become
//! its attributes, `invokes` makes a `call` node, `inputs`/`outputs` are its
//! contract, each edge keeps its Reflex `id` and `event` as attributes (the
//! event is also the edge's label), built-in guards become guard
//! expressions, and `metadata` members become workflow attributes.

use std::collections::HashMap;

use wf_diagnostics::{Diagnostic, FileId, Span};
use wf_model::{Attribute, KeyDecl, SourceFormat, Value, Workflow};

use crate::conventions;
use crate::json::{Json, JsonKind, Member};
use crate::schema::{Reader, inner};

mod edges;
mod nodes;

use edges::lower_edges;
use nodes::lower_nodes;

/// The members of a workflow document.
const WORKFLOW_MEMBERS: &[&str] = &["$schema", "id", "entry", "nodes", "edges", "metadata"];

/// Lowers one document (the JSON already parsed) to its workflow.
pub(crate) fn lower_document(doc: &Json, file: FileId) -> (Option<Workflow>, Vec<Diagnostic>) {
    let mut reader = Reader {
        file,
        diagnostics: Vec::new(),
    };
    let Some(members) = reader.object(doc, "a Reflex workflow document") else {
        return (None, reader.diagnostics);
    };
    let fields = reader.members(members, "the workflow", WORKFLOW_MEMBERS);
    let open = Span::new(doc.span.start as usize, doc.span.start as usize + 1);
    let (name, name_span) = match fields.get("id") {
        Some(m) => match reader.string(&m.value, "the workflow `id`") {
            Some(id) => (id.to_string(), inner(m.value.span)),
            None => (String::new(), m.value.span),
        },
        None => {
            reader.missing(doc, "the workflow", "id");
            (String::new(), open)
        }
    };
    let mut workflow = Workflow {
        name,
        name_span: reader.at(name_span),
        span: reader.at(doc.span),
        file,
        format: SourceFormat::ReflexJson,
        docs: None,
        attributes: Vec::new(),
        entry: None,
        needs: Vec::new(),
        gives: Vec::new(),
        interpolated_reads: Vec::new(),
        nodes: Vec::new(),
        edges: Vec::new(),
        incomplete: false,
    };
    if let Some(m) = fields.get("$schema") {
        reader.string(&m.value, "`$schema`");
    }
    if let Some(m) = fields.get("metadata") {
        lower_metadata(&mut reader, &m.value, &mut workflow);
    }
    match fields.get("entry") {
        Some(m) => {
            if let Some(entry) = reader.string(&m.value, "the workflow `entry`") {
                workflow.entry = Some((entry.to_string(), reader.at(inner(m.value.span))));
            }
        }
        None => reader.missing(doc, "the workflow", "entry"),
    }
    let mut index = HashMap::new();
    match fields.get("nodes") {
        Some(m) => lower_nodes(&mut reader, &m.value, &mut workflow, &mut index),
        None => reader.missing(doc, "the workflow", "nodes"),
    }
    match fields.get("edges") {
        Some(m) => lower_edges(&mut reader, &m.value, &mut workflow, &index),
        None => reader.missing(doc, "the workflow", "edges"),
    }
    // Any error means parts of the document may be missing from the model:
    // checks that reason about absence stay silent (see `Workflow::incomplete`).
    workflow.incomplete = reader.diagnostics.iter().any(Diagnostic::is_error);
    conventions::type_durations(&mut workflow.attributes, conventions::WORKFLOW_DURATIONS);
    (Some(workflow), reader.diagnostics)
}

/// `metadata` members become workflow attributes; `needs` and `gives`
/// written as wfc emits them (`[{"key": …, "type": …}]`) become the
/// signature instead.
fn lower_metadata(reader: &mut Reader, json: &Json, workflow: &mut Workflow) {
    let Some(members) = reader.object(json, "the workflow `metadata`") else {
        return;
    };
    reader.repeats(members, "the workflow `metadata`");
    for member in members {
        let signature = match member.key.as_str() {
            "needs" | "gives" => signature(reader, &member.value),
            _ => None,
        };
        match signature {
            Some(keys) if member.key == "needs" => workflow.needs = keys,
            Some(keys) => workflow.gives = keys,
            None => workflow.attributes.push(attribute(reader, member)),
        }
    }
}

/// `[{"key": "k", "type": "string"}, …]` as key declarations, or `None`
/// when the value has another shape (then it is an ordinary attribute).
fn signature(reader: &Reader, json: &Json) -> Option<Vec<KeyDecl>> {
    let JsonKind::Array(items) = &json.kind else {
        return None;
    };
    let mut keys = Vec::new();
    for item in items {
        let JsonKind::Object(members) = &item.kind else {
            return None;
        };
        let mut key = None;
        let mut ty = None;
        for m in members {
            match (m.key.as_str(), &m.value.kind) {
                ("key", JsonKind::String(k)) => key = Some((k.clone(), m.value.span)),
                ("type", JsonKind::String(t)) => ty = Some((t.clone(), m.value.span)),
                _ => return None,
            }
        }
        let (key, span) = key?;
        keys.push(KeyDecl {
            key,
            span: reader.at(inner(span)),
            ty_span: ty.as_ref().map(|(_, s)| reader.at(inner(*s))),
            ty: ty.map(|(t, _)| t),
        });
    }
    Some(keys)
}

/// A member as an attribute: the key without quotes, the value as is.
pub(crate) fn attribute(reader: &Reader, member: &Member) -> Attribute {
    Attribute {
        key: member.key.clone(),
        key_span: reader.at(inner(member.key_span)),
        value: value(&member.value),
        value_span: reader.at(member.value.span),
    }
}

/// A JSON value as a model value.
pub(crate) fn value(json: &Json) -> Value {
    match &json.kind {
        JsonKind::Null => Value::Null,
        JsonKind::Bool(b) => Value::Bool(*b),
        JsonKind::Int(n) => Value::Int(*n),
        JsonKind::Float(f) => Value::Float(*f),
        JsonKind::String(s) => Value::String(s.clone()),
        JsonKind::Array(items) => Value::List(items.iter().map(value).collect()),
        JsonKind::Object(members) => Value::Map(
            members
                .iter()
                .map(|m| (m.key.clone(), value(&m.value)))
                .collect(),
        ),
    }
}
