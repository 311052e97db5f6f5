//! The model stylesheet (spec section 8), parsed with spans.
//!
//! ```text
//! Stylesheet  ::= Rule*
//! Rule        ::= Selector '{' Declaration ( ';' Declaration )* ';'? '}'
//! Selector    ::= '*' | ShapeName | '.' ClassName | '#' Identifier
//! Declaration ::= Property ':' Value
//! ```
//!
//! Specificity: `*` 0 < shape 1 < `.class` 2 < `#id` 3; a later rule wins a
//! tie. Properties are `llm_model`, `llm_provider` and `reasoning_effort`,
//! plus `model` and `provider`, the spellings of the `.wf` attributes that
//! real pipelines also use. A value is a quoted string or the text up to the
//! next `;` or `}`. After an error the parser skips to the end of the rule,
//! so every bad rule is reported (WF0510) and the good ones still apply.

use wf_diagnostics::{Diagnostic, FileId, FileSpan, codes};

use crate::strings::Decoded;

/// What a rule selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// `*`: every node.
    Universal,
    /// `box`: nodes of that shape (`box` when unset).
    Shape(String),
    /// `.name`: nodes with that class.
    Class(String),
    /// `#id`: the node with that id.
    Id(String),
}

impl Selector {
    /// The specificity: universal < shape < class < id.
    pub fn specificity(&self) -> u8 {
        match self {
            Selector::Universal => 0,
            Selector::Shape(_) => 1,
            Selector::Class(_) => 2,
            Selector::Id(_) => 3,
        }
    }
}

/// `property: value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Declaration {
    /// The property.
    pub property: String,
    /// Where the property is written.
    pub property_span: FileSpan,
    /// The value (quotes removed).
    pub value: String,
    /// Where the value is written.
    pub value_span: FileSpan,
}

/// One rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// The selector.
    pub selector: Selector,
    /// Where the selector is written.
    pub selector_span: FileSpan,
    /// The declarations, in order.
    pub declarations: Vec<Declaration>,
}

/// The properties a rule may set.
pub const PROPERTIES: &[&str] = &[
    "llm_model",
    "llm_provider",
    "reasoning_effort",
    "model",
    "provider",
];

/// Parses a stylesheet; bad rules are reported (WF0510) and left out.
pub fn parse(text: &Decoded, file: FileId) -> (Vec<Rule>, Vec<Diagnostic>) {
    let mut p = Sheet {
        d: text,
        s: &text.text,
        pos: 0,
        file,
        out: Vec::new(),
    };
    let mut rules = Vec::new();
    loop {
        p.skip_space();
        if p.pos >= p.s.len() {
            break;
        }
        match p.rule() {
            Ok(rule) => rules.push(rule),
            Err(()) => p.skip_rule(),
        }
    }
    (rules, p.out)
}

struct Sheet<'a> {
    d: &'a Decoded,
    s: &'a str,
    pos: usize,
    file: FileId,
    out: Vec<Diagnostic>,
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

impl Sheet<'_> {
    fn at(&self, range: std::ops::Range<usize>) -> FileSpan {
        self.d.span(range).in_file(self.file)
    }

    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    fn skip_space(&mut self) {
        loop {
            let rest = &self.s[self.pos..];
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            // CSS comments are tolerated between rules and declarations.
            if trimmed.starts_with("/*") {
                let end = trimmed.find("*/").map_or(trimmed.len(), |i| i + 2);
                self.pos += end;
            } else {
                return;
            }
        }
    }

    fn take_name(&mut self) -> std::ops::Range<usize> {
        let start = self.pos;
        let len = self.s[start..]
            .find(|c: char| !is_name_char(c))
            .unwrap_or(self.s.len() - start);
        self.pos += len;
        start..self.pos
    }

    fn error(&mut self, range: std::ops::Range<usize>, message: String, label: &str) {
        let at = self.at(range);
        self.out.push(
            Diagnostic::new(
                &codes::INVALID_STYLESHEET,
                format!("invalid model stylesheet: {message}"),
                at,
            )
            .with_primary_label(label)
            .with_help(
                "a rule is a selector (`*`, a shape, `.class` or `#id`) and declarations in braces: `.code { llm_model: claude-opus-4-6; }`",
            ),
        );
    }

    /// An error at the current character.
    fn error_here(&mut self, message: String, label: &str) {
        let len = self.peek().map_or(0, char::len_utf8);
        self.error(self.pos..self.pos + len, message, label);
    }

    /// After an error: past the next `}` (or to the end).
    fn skip_rule(&mut self) {
        match self.s[self.pos..].find('}') {
            Some(i) => self.pos += i + 1,
            None => self.pos = self.s.len(),
        }
    }

    fn rule(&mut self) -> Result<Rule, ()> {
        let start = self.pos;
        let selector = match self.peek() {
            Some('*') => {
                self.pos += 1;
                Selector::Universal
            }
            Some(c @ ('.' | '#')) => {
                self.pos += 1;
                let name = self.take_name();
                if name.is_empty() {
                    let what = if c == '.' {
                        "a class name"
                    } else {
                        "a node id"
                    };
                    self.error_here(format!("expected {what} after `{c}`"), "expected a name");
                    return Err(());
                }
                let name = self.s[name].to_string();
                if c == '.' {
                    Selector::Class(name)
                } else {
                    Selector::Id(name)
                }
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let name = self.take_name();
                Selector::Shape(self.s[name].to_string())
            }
            _ => {
                self.error_here(
                    "expected a selector".into(),
                    "expected `*`, a shape, `.class` or `#id`",
                );
                return Err(());
            }
        };
        let selector_span = self.at(start..self.pos);
        self.skip_space();
        if self.peek() != Some('{') {
            self.error_here(
                "expected `{` after the selector".into(),
                "expected `{` here",
            );
            return Err(());
        }
        self.pos += 1;
        let mut declarations = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                Some('}') => {
                    self.pos += 1;
                    break;
                }
                Some(';') => self.pos += 1,
                None => {
                    self.error(
                        start..start + 1,
                        "this rule is never closed".into(),
                        "expected `}`",
                    );
                    return Err(());
                }
                Some(_) => declarations.push(self.declaration()?),
            }
        }
        Ok(Rule {
            selector,
            selector_span,
            declarations,
        })
    }

    fn declaration(&mut self) -> Result<Declaration, ()> {
        let name = self.take_name();
        if name.is_empty() {
            self.error_here("expected a property".into(), "expected a property name");
            return Err(());
        }
        let property = self.s[name.clone()].to_string();
        if !PROPERTIES.contains(&property.as_str()) {
            self.error(
                name,
                format!("unknown property `{property}`"),
                "expected `llm_model`, `llm_provider` or `reasoning_effort`",
            );
            return Err(());
        }
        self.skip_space();
        if self.peek() != Some(':') {
            self.error_here(
                format!("expected `:` after `{property}`"),
                "expected `:` here",
            );
            return Err(());
        }
        self.pos += 1;
        self.skip_space();
        let (value, range) = if self.peek() == Some('"') {
            let start = self.pos;
            let Some(len) = self.s[start + 1..].find('"') else {
                self.error(
                    start..start + 1,
                    "unterminated string".into(),
                    "never closed",
                );
                return Err(());
            };
            self.pos = start + len + 2;
            (
                self.s[start + 1..start + 1 + len].to_string(),
                start..self.pos,
            )
        } else {
            let start = self.pos;
            let len = self.s[start..]
                .find([';', '}', '\n'])
                .unwrap_or(self.s.len() - start);
            let raw = self.s[start..start + len].trim_end();
            self.pos = start + raw.len();
            (raw.to_string(), start..self.pos)
        };
        if value.is_empty() {
            self.error(
                range,
                format!("`{property}` has no value"),
                "expected a value",
            );
            return Err(());
        }
        if property == "reasoning_effort" && !["low", "medium", "high"].contains(&value.as_str()) {
            self.error(
                range,
                format!("`{value}` is not a reasoning effort"),
                "expected `low`, `medium` or `high`",
            );
            return Err(());
        }
        Ok(Declaration {
            property,
            property_span: self.at(name),
            value,
            value_span: self.at(range),
        })
    }
}
