//! Attractor edge conditions (spec section 10) parsed into guard
//! expressions with precise spans.
//!
//! ```text
//! ConditionExpr ::= Clause ( '&&' Clause )*
//! Clause        ::= Key ( '=' | '!=' ) Literal | Key
//! Key           ::= 'outcome' | 'preferred_label' | 'context.' Path | Path
//! ```
//!
//! The mapping to the guard language: `=` is `==`; the literal is the
//! trimmed text after the operator (quotes removed when it is quoted), always
//! a string, as Attractor compares strings; `outcome` and `preferred_label`
//! become the built-ins `outcome` and `label`; any other key is a blackboard
//! key, kept as written (`context.tests_passed`); a bare key is "truthy",
//! `key != ""`. The operators of section 10.7 that some engines accept
//! (`==`, `||`, `!`, `contains`, `!contains`, `<`, `<=`, `>`, `>=`) are
//! understood and reported as extensions (WF0607).

use wf_diagnostics::{Applicability, Diagnostic, FileId, FileSpan, Fix, codes};
use wf_model::{BinOp, Expr, Value};

use crate::strings::Decoded;

/// The guard of a condition, and its diagnostics (WF0606, WF0607). `None`
/// for an empty condition, which always holds.
pub fn parse(text: &Decoded, file: FileId) -> (Option<Expr>, Vec<Diagnostic>) {
    let mut p = Cond {
        d: text,
        file,
        out: Vec::new(),
    };
    if text.text.trim().is_empty() {
        return (None, p.out);
    }
    let expr = p.or_groups();
    (Some(expr), p.out)
}

struct Cond<'a> {
    d: &'a Decoded,
    file: FileId,
    out: Vec<Diagnostic>,
}

/// Splits `range` of `text` at every top-level occurrence of `sep`
/// (outside double quotes), returning the pieces and the separators' ranges.
fn split(text: &str, range: std::ops::Range<usize>, sep: &str) -> Vec<std::ops::Range<usize>> {
    let mut pieces = Vec::new();
    let mut start = range.start;
    let mut i = range.start;
    let mut quoted = false;
    let bytes = text.as_bytes();
    while i < range.end {
        match bytes[i] {
            b'\\' if quoted => i += 1,
            b'"' => quoted = !quoted,
            b if !quoted
                && b == sep.as_bytes()[0]
                && bytes[i..range.end].starts_with(sep.as_bytes()) =>
            {
                pieces.push(start..i);
                i += sep.len();
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    pieces.push(start..range.end);
    pieces
}

/// Narrows `range` to its text without surrounding whitespace.
fn trim(text: &str, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let s = &text[range.clone()];
    let start = range.start + (s.len() - s.trim_start().len());
    let end = range.end - (s.len() - s.trim_end().len());
    start..end.max(start)
}

fn is_key(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|seg| {
            !seg.is_empty()
                && seg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
        && !s.starts_with(|c: char| c.is_ascii_digit() || c == '-')
}

impl Cond<'_> {
    fn at(&self, range: std::ops::Range<usize>) -> FileSpan {
        self.d.span(range).in_file(self.file)
    }

    fn error(&mut self, range: std::ops::Range<usize>, message: String, label: &str) -> Expr {
        let at = self.at(range);
        self.out.push(
            Diagnostic::new(&codes::DOT_CONDITION_SYNTAX, message, at)
                .with_primary_label(label)
                .with_help(
                    "a condition is clauses joined by `&&`, each `key=value`, `key!=value` or a bare key: `outcome=success && context.ready=true`",
                ),
        );
        Expr::Error(at)
    }

    fn extension(&mut self, range: std::ops::Range<usize>, op: &str) {
        let at = self.at(range);
        self.out.push(
            Diagnostic::new(
                &codes::DOT_CONDITION_EXTENSION,
                format!("`{op}` is not part of the Attractor condition language"),
                at,
            )
            .with_primary_label("an extension")
            .with_help("Attractor conditions use only `=`, `!=` and `&&`; other engines may reject or misread this"),
        );
    }

    /// Joins `parts` with `op` into a balanced tree: `&&` and `||` are
    /// associative, and a balanced tree keeps a condition of thousands of
    /// clauses shallow (log depth), so nothing that walks it recursively
    /// (or drops it) can overflow the stack.
    fn join(&self, mut parts: Vec<Expr>, op: BinOp, range: std::ops::Range<usize>) -> Expr {
        let whole = self.at(range);
        if parts.len() <= 1 {
            return parts.pop().unwrap_or(Expr::Error(whole));
        }
        balanced(parts, op, whole)
    }

    fn or_groups(&mut self) -> Expr {
        let text = &self.d.text;
        let whole = trim(text, 0..text.len());
        let groups = split(text, whole.clone(), "||");
        for g in &groups[..groups.len() - 1] {
            self.extension(g.end..g.end + 2, "||");
        }
        let parts = groups
            .into_iter()
            .map(|g| {
                let clauses = split(&self.d.text, g.clone(), "&&");
                let parts = clauses.into_iter().map(|c| self.clause(c)).collect();
                self.join(parts, BinOp::And, trim(&self.d.text, g))
            })
            .collect();
        self.join(parts, BinOp::Or, whole)
    }

    fn clause(&mut self, range: std::ops::Range<usize>) -> Expr {
        // `self.d` outlives `self`'s borrow: no copy of the text per clause.
        let d = self.d;
        let text = &d.text;
        let r = trim(text, range.clone());
        let s = &text[r.clone()];
        if s.is_empty() {
            // Point at the `&&` next to the missing clause.
            let bytes = text.as_bytes();
            let at = if range.start >= 2 && &bytes[range.start - 2..range.start] == b"&&" {
                range.start - 2..range.start
            } else if bytes[range.end..].starts_with(b"&&") {
                range.end..range.end + 2
            } else {
                range
            };
            return self.error(
                at,
                "empty clause in a condition".into(),
                "no clause next to this `&&`",
            );
        }
        if s.starts_with('!') && !s.starts_with("!=") && !s.starts_with("!contains") {
            // `!!x` is `x`: fold any run of `!` into at most one negation
            // (iteratively, so a long run cannot overflow the stack).
            let bangs = s.len() - s.trim_start_matches(['!', ' ', '\t']).len();
            let count = s[..bangs].matches('!').count();
            self.extension(r.start..r.start + bangs, "!");
            let inner = self.clause(r.start + bangs..r.end);
            return if count % 2 == 1 {
                Expr::Not(Box::new(inner), self.at(r))
            } else {
                inner
            };
        }
        let Some((op, op_range)) = find_op(text, r.clone()) else {
            if is_key(s) {
                // A bare key is truthy: not the empty string.
                let key = self.key(s, r.clone());
                let at = self.at(r.clone());
                let empty = Expr::Literal(Value::String(String::new()), self.at(r.end..r.end));
                return Expr::Binary(Box::new(key), BinOp::Ne, Box::new(empty), at);
            }
            return self.error(
                r,
                format!("`{s}` is neither a comparison nor a key"),
                "expected `key=value`, `key!=value` or a key",
            );
        };
        let key_range = trim(text, r.start..op_range.start);
        let key_text = &text[key_range.clone()];
        if key_text.is_empty() {
            return self.error(
                op_range,
                "a comparison without a key".into(),
                "expected a key before this",
            );
        }
        if !is_key(key_text) {
            return self.error(
                key_range,
                format!("`{key_text}` is not a key"),
                "expected `outcome`, `preferred_label` or a key such as `context.ready`",
            );
        }
        let written = &text[op_range.clone()];
        if let Some(meant) = match op {
            "=>" => Some(">="),
            "=<" => Some("<="),
            _ => None,
        } {
            let at = self.at(op_range.clone());
            let message = format!("`{op}` is not a condition operator");
            self.out.push(
                Diagnostic::new(&codes::DOT_CONDITION_SYNTAX, message, at)
                    .with_primary_label("not an operator")
                    .with_help(format!(
                        "conditions compare with `=` and `!=`; for an ordering write `{meant}` (an extension some engines accept)"
                    ))
                    .with_fix(Fix::replace(
                        format!("write `{meant}`"),
                        at,
                        meant,
                        Applicability::MaybeIncorrect,
                    )),
            );
            return Expr::Error(self.at(r));
        }
        let model_op = match written.trim() {
            "=" => BinOp::Eq,
            "!=" => BinOp::Ne,
            "==" => BinOp::Eq,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            _ => BinOp::Contains,
        };
        if !matches!(written.trim(), "=" | "!=") {
            let op_span = trim(text, op_range.clone());
            self.extension(op_span, op);
        }
        let value_range = trim(text, op_range.end..r.end);
        if value_range.is_empty() {
            return self.error(
                r,
                format!("`{key_text}{}` has no value", written.trim()),
                "expected a value after the operator",
            );
        }
        if let Some(quote) = lone_quote(&text[value_range.clone()]) {
            return self.error(
                value_range.start + quote..value_range.end,
                "unterminated quote in a condition value".into(),
                "no quote matches this one",
            );
        }
        let key = self.key(key_text, key_range);
        let value = self.literal(value_range, model_op);
        let at = self.at(r);
        let binary = Expr::Binary(Box::new(key), model_op, Box::new(value), at);
        if op == "!contains" {
            Expr::Not(Box::new(binary), at)
        } else {
            binary
        }
    }

    fn key(&self, key: &str, range: std::ops::Range<usize>) -> Expr {
        let at = self.at(range);
        match key {
            "outcome" => Expr::Name("outcome".into(), at),
            "preferred_label" => Expr::Name("label".into(), at),
            _ => Expr::Key(key.into(), at),
        }
    }

    fn literal(&self, range: std::ops::Range<usize>, op: BinOp) -> Expr {
        let raw = &self.d.text[range.clone()];
        let at = self.at(range);
        let unquoted = raw
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .filter(|_| raw.len() >= 2);
        let value = match (unquoted, op) {
            // (The substring search of `replace` only when needed.)
            (Some(inner), _) if inner.contains('\\') => Value::String(inner.replace("\\\"", "\"")),
            (Some(inner), _) => Value::String(inner.to_string()),
            (None, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) => {
                if let Ok(i) = raw.parse::<i64>() {
                    Value::Int(i)
                } else if let Ok(f) = raw.parse::<f64>() {
                    Value::Float(f)
                } else {
                    Value::String(raw.into())
                }
            }
            (None, _) => Value::String(raw.into()),
        };
        Expr::Literal(value, at)
    }
}

/// The offset of a `"` in `value` that no other closes: a quote left open
/// (`"success`), or a closing quote never opened (`success"`). An escaped
/// quote (`\"`) inside a quoted value is text.
fn lone_quote(value: &str) -> Option<usize> {
    let bytes = value.as_bytes();
    let mut open: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if open.is_some() => i += 1,
            b'"' => open = if open.is_some() { None } else { Some(i) },
            _ => {}
        }
        i += 1;
    }
    open
}

/// `parts` (at least two) joined by `op`, halves first.
fn balanced(mut parts: Vec<Expr>, op: BinOp, whole: FileSpan) -> Expr {
    if parts.len() == 1 {
        return parts.pop().unwrap_or(Expr::Error(whole));
    }
    let right = parts.split_off(parts.len() / 2);
    let l = balanced(parts, op, whole);
    let r = balanced(right, op, whole);
    let span = FileSpan {
        file: whole.file,
        span: span_of(&l).to(span_of(&r)),
    };
    Expr::Binary(Box::new(l), op, Box::new(r), span)
}

fn span_of(e: &Expr) -> wf_diagnostics::Span {
    match e {
        Expr::Literal(_, s)
        | Expr::Name(_, s)
        | Expr::Key(_, s)
        | Expr::List(_, s)
        | Expr::Exists(_, s)
        | Expr::Not(_, s)
        | Expr::Binary(_, _, _, s)
        | Expr::Error(s) => s.span,
    }
}

/// The first operator in the clause, as written and with its range:
/// `!=`, `==`, `<=`, `>=`, `=`, `<`, `>`, or a word operator `contains` /
/// `!contains` standing between spaces.
fn find_op(
    text: &str,
    range: std::ops::Range<usize>,
) -> Option<(&'static str, std::ops::Range<usize>)> {
    let s = &text[range.clone()];
    for (word, pattern) in [("!contains", " !contains "), ("contains", " contains ")] {
        if let Some(i) = find_spaced(s, pattern) {
            let start = range.start + i + 1;
            // Only when the left side is a single key.
            if !s[..i].trim().contains(' ') {
                return Some((word, start..start + word.len()));
            }
        }
    }
    let bytes = s.as_bytes();
    let mut quoted = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'"' {
            quoted = !quoted;
        }
        if quoted {
            continue;
        }
        // Compare bytes, not `&str` slices: this runs for every byte of
        // every clause.
        let at = range.start + i;
        match (b, bytes.get(i + 1)) {
            (b'!', Some(b'=')) => return Some(("!=", at..at + 2)),
            (b'=', Some(b'=')) => return Some(("==", at..at + 2)),
            // Operators of no condition language, found so that they are
            // reported as such rather than read as `=` and a value `>x`.
            (b'=', Some(b'>')) => return Some(("=>", at..at + 2)),
            (b'=', Some(b'<')) => return Some(("=<", at..at + 2)),
            (b'<', Some(b'=')) => return Some(("<=", at..at + 2)),
            (b'>', Some(b'=')) => return Some((">=", at..at + 2)),
            (b'=', _) => return Some(("=", at..at + 1)),
            (b'<', _) => return Some(("<", at..at + 1)),
            (b'>', _) => return Some((">", at..at + 1)),
            _ => {}
        }
    }
    None
}

/// `s.find(pattern)` for a pattern that starts with a space: clauses are
/// short and have few spaces, so checking at each space is cheaper than
/// setting up a substring search.
fn find_spaced(s: &str, pattern: &str) -> Option<usize> {
    memchr::memchr_iter(b' ', s.as_bytes())
        .find(|&i| s.as_bytes()[i..].starts_with(pattern.as_bytes()))
}
