//! Type checking of one guard: WF0401 (operand types), WF0402 (booleans),
//! WF0403 (outcome values) and WF0404 (patterns).
//!
//! One walk over the expression infers each operand's [`Ty`] bottom-up and
//! checks it against what its operator accepts; O(guard size). A part with
//! an error, or of unknown type, is [`Ty::Any`] and accepted everywhere,
//! so one mistake is reported once.

use rustc_hash::FxHashSet as HashSet;

use wf_diagnostics::{Applicability, Diagnostic, FileSpan, Fix, codes};
use wf_model::{BinOp, Expr, SourceFormat, Value};

use super::pattern;
use super::print::expr_text;
use super::resolve::{Operand, operand, span};
use super::status::{STATUS_NAMES, status_index, suggest as suggest_status};
use super::types::{KeyTypes, Ty};

/// Deeper expressions are not checked (the `.wf` parser already rejects
/// guards deeper than 256; other front ends might not).
const MAX_DEPTH: usize = 1_000;

/// Checks one guard expression, appending diagnostics to `out`.
/// `valid_patterns` remembers the `matches` patterns already compiled
/// without error (in this workflow), so each is compiled once.
pub fn check_guard(
    expr: &Expr,
    keys: &KeyTypes<'_>,
    format: SourceFormat,
    valid_patterns: &mut HashSet<String>,
    out: &mut Vec<Diagnostic>,
) {
    let mut checker = Checker {
        keys,
        attractor: format == SourceFormat::Dot,
        valid_patterns,
        out,
    };
    checker.need_bool(expr, None, 0);
}

struct Checker<'a, 'k> {
    keys: &'a KeyTypes<'k>,
    /// An Attractor condition: its help speaks of `=` and `!=` only.
    attractor: bool,
    valid_patterns: &'a mut HashSet<String>,
    out: &'a mut Vec<Diagnostic>,
}

impl Checker<'_, '_> {
    /// Infers the type of `expr`, reporting the problems inside it.
    fn infer(&mut self, expr: &Expr, depth: usize) -> Ty {
        if depth > MAX_DEPTH {
            return Ty::Any;
        }
        let depth = depth + 1;
        match expr {
            Expr::Literal(value, _) => Ty::of_value(value),
            Expr::Name(..) | Expr::Key(..) => self.operand_type(expr),
            Expr::List(items, _) => {
                for item in items {
                    self.infer(item, depth);
                }
                Ty::List
            }
            Expr::Exists(..) => Ty::Bool,
            Expr::Not(inner, _) => {
                self.need_bool(inner, Some(BoolUse::Not), depth);
                Ty::Bool
            }
            Expr::Binary(l, op @ (BinOp::And | BinOp::Or), r, _) => {
                self.need_bool(l, Some(BoolUse::Op(*op)), depth);
                self.need_bool(r, Some(BoolUse::Op(*op)), depth);
                Ty::Bool
            }
            Expr::Binary(l, op, r, whole) => {
                let tl = self.infer(l, depth);
                let tr = self.infer(r, depth);
                match op {
                    BinOp::Eq | BinOp::Ne => self.equality(l, *op, r, (tl, tr)),
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        self.ordered(*op, (l, tl), (r, tr));
                    }
                    BinOp::In => self.membership(l, r, (tl, tr), *whole),
                    BinOp::Contains => self.contains(l, r, (tl, tr)),
                    BinOp::Matches => self.matches(l, r, tl),
                    BinOp::And | BinOp::Or => unreachable!("handled above"),
                }
                Ty::Bool
            }
            Expr::Error(_) => Ty::Any,
        }
    }

    fn operand_type(&self, expr: &Expr) -> Ty {
        match operand(expr) {
            Some(Operand::Outcome | Operand::Status(_)) => Ty::Status,
            Some(Operand::Label) => Ty::String,
            Some(Operand::Key(key)) => self.keys.ty(key).ty,
            None => Ty::Any,
        }
    }

    /// WF0402 unless `expr` is a boolean (or unknown).
    fn need_bool(&mut self, expr: &Expr, usage: Option<BoolUse>, depth: usize) {
        let ty = self.infer(expr, depth);
        if matches!(ty, Ty::Bool | Ty::Any) {
            return;
        }
        let what = describe(expr, ty);
        let message = match usage {
            None => format!("this guard is not a boolean: {what}"),
            Some(BoolUse::Not) => format!("`!` needs a boolean, but {what}"),
            Some(BoolUse::Op(op)) => format!("`{}` needs booleans, but {what}", op.as_str()),
        };
        let text = expr_text(expr).unwrap_or_else(|| "it".to_string());
        let help = match ty {
            // Literals: suggesting to compare a constant would be odd.
            _ if operand(expr).is_none() => {
                "a guard is built from comparisons, `exists(…)` and boolean keys".to_string()
            }
            Ty::Status => format!("compare it with a status, for example `{text} == success`"),
            Ty::Int | Ty::Float | Ty::Number | Ty::Duration => {
                format!("compare it with a value, for example `{text} > 0`")
            }
            Ty::String => format!(
                "compare it with a value (`{text} == \"…\"`), or test whether a key is set with `exists(…)`"
            ),
            Ty::List => format!("test for an element with `{text} contains …`"),
            _ => "a guard is built from comparisons, `exists(…)` and boolean keys".to_string(),
        };
        let diagnostic = Diagnostic::new(&codes::NON_BOOLEAN_CONDITION, message, span(expr))
            .with_primary_label(format!("expected `bool`, found `{ty}`"));
        let diagnostic = self.with_decl(diagnostic, expr).with_help(help);
        self.out.push(diagnostic);
    }

    /// `==` and `!=`: the two sides must be comparable; `outcome` must be
    /// compared with a status.
    fn equality(&mut self, l: &Expr, op: BinOp, r: &Expr, (tl, tr): (Ty, Ty)) {
        if operand(l) == Some(Operand::Outcome) && self.outcome_value(r) {
            return;
        }
        if operand(r) == Some(Operand::Outcome) && self.outcome_value(l) {
            return;
        }
        if !tl.comparable(tr) {
            let message = format!(
                "`{}` compares {} with {}",
                op.as_str(),
                tl.with_article(),
                tr.with_article()
            );
            self.mismatch(message, (l, tl), (r, tr));
        }
    }

    /// WF0401 at `found` (the side that does not fit), with the other side
    /// and its declaration as context, and a fix when `found` is a quoted
    /// number or boolean the other side expects unquoted.
    fn mismatch(&mut self, message: String, (expected, te): (&Expr, Ty), (found, tf): (&Expr, Ty)) {
        let diagnostic = Diagnostic::new(&codes::GUARD_TYPE_MISMATCH, message, span(found))
            .with_primary_label(format!(
                "expected a value comparable with `{te}`, found `{tf}`"
            ))
            .with_label(span(expected), describe(expected, te));
        let mut diagnostic = self.with_decl(diagnostic, expected);
        if let Some(fix) = unquote_fix(found, te) {
            diagnostic = diagnostic
                .with_help("the quotes make the value a string")
                .with_fix(fix);
        } else if te == Ty::Status {
            diagnostic = diagnostic.with_help(format!(
                "`outcome` is one of the statuses {}",
                STATUS_NAMES.map(|s| format!("`{s}`")).join(", ")
            ));
        }
        self.out.push(diagnostic);
    }

    /// `<`, `<=`, `>`, `>=`: each side must be a number or a duration. One
    /// diagnostic per comparison, at the first side that is not.
    fn ordered(&mut self, op: BinOp, (l, tl): (&Expr, Ty), (r, tr): (&Expr, Ty)) {
        let (side, ty, other) = match (tl.is_numeric(), tr.is_numeric()) {
            (true, true) => return,
            (false, true) => (l, tl, None),
            (true, false) => (r, tr, None),
            (false, false) => (l, tl, Some((r, tr))),
        };
        let message = format!(
            "`{}` orders numbers and durations, but {}",
            op.as_str(),
            describe(side, ty)
        );
        let mut diagnostic = Diagnostic::new(&codes::GUARD_TYPE_MISMATCH, message, span(side))
            .with_primary_label(format!("expected a number, found `{ty}`"));
        if let Some((other, to)) = other {
            diagnostic = diagnostic.with_label(
                span(other),
                format!("{}, not a number either", describe(other, to)),
            );
        }
        diagnostic = self.with_decl(diagnostic, side);
        if let Some(fix) = unquote_fix(side, Ty::Number) {
            diagnostic = diagnostic
                .with_help("the quotes make the value a string")
                .with_fix(fix);
        } else if self.attractor {
            diagnostic = diagnostic.with_help(
                "Attractor conditions compare with `=` and `!=` only: `outcome=success`, `context.key=value`",
            );
        } else if ty == Ty::Status {
            diagnostic = diagnostic.with_help("statuses are compared with `==`, `!=` and `in`");
        } else if ty.is_stringy() {
            diagnostic = diagnostic
                .with_help("strings are compared with `==`, `!=`, `in`, `contains` and `matches`");
        }
        self.out.push(diagnostic);
    }

    /// `x in xs`: `xs` must be a list; list elements must be comparable
    /// with `x` (statuses when `x` is `outcome`).
    fn membership(&mut self, l: &Expr, r: &Expr, (tl, tr): (Ty, Ty), whole: FileSpan) {
        if !matches!(tr, Ty::List | Ty::Any) {
            let message = format!("`in` needs a list on the right, but {}", describe(r, tr));
            let mut diagnostic = Diagnostic::new(&codes::GUARD_TYPE_MISMATCH, message, span(r))
                .with_primary_label(format!("expected `list`, found `{tr}`"));
            diagnostic = self.with_decl(diagnostic, r);
            let swapped = (tr.is_stringy()).then(|| {
                let text = format!("{} contains {}", expr_text(r)?, expr_text(l)?);
                Some(text)
            });
            match swapped.flatten() {
                Some(text) => {
                    diagnostic = diagnostic
                        .with_help("`in` looks for an element of a list; a substring is found with `contains`")
                        .with_fix(Fix::replace(
                            format!("write `{text}`"),
                            whole,
                            text,
                            Applicability::MaybeIncorrect,
                        ));
                }
                None => {
                    diagnostic = diagnostic.with_help("write the values as a list: `x in [a, b]`");
                }
            }
            self.out.push(diagnostic);
            return;
        }
        let Expr::List(items, _) = r else {
            return;
        };
        let is_outcome = operand(l) == Some(Operand::Outcome);
        for item in items {
            if is_outcome && self.outcome_value(item) {
                continue;
            }
            let ti = self.infer_quiet(item);
            if !tl.comparable(ti) {
                let message = format!(
                    "`in` looks for {} in a list, but this element is {}",
                    tl.with_article(),
                    ti.with_article()
                );
                self.mismatch(message, (l, tl), (item, ti));
            }
        }
    }

    /// `xs contains x`: `xs` must be a list or a string; a string contains
    /// only strings.
    fn contains(&mut self, l: &Expr, r: &Expr, (tl, tr): (Ty, Ty)) {
        match tl {
            Ty::List | Ty::Any => {}
            Ty::String | Ty::Status => {
                if !tr.is_stringy() && tr != Ty::Null {
                    let message = format!(
                        "a string can only contain a string, but {}",
                        describe(r, tr)
                    );
                    self.mismatch(message, (l, tl), (r, tr));
                }
            }
            _ => {
                let message = format!(
                    "`contains` needs a list or a string on the left, but {}",
                    describe(l, tl)
                );
                let diagnostic = Diagnostic::new(&codes::GUARD_TYPE_MISMATCH, message, span(l))
                    .with_primary_label(format!("expected `list` or `string`, found `{tl}`"));
                let diagnostic = self.with_decl(diagnostic, l);
                self.out.push(diagnostic);
            }
        }
    }

    /// `s matches "re"`: a string on the left, a valid pattern literal on
    /// the right.
    fn matches(&mut self, l: &Expr, r: &Expr, tl: Ty) {
        if !tl.is_stringy() {
            let message = format!(
                "`matches` needs a string on the left, but {}",
                describe(l, tl)
            );
            let diagnostic = Diagnostic::new(&codes::GUARD_TYPE_MISMATCH, message, span(l))
                .with_primary_label(format!("expected `string`, found `{tl}`"));
            let diagnostic = self.with_decl(diagnostic, l);
            self.out.push(diagnostic);
        }
        match r {
            Expr::Literal(Value::String(pattern), literal) => {
                if !self.valid_patterns.contains(pattern.as_str()) {
                    match pattern::check(pattern, *literal) {
                        Some(diagnostic) => self.out.push(diagnostic),
                        None => {
                            self.valid_patterns.insert(pattern.clone());
                        }
                    }
                }
            }
            Expr::Error(_) => {}
            _ => {
                let ty = self.infer_quiet(r);
                let diagnostic = Diagnostic::new(
                    &codes::GUARD_TYPE_MISMATCH,
                    "the pattern of `matches` must be a string literal",
                    span(r),
                )
                .with_primary_label(match operand(r) {
                    Some(_) => format!("expected a string literal, found a name ({})", describe(r, ty)),
                    None => format!("expected a string literal, found {}", ty.with_article()),
                })
                .with_note("patterns are compiled before the workflow runs, so they cannot come from the blackboard")
                .with_help("write the regular expression as a string: `x matches \"^v[0-9]+\"`");
                self.out.push(diagnostic);
            }
        }
    }

    /// Checks a value compared with `outcome`. Returns whether it reported
    /// WF0403 (then the type check is skipped): for a string that is not a
    /// status name, or a bare name that is neither a status nor a key the
    /// workflow declares (most likely a misspelled status).
    fn outcome_value(&mut self, value: &Expr) -> bool {
        let (word, written, bare) = match value {
            Expr::Literal(Value::String(s), _) if status_index(s).is_none() => {
                (s.as_str(), crate::text::string_literal(s), false)
            }
            Expr::Name(name, _) => match operand(value) {
                Some(Operand::Key(key)) if self.keys.get(key).is_none() => {
                    (name.as_str(), name.clone(), true)
                }
                _ => return false,
            },
            _ => return false,
        };
        let at = span(value);
        let mut diagnostic = Diagnostic::new(
            &codes::UNKNOWN_OUTCOME,
            format!("`{written}` is not an outcome status"),
            at,
        );
        match suggest_status(word) {
            Some(status) => {
                let replacement = if bare {
                    status.to_string()
                } else {
                    crate::text::string_literal(status)
                };
                diagnostic = diagnostic
                    .with_primary_label(format!("did you mean `{status}`?"))
                    .with_fix(Fix::replace(
                        format!("replace with `{replacement}`"),
                        at,
                        replacement,
                        Applicability::MaybeIncorrect,
                    ));
            }
            None => diagnostic = diagnostic.with_primary_label("not a status"),
        }
        diagnostic = diagnostic.with_help(format!(
            "the statuses are {}",
            STATUS_NAMES.map(|s| format!("`{s}`")).join(", ")
        ));
        if bare {
            diagnostic = diagnostic.with_note(format!(
                "a bare name compared with `outcome` is a status; a blackboard key `{word}` would have to be declared, or written in backticks: `` `{word}` ``"
            ));
        }
        self.out.push(diagnostic);
        true
    }

    /// The type of `expr` without reporting anything (for a second look at
    /// an operand already checked).
    fn infer_quiet(&self, expr: &Expr) -> Ty {
        match expr {
            Expr::Literal(value, _) => Ty::of_value(value),
            Expr::Name(..) | Expr::Key(..) => self.operand_type(expr),
            Expr::List(..) => Ty::List,
            Expr::Exists(..) | Expr::Not(..) | Expr::Binary(..) => Ty::Bool,
            Expr::Error(_) => Ty::Any,
        }
    }

    /// Adds a label at the declaration that gave a key operand its type.
    fn with_decl(&self, diagnostic: Diagnostic, expr: &Expr) -> Diagnostic {
        let Some(Operand::Key(key)) = operand(expr) else {
            return diagnostic;
        };
        let known = self.keys.ty(key);
        match known.decl {
            Some(decl) if known.ty != Ty::Any => {
                diagnostic.with_label(decl, format!("`{key}` is declared `{}` here", known.ty))
            }
            _ => diagnostic,
        }
    }
}

/// Where a boolean is needed.
#[derive(Clone, Copy)]
enum BoolUse {
    /// The operand of `!`.
    Not,
    /// An operand of `&&` or `||`.
    Op(BinOp),
}

/// "`count` is an `int`", "`outcome` is a `status`", "this is a `string`".
fn describe(expr: &Expr, ty: Ty) -> String {
    match operand(expr) {
        Some(Operand::Outcome) => "`outcome` is a `status`".to_string(),
        Some(Operand::Label) => "`label` is a `string`".to_string(),
        Some(Operand::Status(s)) => format!("`{}` is a `status`", STATUS_NAMES[s as usize]),
        Some(Operand::Key(key)) => format!("`{key}` is {}", ty.with_article()),
        None => format!("this is {}", ty.with_article()),
    }
}

/// Replaces a quoted number (`"3"`) or boolean (`"true"`) by its unquoted
/// form when that is the type expected.
fn unquote_fix(found: &Expr, expected: Ty) -> Option<Fix> {
    let Expr::Literal(Value::String(text), at) = found else {
        return None;
    };
    let fits = match expected {
        Ty::Int => text.parse::<i64>().is_ok() && text.bytes().all(|b| b.is_ascii_digit()),
        Ty::Float | Ty::Number | Ty::Duration => {
            text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && text.parse::<f64>().is_ok()
                && !text.starts_with('.')
                && !text.ends_with('.')
        }
        Ty::Bool => text == "true" || text == "false",
        _ => false,
    };
    fits.then(|| {
        Fix::replace(
            format!("write `{text}` without quotes"),
            *at,
            text.clone(),
            Applicability::MaybeIncorrect,
        )
    })
}
