//! What a guard can evaluate to, for each outcome status.
//!
//! The abstraction: every boolean sub-expression gets a [`Truth`], two
//! sets of statuses: those for which it *may* be true and those for which
//! it *may* be false. Comparisons of `outcome` with status values are
//! exact (`outcome == fail` may be true only for `fail`); constants fold
//! (`1 == 2` is false for every status); anything that depends on the
//! blackboard or the label may be either. `!` swaps the sets; `&&` and `||`
//! combine them as three-valued logic does, per status. This is sound
//! (an empty "may be true" set means the guard never holds) and O(guard
//! size). It ignores correlations between blackboard clauses; those are the
//! business of [`super::conflicts`].

use rustc_hash::FxHashMap as HashMap;

use wf_model::{BinOp, Expr, Value};

use super::pattern;
use super::resolve::{Operand, operand};
use super::status::{ALL, Mask, STATUS_NAMES, bit, status_index};

/// For which outcome statuses an expression may be true, and may be false.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truth {
    /// Statuses for which it may be true.
    pub t: Mask,
    /// Statuses for which it may be false.
    pub f: Mask,
}

impl Truth {
    /// May be true or false, whatever the status.
    pub const UNKNOWN: Truth = Truth { t: ALL, f: ALL };

    /// A constant.
    pub fn constant(value: bool) -> Truth {
        if value {
            Truth { t: ALL, f: 0 }
        } else {
            Truth { t: 0, f: ALL }
        }
    }

    /// True exactly for the statuses in `mask`.
    fn exactly(mask: Mask) -> Truth {
        Truth {
            t: mask,
            f: ALL & !mask,
        }
    }

    fn not(self) -> Truth {
        Truth {
            t: self.f,
            f: self.t,
        }
    }

    fn and(self, other: Truth) -> Truth {
        Truth {
            t: self.t & other.t,
            f: self.f | other.f,
        }
    }

    fn or(self, other: Truth) -> Truth {
        Truth {
            t: self.t | other.t,
            f: self.f & other.f,
        }
    }

    /// Never true, whatever the status.
    pub fn never(self) -> bool {
        self.t == 0
    }

    /// Always true, whatever the status.
    pub fn always(self) -> bool {
        self.f == 0 && self.t != 0
    }
}

/// A value known before the run.
#[derive(Debug, Clone, PartialEq)]
pub enum Const {
    /// A string.
    Str(String),
    /// An integer (durations are milliseconds).
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// `null`.
    Null,
    /// A status, by index.
    Status(u8),
}

impl Const {
    /// The constant of a literal.
    pub fn of_value(value: &Value) -> Option<Const> {
        Some(match value {
            Value::Null => Const::Null,
            Value::Bool(b) => Const::Bool(*b),
            Value::Int(i) => Const::Int(*i),
            Value::Float(f) => Const::Float(*f),
            Value::String(s) => Const::Str(s.clone()),
            Value::Duration(ms) => match i64::try_from(*ms) {
                Ok(ms) => Const::Int(ms),
                Err(_) => Const::Float(*ms as f64),
            },
            Value::Ref(_) | Value::List(_) | Value::Map(_) => return None,
        })
    }

    /// The status this constant names, if any (statuses compare by name).
    pub fn as_status(&self) -> Option<u8> {
        match self {
            Const::Status(s) => Some(*s),
            Const::Str(s) => status_index(s),
            _ => None,
        }
    }

    /// The number, for ordering.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Const::Int(i) => Some(*i as f64),
            Const::Float(f) => Some(*f),
            _ => None,
        }
    }

    fn as_text(&self) -> Option<&str> {
        match self {
            Const::Str(s) => Some(s),
            Const::Status(s) => Some(STATUS_NAMES[*s as usize]),
            _ => None,
        }
    }

    /// `==` between two constants; `None` when their types differ (a type
    /// error, reported by the type checker).
    pub fn equals(&self, other: &Const) -> Option<bool> {
        match (self, other) {
            (Const::Int(a), Const::Int(b)) => Some(a == b),
            (Const::Bool(a), Const::Bool(b)) => Some(a == b),
            (Const::Null, Const::Null) => Some(true),
            (Const::Null, _) | (_, Const::Null) => Some(false),
            _ => match (self.as_number(), other.as_number()) {
                (Some(a), Some(b)) => Some(a == b),
                _ => Some(self.as_text()? == other.as_text()?),
            },
        }
    }

    /// Ordering between two numeric constants.
    fn compare(&self, op: BinOp, other: &Const) -> Option<bool> {
        let ordering = match (self, other) {
            (Const::Int(a), Const::Int(b)) => a.cmp(b),
            _ => self.as_number()?.partial_cmp(&other.as_number()?)?,
        };
        Some(match op {
            BinOp::Lt => ordering.is_lt(),
            BinOp::Le => ordering.is_le(),
            BinOp::Gt => ordering.is_gt(),
            BinOp::Ge => ordering.is_ge(),
            _ => return None,
        })
    }
}

/// The abstract value of an operand.
#[derive(Debug, Clone, PartialEq)]
enum Val {
    /// A constant.
    Const(Const),
    /// The built-in `outcome`.
    Outcome,
    /// A list literal: its constant elements, and whether every element is
    /// constant.
    List(Vec<Const>, bool),
    /// Known only at run time.
    Unknown,
}

/// The truths computed for a guard's boolean sub-expressions, keyed by
/// address, so the satisfiability checks can look them up without
/// recomputing (which would cost O(size × depth)).
#[derive(Debug, Default)]
pub struct Truths {
    by_expr: HashMap<*const Expr, Truth>,
}

impl Truths {
    /// Computes the truth of `expr` and of all its boolean parts.
    pub fn of(expr: &Expr) -> (Truths, Truth) {
        let mut truths = Truths::default();
        let truth = truths.truth(expr, 0);
        (truths, truth)
    }

    /// The truth recorded for `expr` (unknown when it was not computed).
    pub fn get(&self, expr: &Expr) -> Truth {
        self.by_expr
            .get(&(expr as *const Expr))
            .copied()
            .unwrap_or(Truth::UNKNOWN)
    }

    fn truth(&mut self, expr: &Expr, depth: usize) -> Truth {
        if depth > 1_000 {
            return Truth::UNKNOWN;
        }
        let truth = match expr {
            Expr::Not(inner, _) => self.truth(inner, depth + 1).not(),
            Expr::Binary(l, BinOp::And, r, _) => {
                self.truth(l, depth + 1).and(self.truth(r, depth + 1))
            }
            Expr::Binary(l, BinOp::Or, r, _) => {
                self.truth(l, depth + 1).or(self.truth(r, depth + 1))
            }
            Expr::Binary(l, op, r, _) => {
                let (l, r) = (self.value(l, depth + 1), self.value(r, depth + 1));
                compare(&l, *op, &r)
            }
            _ => match self.value(expr, depth + 1) {
                Val::Const(Const::Bool(b)) => Truth::constant(b),
                _ => Truth::UNKNOWN,
            },
        };
        self.by_expr.insert(expr as *const Expr, truth);
        truth
    }

    fn value(&mut self, expr: &Expr, depth: usize) -> Val {
        match expr {
            Expr::Literal(value, _) => Const::of_value(value).map_or(Val::Unknown, Val::Const),
            Expr::Name(..) | Expr::Key(..) => match operand(expr) {
                Some(Operand::Outcome) => Val::Outcome,
                Some(Operand::Status(s)) => Val::Const(Const::Status(s)),
                _ => Val::Unknown,
            },
            Expr::List(items, _) => {
                let mut known = Vec::with_capacity(items.len());
                let mut complete = true;
                for item in items {
                    match self.value(item, depth + 1) {
                        Val::Const(c) => known.push(c),
                        _ => complete = false,
                    }
                }
                Val::List(known, complete)
            }
            Expr::Not(..) | Expr::Binary(..) => {
                let truth = self.truth(expr, depth);
                if truth.always() {
                    Val::Const(Const::Bool(true))
                } else if truth.never() {
                    Val::Const(Const::Bool(false))
                } else {
                    Val::Unknown
                }
            }
            Expr::Exists(..) | Expr::Error(_) => Val::Unknown,
        }
    }
}

/// The truth of a comparison between two abstract values.
fn compare(l: &Val, op: BinOp, r: &Val) -> Truth {
    match (l, op, r) {
        (Val::Outcome, BinOp::Eq | BinOp::Ne, Val::Const(c))
        | (Val::Const(c), BinOp::Eq | BinOp::Ne, Val::Outcome) => match c.as_status() {
            Some(s) => {
                let eq = Truth::exactly(bit(s));
                if op == BinOp::Eq { eq } else { eq.not() }
            }
            // Not a status: WF0403 or WF0401 already; stay silent here.
            None => Truth::UNKNOWN,
        },
        // Nothing is in an empty list.
        (_, BinOp::In, Val::List(items, true)) | (Val::List(items, true), BinOp::Contains, _)
            if items.is_empty() =>
        {
            Truth::constant(false)
        }
        (Val::Outcome, BinOp::In, Val::List(items, complete))
        | (Val::List(items, complete), BinOp::Contains, Val::Outcome) => {
            let listed = items
                .iter()
                .filter_map(Const::as_status)
                .fold(0, |m, s| m | bit(s));
            if *complete {
                Truth::exactly(listed)
            } else {
                // An unknown element may equal any status; a listed one
                // certainly matches.
                Truth {
                    t: ALL,
                    f: ALL & !listed,
                }
            }
        }
        (Val::Outcome, BinOp::Matches, Val::Const(Const::Str(p))) => match pattern::compile(p) {
            Ok(re) => Truth::exactly(status_mask(|name| re.is_match(name))),
            Err(_) => Truth::UNKNOWN,
        },
        (Val::Outcome, BinOp::Contains, Val::Const(Const::Str(s))) => {
            Truth::exactly(status_mask(|name| name.contains(s.as_str())))
        }
        (Val::Const(a), _, Val::Const(b)) => fold(a, op, b).map_or(Truth::UNKNOWN, Truth::constant),
        (Val::Const(a), BinOp::In, Val::List(items, complete))
        | (Val::List(items, complete), BinOp::Contains, Val::Const(a)) => {
            let mut unknown = !complete;
            for item in items {
                match a.equals(item) {
                    Some(true) => return Truth::constant(true),
                    Some(false) => {}
                    None => unknown = true,
                }
            }
            if unknown {
                Truth::UNKNOWN
            } else {
                Truth::constant(false)
            }
        }
        _ => Truth::UNKNOWN,
    }
}

/// The statuses whose names satisfy `keep`.
fn status_mask(keep: impl Fn(&str) -> bool) -> Mask {
    (0..STATUS_NAMES.len() as u8)
        .filter(|&s| keep(STATUS_NAMES[s as usize]))
        .fold(0, |m, s| m | bit(s))
}

/// Folds a comparison of two constants.
fn fold(a: &Const, op: BinOp, b: &Const) -> Option<bool> {
    match op {
        BinOp::Eq => a.equals(b),
        BinOp::Ne => a.equals(b).map(|e| !e),
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => a.compare(op, b),
        BinOp::Contains => Some(a.as_text()?.contains(b.as_text()?)),
        BinOp::Matches => {
            let (Const::Str(text), Const::Str(p)) = (a, b) else {
                return None;
            };
            pattern::compile(p).ok().map(|re| re.is_match(text))
        }
        BinOp::In | BinOp::And | BinOp::Or => None,
    }
}
