//! The `conditions` family (WF04xx): the semantics of guard expressions.
//!
//! # The semantic model
//!
//! A guard is evaluated after its edge's source node has run, against that
//! node's outcome and the scoped blackboard. Its operands resolve as
//! follows ([`resolve`]):
//!
//! - the bare names `outcome` (type `status`: one of `success`,
//!   `partial_success`, `retry`, `fail`, `skipped`) and `label` (type
//!   `string`: the preferred label the outcome named) are built-ins;
//! - the bare status names are `status` values;
//! - any other bare name, every backtick key and every `exists(…)`
//!   argument is a blackboard key, typed by what the workflow declares
//!   ([`types::KeyTypes`]): its `needs` and `gives` and its nodes'
//!   `writes`. A key declared without a type, with `any`, with an unknown
//!   type name or with conflicting types (the contracts family reports
//!   those), a return map's parent key (its type is the callee's, which a
//!   per-workflow check cannot see; [`KeyTypes::add_return_maps`] fills it
//!   in for callers that have the program), and a key the workflow does not
//!   declare at all (it may come from a caller's frame) have type `any`,
//!   which every operator accepts;
//! - literals have their own types; a duration is a number of
//!   milliseconds.
//!
//! A `status` is a string restricted to the status names: statuses compare
//! with strings by name, so `outcome == "success"` is the same test as
//! `outcome == success` (both are accepted; the quoted form is what the
//! Attractor `.dot` dialect writes). The typing rules (`typeck`): `==`
//! and `!=` need comparable operands (equal types, two numbers, a string
//! and a status, or `null` with anything); `<`, `<=`, `>`, `>=` need
//! numbers or durations; `x in xs` needs a list on the right (substrings
//! are `s contains x`); `xs contains x` needs a list or a string on the
//! left, and a string on the right when the left is a string; `s matches
//! "re"` needs a string on the left and a string *literal* on the right
//! that compiles as a regular expression (with a size limit); `!`, `&&`,
//! `||` and the guard itself need booleans. A value compared with
//! `outcome` must be a status: a quoted string that is not a status name,
//! or a bare name that is neither a status nor a declared key, is WF0403
//! with a did-you-mean.
//!
//! Satisfiability (`logic`, `conflicts`) abstracts each boolean part as
//! the sets of statuses for which it may be true and may be false, folds
//! constants, and reads `&&` chains clause by clause for contradictions on
//! one key (equalities, exclusions, list membership, numeric bounds,
//! `exists`): WF0405 when a guard can never hold, WF0407 (info) when one
//! that reads something always holds (`when true` alone is a deliberate
//! way to prefer an edge and is not reported). Guards with a syntax error
//! or a type error are not analysed further. Coverage (`coverage`) uses
//! the same status sets per edge, against the statuses each node kind can
//! end with (`status::possible_statuses`): WF0406.
//!
//! # Cost
//!
//! Every check is O(guard size) per guard, and the coverage check O(edges)
//! per workflow, so the family is linear in the workflow and runs per
//! workflow (memoized by the database). Guards that a chain
//! `a -> b -> c when …` shares between its edges are checked once.

mod conflicts;
mod coverage;
mod logic;
mod pattern;
mod print;
pub mod resolve;
mod status;
mod typeck;
pub mod types;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use wf_diagnostics::{Diagnostic, FileSpan, codes};
use wf_model::{Edge, Expr, SourceFormat, Workflow};

use crate::graph::Adjacency;

pub use print::expr_label;
pub use resolve::{Operand, keys_read, operand};
pub use status::STATUS_NAMES;

use conflicts::Never;
use logic::{Truth, Truths};
pub use types::KeyTypes;

/// How many alternatives or clauses one WF0405 labels.
const MAX_LABELS: usize = 8;

/// Runs the WF04xx checks on one workflow. Keys are typed by the
/// workflow's own declarations (return-map parent keys are untyped: the
/// callee is not visible here; see [`check_workflow_with`]). O(workflow).
pub fn check_workflow(workflow: &Workflow, adjacency: &Adjacency) -> Vec<Diagnostic> {
    check_workflow_with(workflow, adjacency, &KeyTypes::own(workflow))
}

/// [`check_workflow`] with the key types given (for example completed with
/// [`KeyTypes::add_return_maps`]).
pub fn check_workflow_with(
    workflow: &Workflow,
    adjacency: &Adjacency,
    keys: &KeyTypes<'_>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // A chain's edges share one guard (same span): check it once.
    let mut checked: HashMap<FileSpan, Truth> = HashMap::default();
    let mut truths: Vec<Option<Truth>> = vec![None; workflow.edges.len()];
    let mut valid_patterns = HashSet::default();
    for (e, edge) in workflow.edges.iter().enumerate() {
        let Some(guard) = &edge.guard else { continue };
        if let Some(&truth) = checked.get(&guard.span) {
            truths[e] = Some(truth);
            continue;
        }
        let (parts, truth) = Truths::of(&guard.expr);
        // A guard with a syntax error has an uncertain shape: the parser
        // reported it, and only the coverage check (which treats the broken
        // part as "may hold") looks at it.
        let (has_error, has_operand) = scan(&guard.expr);
        if !has_error {
            let before = out.len();
            typeck::check_guard(
                &guard.expr,
                keys,
                workflow.format,
                &mut valid_patterns,
                &mut out,
            );
            // Satisfiability of an ill-typed guard would repeat its errors.
            if out.len() == before {
                if let Some(reason) = conflicts::never(&guard.expr, &parts) {
                    out.push(never_holds(workflow, edge, guard.span, reason));
                } else if truth.always() && has_operand {
                    // `when true` is a deliberate way to prefer an edge;
                    // only tautologies about the run are worth a note.
                    out.push(always_holds(workflow, edge, guard.span));
                }
            }
        }
        checked.insert(guard.span, truth);
        truths[e] = Some(truth);
    }
    out.extend(coverage::check(workflow, adjacency, |e| truths[e.index()]));
    out
}

/// Whether `expr` contains a part that failed to parse, and whether it
/// reads anything (a name, a key or `exists`) rather than only literals.
/// Iterative: O(size) at any depth.
fn scan(expr: &Expr) -> (bool, bool) {
    let (mut error, mut operand) = (false, false);
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Error(_) => error = true,
            Expr::Name(..) | Expr::Key(..) | Expr::Exists(..) => operand = true,
            Expr::Literal(..) => {}
            Expr::List(items, _) => stack.extend(items),
            Expr::Not(inner, _) => stack.push(inner),
            Expr::Binary(l, _, r, _) => {
                stack.push(l);
                stack.push(r);
            }
        }
    }
    (error, operand)
}

/// "`a -> b`", for messages.
fn edge_text(workflow: &Workflow, edge: &Edge) -> String {
    format!(
        "`{} -> {}`",
        workflow.node(edge.from).name,
        workflow.node(edge.to).name
    )
}

/// WF0405.
fn never_holds(workflow: &Workflow, edge: &Edge, guard: FileSpan, reason: Never<'_>) -> Diagnostic {
    let edge_text = edge_text(workflow, edge);
    let dot = workflow.format == SourceFormat::Dot;
    let what = if dot { "condition" } else { "guard" };
    let base = |detail: String| {
        Diagnostic::new(
            &codes::GUARD_NEVER_HOLDS,
            format!("the {what} of {edge_text} can never hold{detail}"),
            guard,
        )
    };
    // Clauses are quoted in the language the file is written in.
    let quote = if dot {
        print::condition_text
    } else {
        print::expr_text
    };
    match reason {
        Never::Constant(at) if at == guard => base(String::new())
            .with_primary_label("always false")
            .with_help("fix the condition, or remove the edge if it is not needed"),
        Never::Constant(at) => base(String::new())
            .with_primary_label("never holds")
            .with_label(at, "this is always false")
            .with_help("fix the condition, or remove the edge if it is not needed"),
        Never::Conflict {
            first,
            second,
            others,
        } => {
            let texts = quote(first).zip(quote(second));
            let detail = match (&texts, others.is_empty()) {
                (Some((a, b)), true) => format!(": `{a}` and `{b}` contradict each other"),
                _ => ": its clauses contradict each other".to_string(),
            };
            let mut diagnostic = base(detail)
                .with_primary_label("never holds")
                .with_label(resolve::span(first), "this clause …");
            for other in others.iter().take(MAX_LABELS) {
                diagnostic = diagnostic.with_label(*other, "… this one …");
            }
            diagnostic
                .with_label(resolve::span(second), "… contradicts this one")
                .with_help(if dot {
                    "if either condition should do, give each its own edge (Attractor conditions have no `||`); otherwise fix or remove the wrong one"
                } else {
                    "if either condition should do, join them with `||`; otherwise fix or remove the wrong one"
                })
        }
        Never::Alternatives(_, alternatives) => {
            let mut diagnostic = base(": none of its alternatives can".to_string())
                .with_primary_label("no alternative can hold");
            for alternative in alternatives.iter().take(MAX_LABELS) {
                diagnostic = diagnostic.with_label(*alternative, "never holds");
            }
            diagnostic.with_help("fix the conditions, or remove the edge if it is not needed")
        }
    }
}

/// WF0407.
fn always_holds(workflow: &Workflow, edge: &Edge, guard: FileSpan) -> Diagnostic {
    let dot = workflow.format == SourceFormat::Dot;
    let what = if dot { "condition" } else { "guard" };
    Diagnostic::new(
        &codes::GUARD_ALWAYS_HOLDS,
        format!("the {what} of {} always holds", edge_text(workflow, edge)),
        guard,
    )
    .with_primary_label("always true")
    .with_note(format!(
        "an edge whose {what} holds is preferred over every edge without a {what}"
    ))
    .with_help(if dot {
        "if the edge should not be preferred, remove its `condition`; otherwise check the condition"
    } else {
        "if the edge should not be preferred, remove the `when` clause; otherwise check the condition"
    })
}

#[cfg(test)]
mod tests;
