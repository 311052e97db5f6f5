//! The rules of fabro-validate that the Attractor spec does not have, each
//! with its own code (`docs/attractor.md` lists which of fabro's rules wfc
//! has, and why it leaves out the others):
//!
//! - `all_conditional_edges` (WF0810): only when no edge is sure to be
//!   taken after a success, and the conditions are not complementary;
//! - `orphan_custom_outcome` (WF0811): as the issue of a custom outcome the
//!   node's own prompt asks for, which no edge can take;
//! - `reserved_keyword_node_id` (WF0812), `script_absolute_cd` (WF0813)
//!   and `thread_id_requires_fidelity_full` (WF0814).

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{BinOp, Edge, Expr, Node, Value, Workflow};

use super::rules::{handler, text};
use super::typos::STATUSES;

/// Every diagnostic of these rules for `workflow`.
pub fn check(workflow: &Workflow) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut outgoing: Vec<Vec<&Edge>> = vec![Vec::new(); workflow.nodes.len()];
    for edge in &workflow.edges {
        if let Some(from) = outgoing.get_mut(edge.from.index()) {
            from.push(edge);
        }
    }
    for (node, edges) in workflow.nodes.iter().zip(&outgoing) {
        reserved_id(node, &mut out);
        absolute_cd(node, &mut out);
        if edges.is_empty() || handler(node) == "parallel" {
            // A fan-out runs every branch: its edges do not route.
            continue;
        }
        no_fallback(node, edges, &mut out);
        unhandled_outcomes(node, edges, &mut out);
    }
    threads(workflow, &mut out);
    out
}

/// Three-valued truth: a condition may depend on what no check knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tri {
    True,
    False,
    Unknown,
}

/// The status a value names, peers' spellings folded in exactly as the
/// runtime folds them (`wf_ir::peer_status`: `succeeded` is `success`;
/// case matters, `FAIL` is no status, and WF0805 says so).
fn status(value: &str) -> &str {
    wf_ir::peer_status(value).unwrap_or(value)
}

/// What `expr` is when the node's outcome is `outcome`, whatever the
/// context holds.
fn eval(expr: &Expr, outcome: &str) -> Tri {
    match expr {
        Expr::Binary(l, BinOp::And, r, _) => match (eval(l, outcome), eval(r, outcome)) {
            (Tri::False, _) | (_, Tri::False) => Tri::False,
            (Tri::True, Tri::True) => Tri::True,
            _ => Tri::Unknown,
        },
        Expr::Binary(l, BinOp::Or, r, _) => match (eval(l, outcome), eval(r, outcome)) {
            (Tri::True, _) | (_, Tri::True) => Tri::True,
            (Tri::False, Tri::False) => Tri::False,
            _ => Tri::Unknown,
        },
        Expr::Not(e, _) => match eval(e, outcome) {
            Tri::True => Tri::False,
            Tri::False => Tri::True,
            Tri::Unknown => Tri::Unknown,
        },
        Expr::Binary(l, op @ (BinOp::Eq | BinOp::Ne), r, _) => match (&**l, &**r) {
            (Expr::Name(n, _), Expr::Literal(Value::String(v), _)) if n == "outcome" => {
                let same = status(v) == outcome;
                if same == (*op == BinOp::Eq) {
                    Tri::True
                } else {
                    Tri::False
                }
            }
            _ => Tri::Unknown,
        },
        _ => Tri::Unknown,
    }
}

/// What an edge's condition is for `outcome` (no condition: true).
fn edge_holds(edge: &Edge, outcome: &str) -> Tri {
    edge.guard
        .as_ref()
        .map_or(Tri::True, |g| eval(&g.expr, outcome))
}

fn has_error(expr: &Expr) -> bool {
    match expr {
        Expr::Error(_) => true,
        Expr::Binary(l, _, r, _) => has_error(l) || has_error(r),
        Expr::Not(e, _) => has_error(e),
        _ => false,
    }
}

/// The clauses of a condition that is a conjunction of `key=value` and
/// `key!=value` on context keys: (key, is `=`, value).
fn clauses(expr: &Expr, out: &mut Vec<(String, bool, String)>) -> bool {
    match expr {
        Expr::Binary(l, BinOp::And, r, _) => clauses(l, out) && clauses(r, out),
        Expr::Binary(l, op @ (BinOp::Eq | BinOp::Ne), r, _) => match (&**l, &**r) {
            (Expr::Key(k, _), Expr::Literal(Value::String(v), _)) => {
                out.push((k.clone(), *op == BinOp::Eq, v.clone()));
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// Whether the edges' conditions on one context key cover every value:
/// `k!=a && k!=b` on one edge, `k=a` and `k=b` on others (`k!=a` and
/// `k=a` is the smallest case).
fn complementary(edges: &[&Edge]) -> bool {
    let parsed: Vec<Vec<(String, bool, String)>> = edges
        .iter()
        .filter_map(|e| {
            let mut out = Vec::new();
            (clauses(&e.guard.as_ref()?.expr, &mut out) && !out.is_empty()).then_some(out)
        })
        .collect();
    parsed.iter().any(|rest| {
        let key = &rest[0].0;
        rest.iter().all(|(k, eq, _)| k == key && !eq)
            && rest.iter().all(|(_, _, v)| {
                parsed
                    .iter()
                    .any(|c| c.len() == 1 && c[0].0 == *key && c[0].1 && c[0].2 == *v)
            })
    })
}

/// WF0810: every outgoing edge is conditional, none is sure to hold when
/// the node succeeds, and the conditions are not complementary.
fn no_fallback(node: &Node, edges: &[&Edge], out: &mut Vec<Diagnostic>) {
    // A condition that does not parse is reported as such already.
    if edges
        .iter()
        .any(|e| e.guard.is_none() || e.guard.as_ref().is_some_and(|g| has_error(&g.expr)))
        || edges.iter().any(|e| edge_holds(e, "success") == Tri::True)
        || complementary(edges)
    {
        return;
    }
    let mut d = Diagnostic::new(
        &codes::ATTRACTOR_NO_FALLBACK_EDGE,
        format!(
            "every edge out of `{}` is conditional, and none is sure to be taken",
            node.name
        ),
        node.name_span,
    )
    .with_primary_label("when no condition holds, the engine takes an edge anyway");
    for edge in edges.iter().take(3) {
        if let Some(guard) = &edge.guard {
            d = d.with_label(guard.span, "conditional");
        }
    }
    out.push(
        d.with_note("with no condition holding, the edge with the highest weight is taken (spec section 3.3)")
            .with_help("remove the condition of the edge to take otherwise, or add an unconditional edge"),
    );
}

/// The custom outcomes a node's own prompt asks for: every `outcome=X`
/// (or `outcome: X`) in its `prompt` and label whose `X` is not a status.
fn asked_outcomes(node: &Node) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let texts = text(&node.attributes, "prompt")
        .into_iter()
        .chain(node.label.as_deref());
    for t in texts {
        for (i, _) in t.match_indices("outcome") {
            if t[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
            {
                continue;
            }
            let rest = t[i + "outcome".len()..].trim_start();
            let Some(rest) = rest.strip_prefix(['=', ':']) else {
                continue;
            };
            let rest = rest.trim_start().trim_start_matches(['"', '\'', '`']);
            let value: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let custom = !value.is_empty()
                && !STATUSES.contains(&value.as_str())
                && wf_ir::peer_status(&value).is_none();
            if custom && !found.contains(&value) {
                found.push(value);
            }
        }
    }
    found
}

/// WF0811: a custom outcome the node's prompt asks for that no outgoing
/// edge can be taken with.
fn unhandled_outcomes(node: &Node, edges: &[&Edge], out: &mut Vec<Diagnostic>) {
    for outcome in asked_outcomes(node) {
        if edges.iter().any(|e| edge_holds(e, &outcome) != Tri::False) {
            continue;
        }
        let at = node
            .attributes
            .iter()
            .rev()
            .find(|a| a.key == "prompt")
            .map_or(node.name_span, |a| a.value_span);
        out.push(
            Diagnostic::new(
                &codes::ATTRACTOR_UNHANDLED_OUTCOME,
                format!(
                    "`{}` may report `outcome={outcome}`, which none of its edges handles",
                    node.name
                ),
                node.name_span,
            )
            .with_primary_label(format!(
                "no edge from `{}` can be taken with this outcome",
                node.name
            ))
            .with_label(at, format!("the prompt asks for `outcome={outcome}`"))
            .with_help(format!(
                "add an edge with `condition=\"outcome={outcome}\"`, or an unconditional one"
            )),
        );
    }
}

/// The DOT keywords (case-insensitive in DOT).
const DOT_KEYWORDS: &[&str] = &["graph", "digraph", "subgraph", "node", "edge", "strict"];

/// WF0812: a node id that is a DOT keyword.
fn reserved_id(node: &Node, out: &mut Vec<Diagnostic>) {
    let lower = node.name.to_ascii_lowercase();
    if !DOT_KEYWORDS.contains(&lower.as_str()) {
        return;
    }
    out.push(
        Diagnostic::new(
            &codes::ATTRACTOR_RESERVED_NODE_ID,
            format!("node id `{}` is a DOT keyword", node.name),
            node.name_span,
        )
        .with_primary_label("Graphviz and most parsers read this as the keyword")
        .with_help(format!("rename the node, such as `{lower}_step`")),
    );
}

/// WF0813: a tool command that runs `cd /…`.
fn absolute_cd(node: &Node, out: &mut Vec<Diagnostic>) {
    if handler(node) != "tool" {
        return;
    }
    let Some(attr) = node
        .attributes
        .iter()
        .rev()
        .find(|a| matches!(a.key.as_str(), "tool_command" | "script"))
    else {
        return;
    };
    let Value::String(command) = &attr.value else {
        return;
    };
    if !cd_absolute(command) {
        return;
    }
    out.push(
        Diagnostic::new(
            &codes::ATTRACTOR_ABSOLUTE_CD,
            format!(
                "the command of `{}` changes to an absolute directory",
                node.name
            ),
            attr.value_span,
        )
        .with_primary_label("`cd /…`")
        .with_help("use a path relative to the run's working directory"),
    );
}

/// Whether a shell command has a `cd` (a word of its own) whose argument
/// starts with `/`.
fn cd_absolute(command: &str) -> bool {
    command.match_indices("cd").any(|(i, _)| {
        let before = command[..i].chars().next_back();
        let word_start =
            before.is_none_or(|c| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | '{'));
        let rest = &command[i + 2..];
        word_start && rest.starts_with(char::is_whitespace) && rest.trim_start().starts_with('/')
    })
}

/// Whether attribute `key` of `attributes` is the fidelity `full`.
fn full(attributes: &[wf_model::Attribute], key: &str) -> bool {
    text(attributes, key).is_some_and(|f| f.trim() == "full")
}

/// WF0814: a `thread_id` where the fidelity that applies is not `full`
/// (the node's, an incoming edge's, or the graph's `default_fidelity`).
fn threads(workflow: &Workflow, out: &mut Vec<Diagnostic>) {
    if full(&workflow.attributes, "default_fidelity") {
        return;
    }
    let report = |key_span, owner: String, out: &mut Vec<Diagnostic>| {
        out.push(
            Diagnostic::new(
                &codes::ATTRACTOR_THREAD_WITHOUT_FULL,
                format!("{owner} has a `thread_id`, but its fidelity is not `full`"),
                key_span,
            )
            .with_primary_label("ignored: only `full` fidelity reuses a thread")
            .with_help("add `fidelity=\"full\"`, or remove the `thread_id`"),
        );
    };
    for (i, node) in workflow.nodes.iter().enumerate() {
        let Some(attr) = node.attributes.iter().rev().find(|a| a.key == "thread_id") else {
            continue;
        };
        let by_edge = workflow
            .edges
            .iter()
            .any(|e| e.to.index() == i && full(&e.attributes, "fidelity"));
        if !full(&node.attributes, "fidelity") && !by_edge {
            report(attr.key_span, format!("node `{}`", node.name), out);
        }
    }
    for edge in &workflow.edges {
        let Some(attr) = edge.attributes.iter().rev().find(|a| a.key == "thread_id") else {
            continue;
        };
        let target_full = workflow
            .nodes
            .get(edge.to.index())
            .is_some_and(|n| full(&n.attributes, "fidelity"));
        if !full(&edge.attributes, "fidelity") && !target_full {
            report(attr.key_span, "this edge".into(), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_cd_is_a_cd_word_with_an_absolute_path() {
        assert!(cd_absolute("cd /srv/app && make"));
        assert!(cd_absolute("set -e; cd  /tmp"));
        assert!(!cd_absolute("cd app && make"));
        assert!(!cd_absolute("abcd /x"));
        assert!(!cd_absolute("echo cd"));
    }
}
