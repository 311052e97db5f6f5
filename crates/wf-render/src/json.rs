//! JSON output: a versioned, typed document.
//!
//! The structs here *are* the schema: `docs/json-output.md` documents them
//! field by field, and they derive `Deserialize` so Rust consumers (tests,
//! tools) can read the output back. Every field is always present (`null`
//! or `[]` when empty) so consumers never need to probe for keys.
//!
//! Compatibility: adding a field is not a breaking change; removing,
//! renaming or changing the meaning of one is, and bumps [`JSON_VERSION`].

use serde::{Deserialize, Serialize};

use super::{Resolved, Summary};
use wf_diagnostics::{Applicability, Diagnostic, Family, Label, LineCol, Severity, Sources};

/// The version of the JSON document shape, the top-level `version` field.
pub const JSON_VERSION: u32 = 1;

/// The whole document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonReport {
    /// Always [`JSON_VERSION`] for output of this crate version.
    pub version: u32,
    /// The diagnostics, in [`super::sort_diagnostics`] order.
    pub diagnostics: Vec<JsonDiagnostic>,
    /// Counts.
    pub summary: JsonSummary,
}

/// Counts of files and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonSummary {
    /// Number of source files checked.
    pub files: usize,
    /// Number of errors.
    pub errors: usize,
    /// Number of warnings.
    pub warnings: usize,
    /// Number of infos.
    pub infos: usize,
}

/// A byte range, half-open, into a file's UTF-8 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonSpan {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// A 1-based line and column (columns count Unicode scalar values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonPosition {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

impl From<LineCol> for JsonPosition {
    fn from(lc: LineCol) -> Self {
        JsonPosition {
            line: lc.line,
            column: lc.column,
        }
    }
}

/// One diagnostic. `file`, `span`, `start` and `end` give its primary location.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonDiagnostic {
    /// The stable code, such as `WF0201`.
    pub code: String,
    /// The stable kebab-case name, such as `cycle`.
    pub name: String,
    /// `syntax`, `names` or `graph`.
    pub family: Family,
    /// `error`, `warning` or `info`.
    pub severity: Severity,
    /// The one-line message.
    pub message: String,
    /// The path of the primary location's file, as given to `wfc`.
    pub file: String,
    /// The primary byte range.
    pub span: JsonSpan,
    /// Position of `span.start`.
    pub start: JsonPosition,
    /// Position of `span.end`.
    pub end: JsonPosition,
    /// The message shown at the primary location (`""` when none).
    pub label: String,
    /// Secondary locations, possibly in other files.
    pub labels: Vec<JsonLabel>,
    /// Extra facts.
    pub notes: Vec<String>,
    /// How to fix it, in words.
    pub help: Option<String>,
    /// A suggested edit, when one exists.
    pub fix: Option<JsonFix>,
}

/// A secondary location with its message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonLabel {
    /// Path of the file it points into.
    pub file: String,
    /// Byte range.
    pub span: JsonSpan,
    /// Position of `span.start`.
    pub start: JsonPosition,
    /// Position of `span.end`.
    pub end: JsonPosition,
    /// What to say there (`""` when nothing).
    pub message: String,
}

/// A suggested change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonFix {
    /// Short imperative description.
    pub message: String,
    /// `machine-applicable` or `maybe-incorrect`.
    pub applicability: Applicability,
    /// Non-overlapping edits, to apply all together.
    pub edits: Vec<JsonEdit>,
}

/// One replacement of a byte range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonEdit {
    /// Path of the file to edit.
    pub file: String,
    /// The byte range to replace (empty for an insertion).
    pub span: JsonSpan,
    /// Position of `span.start`.
    pub start: JsonPosition,
    /// Position of `span.end`.
    pub end: JsonPosition,
    /// The new text.
    pub replacement: String,
}

/// Where a located element is, in the JSON shape.
struct Located {
    file: String,
    span: JsonSpan,
    start: JsonPosition,
    end: JsonPosition,
}

fn locate(location: wf_diagnostics::FileSpan, sources: &Sources) -> Located {
    let at = Resolved::new(location, sources);
    Located {
        file: at.path().to_owned(),
        span: JsonSpan {
            start: at.span.start,
            end: at.span.end,
        },
        start: at.start().into(),
        end: at.end().into(),
    }
}

fn label(label: &Label, sources: &Sources) -> JsonLabel {
    let Located {
        file,
        span,
        start,
        end,
    } = locate(label.location, sources);
    JsonLabel {
        file,
        span,
        start,
        end,
        message: label.message.clone(),
    }
}

fn diagnostic(d: &Diagnostic, sources: &Sources) -> JsonDiagnostic {
    let Located {
        file,
        span,
        start,
        end,
    } = locate(d.primary.location, sources);
    JsonDiagnostic {
        code: d.code.code.to_owned(),
        name: d.code.name.to_owned(),
        family: d.code.family,
        severity: d.severity,
        message: d.message.clone(),
        file,
        span,
        start,
        end,
        label: d.primary.message.clone(),
        labels: d.labels.iter().map(|l| label(l, sources)).collect(),
        notes: d.notes.clone(),
        help: d.help.clone(),
        fix: d.fix.as_ref().map(|fix| JsonFix {
            message: fix.message.clone(),
            applicability: fix.applicability,
            edits: fix
                .edits
                .iter()
                .map(|e| {
                    let Located {
                        file,
                        span,
                        start,
                        end,
                    } = locate(e.location, sources);
                    JsonEdit {
                        file,
                        span,
                        start,
                        end,
                        replacement: e.replacement.clone(),
                    }
                })
                .collect(),
        }),
    }
}

/// Builds the JSON document for diagnostics, in the order given (callers of
/// this function sort first, with [`super::sort_diagnostics`], when they
/// need the deterministic order [`super::render`] guarantees).
pub fn report(diags: &[Diagnostic], sources: &Sources) -> JsonReport {
    let refs: Vec<&Diagnostic> = diags.iter().collect();
    build(&refs, sources)
}

fn build(diags: &[&Diagnostic], sources: &Sources) -> JsonReport {
    let mut summary = Summary::default();
    for d in diags {
        summary.add(d.severity);
    }
    JsonReport {
        version: JSON_VERSION,
        diagnostics: diags.iter().map(|d| diagnostic(d, sources)).collect(),
        summary: JsonSummary {
            files: sources.len(),
            errors: summary.errors,
            warnings: summary.warnings,
            infos: summary.infos,
        },
    }
}

pub(super) fn render(diags: &[&Diagnostic], sources: &Sources) -> String {
    // Serialising plain structs of strings and numbers cannot fail.
    let mut out =
        serde_json::to_string_pretty(&build(diags, sources)).expect("the JSON report serialises");
    out.push('\n');
    out
}
