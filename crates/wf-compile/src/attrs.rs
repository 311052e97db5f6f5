//! Attributes: engine attributes resolved into typed fields, everything
//! else into the opaque spec.
//!
//! Which attributes are engine attributes is the analysis's schema
//! (`wf_analysis::attributes::schema`): aliases fold into their main key
//! (`max_retries` → `retries`, `llm_model` → `model`), in the spec too. An
//! engine attribute set on a node kind where it has no effect (WF0508, a
//! warning) stays in the spec under the key as written. When a key is
//! written twice (WF0009, an error) the first one counts.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value as Json};
use wf_analysis::attributes::schema::{Place, applies_to, lookup};
use wf_model::{Attribute, Edge, Node, Value};

use super::values::to_json;
use super::{CompileError, Cx};
use wf_ir::{Backoff, EngineAttrs, Limits, NodeIdx, StrId, Template, backoff_preset};

/// The workflow-level fields of an [`wf_ir::IrWorkflow`].
pub struct Header {
    pub goal: Option<StrId>,
    pub label: Option<StrId>,
    pub limits: Limits,
    pub retry_target: Option<NodeIdx>,
    pub fallback_retry_target: Option<NodeIdx>,
    pub spec: Map<String, Json>,
    pub templates: BTreeMap<String, Template>,
}

/// Attributes under their main key, first occurrence only, in order.
fn canonical(place: Place, attributes: &[Attribute]) -> Vec<(&str, &Attribute)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for attribute in attributes {
        let key = lookup(place, &attribute.key)
            .and_then(|spec| spec.alias_of)
            .unwrap_or(&attribute.key);
        if seen.insert(key) {
            out.push((key, attribute));
        }
    }
    out
}

/// The spec being built: sorted by key whatever the map type.
#[derive(Default)]
struct Spec(BTreeMap<String, Json>);

impl Spec {
    fn add(&mut self, cx: &Cx, key: &str, attribute: &Attribute) -> Result<(), CompileError> {
        let json = to_json(&attribute.value).map_err(|e| {
            cx.error(
                Some(attribute.value_span),
                format!("attribute `{}`: {}", attribute.key, e.describe()),
            )
        })?;
        self.0.entry(key.to_string()).or_insert(json);
        Ok(())
    }

    fn finish(self) -> Map<String, Json> {
        self.0.into_iter().collect()
    }
}

pub fn workflow_attrs(cx: &mut Cx) -> Result<Header, CompileError> {
    let mut header = Header {
        goal: None,
        label: None,
        limits: Limits::default(),
        retry_target: None,
        fallback_retry_target: None,
        spec: Map::new(),
        templates: BTreeMap::new(),
    };
    let mut spec = Spec::default();
    for (key, a) in canonical(Place::Workflow, &cx.workflow.attributes) {
        if matches!(key, "goal" | "label") || !is_engine(key) {
            let reads = &cx.workflow.interpolated_reads;
            if let Some(t) = cx.template(a, reads)? {
                header.templates.insert(key.to_string(), t);
            }
        }
        let limits = &mut header.limits;
        match key {
            "goal" => header.goal = Some(cx.string(a)?),
            "label" => header.label = Some(cx.string(a)?),
            "max_steps" => limits.max_steps = Some(cx.count(a, 1)?),
            "max_visits" => limits.max_visits = Some(cx.count(a, 1)?),
            "max_depth" => limits.max_depth = Some(cx.count(a, 1)?),
            "wall_clock" => limits.wall_clock_ms = Some(cx.duration(a)?),
            "default_timeout" => limits.default_timeout_ms = Some(cx.duration(a)?),
            "default_retries" => limits.default_retries = Some(cx.small(a, 0)?),
            "retry_target" => header.retry_target = Some(cx.node_ref(a)?),
            "fallback_retry_target" => header.fallback_retry_target = Some(cx.node_ref(a)?),
            // The model keeps `entry` apart; it is the IR's `entry` field.
            "entry" => {}
            _ => spec.add(cx, key, a)?,
        }
    }
    header.spec = spec.finish();
    Ok(header)
}

/// A node's label, spec and engine attributes.
pub struct NodeParts {
    pub label: Option<StrId>,
    pub spec: Map<String, Json>,
    pub engine: EngineAttrs,
    pub templates: BTreeMap<String, Template>,
}

/// An edge's label, weight and spec.
pub struct EdgeParts {
    pub label: Option<StrId>,
    pub weight: i64,
    pub spec: Map<String, Json>,
}

/// A node's label, spec and engine attributes.
pub fn node_attrs(cx: &mut Cx, node: &Node) -> Result<NodeParts, CompileError> {
    let mut label = node.label.as_deref().map(|l| cx.strings.intern(l));
    let mut engine = EngineAttrs::default();
    let mut spec = Spec::default();
    let mut templates = BTreeMap::new();
    for (key, a) in canonical(Place::Node, &node.attributes) {
        if lookup(Place::Node, &a.key).is_some_and(|s| !applies_to(s, node.kind)) {
            spec.add(cx, &a.key, a)?;
            if let Some(t) = cx.template(a, &node.interpolated_reads)? {
                templates.entry(a.key.clone()).or_insert(t);
            }
            continue;
        }
        let templated = matches!(key, "label" | "command") || !is_engine_node(key);
        if templated
            && !(key == "label" && label.is_some())
            && let Some(t) = cx.template(a, &node.interpolated_reads)?
        {
            templates.entry(key.to_string()).or_insert(t);
        }
        let e = &mut engine;
        match key {
            "label" if label.is_none() => label = Some(cx.string(a)?),
            "timeout" => e.timeout_ms = Some(cx.duration(a)?),
            "retries" => e.retries = Some(cx.small(a, 0)?),
            "backoff" => e.backoff = Some(cx.backoff(a)?),
            "allow_partial" => e.allow_partial = cx.boolean(a)?,
            "auto_status" => e.auto_status = cx.boolean(a)?,
            "goal_gate" => e.goal_gate = cx.boolean(a)?,
            "retry_target" => e.retry_target = Some(cx.node_ref(a)?),
            "fallback_retry_target" => e.fallback_retry_target = Some(cx.node_ref(a)?),
            "command" => e.command = Some(cx.string(a)?),
            // Bare or quoted, as the checker accepts it (a choice named by its target).
            "default" => e.default_choice = Some(cx.word(a)?),
            "join_policy" => e.join_policy = Some(cx.word(a)?),
            "error_policy" => e.error_policy = Some(cx.word(a)?),
            "max_parallel" => e.max_parallel = Some(cx.small(a, 1)?),
            "merge" => e.merge = Some(cx.word(a)?),
            _ => spec.add(cx, key, a)?,
        }
    }
    Ok(NodeParts {
        label,
        spec: spec.finish(),
        engine,
        templates,
    })
}

/// Whether a workflow attribute is read by the engine (not in the spec).
fn is_engine(key: &str) -> bool {
    matches!(
        key,
        "goal"
            | "label"
            | "max_steps"
            | "max_visits"
            | "max_depth"
            | "wall_clock"
            | "default_timeout"
            | "default_retries"
            | "retry_target"
            | "fallback_retry_target"
            | "entry"
    )
}

/// Whether a node attribute is read by the engine (not in the spec).
fn is_engine_node(key: &str) -> bool {
    matches!(
        key,
        "label"
            | "timeout"
            | "retries"
            | "backoff"
            | "allow_partial"
            | "auto_status"
            | "goal_gate"
            | "retry_target"
            | "fallback_retry_target"
            | "command"
            | "default"
            | "join_policy"
            | "error_policy"
            | "max_parallel"
            | "merge"
    )
}

/// The `id` attribute of an edge, when it has one.
pub fn explicit_edge_id(cx: &Cx, edge: &Edge) -> Result<Option<String>, CompileError> {
    match edge.attributes.iter().find(|a| a.key == "id") {
        None => Ok(None),
        Some(a) => match &a.value {
            Value::String(s) | Value::Ref(s) if !s.is_empty() => Ok(Some(s.clone())),
            _ => Err(cx.error(
                Some(a.value_span),
                "an edge `id` must be a non-empty string",
            )),
        },
    }
}

/// An edge's label, weight and spec (its `id` is read apart).
pub fn edge_attrs(cx: &mut Cx, edge: &Edge) -> Result<EdgeParts, CompileError> {
    let mut label = edge.label.as_deref().map(|l| cx.strings.intern(l));
    let mut weight = 0;
    let mut spec = Spec::default();
    for (key, a) in canonical(Place::Edge, &edge.attributes) {
        match key {
            "id" => {}
            "label" if label.is_none() => label = Some(cx.string(a)?),
            "weight" => match a.value {
                Value::Int(w) => weight = w,
                _ => return Err(cx.type_error(a, "a whole number")),
            },
            _ => spec.add(cx, key, a)?,
        }
    }
    Ok(EdgeParts {
        label,
        weight,
        spec: spec.finish(),
    })
}

/// Typed readers of attribute values. The checker has verified the types
/// of an error-free model; these still refuse anything else.
impl Cx<'_> {
    fn type_error(&self, a: &Attribute, expected: &str) -> CompileError {
        self.error(
            Some(a.value_span),
            format!("`{}` must be {expected}", a.key),
        )
    }

    fn string(&mut self, a: &Attribute) -> Result<StrId, CompileError> {
        match &a.value {
            Value::String(s) => Ok(self.strings.intern(s)),
            _ => Err(self.type_error(a, "a string")),
        }
    }

    /// An enumeration member, bare or quoted.
    fn word(&mut self, a: &Attribute) -> Result<StrId, CompileError> {
        match &a.value {
            Value::String(s) | Value::Ref(s) => Ok(self.strings.intern(s)),
            _ => Err(self.type_error(a, "a name")),
        }
    }

    fn boolean(&self, a: &Attribute) -> Result<bool, CompileError> {
        match a.value {
            Value::Bool(b) => Ok(b),
            _ => Err(self.type_error(a, "`true` or `false`")),
        }
    }

    fn count(&self, a: &Attribute, min: u64) -> Result<u64, CompileError> {
        match a.value {
            Value::Int(n) if n >= 0 && n as u64 >= min => Ok(n as u64),
            // Worded as the checker words it (`Ty::expected`).
            _ => Err(self.type_error(a, &format!("a whole number of at least {min}"))),
        }
    }

    fn small(&self, a: &Attribute, min: u32) -> Result<u32, CompileError> {
        let n = self.count(a, u64::from(min))?;
        u32::try_from(n).map_err(|_| self.type_error(a, "a whole number below 2^32"))
    }

    fn duration(&self, a: &Attribute) -> Result<u64, CompileError> {
        match a.value {
            Value::Duration(ms) if ms > 0 => Ok(ms),
            _ => Err(self.type_error(a, "a duration longer than zero")),
        }
    }

    fn node_ref(&self, a: &Attribute) -> Result<NodeIdx, CompileError> {
        match &a.value {
            Value::String(name) | Value::Ref(name) => match self.nodes.get(name.as_str()) {
                Some(&n) => Ok(NodeIdx(n.0)),
                None => Err(self.error(
                    Some(a.value_span),
                    format!("`{}` names the unknown node `{name}`", a.key),
                )),
            },
            _ => Err(self.type_error(a, "a node name")),
        }
    }

    fn backoff(&self, a: &Attribute) -> Result<Backoff, CompileError> {
        let expected = "a backoff preset or a map of backoff settings";
        match &a.value {
            Value::String(name) | Value::Ref(name) => {
                backoff_preset(name).ok_or_else(|| self.type_error(a, expected))
            }
            Value::Map(entries) => {
                let mut backoff = Backoff::DEFAULT;
                let mut seen = HashSet::new();
                for (key, value) in entries {
                    if !seen.insert(key.as_str()) {
                        continue;
                    }
                    match (key.as_str(), value) {
                        ("initial_delay", Value::Duration(ms)) => backoff.initial_delay_ms = *ms,
                        ("max_delay", Value::Duration(ms)) => backoff.max_delay_ms = *ms,
                        ("factor", Value::Int(n)) if *n >= 1 => backoff.factor = *n as f64,
                        ("factor", Value::Float(x)) if x.is_finite() && *x >= 1.0 => {
                            backoff.factor = *x;
                        }
                        ("jitter", Value::Bool(b)) => backoff.jitter = *b,
                        _ => {
                            return Err(self.error(
                                Some(a.value_span),
                                format!("`{}` has an invalid setting `{key}`", a.key),
                            ));
                        }
                    }
                }
                Ok(backoff)
            }
            _ => Err(self.type_error(a, expected)),
        }
    }
}
