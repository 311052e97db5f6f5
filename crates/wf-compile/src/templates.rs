//! Strings with `$key` / `${key}` interpolations become [`Template`]s.
//!
//! The model keeps each string decoded, where an interpolation and an
//! escaped `\$key` look the same; its `interpolated_reads` say which keys
//! were interpolated and where. A string attribute whose value span holds
//! such a read is split again from its source text by the parser's own
//! rules ([`wf_syntax::template::template`]).

use wf_model::{Attribute, ReadDecl, Value};
use wf_syntax::template::{TemplatePart, template};

use super::{CompileError, Cx};
use wf_ir::{Part, Template};

impl Cx<'_> {
    /// The template of a string attribute, when it has interpolations.
    pub(super) fn template(
        &mut self,
        a: &Attribute,
        reads: &[ReadDecl],
    ) -> Result<Option<Template>, CompileError> {
        let Value::String(_) = &a.value else {
            return Ok(None);
        };
        let at = a.value_span;
        let inside = |r: &ReadDecl| {
            r.span.file == at.file
                && r.span.span.start >= at.span.start
                && r.span.span.end <= at.span.end
        };
        if !reads.iter().any(inside) {
            return Ok(None);
        }
        let raw = self
            .sources
            .try_get(at.file)
            .and_then(|f| f.text.get(at.span.start as usize..at.span.end as usize));
        let Some(raw) = raw else {
            return Err(self.error(
                Some(at),
                format!(
                    "`{}` interpolates keys, and compiling it needs its source text",
                    a.key
                ),
            ));
        };
        let parts = template(raw);
        if !parts.iter().any(|p| matches!(p, TemplatePart::Key(_))) {
            return Ok(None);
        }
        Ok(Some(
            parts
                .iter()
                .map(|p| match p {
                    TemplatePart::Text(t) => Part::Text(self.strings.intern(t)),
                    TemplatePart::Key(k) => Part::Key(self.strings.intern(k)),
                })
                .collect(),
        ))
    }
}
