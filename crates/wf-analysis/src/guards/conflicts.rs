//! Why a guard can never hold: a constant false part, or two clauses of one
//! `&&` conjunction that contradict each other.
//!
//! A conjunction (a maximal chain of `&&`) is read clause by clause. Clauses
//! about `outcome` are compared through their [`Truth`] masks (32 possible
//! masks, so finding the clause a new one contradicts is O(1)). Clauses that
//! constrain a single blackboard key, `label` or `exists(key)` (`k == v`,
//! `k != v`, `k in [..]`, `k < n`, …, a bare boolean key, and their
//! negations where the negation is exact) narrow a per-subject state: the
//! set of values still allowed, the values excluded and the numeric bounds.
//! When the state becomes empty, the current clause contradicts an earlier
//! one. Each clause is processed in time proportional to its size (bounds
//! are checked against at most [`SMALL_SET`] allowed values), so the whole
//! analysis is O(guard size). `||` alternatives are analysed separately; the
//! guard never holds when every alternative never holds.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use wf_diagnostics::FileSpan;
use wf_model::{BinOp, Expr};

use super::logic::{Const, Truths};
use super::resolve::{Operand, operand, span};
use super::status::ALL;

/// Allowed-value sets larger than this are not checked against bounds.
const SMALL_SET: usize = 32;

/// Why an expression can never be true.
#[derive(Debug, Clone, PartialEq)]
pub enum Never<'e> {
    /// The expression at this span is false whatever happens.
    Constant(FileSpan),
    /// Two clauses of one conjunction contradict each other (the earlier
    /// first); `others` are further clauses needed for the contradiction.
    Conflict {
        /// The earlier clause.
        first: &'e Expr,
        /// The clause that made the conjunction impossible.
        second: &'e Expr,
        /// Other clauses that take part (for three-way contradictions).
        others: Vec<FileSpan>,
    },
    /// Every alternative of the `||` at this span can never hold; the
    /// alternatives' spans.
    Alternatives(FileSpan, Vec<FileSpan>),
}

/// Why `expr` can never hold, if it cannot.
pub fn never<'e>(expr: &'e Expr, truths: &Truths) -> Option<Never<'e>> {
    match expr {
        Expr::Binary(_, BinOp::And, _, _) => conjunction(expr, truths),
        Expr::Binary(_, BinOp::Or, _, whole) => {
            let mut alternatives = Vec::new();
            for alternative in chain(expr, BinOp::Or) {
                never(alternative, truths)?;
                alternatives.push(span(alternative));
            }
            Some(Never::Alternatives(*whole, alternatives))
        }
        _ => truths
            .get(expr)
            .never()
            .then(|| Never::Constant(span(expr))),
    }
}

/// The operands of a maximal chain of `op` rooted at `expr`, left to right,
/// collected without recursion.
fn chain(expr: &Expr, op: BinOp) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Binary(l, o, r, _) if *o == op => {
                stack.push(r);
                stack.push(l);
            }
            _ => out.push(e),
        }
    }
    out
}

fn conjunction<'e>(expr: &'e Expr, truths: &Truths) -> Option<Never<'e>> {
    let clauses = chain(expr, BinOp::And);
    // A clause that is itself impossible explains everything.
    for clause in &clauses {
        if let Some(reason) = never(clause, truths) {
            return Some(reason);
        }
    }
    outcome_conflict(&clauses, truths).or_else(|| subject_conflict(&clauses))
}

/// Clauses whose `outcome` masks do not intersect.
fn outcome_conflict<'e>(clauses: &[&'e Expr], truths: &Truths) -> Option<Never<'e>> {
    let mut first_with_mask: [Option<usize>; 32] = [None; 32];
    let mut narrowing = Vec::new();
    let mut allowed = ALL;
    for (j, clause) in clauses.iter().enumerate() {
        let t = truths.get(clause).t;
        if t == ALL {
            continue;
        }
        for (mask, seen) in first_with_mask.iter().enumerate() {
            if let Some(i) = seen.filter(|_| mask as u8 & t == 0) {
                return Some(Never::Conflict {
                    first: clauses[i],
                    second: clause,
                    others: Vec::new(),
                });
            }
        }
        first_with_mask[t as usize].get_or_insert(j);
        narrowing.push(j);
        allowed &= t;
        if allowed == 0 {
            // No two clauses conflict alone, several do together.
            let spans: Vec<FileSpan> = narrowing.iter().map(|&i| span(clauses[i])).collect();
            return Some(Never::Conflict {
                first: clauses[narrowing[0]],
                second: clause,
                others: spans[1..spans.len() - 1].to_vec(),
            });
        }
    }
    None
}

/// What a clause is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Subject<'e> {
    /// The built-in `label`.
    Label,
    /// A blackboard key's value.
    Key(&'e str),
    /// Whether a key is set.
    Exists(&'e str),
}

/// A constant as a hashable set element. Statuses become their names and
/// integral floats integers, so values that compare equal are equal here.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Elem {
    Str(String),
    Int(i64),
    Float(u64),
    Bool(bool),
    Null,
}

impl Elem {
    fn of(c: &Const) -> Elem {
        match c {
            Const::Str(s) => Elem::Str(s.clone()),
            Const::Status(s) => Elem::Str(super::status::STATUS_NAMES[*s as usize].to_string()),
            Const::Int(i) => Elem::Int(*i),
            Const::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Elem::Int(*f as i64),
            Const::Float(f) => Elem::Float(f.to_bits()),
            Const::Bool(b) => Elem::Bool(*b),
            Const::Null => Elem::Null,
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Elem::Int(i) => Some(*i as f64),
            Elem::Float(bits) => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }
}

/// A constraint one clause puts on its subject.
#[derive(Debug)]
enum Constraint {
    /// The value is one of these.
    OneOf(Vec<Elem>),
    /// The value is none of these.
    NoneOf(Vec<Elem>),
    /// The value is a number above (`upper == false`) or below the bound.
    Bound {
        value: f64,
        inclusive: bool,
        upper: bool,
    },
}

/// Reads a clause as a constraint on one subject, when it is one.
fn constraint(clause: &Expr) -> Option<(Subject<'_>, Constraint)> {
    let (clause, negated) = match clause {
        Expr::Not(inner, _) => (&**inner, true),
        other => (other, false),
    };
    let (subject, c) = match clause {
        Expr::Exists(key, _) => (
            Subject::Exists(key),
            Constraint::OneOf(vec![Elem::Bool(true)]),
        ),
        Expr::Name(..) | Expr::Key(..) => {
            (subject(clause)?, Constraint::OneOf(vec![Elem::Bool(true)]))
        }
        Expr::Binary(l, op, r, _) => {
            let (subject, value, flipped) = match (subject(l), subject(r)) {
                (Some(s), None) => (s, &**r, false),
                (None, Some(s)) => (s, &**l, true),
                _ => return None,
            };
            match op {
                BinOp::Eq | BinOp::Ne => {
                    let v = vec![Elem::of(&constant(value)?)];
                    let c = if *op == BinOp::Eq {
                        Constraint::OneOf(v)
                    } else {
                        Constraint::NoneOf(v)
                    };
                    (subject, c)
                }
                BinOp::In if !flipped => {
                    let Expr::List(items, _) = value else {
                        return None;
                    };
                    let elems = items
                        .iter()
                        .map(|i| constant(i).map(|c| Elem::of(&c)))
                        .collect::<Option<Vec<_>>>()?;
                    (subject, Constraint::OneOf(elems))
                }
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge if !negated => {
                    // `!(x > 5)` is not `x <= 5` (a missing `x` satisfies
                    // the first only), so negated orderings are skipped.
                    let value = constant(value)?.as_number()?;
                    let (upper, inclusive) = match (op, flipped) {
                        (BinOp::Lt, false) | (BinOp::Gt, true) => (true, false),
                        (BinOp::Le, false) | (BinOp::Ge, true) => (true, true),
                        (BinOp::Gt, false) | (BinOp::Lt, true) => (false, false),
                        _ => (false, true),
                    };
                    (
                        subject,
                        Constraint::Bound {
                            value,
                            inclusive,
                            upper,
                        },
                    )
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    Some((subject, if negated { negate(c)? } else { c }))
}

fn negate(c: Constraint) -> Option<Constraint> {
    match c {
        Constraint::OneOf(v) => Some(Constraint::NoneOf(v)),
        Constraint::NoneOf(v) => Some(Constraint::OneOf(v)),
        Constraint::Bound { .. } => None,
    }
}

fn subject(expr: &Expr) -> Option<Subject<'_>> {
    match operand(expr)? {
        Operand::Label => Some(Subject::Label),
        Operand::Key(key) => Some(Subject::Key(key)),
        Operand::Outcome | Operand::Status(_) => None,
    }
}

fn constant(expr: &Expr) -> Option<Const> {
    match expr {
        Expr::Literal(value, _) => Const::of_value(value),
        Expr::Name(..) => match operand(expr)? {
            Operand::Status(s) => Some(Const::Status(s)),
            _ => None,
        },
        _ => None,
    }
}

/// What the clauses so far allow for one subject.
#[derive(Default)]
struct State {
    /// The values still allowed, and the last clause that narrowed them.
    allowed: Option<(HashSet<Elem>, usize)>,
    /// Excluded values, each with the clause that excluded it.
    excluded: HashMap<Elem, usize>,
    /// How many allowed values are not excluded.
    remaining: usize,
    /// Lower and upper bounds: value, inclusive, clause.
    lower: Option<(f64, bool, usize)>,
    upper: Option<(f64, bool, usize)>,
}

/// Adds constraint `c` of clause `j`; when the subject has no value left,
/// returns the earlier clauses that take part in the contradiction.
fn add(state: &mut State, c: Constraint, j: usize) -> Option<Vec<usize>> {
    match c {
        Constraint::OneOf(values) => {
            let values: HashSet<Elem> = values.into_iter().collect();
            let (new, earlier) = match state.allowed.take() {
                Some((old, i)) => (
                    old.into_iter().filter(|v| values.contains(v)).collect(),
                    Some(i),
                ),
                None => (values, None),
            };
            if let (true, Some(i)) = (new.is_empty(), earlier) {
                return Some(vec![i]);
            }
            state.remaining = new
                .iter()
                .filter(|v| !state.excluded.contains_key(*v))
                .count();
            if state.remaining == 0 && !new.is_empty() {
                // Every value this clause allows was excluded earlier.
                let mut involved: Vec<usize> = new.iter().map(|v| state.excluded[v]).collect();
                involved.extend(earlier);
                return Some(involved);
            }
            state.allowed = Some((new, j));
            bounds_exclude_all(state).map(|_| vec![other_bound(state, j)])
        }
        Constraint::NoneOf(values) => {
            for v in values {
                let allowed_here = state.allowed.as_ref().is_some_and(|(a, _)| a.contains(&v));
                if state.excluded.contains_key(&v) {
                    continue;
                }
                state.excluded.insert(v, j);
                if allowed_here {
                    state.remaining -= 1;
                    if state.remaining == 0 {
                        // The allowed values are all excluded now.
                        let (allowed, i) = state.allowed.as_ref()?;
                        let mut involved: Vec<usize> =
                            allowed.iter().map(|v| state.excluded[v]).collect();
                        involved.push(*i);
                        return Some(involved);
                    }
                }
            }
            None
        }
        Constraint::Bound {
            value,
            inclusive,
            upper,
        } => {
            let slot = if upper {
                &mut state.upper
            } else {
                &mut state.lower
            };
            let tighter = match slot {
                None => true,
                Some((old, old_inclusive, _)) => {
                    let beyond = if upper { value < *old } else { value > *old };
                    beyond || (value == *old && *old_inclusive && !inclusive)
                }
            };
            if tighter {
                *slot = Some((value, inclusive, j));
            }
            if let (Some((lo, lo_in, i)), Some((hi, hi_in, k))) = (state.lower, state.upper)
                && (lo > hi || (lo == hi && !(lo_in && hi_in)))
            {
                return Some(vec![i, k]);
            }
            bounds_exclude_all(state).map(|i| vec![i])
        }
    }
}

/// When numeric bounds exist and no (small) allowed set member satisfies
/// them: the clause that set the allowed values.
fn bounds_exclude_all(state: &State) -> Option<usize> {
    if state.lower.is_none() && state.upper.is_none() {
        return None;
    }
    let (allowed, i) = state.allowed.as_ref()?;
    if allowed.len() > SMALL_SET {
        return None;
    }
    let inside = |v: &Elem| {
        let Some(n) = v.number() else { return false };
        let above = state
            .lower
            .is_none_or(|(lo, incl, _)| n > lo || (incl && n == lo));
        let below = state
            .upper
            .is_none_or(|(hi, incl, _)| n < hi || (incl && n == hi));
        above && below && !state.excluded.contains_key(v)
    };
    (!allowed.iter().any(inside)).then_some(*i)
}

/// A bound clause other than `j` (for labels when `j` set the allowed set).
fn other_bound(state: &State, j: usize) -> usize {
    [state.lower, state.upper]
        .into_iter()
        .flatten()
        .map(|(_, _, i)| i)
        .find(|&i| i != j)
        .unwrap_or(j)
}

/// Clauses that constrain the same subject inconsistently.
fn subject_conflict<'e>(clauses: &[&'e Expr]) -> Option<Never<'e>> {
    let mut states: HashMap<Subject<'_>, State> = HashMap::default();
    for (j, clause) in clauses.iter().enumerate() {
        let Some((subject, c)) = constraint(clause) else {
            continue;
        };
        let state = states.entry(subject).or_default();
        let Some(mut involved) = add(state, c, j) else {
            continue;
        };
        involved.retain(|&i| i != j);
        involved.sort_unstable();
        involved.dedup();
        let Some((&first, others)) = involved.split_first() else {
            continue;
        };
        return Some(Never::Conflict {
            first: clauses[first],
            second: clauses[j],
            others: others.iter().map(|&i| span(clauses[i])).collect(),
        });
    }
    None
}
