//! Writing guard expressions back as `.wf` source text: bounded, for
//! messages and fixes ([`expr_text`]), or whole, for pictures
//! ([`expr_label`]); or as an Attractor condition, for messages about
//! `.dot` pipelines ([`condition_text`]).

use std::fmt::Write;

use wf_model::{BinOp, Expr, Value};

use crate::suggest::is_plain_identifier;
use crate::text::{duration_literal, string_literal};

/// Source text of `expr` with the fewest parentheses that keep its meaning;
/// `None` when part of it failed to parse or is too long to quote.
pub fn expr_text(expr: &Expr) -> Option<String> {
    quote(expr, false)
}

/// Source text of `expr` as `expr_text` writes it, but never giving up:
/// a part that failed to parse, or nesting deeper than the guard language
/// allows, is written `…`, and values with no guard literal (names, lists,
/// maps, non-finite floats) are written as attribute values are. For
/// labels, where a picture shows the whole guard.
pub fn expr_label(expr: &Expr) -> String {
    let mut printer = Printer {
        out: String::new(),
        whole: true,
        attractor: false,
    };
    let _ = printer.expr(expr, 0, 0);
    printer.out
}

/// Like [`expr_text`], in the Attractor condition language of a `.dot`
/// pipeline: `context.approved=true && outcome!=fail`, `preferred_label`
/// for the label, values bare when they can be. Operators outside the
/// language (which WF0607 reports) keep their `.wf` spelling.
pub fn condition_text(expr: &Expr) -> Option<String> {
    quote(expr, true)
}

/// [`expr_text`] or [`condition_text`]: bounded, for messages.
fn quote(expr: &Expr, attractor: bool) -> Option<String> {
    let mut printer = Printer {
        out: String::new(),
        whole: false,
        attractor,
    };
    printer.expr(expr, 0, 0)?;
    (printer.out.len() <= MAX_TEXT).then_some(printer.out)
}

/// Texts longer than this are not quoted in messages.
const MAX_TEXT: usize = 120;

/// Nesting beyond this is not written (guards are at most 256 deep).
const MAX_DEPTH: usize = 64;

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

struct Printer {
    out: String,
    /// Write everything ([`expr_label`]) rather than give up.
    whole: bool,
    /// Write an Attractor condition ([`condition_text`]).
    attractor: bool,
}

impl Printer {
    /// A part that cannot be written: `…` when writing everything, else
    /// give up (`None`).
    fn unwritable(&mut self) -> Option<()> {
        self.whole.then(|| self.out.push('…'))
    }

    fn expr(&mut self, expr: &Expr, min: u8, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH || (!self.whole && self.out.len() > MAX_TEXT) {
            return self.unwritable();
        }
        let parens = strength(expr) < min;
        if parens {
            self.out.push('(');
        }
        match expr {
            Expr::Literal(value, _) => self.value(value)?,
            Expr::Name(name, _) if self.attractor && name == "label" => {
                self.out.push_str("preferred_label");
            }
            Expr::Name(name, _) => self.out.push_str(name),
            Expr::Key(key, _) => self.key(key),
            Expr::List(items, _) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(item, 0, depth + 1)?;
                }
                self.out.push(']');
            }
            Expr::Exists(key, _) => {
                self.out.push_str("exists(");
                self.key(key);
                self.out.push(')');
            }
            Expr::Not(inner, _) => {
                self.out.push('!');
                self.expr(inner, 3, depth + 1)?;
            }
            Expr::Binary(l, op, r, _) => {
                // `&&` and `||` are left-associative; comparisons do not
                // chain, so both of their operands must bind tighter.
                let (left, right) = match op {
                    BinOp::Or => (0, 1),
                    BinOp::And => (1, 2),
                    _ => (3, 3),
                };
                self.expr(l, left, depth + 1)?;
                match op {
                    BinOp::Eq if self.attractor => self.out.push('='),
                    BinOp::Ne if self.attractor => self.out.push_str("!="),
                    _ => write!(self.out, " {} ", op.as_str()).ok()?,
                }
                self.expr(r, right, depth + 1)?;
            }
            Expr::Error(_) => self.unwritable()?,
        }
        if parens {
            self.out.push(')');
        }
        Some(())
    }

    /// A key: bare when it is a dotted path of identifiers, else in
    /// backticks.
    fn key(&mut self, key: &str) {
        if key.split('.').all(is_plain_identifier) {
            self.out.push_str(key);
        } else {
            self.out.push('`');
            self.out.push_str(key);
            self.out.push('`');
        }
    }

    fn value(&mut self, value: &Value) -> Option<()> {
        match value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(b) => write!(self.out, "{b}").ok()?,
            Value::Int(i) => write!(self.out, "{i}").ok()?,
            // `{:?}` keeps a `.0` on integral floats, so the text lexes as a
            // float.
            Value::Float(f) if f.is_finite() || self.whole => write!(self.out, "{f:?}").ok()?,
            Value::String(s) if self.attractor && is_bare_condition_value(s) => {
                self.out.push_str(s);
            }
            Value::String(s) => self.out.push_str(&string_literal(s)),
            Value::Duration(ms) => self.out.push_str(&duration_literal(*ms)),
            Value::Ref(name) if self.whole => self.out.push_str(name),
            Value::List(items) if self.whole => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.value(item)?;
                }
                self.out.push(']');
            }
            Value::Map(entries) if self.whole => {
                self.out.push('{');
                for (i, (key, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.key(key);
                    self.out.push_str(": ");
                    self.value(item)?;
                }
                self.out.push('}');
            }
            Value::Float(_) | Value::Ref(_) | Value::List(_) | Value::Map(_) => return None,
        }
        Some(())
    }
}

/// Whether an Attractor condition can write `value` unquoted: it holds no
/// space, quote or operator character.
fn is_bare_condition_value(value: &str) -> bool {
    !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/'))
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
        assert_eq!(expr_label(&and), "(a || b) && c");
        let eq = Expr::Binary(name("outcome"), BinOp::Eq, name("success"), at());
        let not = Expr::Not(Box::new(eq), at());
        assert_eq!(expr_label(&not), "!(outcome == success)");
        assert_eq!(expr_text(&not).as_deref(), Some("!(outcome == success)"));
    }

    #[test]
    fn quotes_keys_and_strings() {
        let key = Expr::Key("Part Count".into(), at());
        let s = Expr::Literal(Value::String("say \"hi\"".into()), at());
        let e = Expr::Binary(Box::new(key), BinOp::Eq, Box::new(s), at());
        assert_eq!(expr_label(&e), r#"`Part Count` == "say \"hi\"""#);
        assert_eq!(
            expr_label(&Expr::Literal(Value::Duration(5_400_000), at())),
            "90m"
        );
        assert_eq!(expr_label(&Expr::Literal(Value::Float(3.0), at())), "3.0");
    }

    #[test]
    fn conditions_are_written_as_attractor_writes_them() {
        let key = |k: &str| Box::new(Expr::Key(k.into(), at()));
        let text = |v: &str| Box::new(Expr::Literal(Value::String(v.into()), at()));
        let approved = Expr::Binary(key("context.approved"), BinOp::Eq, text("true"), at());
        let label = Expr::Binary(name("label"), BinOp::Ne, text("Ship it"), at());
        let both = Expr::Binary(Box::new(approved), BinOp::And, Box::new(label), at());
        assert_eq!(
            condition_text(&both).as_deref(),
            Some(r#"context.approved=true && preferred_label!="Ship it""#)
        );
        assert_eq!(
            expr_text(&both).as_deref(),
            Some(r#"context.approved == "true" && label != "Ship it""#)
        );
    }

    #[test]
    fn a_label_writes_what_a_quote_gives_up_on() {
        let broken = Expr::Binary(name("a"), BinOp::And, Box::new(Expr::Error(at())), at());
        assert_eq!(expr_text(&broken), None);
        assert_eq!(expr_label(&broken), "a && …");
        let list = Expr::Literal(
            Value::List(vec![Value::Int(1), Value::Ref("x".into())]),
            at(),
        );
        assert_eq!(expr_text(&list), None);
        assert_eq!(expr_label(&list), "[1, x]");
        let long = (0..40).fold(*name("k"), |acc, _| {
            Expr::Binary(Box::new(acc), BinOp::Or, name("key"), at())
        });
        assert_eq!(expr_text(&long), None, "too long to quote");
        assert!(expr_label(&long).ends_with("|| key"));
    }
}
