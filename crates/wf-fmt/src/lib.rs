//! The canonical formatter of `.wf` files, and a conservative one for
//! Attractor DOT files ([`format_source`] with [`SourceKind::Dot`]), with
//! range formatting for both ([`format_range`]).
//!
//! The layout is computed from the syntax tree ([`wf_syntax::ast`]); the
//! comments and blank lines come from the lexer's side table
//! ([`wf_syntax::Trivia`]) and are placed the way Gleam does it: before a
//! node (leading), at the end of its line (trailing), or inside an otherwise
//! empty block (dangling). `docs/formatting.md` states the layout rules.
//!
//! Literal tokens (strings, numbers, durations, names, keys) are written as
//! they were spelled: the tree keeps only their values, and re-encoding a
//! string from its value would, for one, turn the interpolation `$ticket`
//! into the literal text `\$ticket`. Only text blocks are re-indented, and
//! only when that provably leaves their value unchanged.
//!
//! Every result is verified before it is returned: the output must parse to
//! the same tree (spans aside) and keep every comment, in order. A
//! formatter bug therefore surfaces as [`FormatError::Unsafe`], never as a
//! changed program.

#![warn(missing_docs)]

mod align;
mod dot;
mod edges;
mod items;
mod printer;
mod range;
mod source;
mod values;
mod verify;

pub use range::{TextEdit, diff_edits, format_range};

use wf_diagnostics::{Diagnostic, FileId, Span};
use wf_syntax::Parsed;

/// Layout settings. The defaults are the canonical layout; the fields exist
/// for tests and the language server's range formatting, not as style knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Maximum line width in characters before edge chains, guards, lists,
    /// maps and key lists wrap.
    pub width: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { width: 100 }
    }
}

/// Why a file was not formatted.
#[derive(Debug, Clone)]
pub enum FormatError {
    /// The file has syntax errors (in source order; never empty). Without
    /// `force`, a file that does not parse is left alone.
    Syntax(Vec<Diagnostic>),
    /// The formatted text failed verification (it would not parse to the
    /// same tree, or lost a comment). This is a formatter bug; the message
    /// says what differed.
    Unsafe(String),
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FormatError::Syntax(errors) => write!(
                f,
                "the file has {} syntax error{}",
                errors.len(),
                if errors.len() == 1 { "" } else { "s" }
            ),
            FormatError::Unsafe(why) => write!(f, "internal formatter error: {why}"),
        }
    }
}

impl std::error::Error for FormatError {}

/// Formats `.wf` source text. A file with syntax errors is refused with
/// [`FormatError::Syntax`]; see [`format_forced`] for the alternative.
pub fn format(text: &str, options: &Options) -> Result<String, FormatError> {
    let parsed = wf_syntax::parse(text, FileId(0));
    let errors = syntax_errors(&parsed);
    if !errors.is_empty() {
        return Err(FormatError::Syntax(errors));
    }
    let out = printer::print(text, &parsed, options, &[], false);
    verify::same_program(text, &parsed, &out)?;
    Ok(out)
}

/// Formats `.wf` source text even when it has syntax errors: statements and
/// items that parsed are formatted, and every statement (or, when the error
/// is not inside one, every item) containing a syntax error is kept
/// verbatim. A file without errors gets exactly [`format()`]'s output.
pub fn format_forced(text: &str, options: &Options) -> Result<String, FormatError> {
    let parsed = wf_syntax::parse(text, FileId(0));
    let mut errors: Vec<Span> = syntax_errors(&parsed)
        .iter()
        .map(|d| d.primary.location.span)
        .collect();
    errors.sort_by_key(|e| e.start);
    let out = printer::print(text, &parsed, options, &errors, false);
    if verify::same_program(text, &parsed, &out).is_ok() {
        return Ok(out);
    }
    // Error recovery resumes at line starts, so re-laying out statements
    // next to a broken one can change how the broken part parses: keep
    // whole items with errors verbatim instead.
    let out = printer::print(text, &parsed, options, &errors, true);
    verify::same_program(text, &parsed, &out)?;
    Ok(out)
}

/// Which language a source text is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// The `.wf` language.
    Wf,
    /// The Attractor dialect of Graphviz DOT (`.dot`, `.gv`, `.fabro`).
    Dot,
}

impl SourceKind {
    /// The language of a file by its extension ([`wf_model::EXTENSIONS`]):
    /// `wf`, or `dot`, `gv` and `fabro` for DOT; `None` for anything else
    /// (Reflex JSON has no formatter).
    pub fn from_path(path: &std::path::Path) -> Option<SourceKind> {
        match wf_model::SourceFormat::of_path(path)? {
            wf_model::SourceFormat::Wf => Some(SourceKind::Wf),
            wf_model::SourceFormat::Dot => Some(SourceKind::Dot),
            wf_model::SourceFormat::ReflexJson => None,
        }
    }
}

/// Formats a whole file in either language; a file with syntax errors is
/// refused with [`FormatError::Syntax`].
pub fn format_source(
    source: &str,
    kind: SourceKind,
    options: &Options,
) -> Result<String, FormatError> {
    match kind {
        SourceKind::Wf => format(source, options),
        SourceKind::Dot => dot::format(source, options, false),
    }
}

/// Formats a whole file in either language even when it has syntax
/// errors: what parsed is formatted, what contains an error is kept as
/// written (see [`format_forced`] for `.wf`).
pub fn format_source_forced(
    source: &str,
    kind: SourceKind,
    options: &Options,
) -> Result<String, FormatError> {
    match kind {
        SourceKind::Wf => format_forced(source, options),
        SourceKind::Dot => dot::format(source, options, true),
    }
}

/// The error-severity diagnostics of a parse (warnings such as a dangling
/// doc comment do not stop formatting).
fn syntax_errors(parsed: &Parsed) -> Vec<Diagnostic> {
    parsed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect()
}
