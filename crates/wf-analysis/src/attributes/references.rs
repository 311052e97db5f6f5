//! Attributes that name something in the graph: WF0505 unknown retry target
//! and WF0506 a `human` node's default that matches none of its choices.

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Applicability, Diagnostic, FileSpan, Fix, codes};
use wf_model::{Attribute, Node, NodeId, NodeKind, Value, Workflow};

use crate::graph::{Adjacency, accelerator_key};
use crate::suggest::{SuggestionIndex, best_match, name_source_text};
use crate::text::string_literal;

/// How many choices a WF0506 diagnostic labels.
const MAX_CHOICE_LABELS: usize = 8;

/// The text of a name-valued attribute: a bare name or a string.
pub fn name_of(value: &Value) -> Option<&str> {
    match value {
        Value::Ref(name) | Value::String(name) => Some(name),
        _ => None,
    }
}

/// `name` written back the way the attribute wrote its value: bare when
/// the value was bare and the name allows it, quoted otherwise.
fn written_like(attribute: &Attribute, name: &str) -> String {
    match attribute.value {
        Value::Ref(_) => name_source_text(name),
        _ => string_literal(name),
    }
}

fn replace_fix(attribute: &Attribute, name: &str) -> Fix {
    let replacement = written_like(attribute, name);
    Fix::replace(
        format!("replace with `{replacement}`"),
        attribute.value_span,
        replacement,
        Applicability::MaybeIncorrect,
    )
}

/// Node look-ups for one workflow, built on first use so that workflows
/// without retry targets pay nothing: O(nodes) once, then O(1) per look-up
/// (and near-constant per suggestion, see [`SuggestionIndex`]).
pub struct Nodes<'w> {
    workflow: &'w Workflow,
    index: Option<HashMap<&'w str, NodeId>>,
    suggestions: Option<SuggestionIndex<'w>>,
}

impl<'w> Nodes<'w> {
    /// Look-ups into `workflow`.
    pub fn new(workflow: &'w Workflow) -> Self {
        Nodes {
            workflow,
            index: None,
            suggestions: None,
        }
    }

    fn contains(&mut self, name: &str) -> bool {
        let workflow = self.workflow;
        self.index
            .get_or_insert_with(|| workflow.node_index())
            .contains_key(name)
    }

    fn suggest(&mut self, name: &str) -> Option<&'w str> {
        let workflow = self.workflow;
        self.suggestions
            .get_or_insert_with(|| {
                SuggestionIndex::new(workflow.nodes.iter().map(|n| n.name.as_str()))
            })
            .suggest(name)
    }
}

/// WF0505 when `attribute` (a `retry_target` or `fallback_retry_target`)
/// names no node of the workflow. Silent for an incomplete workflow, whose
/// missing node may be one that failed to parse.
pub fn retry_target(nodes: &mut Nodes, attribute: &Attribute) -> Option<Diagnostic> {
    let name = name_of(&attribute.value)?;
    if nodes.workflow.incomplete || nodes.contains(name) {
        return None;
    }
    let workflow = nodes.workflow;
    let diagnostic = Diagnostic::new(
        &codes::UNKNOWN_RETRY_TARGET,
        format!(
            "`{}` names unknown node `{name}` in workflow `{}`",
            attribute.key, workflow.name
        ),
        attribute.value_span,
    )
    .with_primary_label(format!("no node named `{name}`"));
    Some(match nodes.suggest(name) {
        Some(suggestion) => diagnostic
            .with_help(format!("did you mean `{suggestion}`?"))
            .with_fix(replace_fix(attribute, suggestion)),
        None => diagnostic.with_help(format!(
            "name a node of workflow `{}`, or remove the attribute",
            workflow.name
        )),
    })
}

/// WF0506 for every `human` node whose `default` matches none of its
/// choices: the labels of its outgoing edges, or their targets' names (as
/// in Attractor). Nodes without choices are left to WF0208.
/// O(nodes + edges) for the adjacency, built only when some node has a
/// default, then O(choices) per default.
pub fn human_defaults<'w>(
    workflow: &'w Workflow,
    defaults: &[(NodeId, &'w Attribute)],
    out: &mut Vec<Diagnostic>,
) {
    if defaults.is_empty() || workflow.incomplete {
        return;
    }
    let adjacency = Adjacency::new(workflow);
    for &(id, attribute) in defaults {
        let Some(written) = name_of(&attribute.value) else {
            continue;
        };
        let choices: Vec<(&str, FileSpan)> = adjacency
            .outgoing(id)
            .iter()
            .map(|&e| {
                let edge = workflow.edge(e);
                match (&edge.label, edge.label_span) {
                    (Some(label), Some(span)) => (label.as_str(), span),
                    _ => (workflow.node(edge.to).name.as_str(), edge.to_span),
                }
            })
            .collect();
        // Attractor's default names the target node, `.wf`'s the label:
        // either is accepted.
        let names_target = adjacency
            .successors(id)
            .iter()
            .any(|&to| workflow.node(to).name == written);
        if choices.is_empty() || names_target || choices.iter().any(|(text, _)| *text == written) {
            continue;
        }
        out.push(unknown_default(workflow, id, attribute, written, &choices));
    }
}

fn unknown_default(
    workflow: &Workflow,
    id: NodeId,
    attribute: &Attribute,
    written: &str,
    choices: &[(&str, FileSpan)],
) -> Diagnostic {
    let node = workflow.node(id);
    let mut diagnostic = Diagnostic::new(
        &codes::UNKNOWN_DEFAULT_CHOICE,
        format!(
            "default `{written}` of human node `{}` matches none of its choices",
            node.name
        ),
        attribute.value_span,
    )
    .with_primary_label("no choice has this label");
    for &(text, span) in choices.iter().take(MAX_CHOICE_LABELS) {
        diagnostic = diagnostic.with_label(span, format!("choice `{text}`"));
    }
    let suggestion = by_accelerator(written, choices)
        .or_else(|| best_match(written, choices.iter().map(|(text, _)| *text)));
    match suggestion {
        Some(choice) => diagnostic
            .with_help(format!("did you mean `{choice}`?"))
            .with_fix(replace_fix(attribute, choice)),
        None => diagnostic.with_help(
            "the default must be the exact label of an outgoing edge, or the name of its target",
        ),
    }
}

/// The one choice whose accelerator key `written` is, when `written` is
/// only a key (`"R"`, `"[R]"`).
fn by_accelerator<'c>(written: &str, choices: &[(&'c str, FileSpan)]) -> Option<&'c str> {
    let trimmed = written.trim();
    let bare = match trimmed.strip_prefix('[') {
        Some(rest) => rest.strip_suffix(']')?,
        None => trimmed,
    };
    let is_key =
        !bare.is_empty() && bare.chars().count() <= 8 && bare.chars().all(char::is_alphanumeric);
    if !is_key {
        return None;
    }
    let key = bare.to_uppercase();
    let mut matching = choices
        .iter()
        .filter(|(text, _)| accelerator_key(text).as_deref() == Some(key.as_str()));
    let first = matching.next()?;
    matching.next().is_none().then_some(first.0)
}

/// WF0530 when `attribute` (a node's `compensate`) names a node that is not
/// a `tool` node, or `owner` itself. An unknown name is WF0505's.
pub fn compensation(nodes: &mut Nodes, owner: &Node, attribute: &Attribute) -> Option<Diagnostic> {
    let name = name_of(&attribute.value)?;
    if nodes.workflow.incomplete || !nodes.contains(name) {
        return None;
    }
    let target = nodes.workflow.nodes.iter().find(|n| n.name == name)?;
    let why = if target.name == owner.name {
        "a node cannot compensate itself: running it again would repeat the effect".to_owned()
    } else if target.kind != NodeKind::Tool {
        format!(
            "`{name}` is a `{}` node; the engine runs only a `tool` node's command to undo an effect",
            target.kind.as_str()
        )
    } else {
        return None;
    };
    Some(
        Diagnostic::new(
            &codes::INVALID_COMPENSATION,
            format!("`{}` cannot compensate node `{}`", name, owner.name),
            attribute.value_span,
        )
        .with_primary_label(why)
        .with_help(format!(
            "name a `tool` node of workflow `{}` whose command undoes the effect of `{}`",
            nodes.workflow.name, owner.name
        )),
    )
}
