//! WF0510: the syntax of a workflow's `model_stylesheet` (Attractor section
//! 8), a CSS-like list of rules that give nodes model defaults:
//!
//! ```text
//! Stylesheet  ::= Rule*
//! Rule        ::= Selector '{' Declaration ( ';' Declaration )* ';'? '}'
//! Selector    ::= '*' | '#' Identifier | '.' ClassName
//! ClassName   ::= [a-z0-9-]+
//! Declaration ::= Property ':' Value
//! Property    ::= 'llm_model' | 'llm_provider' | 'reasoning_effort'
//! ```
//!
//! A value is a quoted string or the text up to the next `;` or `}`;
//! `reasoning_effort` takes `low`, `medium` or `high`. Parsing is one pass
//! over the text and stops at the first error.

use wf_diagnostics::{Diagnostic, FileSpan, Span, codes};
use wf_model::{Attribute, Value};

use super::schema::REASONING_EFFORT;
use super::values::members;
use crate::suggest::best_match;

/// The properties a rule may set.
const PROPERTIES: &[&str] = &["llm_model", "llm_provider", "reasoning_effort"];

/// A syntax error: a byte range of the stylesheet text and what is wrong.
struct Error {
    at: std::ops::Range<usize>,
    message: String,
    label: String,
    help: Option<String>,
}

/// WF0510 for the first syntax error of `attribute`'s stylesheet.
pub fn check(attribute: &Attribute) -> Option<Diagnostic> {
    let Value::String(text) = &attribute.value else {
        return None;
    };
    let error = parse(text).err()?;
    // The error's range maps onto the source only when the value is a
    // one-line string without escapes: then the source is the text between
    // two quotes. (Escapes and text blocks always change the length.)
    let span = attribute.value_span;
    let precise = span.span.len() as usize == text.len() + 2;
    let location = if precise {
        let start = span.span.start as usize + 1;
        FileSpan {
            file: span.file,
            span: Span::new(
                start + error.at.start,
                start + error.at.end.max(error.at.start),
            ),
        }
    } else {
        span
    };
    let diagnostic = Diagnostic::new(
        &codes::INVALID_STYLESHEET,
        format!("invalid model stylesheet: {}", error.message),
        location,
    );
    let diagnostic = if precise {
        diagnostic.with_primary_label(error.label)
    } else {
        diagnostic
            .with_primary_label("in this stylesheet")
            .with_note(format!(
                "{} after `{}`",
                error.label.trim_end_matches(" here"),
                context(text, error.at.start)
            ))
    };
    Some(match error.help {
        Some(help) => diagnostic.with_help(help),
        None => diagnostic.with_help(
            "a rule is a selector (`*`, `#node` or `.class`) and declarations in braces: `.code { llm_model: claude-opus-4-6; }`",
        ),
    })
}

/// Up to 30 characters of `text` before `at`, on one line, for notes.
fn context(text: &str, at: usize) -> String {
    let before: Vec<char> = text[..at].trim_end().chars().collect();
    let from = before.len().saturating_sub(30);
    let tail: String = before[from..].iter().collect();
    let tail = tail.rsplit('\n').next().unwrap_or_default().trim_start();
    if from > 0 && !tail.is_empty() {
        format!("…{tail}")
    } else {
        tail.to_string()
    }
}

/// A cursor over the stylesheet text.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    /// Consumes the longest run of characters satisfying `keep`.
    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> &str {
        let start = self.pos;
        let rest = &self.text[start..];
        let len = rest.find(|c| !keep(c)).unwrap_or(rest.len());
        self.pos += len;
        &self.text[start..self.pos]
    }

    /// An error at the current character (or the end of the text).
    fn error_here(&self, message: &str, label: &str) -> Error {
        let len = self.peek().map_or(0, char::len_utf8);
        Error {
            at: self.pos..self.pos + len,
            message: message.to_string(),
            label: label.to_string(),
            help: None,
        }
    }

    fn expect(&mut self, c: char, message: &str) -> Result<(), Error> {
        self.skip_space();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error_here(message, &format!("expected `{c}` here")))
        }
    }
}

fn parse(text: &str) -> Result<(), Error> {
    let mut p = Parser { text, pos: 0 };
    loop {
        p.skip_space();
        if p.peek().is_none() {
            return Ok(());
        }
        selector(&mut p)?;
        p.expect('{', "expected `{` after the selector")?;
        declarations(&mut p)?;
    }
}

fn selector(p: &mut Parser) -> Result<(), Error> {
    let start = p.pos;
    match p.peek() {
        Some('*') => {
            p.pos += 1;
            Ok(())
        }
        Some(c @ ('#' | '.')) => {
            p.pos += 1;
            let name = if c == '#' {
                p.take_while(|c| c.is_ascii_alphanumeric() || c == '_')
            } else {
                p.take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            };
            if name.is_empty() {
                let what = if c == '#' {
                    "a node name"
                } else {
                    "a class name"
                };
                return Err(Error {
                    at: start..p.pos,
                    message: format!("expected {what} after `{c}`"),
                    label: format!("`{c}` needs {what}"),
                    help: (c == '.')
                        .then(|| "class names are lowercase letters, digits and `-`".to_string()),
                });
            }
            Ok(())
        }
        _ => Err(p.error_here(
            "expected a selector",
            "expected `*`, `#node` or `.class` here",
        )),
    }
}

/// The declarations of one rule, after its `{`, through its `}`.
fn declarations(p: &mut Parser) -> Result<(), Error> {
    loop {
        p.skip_space();
        match p.peek() {
            Some('}') => {
                p.pos += 1;
                return Ok(());
            }
            None => return Err(p.error_here("a rule is not closed", "expected `}` here")),
            _ => {}
        }
        declaration(p)?;
        p.skip_space();
        match p.peek() {
            Some(';') => p.pos += 1,
            Some('}') => {}
            None => return Err(p.error_here("a rule is not closed", "expected `}` here")),
            _ => {
                return Err(p.error_here(
                    "expected `;` or `}` after a declaration",
                    "expected `;` or `}` here",
                ));
            }
        }
    }
}

fn declaration(p: &mut Parser) -> Result<(), Error> {
    let start = p.pos;
    let property = p
        .take_while(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        .to_string();
    if property.is_empty() {
        return Err(p.error_here("expected a property", "expected a property name here"));
    }
    if !PROPERTIES.contains(&property.as_str()) {
        let help = match best_match(&property, PROPERTIES.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("the properties are {}", PROPERTIES.join(", ")),
        };
        return Err(Error {
            at: start..p.pos,
            message: format!("unknown property `{property}`"),
            label: "not a stylesheet property".into(),
            help: Some(help),
        });
    }
    p.expect(':', "expected `:` after the property")?;
    p.skip_space();
    let value_start = p.pos;
    let value = if p.peek() == Some('"') {
        p.pos += 1;
        let inner = p.take_while(|c| c != '"').to_string();
        p.expect('"', "a quoted value is not closed")?;
        inner
    } else {
        p.take_while(|c| c != ';' && c != '}')
            .trim_end()
            .to_string()
    };
    let at = value_start..value_start + p.text[value_start..p.pos].trim_end().len();
    if value.is_empty() {
        return Err(Error {
            at: at.start..at.start,
            message: format!("`{property}` has no value"),
            label: "expected a value here".into(),
            help: None,
        });
    }
    if property == "reasoning_effort" && !REASONING_EFFORT.values.contains(&value.as_str()) {
        return Err(Error {
            at,
            message: format!("unknown reasoning effort `{value}`"),
            label: "not a reasoning effort".into(),
            help: Some(format!("use {}", members(&REASONING_EFFORT))),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> Option<(String, &str)> {
        parse(text).err().map(|e| (e.message, &text[e.at]))
    }

    #[test]
    fn valid_stylesheets() {
        assert!(error("").is_none());
        assert!(error("* { llm_model: claude-sonnet-4-5; llm_provider: anthropic; }").is_none());
        assert!(error(".code { llm_model: \"x y\" } #review { reasoning_effort: high }").is_none());
        assert!(error(".a-1 { llm_model: gpt-5.2 }").is_none());
    }

    #[test]
    fn errors_point_at_the_problem() {
        assert_eq!(error("code { }").unwrap().1, "c");
        assert_eq!(error("* llm_model: x").unwrap().1, "l");
        assert_eq!(
            error("* { llm_modl: x }").unwrap(),
            ("unknown property `llm_modl`".into(), "llm_modl")
        );
        assert_eq!(error("* { reasoning_effort: max }").unwrap().1, "max");
        assert_eq!(error("* { llm_model: x").unwrap().0, "a rule is not closed");
        assert_eq!(
            error("* { llm_model x }").unwrap().0,
            "expected `:` after the property"
        );
        assert_eq!(
            error(".Code { }").unwrap().0,
            "expected a class name after `.`"
        );
        assert_eq!(
            error("* { llm_model: ; }").unwrap().0,
            "`llm_model` has no value"
        );
    }
}
