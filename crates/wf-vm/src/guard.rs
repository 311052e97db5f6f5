//! The guard bytecode interpreter (see [`wf_ir::Insn`]).
//!
//! A guard runs against the scoped blackboard and the outcome of the node
//! being left. Values are JSON values plus *missing*; comparisons with
//! missing are false except `!=`. In a boolean position (`!`, `&&`, `||`,
//! the result) missing counts as false; any other non-boolean there is an
//! error, which ends the run with `engine:error` naming the edge.
//!
//! Regular expressions that are constants of the bytecode are compiled once
//! when the engine is built ([`Regexes::new`]); a pattern computed at run
//! time is compiled on first use and cached.

use std::cell::RefCell;

use regex::Regex;
use rustc_hash::FxHashMap;
use serde_json::Value;
use wf_ir::{CmpOp, Const, Insn, IrProgram, StrId};

use crate::blackboard::{Frame, Visible, scoped_get};

/// The most run-time patterns kept compiled.
const DYNAMIC_CACHE: usize = 64;

/// Compiled regular expressions of a program's guards.
#[derive(Debug, Default)]
pub(crate) struct Regexes {
    fixed: FxHashMap<StrId, Regex>,
    dynamic: RefCell<FxHashMap<String, Regex>>,
}

/// Compiles a pattern exactly as the checker and the IR verifier do.
fn compile(pattern: &str) -> Result<Regex, String> {
    wf_ir::compile_pattern(pattern)
        .map_err(|e| format!("invalid regular expression `{pattern}`: {e}"))
}

impl Regexes {
    /// Compiles every constant pattern (a `push` of a string right before
    /// `matches`) of every guard; the error names the workflow and edge.
    pub fn new(program: &IrProgram) -> Result<Self, String> {
        let mut fixed = FxHashMap::default();
        for wf in &program.workflows {
            for edge in &wf.edges {
                let Some(code) = &edge.guard else { continue };
                for pair in code.windows(2) {
                    if let [Insn::Push(Const::Str(id)), Insn::Matches] = pair {
                        if fixed.contains_key(id) {
                            continue;
                        }
                        let re = compile(program.str(*id)).map_err(|e| {
                            format!(
                                "workflow `{}`, edge `{}`: {e}",
                                program.str(wf.name),
                                program.str(edge.id)
                            )
                        })?;
                        fixed.insert(*id, re);
                    }
                }
            }
        }
        Ok(Regexes {
            fixed,
            dynamic: RefCell::default(),
        })
    }

    fn is_match(&self, pattern: Pat<'_>, subject: &str) -> Result<bool, String> {
        let text = match pattern {
            Pat::Const(id, text) => match self.fixed.get(&id) {
                Some(re) => return Ok(re.is_match(subject)),
                None => text,
            },
            Pat::Text(t) => t,
        };
        let mut cache = self.dynamic.borrow_mut();
        if let Some(re) = cache.get(text) {
            return Ok(re.is_match(subject));
        }
        let re = compile(text)?;
        let m = re.is_match(subject);
        if cache.len() >= DYNAMIC_CACHE {
            cache.clear();
        }
        cache.insert(text.to_owned(), re);
        Ok(m)
    }
}

enum Pat<'a> {
    /// A constant of the string table (precompiled when it sits right
    /// before `matches`).
    Const(StrId, &'a str),
    Text(&'a str),
}

/// A value on the guard stack.
#[derive(Debug, Clone)]
enum V<'a> {
    Missing,
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A string; `Some(id)` when it is a constant of the string table.
    Str(&'a str, Option<StrId>),
    /// A list or map from the blackboard.
    Json(&'a Value),
    /// A list built by `list`.
    List(Vec<V<'a>>),
}

fn from_json(v: &Value) -> V<'_> {
    match v {
        Value::Null => V::Null,
        Value::Bool(b) => V::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => V::Int(i),
            None => V::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => V::Str(s, None),
        _ => V::Json(v),
    }
}

fn num(v: &V<'_>) -> Option<f64> {
    match v {
        V::Int(i) => Some(*i as f64),
        V::Float(f) => Some(*f),
        _ => None,
    }
}

fn items<'a>(v: &'a V<'a>) -> Option<Vec<V<'a>>> {
    match v {
        V::List(l) => Some(l.clone()),
        V::Json(Value::Array(a)) => Some(a.iter().map(from_json).collect()),
        _ => None,
    }
}

fn eq(a: &V<'_>, b: &V<'_>) -> bool {
    match (a, b) {
        (V::Missing, _) | (_, V::Missing) => false,
        (V::Null, V::Null) => true,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Int(x), V::Int(y)) => x == y,
        (V::Str(x, _), V::Str(y, _)) => x == y,
        (V::Json(x), V::Json(y)) => x == y,
        _ => {
            if let (Some(x), Some(y)) = (num(a), num(b)) {
                return x == y;
            }
            match (items(a), items(b)) {
                (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| eq(p, q)),
                _ => false,
            }
        }
    }
}

fn compare(op: CmpOp, a: &V<'_>, b: &V<'_>) -> bool {
    use std::cmp::Ordering;
    match op {
        CmpOp::Eq => return eq(a, b),
        CmpOp::Ne => return !eq(a, b),
        _ => {}
    }
    let ord: Option<Ordering> = match (a, b) {
        (V::Str(x, _), V::Str(y, _)) => Some(x.cmp(y)),
        (V::Int(x), V::Int(y)) => Some(x.cmp(y)),
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    };
    let Some(ord) = ord else { return false };
    match op {
        CmpOp::Lt => ord == Ordering::Less,
        CmpOp::Le => ord != Ordering::Greater,
        CmpOp::Gt => ord == Ordering::Greater,
        CmpOp::Ge => ord != Ordering::Less,
        CmpOp::Eq | CmpOp::Ne => unreachable!("handled above"),
    }
}

/// What a guard may read.
pub(crate) struct GuardEnv<'a> {
    pub program: &'a IrProgram,
    pub frames: &'a [Frame],
    pub visible: &'a Visible,
    /// The outcome status of the node being left.
    pub outcome: &'a str,
    /// The label the outcome prefers.
    pub label: Option<&'a str>,
    pub regexes: &'a Regexes,
    /// Whether `outcome=V` reads a peer engine's spelling of a status as
    /// the status ([`wf_ir::PEER_STATUSES`]): Attractor pipelines only.
    pub peer_statuses: bool,
}

fn truth(v: &V<'_>, what: &str) -> Result<bool, String> {
    match v {
        V::Bool(b) => Ok(*b),
        V::Missing => Ok(false),
        other => Err(format!("{what} is not a boolean: {other}")),
    }
}

/// Runs `code`; `Err` when the bytecode misbehaves (a type error in a
/// boolean position, a bad regular expression, a malformed program).
pub(crate) fn eval(code: &[Insn], env: &GuardEnv<'_>) -> Result<bool, String> {
    let mut stack: Vec<V<'_>> = Vec::with_capacity(8);
    let mut pc = 0usize;
    let underflow = || "guard bytecode underflows its stack".to_owned();
    while pc < code.len() {
        match &code[pc] {
            Insn::Load(key) => stack.push(
                scoped_get(env.frames, env.visible, key.0)
                    .map(from_json)
                    .unwrap_or(V::Missing),
            ),
            Insn::LoadOr(first, second) => stack.push(
                scoped_get(env.frames, env.visible, first.0)
                    .or_else(|| scoped_get(env.frames, env.visible, second.0))
                    .map(from_json)
                    .unwrap_or(V::Missing),
            ),
            Insn::LoadOutcome => stack.push(V::Str(env.outcome, None)),
            Insn::LoadLabel => stack.push(match env.label {
                Some(l) => V::Str(l, None),
                None => V::Missing,
            }),
            Insn::Push(c) => stack.push(match c {
                Const::Null => V::Null,
                Const::Bool(b) => V::Bool(*b),
                Const::Int(i) => V::Int(*i),
                Const::Float(f) => V::Float(*f),
                Const::Str(id) => V::Str(env.program.str(*id), Some(*id)),
            }),
            Insn::List(n) => {
                let n = *n as usize;
                if n > stack.len() {
                    return Err(underflow());
                }
                let list = stack.split_off(stack.len() - n);
                stack.push(V::List(list));
            }
            Insn::Exists(key) => stack.push(V::Bool(
                scoped_get(env.frames, env.visible, key.0).is_some(),
            )),
            Insn::Not => {
                let v = stack.pop().ok_or_else(underflow)?;
                stack.push(V::Bool(!truth(&v, "the operand of `!`")?));
            }
            Insn::Cmp(op) => {
                let mut b = stack.pop().ok_or_else(underflow)?;
                let mut a = stack.pop().ok_or_else(underflow)?;
                if env.peer_statuses && matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    fold_peer_status(&code[pc.saturating_sub(2)..pc], &mut a, &mut b);
                }
                stack.push(V::Bool(compare(*op, &a, &b)));
            }
            Insn::In => {
                let list = stack.pop().ok_or_else(underflow)?;
                let x = stack.pop().ok_or_else(underflow)?;
                let found = items(&list).is_some_and(|l| l.iter().any(|i| eq(i, &x)));
                stack.push(V::Bool(found));
            }
            Insn::Contains => {
                let x = stack.pop().ok_or_else(underflow)?;
                let c = stack.pop().ok_or_else(underflow)?;
                let found = match (&c, &x) {
                    (V::Str(s, _), V::Str(t, _)) => s.contains(t),
                    (V::Json(Value::Object(m)), V::Str(t, _)) => m.contains_key(*t),
                    _ => items(&c).is_some_and(|l| l.iter().any(|i| eq(i, &x))),
                };
                stack.push(V::Bool(found));
            }
            Insn::Matches => {
                let pat = stack.pop().ok_or_else(underflow)?;
                let subject = stack.pop().ok_or_else(underflow)?;
                let m = match (&subject, &pat) {
                    (V::Str(s, _), V::Str(p, Some(id))) => {
                        env.regexes.is_match(Pat::Const(*id, p), s)?
                    }
                    (V::Str(s, _), V::Str(p, None)) => env.regexes.is_match(Pat::Text(p), s)?,
                    _ => false,
                };
                stack.push(V::Bool(m));
            }
            Insn::JumpIfFalse(t) | Insn::JumpIfTrue(t) => {
                let jump_on = matches!(code[pc], Insn::JumpIfTrue(_));
                let top = stack.last().ok_or_else(underflow)?;
                let b = truth(top, "the operand of `&&`/`||`")?;
                if b == jump_on {
                    *stack.last_mut().expect("checked above") = V::Bool(b);
                    let t = *t as usize;
                    if t <= pc || t > code.len() {
                        return Err(format!("guard jump to {t} is out of range"));
                    }
                    pc = t;
                    continue;
                }
                stack.pop();
            }
        }
        pc += 1;
    }
    match stack.as_slice() {
        [v] => truth(v, "the guard's result"),
        _ => Err(format!(
            "guard bytecode leaves {} values instead of one",
            stack.len()
        )),
    }
}

/// `outcome=succeeded` as `outcome=success`: when the two instructions
/// before a `==`/`!=` load the outcome and push a string constant (the
/// front end's code for `outcome=V` and `V=outcome`), the constant is
/// read through [`wf_ir::peer_status`]. Only the constant changes, so a
/// comparison whose other side is not the outcome (a jump landed there
/// with a boolean) is as false as before.
fn fold_peer_status<'a>(before: &[Insn], a: &mut V<'a>, b: &mut V<'a>) {
    let constant = match before {
        [Insn::LoadOutcome, Insn::Push(Const::Str(_))] => b,
        [Insn::Push(Const::Str(_)), Insn::LoadOutcome] => a,
        _ => return,
    };
    if let V::Str(text, _) = constant
        && let Some(status) = wf_ir::peer_status(text)
    {
        *constant = V::Str(status, None);
    }
}

mod show;

#[cfg(test)]
mod tests;

/// `a op b` as a guard compares them (`a` is `None` for a key with no
/// value): the simulation's planner (`attractor::explore`) checks the
/// values it would write with the engine's own comparison.
pub(crate) fn compare_values(op: CmpOp, a: Option<&Value>, b: &Value) -> bool {
    let a = a.map_or(V::Missing, from_json);
    compare(op, &a, &from_json(b))
}
