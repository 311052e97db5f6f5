//! Attributes and values: lists, maps and text blocks.

use wf_diagnostics::Span;
use wf_syntax::ast::{Attribute, Key, MapEntry, Value};

use crate::printer::{INDENT, Printer};

impl Printer<'_> {
    /// `key = value`.
    pub(crate) fn attribute(&mut self, attr: &Attribute) {
        let prefix = format!("{} = ", self.key(&attr.key));
        self.value_entry(&prefix, &attr.value, "", attr.span.end);
    }

    /// A value on a line after `prefix` and before `suffix`: on one line
    /// when it can be, else a list or map one entry per line, and a text
    /// block re-indented under the line.
    fn value_entry(&mut self, prefix: &str, value: &Value, suffix: &str, end: u32) {
        if let Some(flat) = self.flat_value(value) {
            let line = format!("{prefix}{flat}{suffix}");
            if self.fits(&line) || !matches!(value, Value::List(..) | Value::Map(..)) {
                return self.push(line, end);
            }
        }
        match value {
            Value::List(items, span) => {
                self.push(format!("{prefix}["), span.start + 1);
                self.block(items, close_of(*span), Value::span, |p, _, item| {
                    p.value_entry("", item, ",", item.span().end);
                });
                self.push(format!("]{suffix}"), end);
            }
            Value::Map(entries, span) => {
                self.push(format!("{prefix}{{"), span.start + 1);
                self.block(
                    entries,
                    close_of(*span),
                    |e: &MapEntry| e.span,
                    |p, _, entry| {
                        let key = format!("{}: ", p.key(&entry.key));
                        p.value_entry(&key, &entry.value, ",", entry.span.end);
                    },
                );
                self.push(format!("}}{suffix}"), end);
            }
            Value::String(lit) if lit.multiline => {
                let block = self.text_block(self.text(lit.span));
                self.push(format!("{prefix}{block}{suffix}"), end);
            }
            Value::Path(key) => {
                let code = format!("{prefix}{}{suffix}", self.key(key));
                self.push(code, end);
            }
            _ => {
                let code = format!("{prefix}{}{suffix}", self.text(value.span()));
                self.push(code, end);
            }
        }
    }

    /// A value on one line, when it has no comment inside, no line break
    /// of its own, and (a non-empty list or map) was not written with a
    /// line break after its opening bracket.
    pub(crate) fn flat_value(&self, value: &Value) -> Option<String> {
        let span = value.span();
        if matches!(value, Value::List(..) | Value::Map(..))
            && self.has_comments(span.start, span.end)
        {
            return None;
        }
        match value {
            Value::Path(key) => Some(self.key(key)),
            Value::List(items, _) => {
                if let Some(first) = items.first()
                    && self.breaks_between(span.start, first.span().start)
                {
                    return None;
                }
                let items: Option<Vec<String>> = items.iter().map(|v| self.flat_value(v)).collect();
                Some(format!("[{}]", items?.join(", ")))
            }
            Value::Map(entries, _) => {
                let Some(first) = entries.first() else {
                    return Some("{}".into());
                };
                if self.breaks_between(span.start, first.span.start) {
                    return None;
                }
                let entries: Option<Vec<String>> = entries
                    .iter()
                    .map(|e| {
                        Some(format!(
                            "{}: {}",
                            self.key(&e.key),
                            self.flat_value(&e.value)?
                        ))
                    })
                    .collect();
                Some(format!("{{ {} }}", entries?.join(", ")))
            }
            _ => {
                let text = self.text(span);
                (!text.contains('\n')).then(|| text.to_string())
            }
        }
    }

    /// A key as written: quoted keys (strings, backtick keys) verbatim, and
    /// a dotted path as its segments joined by dots, which drops whatever
    /// the parser let stand between them (a comment there is emitted where
    /// comments inside a line go, not duplicated).
    pub(crate) fn key(&self, key: &Key) -> String {
        if key.quoted {
            self.text(key.span).to_string()
        } else {
            key.text.clone()
        }
    }

    /// A text block with its lines moved under the current line, one level
    /// deeper, when that
    /// provably keeps its value: the opening line is blank and the common
    /// indentation is made of spaces only. The closing quotes, on a line of
    /// their own, line up with the text. Anything else stays as written.
    fn text_block(&self, raw: &str) -> String {
        let Some(body) = raw
            .strip_prefix("\"\"\"")
            .and_then(|b| b.strip_suffix("\"\"\""))
        else {
            return raw.to_string();
        };
        let lines: Vec<&str> = body
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        let blank = |l: &str| l.trim_matches([' ', '\t']).is_empty();
        // A `\r` left at the end of a line would be read as part of the
        // line break once written with `\n`.
        if lines.len() < 2 || !blank(lines[0]) || lines.iter().any(|l| l.ends_with('\r')) {
            return raw.to_string();
        }
        let closing_line = lines.len() > 2 && blank(lines[lines.len() - 1]);
        let content = &lines[1..if closing_line {
            lines.len() - 1
        } else {
            lines.len()
        }];
        let mut common: Option<&str> = None;
        for line in content.iter().filter(|l| !blank(l)) {
            let lead = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
            common = Some(match common {
                None => lead,
                Some(prev) => {
                    let n = prev
                        .bytes()
                        .zip(lead.bytes())
                        .take_while(|(a, b)| a == b)
                        .count();
                    &prev[..n]
                }
            });
        }
        let common = common.unwrap_or("");
        if common.contains('\t') {
            return raw.to_string();
        }
        let base = " ".repeat(self.indent + INDENT);
        let mut out = String::from("\"\"\"");
        for line in content {
            out.push('\n');
            if !blank(line) {
                out.push_str(&base);
                out.push_str(&line[common.len()..]);
            }
        }
        if closing_line || content.iter().all(|l| blank(l)) {
            out.push('\n');
            out.push_str(&base);
        }
        out.push_str("\"\"\"");
        out
    }
}

/// The offset of the closing bracket of a list or map.
fn close_of(span: Span) -> u32 {
    span.end.saturating_sub(1)
}
