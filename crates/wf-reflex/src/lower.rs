//! Lowering a parsed Reflex workflow document into the model.
//!
//! The mapping is documented in `docs/reflex.md`; in short: `id` is the
//! workflow name, `entry` the entry node, each node's `spec` members become
//! its attributes, `invokes` makes a `call` node, `inputs`/`outputs` are its
//! contract, each edge keeps its Reflex `id` and `event` as attributes (the
//! event is also the edge's label), built-in guards become guard
//! expressions, and `metadata` members become workflow attributes.

use std::collections::HashMap;

use wf_diagnostics::{Diagnostic, FileId, Label, Span, codes};
use wf_model::{
    Attribute, Call, Edge, KeyDecl, Node, NodeId, NodeKind, ReadDecl,
    ReturnMapEntry, SourceFormat, Value, Workflow,
};

use crate::json::{Json, JsonKind, Member};
use crate::conventions;
use crate::schema::{Reader, inner};

/// The members of a workflow document.
const WORKFLOW_MEMBERS: &[&str] = &["$schema", "id", "entry", "nodes", "edges", "metadata"];
const NODE_MEMBERS: &[&str] = &["id", "description", "spec", "invokes", "inputs", "outputs"];
const EDGE_MEMBERS: &[&str] = &["id", "from", "to", "event", "guard"];

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
fn attribute(reader: &Reader, member: &Member) -> Attribute {
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

fn lower_nodes(
    reader: &mut Reader,
    json: &Json,
    workflow: &mut Workflow,
    index: &mut HashMap<String, NodeId>,
) {
    let Some(members) = reader.object(json, "the workflow `nodes`") else {
        return;
    };
    for member in members {
        let name_span = reader.at(inner(member.key_span));
        if let Some(&first) = index.get(&member.key) {
            let first_span = workflow.node(first).name_span;
            reader.diagnostics.push(
                Diagnostic::new(
                    &codes::DUPLICATE_NODE,
                    format!(
                        "node `{}` is defined more than once in workflow `{}`",
                        member.key, workflow.name
                    ),
                    name_span,
                )
                .with_primary_label(format!("`{}` redefined here", member.key))
                .with_label(first_span, "first defined here")
                .with_help("rename one of them: node ids must be unique within a workflow (only the first definition is used)"),
            );
            continue;
        }
        let node = lower_node(reader, member);
        index.insert(member.key.clone(), NodeId(workflow.nodes.len() as u32));
        workflow.nodes.push(node);
    }
}

fn lower_node(reader: &mut Reader, member: &Member) -> Node {
    let name = &member.key;
    let mut node = Node {
        name: name.clone(),
        kind: NodeKind::Step,
        name_span: reader.at(inner(member.key_span)),
        span: reader.at(member.key_span.to(member.value.span)),
        implicit: false,
        label: None,
        docs: None,
        attributes: Vec::new(),
        reads: Vec::new(),
        writes: Vec::new(),
        interpolated_reads: Vec::new(),
        call: None,
    };
    let what = format!("node `{name}`");
    let Some(members) = reader.object(&member.value, &what) else {
        return node;
    };
    let fields = reader.members(members, &what, NODE_MEMBERS);
    match fields.get("id") {
        Some(m) => {
            if let Some(id) = reader.string(&m.value, &format!("the `id` of {what}"))
                && id != name
            {
                let key = reader.at(member.key_span);
                reader
                    .schema_error(
                        m.value.span,
                        format!("node `{name}` has the id `{id}`: a node's `id` must equal its key in `nodes`"),
                        "differs from the key",
                    )
                    .labels
                    .push(Label::new(key, "the node's key"));
            }
        }
        None => reader.missing(&member.value, &what, "id"),
    }
    if let Some(m) = fields.get("description")
        && let Some(text) = reader.string(&m.value, &format!("the `description` of {what}"))
    {
        node.label = Some(text.to_string());
    }
    match fields.get("spec") {
        Some(m) => {
            if let Some(spec) = reader.object(&m.value, &format!("the `spec` of {what}")) {
                // The spec is opaque: any member is allowed, once.
                reader.repeats(spec, &format!("the `spec` of {what}"));
                node.attributes = spec.iter().map(|m| attribute(reader, m)).collect();
            }
        }
        None => reader.missing(&member.value, &what, "spec"),
    }
    if let Some(m) = fields.get("invokes") {
        node.call = lower_invokes(reader, &m.value, &what);
        if node.call.is_some() {
            node.kind = NodeKind::Call;
        }
    }
    if let Some(m) = fields.get("inputs") {
        for item in reader.array(&m.value, &format!("the `inputs` of {what}")).unwrap_or(&[]) {
            if let Some((key, span, required)) = key_flag(reader, item, "an input", "required") {
                node.reads.push(ReadDecl {
                    key,
                    optional: !required,
                    span,
                });
            }
        }
    }
    if let Some(m) = fields.get("outputs") {
        for item in reader.array(&m.value, &format!("the `outputs` of {what}")).unwrap_or(&[]) {
            // A conditional output is no contract write: the data-flow
            // checks need keys written on every run of the node.
            if let Some((key, span, true)) = key_flag(reader, item, "an output", "guaranteed") {
                node.writes.push(KeyDecl {
                    key,
                    ty: None,
                    span,
                    ty_span: None,
                });
            }
        }
    }
    if let Some(spec) = fields.get("spec") {
        conventions::spec_writes_as_contract(reader, &spec.value, &mut node.writes);
    }
    conventions::node_kind(&mut node);
    conventions::type_durations(&mut node.attributes, conventions::NODE_DURATIONS);
    node
}

/// An `inputs` / `outputs` item: `{"key": …, flag: bool, "description"?}`.
fn key_flag(
    reader: &mut Reader,
    item: &Json,
    what: &str,
    flag: &str,
) -> Option<(String, wf_diagnostics::FileSpan, bool)> {
    let members = reader.object(item, what)?;
    let fields = reader.members(members, what, &["key", flag, "description"]);
    if let Some(m) = fields.get("description") {
        reader.string(&m.value, "a `description`");
    }
    let value = match fields.get(flag) {
        Some(m) => reader.boolean(&m.value, &format!("`{flag}`")),
        None => {
            reader.missing(item, what, flag);
            None
        }
    };
    let key = match fields.get("key") {
        Some(m) => reader
            .string(&m.value, "`key`")
            .map(|k| (k.to_string(), reader.at(inner(m.value.span)))),
        None => {
            reader.missing(item, what, "key");
            None
        }
    };
    let (key, span) = key?;
    Some((key, span, value?))
}

fn lower_invokes(reader: &mut Reader, json: &Json, node: &str) -> Option<Call> {
    let what = format!("the `invokes` of {node}");
    let members = reader.object(json, &what)?;
    let fields = reader.members(members, &what, &["workflowId", "returnMap"]);
    let mut return_map = Vec::new();
    match fields.get("returnMap") {
        Some(m) => {
            for item in reader.array(&m.value, "`returnMap`").unwrap_or(&[]) {
                if let Some(entry) = return_entry(reader, item) {
                    return_map.push(entry);
                }
            }
        }
        None => reader.missing(json, &what, "returnMap"),
    }
    let Some(m) = fields.get("workflowId") else {
        reader.missing(json, &what, "workflowId");
        return None;
    };
    let workflow = reader.string(&m.value, "`workflowId`")?.to_string();
    Some(Call {
        workflow,
        workflow_span: reader.at(inner(m.value.span)),
        return_map,
    })
}

fn return_entry(reader: &mut Reader, item: &Json) -> Option<ReturnMapEntry> {
    let what = "a `returnMap` entry";
    let members = reader.object(item, what)?;
    let fields = reader.members(members, what, &["parentKey", "childKey"]);
    let mut key = |name: &str| match fields.get(name) {
        Some(m) => reader
            .string(&m.value, &format!("`{name}`"))
            .map(|k| (k.to_string(), reader.at(inner(m.value.span)))),
        None => {
            reader.missing(item, what, name);
            None
        }
    };
    let parent = key("parentKey");
    let child = key("childKey");
    let ((parent, parent_span), (child, child_span)) = (parent?, child?);
    Some(ReturnMapEntry {
        parent,
        parent_span,
        child,
        child_span,
    })
}

fn lower_edges(
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
                if reader.string(&m.value, &format!("the edge `{name}`")).is_some() {
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
                    format!("the edge's `{name}` names `{target}`, which is not a node of this workflow"),
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
