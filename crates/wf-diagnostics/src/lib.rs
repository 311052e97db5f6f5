//! Diagnostics as data.
//!
//! Every problem `wfc` reports is a [`Diagnostic`]: a stable [`Code`], a
//! severity, a message, a primary [`Label`], secondary labels, notes, an
//! optional help line and an optional machine-applicable [`Fix`]. Front ends
//! and checks only build these values; the renderers in [`mod@render`] turn
//! them into human, concise, JSON, GitHub Actions or SARIF output, and later
//! the language server turns them into LSP diagnostics. Keeping one model
//! means the CLI, CI and the editor can never disagree.

pub mod codes;
mod cores;
mod diagnostic;
mod docs;
pub mod render;
mod source;

pub use codes::{Code, Family};
pub use cores::{cores, spawn_apart};
pub use diagnostic::{Applicability, Diagnostic, Fix, Label, Severity, TextEdit};
pub use docs::{REGENERATE_DOCS, diagnostics_markdown};
pub use render::{
    Format, RenderOptions, Summary, render, render_parts, sort_diagnostics, summary_line,
};
pub use source::{FileId, FileSpan, LineCol, SourceFile, Sources, Span};
