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

#[cfg(test)]
mod tests {
    /// Every crate, the runtime too, compiles this one and what it depends
    /// on: renderers (ariadne) and explanation texts belong in `wf-render`,
    /// thread pinning (libc) in `wf-threads`.
    #[test]
    fn depends_only_on_what_producing_diagnostics_needs() {
        let manifest = include_str!("../Cargo.toml");
        let section = manifest
            .split("\n[dependencies]\n")
            .nth(1)
            .expect("a [dependencies] table");
        let dependencies: Vec<&str> = section
            .lines()
            .take_while(|line| !line.starts_with('['))
            .map(|line| line.split(['.', '=']).next().unwrap_or("").trim())
            .filter(|name| !name.is_empty() && !name.starts_with('#'))
            .collect();
        assert_eq!(dependencies, ["memchr", "serde"]);
    }
}
