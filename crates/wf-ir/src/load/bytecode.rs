//! Verifying guard bytecode by abstract interpretation of the stack depth.
//!
//! Jumps go forward only, so one pass in instruction order sees every path:
//! each instruction is reached by falling through from the one before it
//! (there is no unconditional jump) and possibly by jumps from earlier
//! ones, which must all arrive with the same stack depth. The rules are
//! those of docs/ir.md ("Verification").

use regex::{Regex, RegexBuilder};

use super::verify::Verifier;
use super::{LoadError, LoadErrorKind};
use crate::types::{Const, Insn};

/// The size limit of a compiled `matches` pattern and of its lazy DFA
/// cache, in bytes: the checker's limit (WF0404).
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Compiles a `matches` pattern the way the verifier and the checker do:
/// Rust `regex` syntax, unanchored, within [`REGEX_SIZE_LIMIT`].
pub fn compile_pattern(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
}

fn error(path: String, message: String) -> LoadError {
    LoadError::new(LoadErrorKind::Bytecode, path, message)
}

/// Verifies one guard at `at` (the path of the instruction array).
pub fn verify(v: &Verifier, code: &[Insn], at: &str) -> Result<(), LoadError> {
    if code.is_empty() {
        return Err(error(
            at.to_string(),
            "a guard has at least one instruction (omit `guard` for an unguarded edge)".into(),
        ));
    }
    let len = code.len();
    // The depth jumps arrive with at each position (len: the end).
    let mut arriving: Vec<Option<usize>> = vec![None; len + 1];
    let mut depth = 0usize;
    for (pc, insn) in code.iter().enumerate() {
        let here = || format!("{at}[{pc}]");
        if let Some(d) = arriving[pc]
            && d != depth
        {
            return Err(error(
                here(),
                format!(
                    "a jump arrives here with {d} values on the stack, but the instruction before leaves {depth}"
                ),
            ));
        }
        let needs = |n: usize, depth: usize| -> Result<(), LoadError> {
            if depth < n {
                Err(error(
                    here(),
                    format!(
                        "stack underflow: `{}` pops {n} values, the stack holds {depth}",
                        name(insn)
                    ),
                ))
            } else {
                Ok(())
            }
        };
        match insn {
            Insn::Load(key) | Insn::Exists(key) => {
                v.string(*key, || format!("{at}[{pc}].arg"))?;
                depth += 1;
            }
            Insn::LoadOr(first, second) => {
                v.string(*first, || format!("{at}[{pc}].arg[0]"))?;
                v.string(*second, || format!("{at}[{pc}].arg[1]"))?;
                depth += 1;
            }
            Insn::LoadOutcome | Insn::LoadLabel => depth += 1,
            Insn::Push(c) => {
                if let Const::Str(s) = c {
                    v.string(*s, || format!("{at}[{pc}].arg.value"))?;
                }
                depth += 1;
            }
            Insn::List(n) => {
                let n = *n as usize;
                needs(n, depth)?;
                depth = depth - n + 1;
            }
            Insn::Not => needs(1, depth)?,
            Insn::Cmp(_) | Insn::In | Insn::Contains => {
                needs(2, depth)?;
                depth -= 1;
            }
            Insn::Matches => {
                needs(2, depth)?;
                pattern(v, code, pc, &arriving, at)?;
                depth -= 1;
            }
            Insn::JumpIfFalse(target) | Insn::JumpIfTrue(target) => {
                needs(1, depth)?;
                let t = *target as usize;
                if t <= pc || t > len {
                    return Err(error(
                        format!("{at}[{pc}].arg"),
                        format!(
                            "jump target {t} is out of range: a jump goes forward, to an instruction after it or to the end ({len})"
                        ),
                    ));
                }
                match arriving[t] {
                    Some(d) if d != depth => {
                        return Err(error(
                            format!("{at}[{pc}].arg"),
                            format!(
                                "this jump arrives at {t} with {depth} values on the stack, another one with {d}"
                            ),
                        ));
                    }
                    _ => arriving[t] = Some(depth),
                }
                depth -= 1;
            }
        }
    }
    if let Some(d) = arriving[len]
        && d != depth
    {
        return Err(error(
            at.to_string(),
            format!(
                "a jump to the end leaves {d} values on the stack, the last instruction {depth}"
            ),
        ));
    }
    if depth != 1 {
        return Err(error(
            at.to_string(),
            format!("a guard must leave exactly one value on the stack; this one leaves {depth}"),
        ));
    }
    Ok(())
}

/// `matches` takes its pattern from a `push` of a string constant right
/// before it, which no jump skips; the pattern must compile.
fn pattern(
    v: &Verifier,
    code: &[Insn],
    pc: usize,
    arriving: &[Option<usize>],
    at: &str,
) -> Result<(), LoadError> {
    let constant = match pc.checked_sub(1).map(|p| &code[p]) {
        Some(Insn::Push(Const::Str(s))) if arriving[pc].is_none() => *s,
        _ => {
            return Err(error(
                format!("{at}[{pc}]"),
                "`matches` must directly follow the `push` of its pattern (a string constant), and no jump may target it".into(),
            ));
        }
    };
    let text = v.string(constant, || format!("{at}[{}].arg.value", pc - 1))?;
    compile_pattern(text).map_err(|e| {
        let reason = match e {
            regex::Error::CompiledTooBig(limit) => {
                format!("the compiled pattern would exceed the size limit of {limit} bytes")
            }
            other => other.to_string(),
        };
        LoadError::new(
            LoadErrorKind::Regex,
            format!("{at}[{}].arg.value", pc - 1),
            format!("the `matches` pattern {text:?} does not compile: {reason}"),
        )
    })?;
    Ok(())
}

/// The instruction's `op` as written in JSON.
fn name(insn: &Insn) -> &'static str {
    match insn {
        Insn::Load(_) => "load",
        Insn::LoadOr(..) => "load_or",
        Insn::LoadOutcome => "load_outcome",
        Insn::LoadLabel => "load_label",
        Insn::Push(_) => "push",
        Insn::List(_) => "list",
        Insn::Exists(_) => "exists",
        Insn::Not => "not",
        Insn::Cmp(_) => "cmp",
        Insn::In => "in",
        Insn::Contains => "contains",
        Insn::Matches => "matches",
        Insn::JumpIfFalse(_) => "jump_if_false",
        Insn::JumpIfTrue(_) => "jump_if_true",
    }
}
