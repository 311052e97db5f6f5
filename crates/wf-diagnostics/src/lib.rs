//! Diagnostics as data.
//!
//! Every problem `wfc` reports is a [`Diagnostic`]: a stable [`Code`], a
//! severity, a message, a primary [`Label`], secondary labels, notes, an
//! optional help line and an optional machine-applicable [`Fix`]. Front ends
//! and checks only build these values; the `wf-render` crate turns them
//! into human, concise, JSON, GitHub Actions or SARIF output and holds each
//! code's long explanation, and the language server turns them into LSP
//! diagnostics. Keeping one model means the CLI, CI and the editor can never
//! disagree.
//!
//! This crate is the base every layer (the runtime too) depends on, so it
//! holds only what producing a diagnostic needs: no renderer and no
//! explanation text, whose edits would otherwise recompile every crate.

pub mod codes;
mod diagnostic;
mod source;

pub use codes::{Code, Family};
pub use diagnostic::{Applicability, Diagnostic, Fix, Label, Severity, TextEdit};
pub use source::{FileId, FileSpan, LineCol, SourceFile, Sources, Span};
