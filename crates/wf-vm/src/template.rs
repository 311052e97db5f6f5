//! Expanding `$key` / `${key}` templates (`wf_ir::Template`) against the
//! scoped blackboard.
//!
//! A string value is inserted as is; any other value as compact JSON
//! (`3`, `true`, `["a","b"]`). For a tool `command`, every inserted value
//! is quoted for the POSIX shell context it lands in, so it is always
//! literal text and never shell syntax: outside quotes it becomes one
//! single-quoted word (`'it'\''s'`); inside `"…"` the characters `\ " $` and
//! `` ` `` are backslash-escaped; inside `'…'` each `'` becomes `'\''`. The
//! context is tracked through the command's literal text (quotes and
//! backslashes; backquoted command substitution is not tracked). A key with
//! no value in scope fails the node. Elsewhere (labels, spec strings the
//! agent receives) a missing key expands to the empty string, since those
//! texts are for reading.

use serde_json::{Map, Value};
use wf_ir::{IrProgram, Part, Template};

use crate::agent::BlackboardView;

/// How inserted values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quoting {
    /// As they are; a missing key is the empty string.
    Text,
    /// Shell-quoted; a missing key is an error.
    Shell,
}

/// Expands `template`. With [`Quoting::Shell`], `Err` names the first key
/// that has no value in scope.
pub fn render(
    program: &IrProgram,
    template: &Template,
    view: &dyn BlackboardView,
    quoting: Quoting,
) -> Result<String, String> {
    let mut out = String::new();
    let mut shell = ShellContext::Plain;
    for part in template {
        match *part {
            Part::Text(id) => {
                let text = program.str(id);
                shell = shell.after(text);
                out.push_str(text);
            }
            Part::Key(id) => {
                let key = program.str(id);
                let text = match view.get(key) {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None if quoting == Quoting::Shell => return Err(key.to_string()),
                    None => String::new(),
                };
                match quoting {
                    Quoting::Text => out.push_str(&text),
                    Quoting::Shell => out.push_str(&shell.quote(&text)),
                }
            }
        }
    }
    Ok(out)
}

/// Where in a POSIX shell command a position is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShellContext {
    /// Outside quotes.
    Plain,
    /// Inside `'…'`.
    Single,
    /// Inside `"…"`.
    Double,
    /// Right after a backslash outside quotes or inside `"…"` (the
    /// context to return to).
    Escaped(bool),
}

impl ShellContext {
    /// The context after `text`.
    fn after(self, text: &str) -> Self {
        text.chars().fold(self, |cx, ch| match (cx, ch) {
            (Self::Escaped(in_double), _) => {
                if in_double {
                    Self::Double
                } else {
                    Self::Plain
                }
            }
            (Self::Plain, '\'') => Self::Single,
            (Self::Plain, '"') => Self::Double,
            (Self::Plain, '\\') => Self::Escaped(false),
            (Self::Single, '\'') => Self::Plain,
            (Self::Double, '"') => Self::Plain,
            (Self::Double, '\\') => Self::Escaped(true),
            (cx, _) => cx,
        })
    }

    /// `value` as literal text in this context.
    fn quote(self, value: &str) -> String {
        match self {
            Self::Plain | Self::Escaped(false) => shell_quote(value),
            Self::Single => value.replace('\'', r"'\''"),
            Self::Double | Self::Escaped(true) => {
                let mut out = String::with_capacity(value.len());
                for ch in value.chars() {
                    if matches!(ch, '\\' | '"' | '$' | '`') {
                        out.push('\\');
                    }
                    out.push(ch);
                }
                out
            }
        }
    }
}

/// `text` as one POSIX shell word: single-quoted, with each `'` written
/// `'\''`.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `spec` with each templated top-level string expanded as text.
pub fn render_spec(
    program: &IrProgram,
    spec: &Map<String, Value>,
    templates: &std::collections::BTreeMap<String, Template>,
    view: &dyn BlackboardView,
) -> Map<String, Value> {
    let mut out = spec.clone();
    for (key, template) in templates {
        if let Some(slot @ Value::String(_)) = out.get_mut(key) {
            let text = render(program, template, view, Quoting::Text).unwrap_or_default();
            *slot = Value::String(text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use wf_ir::StrId;

    struct View(HashMap<String, Value>);
    impl BlackboardView for View {
        fn get(&self, key: &str) -> Option<&Value> {
            self.0.get(key)
        }
        fn keys(&self) -> Vec<&str> {
            self.0.keys().map(String::as_str).collect()
        }
        fn local(&self) -> Vec<(&str, &Value)> {
            Vec::new()
        }
    }

    fn program() -> IrProgram {
        IrProgram {
            format: wf_ir::FORMAT.into(),
            version: wf_ir::VERSION,
            strings: vec!["echo ".into(), "env".into(), " $HOME ".into(), "n".into()],
            workflows: Vec::new(),
        }
    }

    #[test]
    fn shell_quoting_keeps_values_one_word() {
        let view = View(HashMap::from([
            ("env".into(), Value::from("it's; rm -rf /")),
            ("n".into(), Value::from(3)),
        ]));
        let t = vec![
            Part::Text(StrId(0)),
            Part::Key(StrId(1)),
            Part::Text(StrId(2)),
            Part::Key(StrId(3)),
        ];
        assert_eq!(
            render(&program(), &t, &view, Quoting::Shell).unwrap(),
            r"echo 'it'\''s; rm -rf /' $HOME '3'"
        );
        assert_eq!(
            render(&program(), &t, &view, Quoting::Text).unwrap(),
            "echo it's; rm -rf / $HOME 3"
        );
    }

    #[test]
    fn values_are_quoted_for_their_shell_context() {
        let mut p = program();
        p.strings = vec!["a \"".into(), "env".into(), ".x\" '".into(), "' ".into()];
        let view = View(HashMap::from([("env".into(), Value::from("$'x\""))]));
        let t = vec![
            Part::Text(StrId(0)),
            Part::Key(StrId(1)),
            Part::Text(StrId(2)),
            Part::Key(StrId(1)),
            Part::Text(StrId(3)),
            Part::Key(StrId(1)),
        ];
        assert_eq!(
            render(&p, &t, &view, Quoting::Shell).unwrap(),
            r#"a "\$'x\".x" '$'\''x"' '$'\''x"'"#
        );
    }

    #[test]
    fn a_missing_key_fails_a_command_and_is_empty_in_text() {
        let view = View(HashMap::new());
        let t = vec![Part::Text(StrId(0)), Part::Key(StrId(1))];
        assert_eq!(
            render(&program(), &t, &view, Quoting::Shell),
            Err("env".into())
        );
        assert_eq!(
            render(&program(), &t, &view, Quoting::Text).unwrap(),
            "echo "
        );
    }
}
