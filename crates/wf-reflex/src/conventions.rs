//! Conventions layered on the opaque parts of a Reflex document, so that
//! what they say reaches the checks (see `docs/reflex.md`):
//!
//! - the Reflex rule-agent's `"writes": [{"key", "value"}]` spec member
//!   (the corpus fixtures use it) also declares contract writes;
//! - a `"kind"` spec member naming a `.wf` node kind other than `call`
//!   gives the node that kind (what `wfc build --emit reflex` writes for
//!   `human`, `tool`, `exit`, … nodes);
//! - engine attributes that take a duration (`timeout`; `wall_clock` and
//!   `default_timeout` in `metadata`) accept a string duration literal
//!   (`"15m"`), as JSON has no duration values.

use wf_diagnostics::Span;
use wf_model::{Attribute, KeyDecl, Node, NodeKind, Value};

use crate::json::{Json, JsonKind, Member};
use crate::schema::{Reader, inner};

/// Node attributes that take a duration.
pub(crate) const NODE_DURATIONS: &[&str] = &["timeout"];
/// Workflow attributes that take a duration.
pub(crate) const WORKFLOW_DURATIONS: &[&str] = &["wall_clock", "default_timeout"];

/// The node kinds a `"kind"` spec member may name (`call` comes from
/// `invokes` only).
const KINDS: &[NodeKind] = &[
    NodeKind::Step,
    NodeKind::Human,
    NodeKind::Tool,
    NodeKind::Branch,
    NodeKind::Parallel,
    NodeKind::Join,
    NodeKind::Exit,
];

/// Applies a `"kind"` spec member: a node that does not invoke anything
/// takes the kind it names, and the member is consumed. Any other `kind`
/// stays an ordinary spec member.
pub(crate) fn node_kind(node: &mut Node) {
    if node.call.is_some() {
        return;
    }
    let Some(at) = node.attributes.iter().position(|a| a.key == "kind") else {
        return;
    };
    let Value::String(name) = &node.attributes[at].value else {
        return;
    };
    if let Some(&kind) = KINDS.iter().find(|k| k.as_str() == name) {
        node.kind = kind;
        node.attributes.remove(at);
    }
}

/// The `"kind"` member `emit` writes for a node of this kind, if any.
pub(crate) fn kind_member(kind: NodeKind) -> Option<&'static str> {
    match kind {
        NodeKind::Step | NodeKind::Call => None,
        other => Some(other.as_str()),
    }
}

/// Turns string values of the named duration attributes that are duration
/// literals (`"250ms"`, `"15s"`, `"15m"`, `"2h"`, `"1d"`) into durations.
pub(crate) fn type_durations(attributes: &mut [Attribute], keys: &[&str]) {
    for attr in attributes {
        let ms = match &attr.value {
            Value::String(text) if keys.contains(&attr.key.as_str()) => duration_literal(text),
            _ => None,
        };
        if let Some(ms) = ms {
            attr.value = Value::Duration(ms);
        }
    }
}

/// A `.wf` duration literal: digits and one unit of `ms`, `s`, `m`, `h`,
/// `d`; `None` for anything else or on overflow.
pub(crate) fn duration_literal(text: &str) -> Option<u64> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let scale: u64 = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(scale)
}

/// The Reflex rule-agent convention `"writes": [{"key": k, "value": v}, …]`
/// in a node spec: the node writes those keys whenever it runs, so they are
/// contract writes too (typed by their values; `outputs` that repeat them
/// add nothing). The spec member stays an ordinary attribute for the agent.
/// A `writes` member of another shape is the spec's own business.
pub(crate) fn spec_writes_as_contract(reader: &Reader, spec: &Json, writes: &mut Vec<KeyDecl>) {
    for (key, span, value) in spec_writes(spec) {
        if writes.iter().any(|w| w.key == key) {
            continue;
        }
        let ty = match value.kind {
            JsonKind::Null => None,
            JsonKind::Bool(_) => Some("bool"),
            JsonKind::Int(_) => Some("int"),
            JsonKind::Float(_) => Some("float"),
            JsonKind::String(_) => Some("string"),
            JsonKind::Array(_) => Some("list"),
            JsonKind::Object(_) => Some("map"),
        };
        writes.push(KeyDecl {
            key: key.to_string(),
            ty: ty.map(str::to_string),
            span: reader.at(inner(span)),
            ty_span: None,
        });
    }
}

/// The `{key, value}` items of a spec's rule-agent `writes` member, when it
/// has exactly that shape.
pub(crate) fn spec_writes(spec: &Json) -> Vec<(&str, Span, &Json)> {
    let JsonKind::Object(members) = &spec.kind else {
        return Vec::new();
    };
    let Some(Member {
        value: Json {
            kind: JsonKind::Array(items),
            ..
        },
        ..
    }) = members.iter().find(|m| m.key == "writes")
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let JsonKind::Object(fields) = &item.kind else {
            return Vec::new();
        };
        let key = fields.iter().find(|f| f.key == "key");
        let value = fields.iter().find(|f| f.key == "value");
        match (key, value) {
            (
                Some(Member {
                    value:
                        Json {
                            kind: JsonKind::String(k),
                            span,
                        },
                    ..
                }),
                Some(v),
            ) if fields.len() == 2 => out.push((k.as_str(), *span, &v.value)),
            _ => return Vec::new(),
        }
    }
    out
}
