//! Edge conditions as the simulation's planner sees them: a conjunction of
//! comparisons (`outcome=success && context.tests=green`), decoded back
//! from the guard bytecode, and what a simulated node must report so that
//! one holds.

use std::collections::BTreeMap;

use serde_json::Value;
use wf_ir::{CmpOp, Const, Insn, IrProgram};

use crate::agent::Status;
use crate::guard::compare_values;

/// What a comparison reads.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Subject {
    /// The outcome status of the node being left (`outcome`).
    Outcome,
    /// The label its outcome prefers (`preferred_label`).
    Label,
    /// A context key: `first` is looked up, then `second` (`context.x`,
    /// then `x`, as the seed's section 10.4 says).
    Key {
        first: String,
        second: Option<String>,
    },
}

impl Subject {
    /// The key without the `context.` prefix.
    fn bare(&self) -> Option<&str> {
        match self {
            Subject::Key { first, second } => Some(
                second
                    .as_deref()
                    .unwrap_or(first.strip_prefix("context.").unwrap_or(first)),
            ),
            _ => None,
        }
    }
}

/// One comparison of a condition.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Clause {
    pub subject: Subject,
    pub op: CmpOp,
    pub value: Value,
    /// `Some(true)` for `subject contains value`, `Some(false)` for its
    /// negation (`op` is then unused).
    pub contains: Option<bool>,
}

impl Clause {
    /// Whether the clause holds for the subject's value `v` (`None`: no
    /// value), as the engine's guard would say.
    pub fn check(&self, v: Option<&Value>) -> bool {
        match self.contains {
            None => match self.status() {
                Some(status) => compare_values(self.op, v, &Value::String(status.into())),
                None => compare_values(self.op, v, &self.value),
            },
            Some(want) => {
                let found = match (v, &self.value) {
                    (Some(Value::String(s)), Value::String(t)) => s.contains(t.as_str()),
                    _ => false,
                };
                found == want
            }
        }
    }

    /// The status an `outcome=V`/`outcome!=V` clause compares with, when
    /// `V` is a peer engine's spelling of one (`succeeded`): the engine's
    /// guard reads it so ([`wf_ir::peer_status`]).
    fn status(&self) -> Option<&'static str> {
        match (&self.subject, self.op, &self.value) {
            (Subject::Outcome, CmpOp::Eq | CmpOp::Ne, Value::String(v)) => wf_ir::peer_status(v),
            _ => None,
        }
    }

    /// The comparison as a condition writes it (`outcome=succeeded`).
    pub fn text(&self) -> String {
        let lhs = match &self.subject {
            Subject::Outcome => "outcome".to_string(),
            Subject::Label => "preferred_label".to_string(),
            Subject::Key { first, .. } => first.clone(),
        };
        let op = match (self.contains, self.op) {
            (Some(true), _) => " contains ",
            (Some(false), _) => " does not contain ",
            (None, CmpOp::Eq) => "=",
            (None, CmpOp::Ne) => "!=",
            (None, CmpOp::Lt) => "<",
            (None, CmpOp::Le) => "<=",
            (None, CmpOp::Gt) => ">",
            (None, CmpOp::Ge) => ">=",
        };
        let rhs = match &self.value {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        format!("{lhs}{op}{rhs}")
    }
}

/// An edge's condition, decoded.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Guard {
    /// No condition.
    Always,
    /// Comparisons joined by `&&`.
    All(Vec<Clause>),
    /// Anything else (`||`, `!`, `in`, `contains`, `matches`, …): the
    /// planner neither aims for it nor counts on it.
    Opaque,
}

/// Decodes `code` (the front end's bytecode for `a op c && b op d …`).
pub(super) fn decode(program: &IrProgram, code: Option<&[Insn]>) -> Guard {
    let Some(code) = code else {
        return Guard::Always;
    };
    let mut clauses = Vec::new();
    let mut rest = code;
    loop {
        let (atom, c, op, contains, tail) = match rest {
            [atom, Insn::Push(c), Insn::Contains, Insn::Not, tail @ ..] => {
                (atom, c, CmpOp::Eq, Some(false), tail)
            }
            [atom, Insn::Push(c), Insn::Contains, tail @ ..] => {
                (atom, c, CmpOp::Eq, Some(true), tail)
            }
            [atom, Insn::Push(c), Insn::Cmp(op), tail @ ..] => (atom, c, *op, None, tail),
            _ => return Guard::Opaque,
        };
        let subject = match atom {
            Insn::LoadOutcome => Subject::Outcome,
            Insn::LoadLabel => Subject::Label,
            Insn::Load(k) => Subject::Key {
                first: program.str(*k).to_string(),
                second: None,
            },
            Insn::LoadOr(a, b) => Subject::Key {
                first: program.str(*a).to_string(),
                second: Some(program.str(*b).to_string()),
            },
            _ => return Guard::Opaque,
        };
        let value = match c {
            Const::Null => Value::Null,
            Const::Bool(b) => Value::Bool(*b),
            Const::Int(i) => Value::from(*i),
            Const::Float(f) => Value::from(*f),
            Const::Str(s) => Value::String(program.str(*s).to_string()),
        };
        clauses.push(Clause {
            subject,
            op,
            value,
            contains,
        });
        match tail {
            [] => return Guard::All(clauses),
            [Insn::JumpIfFalse(_), more @ ..] => rest = more,
            _ => return Guard::Opaque,
        }
    }
}

/// The statuses an Attractor handler can return (seed 5.2).
pub(super) const STATUSES: &[&str] = &["success", "partial_success", "retry", "fail", "skipped"];

/// Keys the engine or a handler writes itself, which a simulated stage
/// cannot report: their values are what they are.
fn engine_owned(bare: &str) -> bool {
    const EXACT: &[&str] = &["last_stage", "last_response", "tool.output"];
    const PREFIXES: &[&str] = &[
        "graph.",
        "internal.",
        "parallel.",
        "human.gate.",
        "stack.child.",
    ];
    EXACT.contains(&bare) || PREFIXES.iter().any(|p| bare.starts_with(p))
}

/// The text a simulated node writes for a key that must differ from a
/// value.
const OTHER: &str = "[wfc: simulated]";

/// What the steered node reports: its status, preferred label and
/// context updates (by the key the condition looks up first).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Report {
    pub status: Status,
    pub label: Option<String>,
    pub writes: BTreeMap<String, Value>,
}

/// Where a condition is evaluated, relative to the steered node.
pub(super) struct At<'a> {
    /// The node being left.
    pub node: &'a str,
    /// Its outcome status; `None` at the steered node, whose status is
    /// `report.status`.
    pub fixed: Option<&'static str>,
    /// Whether the node being left is a human gate (its outcome carries
    /// the chosen label).
    pub gate: bool,
    /// Whether the steered node is a tool, whose output (`tool.output`,
    /// read there and at the nodes that pass after it) it reports.
    pub tool: bool,
}

/// Makes every clause hold, adding to `report` what the steered node
/// must say; `Err` with the clause that cannot hold. `current` reads the
/// context as it is now.
pub(super) fn satisfy(
    clauses: &[Clause],
    at: &At<'_>,
    report: &mut Report,
    current: &dyn Fn(&str) -> Option<Value>,
) -> Result<(), Clause> {
    for c in clauses {
        if !satisfy_one(c, at, report, current) {
            return Err(c.clone());
        }
    }
    Ok(())
}

fn satisfy_one(
    c: &Clause,
    at: &At<'_>,
    report: &mut Report,
    current: &dyn Fn(&str) -> Option<Value>,
) -> bool {
    let holds = |v: Option<&Value>| c.check(v);
    let bare = c.subject.bare();
    match (&c.subject, bare) {
        (Subject::Outcome, _) | (_, Some("outcome")) => {
            let status = at.fixed.unwrap_or(report.status.as_str());
            holds(Some(&Value::String(status.into())))
        }
        (Subject::Label, _) if at.fixed.is_some() => at.gate || holds(None),
        (Subject::Label, _) | (_, Some("preferred_label")) => {
            if at.gate && at.fixed.is_some() {
                return true;
            }
            let now = match (&report.label, &c.subject) {
                (Some(l), _) => Some(Value::String(l.clone())),
                (None, Subject::Label) => None,
                // The key keeps its last value when no label is reported.
                (None, _) => current("preferred_label"),
            };
            if holds(now.as_ref()) {
                return true;
            }
            if report.label.is_some() {
                return false;
            }
            match wanted(c) {
                Some(Value::String(s)) => {
                    report.label = Some(s);
                    true
                }
                _ => false,
            }
        }
        (_, Some("current_node")) => holds(Some(&Value::String(at.node.into()))),
        (Subject::Key { first, second }, Some(bare)) => {
            let now = report
                .writes
                .get(first)
                .cloned()
                .or_else(|| current(first).or_else(|| second.as_deref().and_then(current)));
            if holds(now.as_ref()) {
                return true;
            }
            let own = at.tool && bare == "tool.output";
            if (engine_owned(bare) && !own) || report.writes.contains_key(first) {
                return false;
            }
            match wanted(c) {
                Some(v) => {
                    report.writes.insert(first.clone(), v);
                    true
                }
                None => false,
            }
        }
        _ => false,
    }
}

/// A value for which the clause holds, when there is a simple one.
fn wanted(c: &Clause) -> Option<Value> {
    let v = &c.value;
    let shifted = |by: i64| match v {
        Value::Number(n) => match n.as_i64() {
            Some(i) => Some(Value::from(i + by)),
            None => n.as_f64().map(|f| Value::from(f + by as f64)),
        },
        _ => None,
    };
    match c.contains {
        Some(true) => return Some(v.clone()),
        Some(false) => return Some(Value::String(String::new())),
        None => {}
    }
    match c.op {
        CmpOp::Eq | CmpOp::Ge | CmpOp::Le => Some(v.clone()),
        CmpOp::Ne if v.as_str() == Some(OTHER) => Some(Value::String(format!("{OTHER}!"))),
        CmpOp::Ne => Some(Value::String(OTHER.into())),
        CmpOp::Gt => shifted(1),
        CmpOp::Lt => shifted(-1),
    }
}

/// Whether a clause could ever hold when left by a node whose status is
/// one of `statuses`: the outcome and engine-owned keys are what they
/// are, a context key some stage may report.
pub(super) fn possible(
    c: &Clause,
    statuses: &[&str],
    can_label: bool,
    tool: bool,
    node: &str,
    current: &dyn Fn(&str) -> Option<Value>,
) -> bool {
    let holds = |v: Option<&Value>| c.check(v);
    match (&c.subject, c.subject.bare()) {
        (Subject::Outcome, _) | (_, Some("outcome")) => statuses
            .iter()
            .any(|s| holds(Some(&Value::String((*s).into())))),
        (Subject::Label, _) => can_label || holds(None),
        (_, Some("preferred_label")) => true,
        (_, Some("current_node")) => holds(Some(&Value::String(node.into()))),
        (Subject::Key { first, second }, Some(bare)) => {
            let now = current(first).or_else(|| second.as_deref().and_then(current));
            let own = tool && bare == "tool.output";
            holds(now.as_ref()) || ((own || !engine_owned(bare)) && wanted(c).is_some())
        }
        _ => false,
    }
}

/// Why a clause cannot hold, for the failure message.
pub(super) fn why_not(c: &Clause, statuses: &[&str], node: &str) -> String {
    match (&c.subject, c.subject.bare()) {
        (Subject::Outcome, _) | (_, Some("outcome"))
            if c.op == CmpOp::Eq
                && c.status().is_none()
                && !c.value.as_str().is_some_and(|v| STATUSES.contains(&v)) =>
        {
            format!(
                "`{}`, an outcome no handler returns (they return {})",
                c.text(),
                STATUSES.join(", ")
            )
        }
        (Subject::Outcome, _) | (_, Some("outcome"))
            if c.op == CmpOp::Eq && c.value.as_str() == Some("retry") =>
        {
            format!(
                "`{}`, which never holds when edges are chosen (a `retry` runs the stage again, and becomes `fail` when its retries are spent)",
                c.text()
            )
        }
        (Subject::Outcome, _) | (_, Some("outcome")) => {
            format!(
                "`{}`, but `{node}` only ends with {}",
                c.text(),
                statuses.join(" or ")
            )
        }
        (Subject::Key { .. }, Some(bare)) if engine_owned(bare) => format!(
            "`{}`, a key the engine writes, which no stage can report",
            c.text()
        ),
        _ => format!("`{}`, which no simulated stage can make hold", c.text()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Subject {
        Subject::Key {
            first: format!("context.{k}"),
            second: Some(k.into()),
        }
    }

    fn report() -> Report {
        Report {
            status: Status::Success,
            label: None,
            writes: BTreeMap::new(),
        }
    }

    const HERE: At<'static> = At {
        node: "a",
        fixed: None,
        gate: false,
        tool: false,
    };

    #[test]
    fn context_clauses_become_writes() {
        let clauses = [
            Clause {
                subject: key("tests"),
                op: CmpOp::Eq,
                value: Value::from("green"),
                contains: None,
            },
            Clause {
                subject: key("n"),
                op: CmpOp::Gt,
                value: Value::from(4),
                contains: None,
            },
        ];
        let mut r = report();
        satisfy(&clauses, &HERE, &mut r, &|_| None).unwrap();
        assert_eq!(r.writes["context.tests"], Value::from("green"));
        assert_eq!(r.writes["context.n"], Value::from(5));
    }

    #[test]
    fn outcomes_no_handler_returns_cannot_hold() {
        let c = Clause {
            subject: Subject::Outcome,
            op: CmpOp::Eq,
            value: Value::from("done"),
            contains: None,
        };
        let mut r = report();
        assert!(satisfy(std::slice::from_ref(&c), &HERE, &mut r, &|_| None).is_err());
        assert!(!possible(&c, STATUSES, true, false, "a", &|_| None));
        assert!(why_not(&c, STATUSES, "a").contains("no handler returns"));
    }

    /// fabro's `succeeded` and `failed` are `success` and `fail`, as the
    /// engine's guard reads them; a context key is compared as written.
    #[test]
    fn peer_outcome_spellings_hold_as_the_engine_reads_them() {
        let clause = |subject: Subject, op: CmpOp, v: &str| Clause {
            subject,
            op,
            value: Value::from(v),
            contains: None,
        };
        let succeeded = clause(Subject::Outcome, CmpOp::Eq, "succeeded");
        let mut r = report();
        assert!(satisfy(std::slice::from_ref(&succeeded), &HERE, &mut r, &|_| None).is_ok());
        assert!(possible(
            &succeeded,
            &["success"],
            true,
            false,
            "a",
            &|_| None
        ));
        assert!(!possible(&succeeded, &["fail"], true, false, "a", &|_| {
            None
        }));
        let not_failed = clause(Subject::Outcome, CmpOp::Ne, "failed");
        assert!(not_failed.check(Some(&Value::from("success"))));
        assert!(!not_failed.check(Some(&Value::from("fail"))));
        let key = clause(key("verdict"), CmpOp::Eq, "succeeded");
        assert!(!key.check(Some(&Value::from("success"))));
    }

    #[test]
    fn engine_keys_are_read_not_written() {
        let c = Clause {
            subject: key("internal.loop_restart_count"),
            op: CmpOp::Eq,
            value: Value::from("2"),
            contains: None,
        };
        let mut r = report();
        assert!(satisfy(std::slice::from_ref(&c), &HERE, &mut r, &|_| None).is_err());
        assert!(r.writes.is_empty());
    }

    #[test]
    fn conflicting_clauses_fail() {
        let c = |v: &str| Clause {
            subject: key("k"),
            op: CmpOp::Eq,
            value: Value::from(v),
            contains: None,
        };
        let mut r = report();
        assert!(satisfy(&[c("x"), c("y")], &HERE, &mut r, &|_| None).is_err());
    }
}
