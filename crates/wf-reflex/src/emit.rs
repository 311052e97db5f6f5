//! Writing a model workflow as a Reflex workflow document.
//!
//! The output validates against the Reflex workflow schema: nodes carry
//! `id`, `description` (the label, else the doc comment), `spec` (every
//! attribute), `invokes` (for calls), `inputs`/`outputs` (the contract);
//! edges carry `id`, `from`, `to`, `event` and a built-in `guard`. What
//! Reflex cannot express is listed in `docs/reflex.md`; a guard it cannot
//! express is an [`EmitError`].

use std::collections::HashSet;
use std::fmt;

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{Edge, Node, Value, Workflow};

use crate::guards::to_reflex;
use crate::ordered::OrderedJson;
use crate::print::expr_text;

/// Why a workflow cannot be written as Reflex JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct EmitError {
    /// The workflow.
    pub workflow: String,
    /// What cannot be expressed, naming the edge or node.
    pub message: String,
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "workflow `{}` cannot be written as Reflex JSON: {}",
            self.workflow, self.message
        )
    }
}

impl std::error::Error for EmitError {}

/// Every guard of `workflow` that Reflex cannot express, as WF0012
/// diagnostics at the guards, all at once (`wfc check --target reflex`,
/// and `wfc build --emit reflex` before it writes anything).
pub fn guard_problems(workflow: &Workflow) -> Vec<Diagnostic> {
    workflow
        .edges
        .iter()
        .filter_map(|edge| {
            let guard = edge.guard.as_ref()?;
            let why = to_reflex(&guard.expr).err()?;
            let from = &workflow.node(edge.from).name;
            let to = &workflow.node(edge.to).name;
            Some(
                Diagnostic::new(
                    &codes::REFLEX_INEXPRESSIBLE_GUARD,
                    format!(
                        "the guard `{}` of the edge `{from} -> {to}` has no Reflex equivalent",
                        expr_text(&guard.expr)
                    ),
                    guard.span,
                )
                .with_primary_label("not expressible as a Reflex guard")
                .with_note(why)
                .with_help(
                    "Reflex guards are `exists`, `not-exists`, `equals` and `not-equals` on one blackboard key (docs/reflex.md): compare one key per edge, or compute the decision in a node that writes a key",
                ),
            )
        })
        .collect()
}

/// Writes one workflow as a Reflex workflow document.
pub fn emit(workflow: &Workflow) -> Result<OrderedJson, EmitError> {
    let error = |message: String| EmitError {
        workflow: workflow.name.clone(),
        message,
    };
    let entry = entry(workflow).ok_or_else(|| {
        error("it has no `entry` and no node named `start` or single node without incoming edges to take as the entry".into())
    })?;
    let nodes = workflow
        .nodes
        .iter()
        .map(|node| (node.name.clone(), emit_node(node)))
        .collect();
    let mut edges = Vec::new();
    let mut ids = EdgeIds::new(workflow);
    for edge in &workflow.edges {
        edges.push(emit_edge(workflow, edge, &mut ids).map_err(error)?);
    }
    let mut doc = vec![
        ("id".into(), OrderedJson::string(&workflow.name)),
        ("entry".into(), OrderedJson::string(entry)),
        ("nodes".into(), OrderedJson::Object(nodes)),
        ("edges".into(), OrderedJson::Array(edges)),
    ];
    let mut metadata = Vec::new();
    for (name, keys) in [("needs", &workflow.needs), ("gives", &workflow.gives)] {
        if !keys.is_empty() {
            let keys = keys
                .iter()
                .map(|k| {
                    let mut item = vec![("key".into(), OrderedJson::string(&k.key))];
                    if let Some(ty) = &k.ty {
                        item.push(("type".into(), OrderedJson::string(ty)));
                    }
                    OrderedJson::Object(item)
                })
                .collect();
            metadata.push((name.to_string(), OrderedJson::Array(keys)));
        }
    }
    push_attributes(&mut metadata, &workflow.attributes);
    if !metadata.is_empty() {
        doc.push(("metadata".into(), OrderedJson::Object(metadata)));
    }
    Ok(OrderedJson::Object(doc))
}

/// The entry as the analysis finds it (`docs/language.md` section 8.1):
/// `entry = x`, else the node `start`, else the single node without
/// incoming edges.
fn entry(workflow: &Workflow) -> Option<&str> {
    if let Some((name, _)) = &workflow.entry {
        return Some(name);
    }
    if let Some(id) = workflow.node_by_name("start") {
        return Some(&workflow.node(id).name);
    }
    let mut targets = HashSet::new();
    for edge in &workflow.edges {
        targets.insert(edge.to);
    }
    let mut sources = workflow.node_ids().filter(|id| !targets.contains(id));
    match (sources.next(), sources.next()) {
        (Some(id), None) => Some(&workflow.node(id).name),
        _ => None,
    }
}

fn emit_node(node: &Node) -> OrderedJson {
    let mut out = vec![("id".into(), OrderedJson::string(&node.name))];
    if let Some(text) = node.label.as_ref().or(node.docs.as_ref()) {
        out.push(("description".into(), OrderedJson::string(text)));
    }
    let mut spec = Vec::new();
    if let Some(kind) = crate::conventions::kind_member(node.kind) {
        spec.push(("kind".to_string(), OrderedJson::string(kind)));
    }
    push_attributes(&mut spec, &node.attributes);
    out.push(("spec".into(), OrderedJson::Object(spec)));
    if let Some(call) = &node.call {
        let return_map = call
            .return_map
            .iter()
            .map(|entry| {
                OrderedJson::Object(vec![
                    ("parentKey".into(), OrderedJson::string(&entry.parent)),
                    ("childKey".into(), OrderedJson::string(&entry.child)),
                ])
            })
            .collect();
        out.push((
            "invokes".into(),
            OrderedJson::Object(vec![
                ("workflowId".into(), OrderedJson::string(&call.workflow)),
                ("returnMap".into(), OrderedJson::Array(return_map)),
            ]),
        ));
    }
    if !node.reads.is_empty() {
        let inputs = node
            .reads
            .iter()
            .map(|read| {
                OrderedJson::Object(vec![
                    ("key".into(), OrderedJson::string(&read.key)),
                    ("required".into(), OrderedJson::Bool(!read.optional)),
                ])
            })
            .collect();
        out.push(("inputs".into(), OrderedJson::Array(inputs)));
    }
    // Keys the spec's rule-agent `writes` lists are read back from there.
    let in_spec = spec_write_keys(node);
    let outputs: Vec<_> = node
        .writes
        .iter()
        .filter(|write| !in_spec.contains(&write.key.as_str()))
        .collect();
    if !outputs.is_empty() {
        let outputs = outputs
            .into_iter()
            .map(|write| {
                OrderedJson::Object(vec![
                    ("key".into(), OrderedJson::string(&write.key)),
                    ("guaranteed".into(), OrderedJson::Bool(true)),
                ])
            })
            .collect();
        out.push(("outputs".into(), OrderedJson::Array(outputs)));
    }
    OrderedJson::Object(out)
}

/// The keys of a node's rule-agent `writes` spec member (`[{"key": k,
/// "value": v}]`), when it has that shape.
fn spec_write_keys(node: &Node) -> Vec<&str> {
    let Some(Value::List(items)) = node
        .attributes
        .iter()
        .find(|a| a.key == "writes")
        .map(|a| &a.value)
    else {
        return Vec::new();
    };
    let mut keys = Vec::new();
    for item in items {
        match item {
            Value::Map(fields) if fields.len() == 2 && fields.iter().any(|(k, _)| k == "value") => {
                match fields.iter().find(|(k, _)| k == "key") {
                    Some((_, Value::String(key))) => keys.push(key.as_str()),
                    _ => return Vec::new(),
                }
            }
            _ => return Vec::new(),
        }
    }
    keys
}

/// Attributes as object members; a repeated key keeps its first value
/// (the checker reports repeats).
fn push_attributes(out: &mut Vec<(String, OrderedJson)>, attributes: &[wf_model::Attribute]) {
    for attr in attributes {
        if !out.iter().any(|(k, _)| *k == attr.key) {
            out.push((attr.key.clone(), value(&attr.value)));
        }
    }
}

/// A model value as JSON. Durations become strings such as `"15m"`;
/// references (bare names) become strings.
pub(crate) fn value(value: &Value) -> OrderedJson {
    match value {
        Value::Null => OrderedJson::Null,
        Value::Bool(b) => OrderedJson::Bool(*b),
        Value::Int(n) => OrderedJson::Int(*n),
        Value::Float(f) if f.is_finite() => OrderedJson::Float(*f),
        // JSON has no infinities or NaN.
        Value::Float(_) => OrderedJson::Null,
        Value::String(s) | Value::Ref(s) => OrderedJson::string(s),
        Value::Duration(ms) => OrderedJson::String(duration(*ms)),
        Value::List(items) => OrderedJson::Array(items.iter().map(self::value).collect()),
        Value::Map(members) => {
            let mut out: Vec<(String, OrderedJson)> = Vec::new();
            for (k, v) in members {
                if !out.iter().any(|(key, _)| key == k) {
                    out.push((k.clone(), self::value(v)));
                }
            }
            OrderedJson::Object(out)
        }
    }
}

/// Milliseconds in the largest unit that divides them exactly.
fn duration(ms: u64) -> String {
    for (unit, size) in [
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1000),
    ] {
        // `u64::is_multiple_of` is newer than the workspace's MSRV.
        #[allow(clippy::manual_is_multiple_of)]
        if ms != 0 && ms % size == 0 {
            return format!("{}{unit}", ms / size);
        }
    }
    format!("{ms}ms")
}

/// Edge ids: the `id` attribute when it is a string, else generated from
/// the endpoints, unique in the workflow.
struct EdgeIds {
    taken: HashSet<String>,
}

impl EdgeIds {
    fn new(workflow: &Workflow) -> Self {
        let taken = workflow
            .edges
            .iter()
            .filter_map(|e| match attribute(e, "id") {
                Some(Value::String(id)) => Some(id.clone()),
                _ => None,
            })
            .collect();
        EdgeIds { taken }
    }

    fn for_edge(&mut self, workflow: &Workflow, edge: &Edge) -> String {
        if let Some(Value::String(id)) = attribute(edge, "id") {
            return id.clone();
        }
        // The IR's scheme (`from->to`, then `#2`, `#3`, …), so a run of the
        // Reflex file reports the same edge ids as a run of the source.
        let base = format!(
            "{}->{}",
            workflow.node(edge.from).name,
            workflow.node(edge.to).name
        );
        let mut id = base.clone();
        let mut n = 2;
        while !self.taken.insert(id.clone()) {
            id = format!("{base}#{n}");
            n += 1;
        }
        id
    }
}

fn attribute<'e>(edge: &'e Edge, key: &str) -> Option<&'e Value> {
    edge.attributes
        .iter()
        .find(|a| a.key == key)
        .map(|a| &a.value)
}

fn emit_edge(workflow: &Workflow, edge: &Edge, ids: &mut EdgeIds) -> Result<OrderedJson, String> {
    let from = &workflow.node(edge.from).name;
    let to = &workflow.node(edge.to).name;
    let id = ids.for_edge(workflow, edge);
    let event = match attribute(edge, "event") {
        Some(Value::String(event)) => event.clone(),
        _ => edge.label.clone().unwrap_or_else(|| "NEXT".into()),
    };
    let mut out = vec![
        ("id".into(), OrderedJson::string(&id)),
        ("from".into(), OrderedJson::string(from)),
        ("to".into(), OrderedJson::string(to)),
        ("event".into(), OrderedJson::string(event)),
    ];
    if let Some(guard) = &edge.guard {
        let json = to_reflex(&guard.expr).map_err(|why| {
            format!(
                "the guard `{}` of the edge `{from} -> {to}` (id `{id}`) has no Reflex equivalent: {why}",
                expr_text(&guard.expr)
            )
        })?;
        out.push(("guard".into(), json));
    }
    Ok(OrderedJson::Object(out))
}
