//! Name resolution of guard operands.

use wf_diagnostics::FileSpan;
use wf_model::{BinOp, Expr};

use super::status::status_index;

/// What a name in a guard stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand<'e> {
    /// The built-in `outcome`: the status the source node ended with.
    Outcome,
    /// The built-in `label`: the preferred label the outcome named.
    Label,
    /// A status name used as a value (`success`), by index.
    Status(u8),
    /// A blackboard key.
    Key(&'e str),
}

/// Resolves a name operand: a bare name is a built-in, a status name or a
/// key, in that order; a backtick key is always a key. `None` for every
/// other expression.
pub fn operand(expr: &Expr) -> Option<Operand<'_>> {
    match expr {
        Expr::Name(name, _) => Some(match name.as_str() {
            "outcome" => Operand::Outcome,
            "label" => Operand::Label,
            other => match status_index(other) {
                Some(status) => Operand::Status(status),
                None => Operand::Key(other),
            },
        }),
        Expr::Key(key, _) => Some(Operand::Key(key)),
        _ => None,
    }
}

/// Calls `f` with every blackboard key a guard reads (names that are not
/// built-ins or status names, backtick keys, and `exists(…)` arguments),
/// in source order. For the data-flow checks, which need the keys but not
/// the rest of the guard language.
///
/// A bare name compared with `outcome` (`outcome == sucess`, `outcome in
/// [success, sucess]`) is not listed: it is meant as a status, and WF0403
/// reports it when it is neither a status nor a declared key. Iterative, so
/// any depth is fine.
pub fn keys_read<'e>(expr: &'e Expr, f: &mut impl FnMut(&'e str, FileSpan)) {
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Name(_, span) | Expr::Key(_, span) => {
                if let Some(Operand::Key(key)) = operand(e) {
                    f(key, *span);
                }
            }
            Expr::Exists(key, span) => f(key, *span),
            Expr::List(items, _) => stack.extend(items.iter().rev()),
            Expr::Not(inner, _) => stack.push(inner),
            Expr::Binary(l, op, r, _) => {
                let status_side = |side: &'e Expr, other: &Expr| {
                    let compared = matches!(op, BinOp::Eq | BinOp::Ne);
                    compared && operand(other) == Some(Operand::Outcome) && is_bare(side)
                };
                if !status_side(r, l) {
                    push_unless_bare_list(
                        &mut stack,
                        r,
                        *op == BinOp::In && operand(l) == Some(Operand::Outcome),
                    );
                }
                if !status_side(l, r) {
                    stack.push(l);
                }
            }
            Expr::Literal(..) | Expr::Error(_) => {}
        }
    }
}

/// Whether `expr` is a bare name (not a backtick key).
fn is_bare(expr: &Expr) -> bool {
    matches!(expr, Expr::Name(..))
}

/// Pushes `expr`; when it is the list of `outcome in [..]`, pushes only
/// its elements that are not bare names.
fn push_unless_bare_list<'e>(stack: &mut Vec<&'e Expr>, expr: &'e Expr, outcome_list: bool) {
    match expr {
        Expr::List(items, _) if outcome_list => {
            stack.extend(items.iter().rev().filter(|item| !is_bare(item)));
        }
        _ => stack.push(expr),
    }
}

/// The span of any guard expression.
pub fn span(expr: &Expr) -> FileSpan {
    match expr {
        Expr::Literal(_, s)
        | Expr::Name(_, s)
        | Expr::Key(_, s)
        | Expr::List(_, s)
        | Expr::Exists(_, s)
        | Expr::Not(_, s)
        | Expr::Binary(_, _, _, s)
        | Expr::Error(s) => *s,
    }
}
