//! Reading JSON values against the shape the Reflex schema requires,
//! reporting each violation as a WF0012 diagnostic at the offending key or
//! value.

use wf_diagnostics::{Diagnostic, FileId, FileSpan, Span, codes};

use crate::json::{Json, JsonKind, Member};

/// Collects diagnostics while reading one document.
pub(crate) struct Reader {
    /// The file the document is in.
    pub file: FileId,
    /// What was reported.
    pub diagnostics: Vec<Diagnostic>,
}

impl Reader {
    /// A span of this file.
    pub fn at(&self, span: Span) -> FileSpan {
        span.in_file(self.file)
    }

    /// Reports a schema violation.
    pub fn schema_error(&mut self, span: Span, message: String, label: &str) -> &mut Diagnostic {
        let diagnostic = Diagnostic::new(&codes::REFLEX_SCHEMA, message, self.at(span))
            .with_primary_label(label);
        self.diagnostics.push(diagnostic);
        self.diagnostics.last_mut().expect("just pushed")
    }

    /// The members of an object, or a diagnostic saying `what` must be one.
    pub fn object<'j>(&mut self, json: &'j Json, what: &str) -> Option<&'j [Member]> {
        match &json.kind {
            JsonKind::Object(members) => Some(members),
            _ => {
                self.wrong_type(json, what, "an object");
                None
            }
        }
    }

    /// The items of an array, or a diagnostic.
    pub fn array<'j>(&mut self, json: &'j Json, what: &str) -> Option<&'j [Json]> {
        match &json.kind {
            JsonKind::Array(items) => Some(items),
            _ => {
                self.wrong_type(json, what, "an array");
                None
            }
        }
    }

    /// A string value, or a diagnostic.
    pub fn string<'j>(&mut self, json: &'j Json, what: &str) -> Option<&'j str> {
        match &json.kind {
            JsonKind::String(s) => Some(s),
            _ => {
                self.wrong_type(json, what, "a string");
                None
            }
        }
    }

    /// A boolean value, or a diagnostic.
    pub fn boolean(&mut self, json: &Json, what: &str) -> Option<bool> {
        match json.kind {
            JsonKind::Bool(b) => Some(b),
            _ => {
                self.wrong_type(json, what, "`true` or `false`");
                None
            }
        }
    }

    fn wrong_type(&mut self, json: &Json, what: &str, expected: &str) {
        self.schema_error(
            json.span,
            format!("{what} must be {expected}, not {}", json.describe()),
            &format!("expected {expected}"),
        );
    }

    /// Checks an object's member names against the schema: unknown and
    /// repeated members are reported. Returns a lookup of the first member
    /// of each name.
    pub fn members<'j>(
        &mut self,
        members: &'j [Member],
        what: &str,
        allowed: &[&str],
    ) -> Fields<'j> {
        self.repeats(members, what);
        for member in members {
            if !allowed.contains(&member.key.as_str()) {
                let list = allowed
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                self.schema_error(
                    member.key_span,
                    format!("unknown member `{}` in {what}", member.key),
                    "not part of the Reflex schema",
                )
                .help = Some(format!("{what} may have only {list}"));
            }
        }
        Fields { members }
    }

    /// Reports members whose name an earlier member of the object already
    /// has (JSON parsers disagree on which one wins).
    pub fn repeats(&mut self, members: &[Member], what: &str) {
        for (i, member) in members.iter().enumerate() {
            if let Some(first) = members[..i].iter().find(|m| m.key == member.key) {
                let label = self.at(first.key_span);
                self.schema_error(
                    member.key_span,
                    format!("{what} has the member `{}` twice", member.key),
                    "repeated here",
                )
                .labels
                .push(wf_diagnostics::Label::new(label, "first given here"));
            }
        }
    }

    /// Reports that `object` lacks the required member `name`.
    pub fn missing(&mut self, object: &Json, what: &str, name: &str) {
        let open = Span::new(object.span.start as usize, object.span.start as usize + 1);
        self.schema_error(
            open,
            format!("{what} has no `{name}` member, which the Reflex schema requires"),
            &format!("`{name}` missing in this object"),
        );
    }
}

/// An object's members, looked up by name (the first of repeated names).
pub(crate) struct Fields<'j> {
    members: &'j [Member],
}

impl<'j> Fields<'j> {
    /// The first member called `name`.
    pub fn get(&self, name: &str) -> Option<&'j Member> {
        self.members.iter().find(|m| m.key == name)
    }
}

/// The span of a string literal without its quotes: where a name is
/// written, as diagnostics and renames want it.
pub(crate) fn inner(span: Span) -> Span {
    if span.len() >= 2 {
        Span::new(span.start as usize + 1, span.end as usize - 1)
    } else {
        span
    }
}
