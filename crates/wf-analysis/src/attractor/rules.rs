//! The Attractor lint rules (spec section 7.2) that no `.wf` check already
//! implements: `start_node` (several starts), `type_known`,
//! `goal_gate_has_retry` and `prompt_on_llm_nodes`.

use wf_diagnostics::{Applicability, Diagnostic, Fix, codes};
use wf_model::{Attribute, Node, NodeKind, Value, Workflow};

use crate::graph::GraphFacts;
use crate::suggest::best_match;

/// The handler types of the Attractor handler registry (spec section 4.2).
pub const HANDLER_TYPES: &[&str] = &[
    "start",
    "exit",
    "codergen",
    "wait.human",
    "conditional",
    "parallel",
    "parallel.fan_in",
    "tool",
    "stack.manager_loop",
];

/// The text of attribute `key`, when it is a string or a bare word.
pub fn text<'a>(attributes: &'a [Attribute], key: &str) -> Option<&'a str> {
    attributes
        .iter()
        .rev()
        .find(|a| a.key == key)
        .and_then(|a| match &a.value {
            Value::String(s) | Value::Ref(s) => Some(s.as_str()),
            _ => None,
        })
}

fn attribute<'a>(attributes: &'a [Attribute], key: &str) -> Option<&'a Attribute> {
    attributes.iter().rev().find(|a| a.key == key)
}

/// The handler type a node runs (spec section 4.2): its `type` when set,
/// else its shape's, else `codergen`.
pub fn handler(node: &Node) -> &str {
    wf_dot::handler_type(
        text(&node.attributes, "shape"),
        text(&node.attributes, "type"),
    )
}

fn non_empty(attributes: &[Attribute], key: &str) -> bool {
    text(attributes, key).is_some_and(|s| !s.trim().is_empty())
}

fn is_true(attribute: Option<&Attribute>) -> bool {
    match attribute.map(|a| &a.value) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s) | Value::Ref(s)) => s.trim().eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// Every diagnostic of these rules for `workflow`.
pub fn check(workflow: &Workflow, facts: &GraphFacts) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    multiple_starts(workflow, &mut out);
    let entry = facts.entry.node().map(|n| n.index());
    let graph_retry = non_empty(&workflow.attributes, "retry_target")
        || non_empty(&workflow.attributes, "fallback_retry_target");
    for (i, node) in workflow.nodes.iter().enumerate() {
        type_known(node, &mut out);
        if is_true(attribute(&node.attributes, "goal_gate"))
            && !graph_retry
            && !non_empty(&node.attributes, "retry_target")
            && !non_empty(&node.attributes, "fallback_retry_target")
        {
            let gate =
                attribute(&node.attributes, "goal_gate").map_or(node.name_span, |a| a.key_span);
            out.push(
                Diagnostic::new(
                    &codes::ATTRACTOR_GOAL_GATE_NO_RETRY,
                    format!("goal gate `{}` has no retry target", node.name),
                    gate,
                )
                .with_primary_label("if this gate fails, the run fails at the exit")
                .with_help(format!(
                    "add `retry_target=<node>` to `{}` (or to the graph) to go back and repair",
                    node.name
                )),
            );
        }
        if handler(node) == "codergen"
            && Some(i) != entry
            && node.kind != NodeKind::Exit
            && node.label.as_deref().is_none_or(|l| l.trim().is_empty())
            && !non_empty(&node.attributes, "prompt")
        {
            let what = if node.implicit {
                "only appears in edges, so it is an LLM node"
            } else {
                "runs the LLM handler"
            };
            out.push(
                Diagnostic::new(
                    &codes::ATTRACTOR_MISSING_PROMPT,
                    format!("LLM node `{}` has neither `prompt` nor `label`", node.name),
                    node.name_span,
                )
                .with_primary_label(format!("`{}` {what}", node.name))
                .with_help(
                    "add `prompt=\"...\"`, or the `shape` of the handler it is meant to run (`shape=Msquare` for an exit)",
                ),
            );
        }
    }
    out
}

/// `start_node` with more than one start: WF0801 on each extra one.
fn multiple_starts(workflow: &Workflow, out: &mut Vec<Diagnostic>) {
    let starts: Vec<&Node> = workflow
        .nodes
        .iter()
        .filter(|n| handler(n) == "start")
        .collect();
    let Some((first, rest)) = starts.split_first() else {
        return;
    };
    for extra in rest {
        out.push(
            Diagnostic::new(
                &codes::ATTRACTOR_MULTIPLE_STARTS,
                format!(
                    "pipeline `{}` has a second start node `{}`",
                    workflow.name, extra.name
                ),
                extra.name_span,
            )
            .with_primary_label("another start node")
            .with_label(
                first.name_span,
                format!("`{}` is the start node", first.name),
            )
            .with_help("keep exactly one start node (`shape=Mdiamond`) and route from it"),
        );
    }
}

/// `type_known`: WF0802 when `type` names no registered handler.
fn type_known(node: &Node, out: &mut Vec<Diagnostic>) {
    let Some(attr) = attribute(&node.attributes, "type") else {
        return;
    };
    let Some(ty) = text(&node.attributes, "type").map(str::trim) else {
        return;
    };
    if ty.is_empty() || HANDLER_TYPES.contains(&ty) {
        return;
    }
    let diagnostic = Diagnostic::new(
        &codes::ATTRACTOR_UNKNOWN_TYPE,
        format!("`{ty}` is not an Attractor handler type"),
        attr.value_span,
    )
    .with_primary_label("no built-in handler has this type");
    // A near miss is likelier a typo, but may still be a custom handler:
    // both helps say how to run one, with the type as written.
    let custom = format!("a custom type runs with `wfc run --handler {ty}=exec:COMMAND`");
    out.push(match best_match(ty, HANDLER_TYPES.iter().copied()) {
        Some(s) => diagnostic.with_help(format!("did you mean `{s}`? ({custom})")),
        None => diagnostic.with_help(format!(
            "built-in types: {}; {custom}",
            HANDLER_TYPES.join(", ")
        )),
    });
}

/// `start_node` and `terminal_node` as Attractor resolves them (by shape or
/// `type`, then by id), where the `.wf` rules (the only root node; any node
/// without outgoing edges) would accept a pipeline the engines reject:
/// WF0202 when no start node exists, WF0204 when no exit node exists,
/// unless `existing` already reports it.
pub fn missing_start_or_exit(workflow: &Workflow, existing: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if workflow.incomplete || workflow.nodes.is_empty() {
        return out;
    }
    let reported =
        |code: &wf_diagnostics::Code| existing.iter().any(|d| std::ptr::eq(d.code, code));
    if workflow.entry.is_none()
        && !reported(&codes::MISSING_ENTRY)
        && !reported(&codes::AMBIGUOUS_ENTRY)
    {
        out.push(
            Diagnostic::new(
                &codes::MISSING_ENTRY,
                format!("pipeline `{}` has no start node", workflow.name),
                workflow.name_span,
            )
            .with_primary_label("no node has `shape=Mdiamond`, and none is named `start`")
            .with_help("add `start [shape=Mdiamond]` and an edge from it to the first stage"),
        );
    }
    if !workflow.nodes.iter().any(|n| n.kind == NodeKind::Exit) && !reported(&codes::NO_TERMINAL) {
        out.push(
            Diagnostic::new(
                &codes::NO_TERMINAL,
                format!("pipeline `{}` has no exit node", workflow.name),
                workflow.name_span,
            )
            .with_primary_label("no node has `shape=Msquare`, and none is named `exit` or `end`")
            .with_help("add `exit [shape=Msquare]` and an edge to it from the last stage"),
        );
    }
    out
}

/// WF0820: a node that is not an exit and has no outgoing edge. Engines
/// end the run there as if it had completed (seed 3.2, step 6), so the
/// pipeline "completes" without reaching its exit. A human gate without
/// edges is WF0208's, and a node no run reaches is WF0205's: neither is
/// reported again (nor anything when the start is unresolved).
pub fn dead_ends(workflow: &Workflow, facts: &GraphFacts) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let Some(reachable) = facts.reachable.as_deref().filter(|_| !workflow.incomplete) else {
        return out;
    };
    let mut has_outgoing = vec![false; workflow.nodes.len()];
    for e in &workflow.edges {
        if let Some(slot) = has_outgoing.get_mut(e.from.index()) {
            *slot = true;
        }
    }
    for ((node, _), _) in workflow
        .nodes
        .iter()
        .zip(&has_outgoing)
        .zip(reachable)
        .filter(|((n, out), seen)| {
            **seen && !**out && !matches!(n.kind, NodeKind::Exit | NodeKind::Human)
        })
    {
        out.push(
            Diagnostic::new(
                &codes::ATTRACTOR_DEAD_END,
                format!("`{}` is a dead end: no edge leaves it, and it is not an exit", node.name),
                node.name_span,
            )
            .with_primary_label("a run that reaches this node stops here, short of an exit")
            .with_help(format!(
                "add an edge from `{}` to the next stage or to the exit, or make it an exit with `shape=Msquare`",
                node.name
            )),
        );
    }
    out
}

/// WF0807: the start node, or an exit node, found by its id while its
/// `shape` or `type` (its own or a default's) names another handler.
/// Engines that pick the handler by shape run that handler there (an LLM
/// call for `box`), where `wfc run` runs the start or exit.
pub fn start_exit_handlers(workflow: &Workflow) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let entry = workflow.entry.as_ref().map(|(name, _)| name.as_str());
    for node in &workflow.nodes {
        let role = if Some(node.name.as_str()) == entry {
            "start"
        } else if node.kind == NodeKind::Exit {
            "exit"
        } else {
            continue;
        };
        let runs = handler(node);
        if runs == role {
            continue;
        }
        // A node with neither attribute is the plain `start` or `exit` the
        // spec resolves by id; only a written shape or type says otherwise.
        let written = attribute(&node.attributes, "type")
            .filter(|a| text(std::slice::from_ref(a), "type").is_some_and(|t| !t.trim().is_empty()))
            .or_else(|| attribute(&node.attributes, "shape"));
        let Some(attr) = written else {
            continue;
        };
        let (key, shape) = (
            attr.key.as_str(),
            if role == "start" {
                "Mdiamond"
            } else {
                "Msquare"
            },
        );
        let value = text(std::slice::from_ref(attr), key).unwrap_or_default();
        let mut d = Diagnostic::new(
            &codes::ATTRACTOR_START_EXIT_HANDLER,
            format!(
                "the {role} node `{}` has `{key}={value}`, which runs the `{runs}` handler",
                node.name
            ),
            node.name_span,
        )
        .with_primary_label(format!("the {role} node, found by its id"))
        .with_label(
            attr.value_span,
            format!("engines that go by the {key} run `{runs}` here"),
        )
        .with_help(if key == "type" {
            format!("write `type=\"{role}\"`, or remove the `type`")
        } else {
            format!("write `shape={shape}`")
        });
        // Only the node's own attribute is rewritten: a default's
        // (`node [shape=box]`) applies to other nodes too.
        if within(node.span, attr.value_span) {
            let by = if key == "type" {
                format!("\"{role}\"")
            } else {
                shape.to_string()
            };
            d = d.with_fix(Fix::replace(
                format!("write `{key}={by}`"),
                attr.value_span,
                by,
                Applicability::MaybeIncorrect,
            ));
        } else if !node.implicit && key == "shape" {
            // A statement of its own sets the shape on this node alone.
            let at = wf_diagnostics::FileSpan {
                file: node.span.file,
                span: wf_diagnostics::Span::new(
                    node.span.span.end as usize,
                    node.span.span.end as usize,
                ),
            };
            d = d.with_fix(Fix::replace(
                format!("add `shape={shape}` to `{}`", node.name),
                at,
                format!("\n  {} [shape={shape}]", node.name),
                Applicability::MaybeIncorrect,
            ));
        }
        out.push(d);
    }
    out
}

/// Whether `inner` lies within `outer` (same file).
fn within(outer: wf_diagnostics::FileSpan, inner: wf_diagnostics::FileSpan) -> bool {
    outer.file == inner.file
        && outer.span.start <= inner.span.start
        && inner.span.end <= outer.span.end
}
