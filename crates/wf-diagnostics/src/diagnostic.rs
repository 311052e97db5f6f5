//! The diagnostic value type and its builder methods.

use serde::{Deserialize, Serialize};

use crate::codes::Code;
use crate::source::FileSpan;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Informational note; never fails a check.
    Info,
    /// Probably a mistake; fails only under `--deny-warnings`.
    Warning,
    /// Definitely wrong; the workflow cannot be built or run.
    Error,
}

impl Severity {
    /// The lowercase word used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl Applicability {
    /// The kebab-case word used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::MachineApplicable => "machine-applicable",
            Applicability::MaybeIncorrect => "maybe-incorrect",
        }
    }
}

/// A span with a message, pointing at one place in a source file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Label {
    /// Where.
    pub location: FileSpan,
    /// What to say there (may be empty).
    pub message: String,
}

impl Label {
    /// Creates a label.
    pub fn new(location: FileSpan, message: impl Into<String>) -> Self {
        Label {
            location,
            message: message.into(),
        }
    }
}

/// One replacement of a byte range by new text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextEdit {
    /// The range to replace (empty for an insertion).
    pub location: FileSpan,
    /// The new text.
    pub replacement: String,
}

/// Whether a fix can be applied without a human looking at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Applying it cannot change the meaning beyond what the message says.
    MachineApplicable,
    /// Probably right, but a human should confirm (for example a did-you-mean).
    MaybeIncorrect,
}

/// A suggested change that resolves a diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fix {
    /// Short imperative description ("rename to `review`").
    pub message: String,
    /// The edits, non-overlapping.
    pub edits: Vec<TextEdit>,
    /// How safe the fix is.
    pub applicability: Applicability,
}

impl Fix {
    /// A fix made of one edit: replace `location` with `replacement` (an
    /// empty location inserts).
    pub fn replace(
        message: impl Into<String>,
        location: FileSpan,
        replacement: impl Into<String>,
        applicability: Applicability,
    ) -> Self {
        Fix {
            message: message.into(),
            edits: vec![TextEdit {
                location,
                replacement: replacement.into(),
            }],
            applicability,
        }
    }
}

/// One reported problem.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// Stable code, name and family.
    pub code: &'static Code,
    /// Severity (the code's default unless overridden).
    pub severity: Severity,
    /// One-line message.
    pub message: String,
    /// The main location.
    pub primary: Label,
    /// Further locations that explain the problem.
    pub labels: Vec<Label>,
    /// Extra facts ("note: …").
    pub notes: Vec<String>,
    /// How to fix it ("help: …").
    pub help: Option<String>,
    /// A machine-applicable fix, when one exists.
    pub fix: Option<Fix>,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity and an unlabelled primary span.
    pub fn new(code: &'static Code, message: impl Into<String>, primary: FileSpan) -> Self {
        Diagnostic {
            code,
            severity: code.severity,
            message: message.into(),
            primary: Label::new(primary, ""),
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
            fix: None,
        }
    }

    /// Sets the message shown at the primary span.
    pub fn with_primary_label(mut self, message: impl Into<String>) -> Self {
        self.primary.message = message.into();
        self
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, location: FileSpan, message: impl Into<String>) -> Self {
        self.labels.push(Label::new(location, message));
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Attaches a fix.
    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }

    /// Overrides the severity.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Whether this diagnostic is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
