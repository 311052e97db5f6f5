//! Guard expressions as `.wf` source text, for edge labels.
//!
//! Unlike the checker's printer, which gives up on long guards, this one
//! always produces text: a picture shows the whole guard.

use std::fmt::Write;

use wf_model::{BinOp, Expr, Value};

/// Nesting beyond this is shown as `…`: guards are at most 256 deep, and a
/// label that deep is unreadable anyway.
const MAX_DEPTH: usize = 64;

/// `expr` as `.wf` source, with the fewest parentheses that keep its meaning.
pub fn text(expr: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, expr, 0, 0);
    out
}

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

fn write_expr(out: &mut String, expr: &Expr, min: u8, depth: usize) {
    if depth > MAX_DEPTH {
        out.push('…');
        return;
    }
    let parens = strength(expr) < min;
    if parens {
        out.push('(');
    }
    match expr {
        Expr::Literal(value, _) => write_value(out, value),
        Expr::Name(name, _) => out.push_str(name),
        Expr::Key(key, _) => write_key(out, key),
        Expr::List(items, _) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(out, item, 0, depth + 1);
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
            write_expr(out, inner, 3, depth + 1);
        }
        Expr::Binary(l, op, r, _) => {
            // `&&` and `||` are left-associative; comparisons do not chain,
            // so both of their operands must bind tighter.
            let (left, right) = match op {
                BinOp::Or => (0, 1),
                BinOp::And => (1, 2),
                _ => (3, 3),
            };
            write_expr(out, l, left, depth + 1);
            let _ = write!(out, " {} ", op.as_str());
            write_expr(out, r, right, depth + 1);
        }
        Expr::Error(_) => out.push('…'),
    }
    if parens {
        out.push(')');
    }
}

/// A key: bare when it is a dotted path of identifiers, else in backticks.
fn write_key(out: &mut String, key: &str) {
    let plain = key.split('.').all(|segment| {
        let mut chars = segment.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    if plain {
        out.push_str(key);
    } else {
        let _ = write!(out, "`{key}`");
    }
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        // `{:?}` keeps a `.0` on integral floats, so the text reads as a float.
        Value::Float(f) => {
            let _ = write!(out, "{f:?}");
        }
        Value::String(s) => write_string(out, s),
        Value::Duration(ms) => out.push_str(&duration(*ms)),
        Value::Ref(name) => out.push_str(name),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            out.push('{');
            for (i, (key, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_key(out, key);
                out.push_str(": ");
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A duration in its largest whole unit: `90m`, `1d`, `1500ms`.
fn duration(ms: u64) -> String {
    const UNITS: &[(&str, u64)] = &[
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1_000),
    ];
    for &(unit, size) in UNITS {
        if ms != 0 && ms.is_multiple_of(size) {
            return format!("{}{unit}", ms / size);
        }
    }
    format!("{ms}ms")
}

#[cfg(test)]
mod tests {
    use super::*;
    use wf_diagnostics::{FileId, FileSpan, Span};

    fn at() -> FileSpan {
        Span::new(0, 0).in_file(FileId(0))
    }

    fn name(n: &str) -> Box<Expr> {
        Box::new(Expr::Name(n.into(), at()))
    }

    #[test]
    fn keeps_the_meaning_with_few_parentheses() {
        let or = Expr::Binary(name("a"), BinOp::Or, name("b"), at());
        let and = Expr::Binary(Box::new(or), BinOp::And, name("c"), at());
        assert_eq!(text(&and), "(a || b) && c");
        let eq = Expr::Binary(name("outcome"), BinOp::Eq, name("success"), at());
        let not = Expr::Not(Box::new(eq), at());
        assert_eq!(text(&not), "!(outcome == success)");
    }

    #[test]
    fn quotes_keys_and_strings() {
        let key = Expr::Key("Part Count".into(), at());
        let s = Expr::Literal(Value::String("say \"hi\"".into()), at());
        let e = Expr::Binary(Box::new(key), BinOp::Eq, Box::new(s), at());
        assert_eq!(text(&e), r#"`Part Count` == "say \"hi\"""#);
        assert_eq!(
            text(&Expr::Literal(Value::Duration(5_400_000), at())),
            "90m"
        );
        assert_eq!(text(&Expr::Literal(Value::Float(3.0), at())), "3.0");
    }
}
