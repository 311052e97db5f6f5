//! Guard expressions to stack-machine bytecode.
//!
//! Operands resolve exactly as the checker resolves them
//! (`wf_analysis::guards::operand`): the bare names `outcome` and `label`
//! are built-ins, the bare status names are string constants, every other
//! name and every backtick key is a blackboard key. `&&` and `||`
//! short-circuit through forward jumps. The walk is iterative, so a guard
//! of any depth compiles without exhausting the native stack.

use wf_analysis::guards::{Operand, STATUS_NAMES, operand};
use wf_diagnostics::FileSpan;
use wf_model::{BinOp, Expr, SourceFormat, Value};

use super::{CompileError, Cx};
use wf_ir::{CmpOp, Const, Insn};

/// One pending piece of work of the iterative walk.
enum Task<'e> {
    /// Compile an expression (pushing one value).
    Visit(&'e Expr),
    /// Compile a literal value (pushing one value).
    Literal(&'e Value, FileSpan),
    /// Emit an instruction.
    Emit(Insn),
    /// Emit a conditional jump whose target is patched later.
    Jump { if_true: bool },
    /// Point the most recent unpatched jump at the next instruction.
    Patch,
}

/// Compiles one guard.
pub fn compile(cx: &mut Cx, expr: &Expr, span: FileSpan) -> Result<Vec<Insn>, CompileError> {
    let mut code: Vec<Insn> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut tasks = vec![Task::Visit(expr)];
    while let Some(task) = tasks.pop() {
        match task {
            Task::Emit(insn) => code.push(insn),
            Task::Jump { if_true } => {
                open.push(code.len());
                code.push(if if_true {
                    Insn::JumpIfTrue(0)
                } else {
                    Insn::JumpIfFalse(0)
                });
            }
            Task::Patch => {
                let at = open.pop().expect("every jump is patched once");
                let target = u32::try_from(code.len())
                    .map_err(|_| cx.error(Some(span), "the guard is too long"))?;
                match &mut code[at] {
                    Insn::JumpIfTrue(t) | Insn::JumpIfFalse(t) => *t = target,
                    _ => unreachable!("only jumps are opened"),
                }
            }
            Task::Literal(value, at) => literal(cx, value, at, &mut code, &mut tasks)?,
            Task::Visit(e) => visit(cx, e, &mut code, &mut tasks)?,
        }
    }
    Ok(code)
}

/// Expands one expression into tasks (pushed in reverse order of running).
fn visit<'e>(
    cx: &mut Cx,
    e: &'e Expr,
    code: &mut Vec<Insn>,
    tasks: &mut Vec<Task<'e>>,
) -> Result<(), CompileError> {
    match e {
        Expr::Name(..) | Expr::Key(..) => code.push(match operand(e) {
            Some(Operand::Outcome) => Insn::LoadOutcome,
            Some(Operand::Label) => Insn::LoadLabel,
            Some(Operand::Status(i)) => {
                Insn::Push(Const::Str(cx.strings.intern(STATUS_NAMES[i as usize])))
            }
            Some(Operand::Key(key)) => match key.strip_prefix("context.") {
                Some(bare) if cx.workflow.format == SourceFormat::Dot && !bare.is_empty() => {
                    Insn::LoadOr(cx.strings.intern(key), cx.strings.intern(bare))
                }
                _ => Insn::Load(cx.strings.intern(key)),
            },
            None => unreachable!("names and keys are operands"),
        }),
        Expr::Literal(value, span) => tasks.push(Task::Literal(value, *span)),
        Expr::Exists(key, _) => code.push(Insn::Exists(cx.strings.intern(key))),
        Expr::List(items, span) => {
            tasks.push(Task::Emit(Insn::List(list_len(cx, items.len(), *span)?)));
            tasks.extend(items.iter().rev().map(Task::Visit));
        }
        Expr::Not(inner, _) => {
            tasks.push(Task::Emit(Insn::Not));
            tasks.push(Task::Visit(inner));
        }
        Expr::Binary(l, op, r, span) => {
            let last = match op {
                BinOp::And | BinOp::Or => {
                    tasks.push(Task::Patch);
                    tasks.push(Task::Visit(r));
                    tasks.push(Task::Jump {
                        if_true: *op == BinOp::Or,
                    });
                    tasks.push(Task::Visit(l));
                    return Ok(());
                }
                BinOp::Eq => Insn::Cmp(CmpOp::Eq),
                BinOp::Ne => Insn::Cmp(CmpOp::Ne),
                BinOp::Lt => Insn::Cmp(CmpOp::Lt),
                BinOp::Le => Insn::Cmp(CmpOp::Le),
                BinOp::Gt => Insn::Cmp(CmpOp::Gt),
                BinOp::Ge => Insn::Cmp(CmpOp::Ge),
                BinOp::In => Insn::In,
                BinOp::Contains => Insn::Contains,
                BinOp::Matches => {
                    if !matches!(**r, Expr::Literal(Value::String(_), _)) {
                        return Err(cx.error(
                            Some(*span),
                            "the right side of `matches` must be a string literal",
                        ));
                    }
                    Insn::Matches
                }
            };
            tasks.push(Task::Emit(last));
            tasks.push(Task::Visit(r));
            tasks.push(Task::Visit(l));
        }
        Expr::Error(span) => {
            return Err(cx.error(Some(*span), "the guard has a syntax error"));
        }
    }
    Ok(())
}

/// A literal: scalars become one `push`, lists their items and `list`.
fn literal<'e>(
    cx: &mut Cx,
    value: &'e Value,
    span: FileSpan,
    code: &mut Vec<Insn>,
    tasks: &mut Vec<Task<'e>>,
) -> Result<(), CompileError> {
    let c = match value {
        Value::Null => Const::Null,
        Value::Bool(b) => Const::Bool(*b),
        Value::Int(i) => Const::Int(*i),
        Value::Float(x) if x.is_finite() => Const::Float(*x),
        Value::Float(x) => {
            return Err(cx.error(Some(span), format!("the float `{x}` is not finite")));
        }
        Value::Duration(ms) => Const::Int(
            i64::try_from(*ms).map_err(|_| cx.error(Some(span), "the duration is too long"))?,
        ),
        // A bare word of a `.dot` condition is a string.
        Value::String(s) | Value::Ref(s) => Const::Str(cx.strings.intern(s)),
        Value::List(items) => {
            tasks.push(Task::Emit(Insn::List(list_len(cx, items.len(), span)?)));
            tasks.extend(items.iter().rev().map(|v| Task::Literal(v, span)));
            return Ok(());
        }
        Value::Map(_) => {
            return Err(cx.error(Some(span), "guards have no map constants"));
        }
    };
    code.push(Insn::Push(c));
    Ok(())
}

fn list_len(cx: &Cx, len: usize, span: FileSpan) -> Result<u32, CompileError> {
    u32::try_from(len).map_err(|_| cx.error(Some(span), "the list is too long"))
}
