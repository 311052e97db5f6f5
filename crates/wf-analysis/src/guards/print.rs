//! Writing guard expressions back as `.wf` source text, for messages and
//! fixes.

use std::fmt::Write;

use wf_model::{BinOp, Expr, Value};

use crate::suggest::is_plain_identifier;
use crate::text::{duration_literal, string_literal};

/// Source text of `expr` with the fewest parentheses that keep its meaning;
/// `None` when part of it failed to parse or is too long to quote.
pub fn expr_text(expr: &Expr) -> Option<String> {
    let mut out = String::new();
    write_expr(&mut out, expr, 0, 0)?;
    (out.len() <= MAX_TEXT).then_some(out)
}

/// Texts longer than this are not quoted in messages.
const MAX_TEXT: usize = 120;

/// Binding strength: higher binds tighter (operands 4, `!` 3, comparisons 2,
/// `&&` 1, `||` 0), as in `grammar/wf.ebnf`.
fn strength(expr: &Expr) -> u8 {
    match expr {
        Expr::Binary(_, BinOp::Or, _, _) => 0,
        Expr::Binary(_, BinOp::And, _, _) => 1,
        Expr::Binary(..) => 2,
        Expr::Not(..) => 3,
        _ => 4,
    }
}

fn write_expr(out: &mut String, expr: &Expr, min: u8, depth: usize) -> Option<()> {
    if depth > 64 || out.len() > MAX_TEXT {
        return None;
    }
    let parens = strength(expr) < min;
    if parens {
        out.push('(');
    }
    match expr {
        Expr::Literal(value, _) => write_value(out, value)?,
        Expr::Name(name, _) => out.push_str(name),
        Expr::Key(key, _) => write_key(out, key),
        Expr::List(items, _) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(out, item, 0, depth + 1)?;
            }
            out.push(']');
        }
        Expr::Exists(key, _) => {
            out.push_str("exists(");
            write_key(out, key);
            out.push(')');
        }
        Expr::Not(inner, _) => {
            out.push('!');
            write_expr(out, inner, 3, depth + 1)?;
        }
        Expr::Binary(l, op, r, _) => {
            // `&&` and `||` are left-associative; comparisons do not chain,
            // so both of their operands must bind tighter.
            let (left, right) = match op {
                BinOp::Or => (0, 1),
                BinOp::And => (1, 2),
                _ => (3, 3),
            };
            write_expr(out, l, left, depth + 1)?;
            write!(out, " {} ", op.as_str()).ok()?;
            write_expr(out, r, right, depth + 1)?;
        }
        Expr::Error(_) => return None,
    }
    if parens {
        out.push(')');
    }
    Some(())
}

/// A key: bare when it is a dotted path of identifiers, else in backticks.
fn write_key(out: &mut String, key: &str) {
    if key.split('.').all(is_plain_identifier) {
        out.push_str(key);
    } else {
        out.push('`');
        out.push_str(key);
        out.push('`');
    }
}

fn write_value(out: &mut String, value: &Value) -> Option<()> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => write!(out, "{b}").ok()?,
        Value::Int(i) => write!(out, "{i}").ok()?,
        Value::Float(f) if f.is_finite() => {
            // `{:?}` keeps a `.0` on integral floats, so the text lexes as a float.
            write!(out, "{f:?}").ok()?
        }
        Value::Float(_) => return None,
        Value::String(s) => out.push_str(&string_literal(s)),
        Value::Duration(ms) => out.push_str(&duration_literal(*ms)),
        Value::Ref(_) | Value::List(_) | Value::Map(_) => return None,
    }
    Some(())
}
