//! Diagnostics for people and tools: the renderers, the long explanation
//! of every code, and the `docs/diagnostics.md` generator.
//!
//! Producers build [`Diagnostic`]s with `wf-diagnostics` alone; only what
//! prints them (the CLI, and tests and examples) depends on this crate, so
//! editing an explanation or a renderer recompiles this crate and `wfc`,
//! not every layer.
//!
//! One [`Diagnostic`] model, five outputs:
//!
//! - [`Format::Human`]: annotated source snippets for people, drawn the way
//!   ariadne 0.6 draws them (by `draw`, with ariadne as the fallback).
//! - [`Format::Concise`]: one `path:line:col: severity[CODE] message` line per
//!   diagnostic, for editors' problem matchers and `grep`.
//! - [`Format::Json`]: a versioned document (see [`json`] and
//!   `docs/json-output.md`), for CI and other tools.
//! - [`Format::Github`]: one GitHub Actions workflow command
//!   (`::error file=…::message`) per diagnostic, so a CI run annotates the
//!   pull request.
//! - [`Format::Sarif`]: a SARIF 2.1.0 log (see [`sarif`]), for code scanning
//!   and other SARIF consumers.
//!
//! `docs/output-formats.md` documents the machine-readable formats.
//!
//! [`render`] sorts before it renders, so every format lists the same
//! diagnostics in the same, deterministic order whatever order the checks
//! produced them in.
//!
//! [`explanation`] gives a code's long explanation (`explanations/<CODE>.md`
//! beside this crate), which `wfc explain`, SARIF rules and
//! [`diagnostics_markdown`] print.

mod concise;
mod docs;
mod draw;
mod explanations;
mod github;
mod human;
pub mod json;
pub mod sarif;
mod snippets;

pub use docs::{REGENERATE_DOCS, diagnostics_markdown};
pub use explanations::explanation;

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use wf_diagnostics::{Diagnostic, FileId, FileSpan, LineCol, Severity, SourceFile, Sources, Span};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// Annotated source snippets (ariadne).
    #[default]
    Human,
    /// One line per diagnostic.
    Concise,
    /// A versioned JSON document.
    Json,
    /// GitHub Actions workflow commands, one line per diagnostic.
    Github,
    /// A SARIF 2.1.0 log.
    Sarif,
}

impl Format {
    /// Every format, in the order of [`Format::NAMES`].
    pub const ALL: [Format; 5] = [
        Format::Human,
        Format::Concise,
        Format::Json,
        Format::Github,
        Format::Sarif,
    ];

    /// The names [`Format::from_str`] accepts, for CLI value lists and help.
    pub const NAMES: [&'static str; 5] = ["human", "concise", "json", "github", "sarif"];

    /// The format's name, as accepted by [`Format::from_str`].
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Concise => "concise",
            Format::Json => "json",
            Format::Github => "github",
            Format::Sarif => "sarif",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an unknown [`Format`] name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFormatError {
    /// The rejected input.
    pub input: String,
}

impl fmt::Display for ParseFormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown output format `{}` (expected one of: {})",
            self.input,
            Format::NAMES.join(", ")
        )
    }
}

impl std::error::Error for ParseFormatError {}

impl FromStr for Format {
    type Err = ParseFormatError;

    /// Parses a format name, ignoring ASCII case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseFormatError {
                input: s.to_owned(),
            })
    }
}

/// Options shared by the renderers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RenderOptions {
    /// Whether human output may contain ANSI colour codes. The caller decides
    /// (terminal detection, `NO_COLOR`, `--color`); renderers never look at the
    /// environment, so output is reproducible in tests. The other formats
    /// are never coloured.
    pub color: bool,
}

/// How many diagnostics of each severity a run produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Summary {
    /// Number of errors.
    pub errors: usize,
    /// Number of warnings.
    pub warnings: usize,
    /// Number of infos.
    pub infos: usize,
}

impl Summary {
    /// Counts the diagnostics by severity.
    pub fn of(diags: &[Diagnostic]) -> Self {
        let mut summary = Summary::default();
        for d in diags {
            summary.add(d.severity);
        }
        summary
    }

    /// Counts one more diagnostic of this severity.
    pub fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Info => self.infos += 1,
        }
    }

    /// Total number of diagnostics.
    pub fn total(&self) -> usize {
        self.errors + self.warnings + self.infos
    }

    /// Whether nothing at all was reported.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }
}

/// The closing line of a human run, such as `checked 12 files: 2 errors, 1
/// warning` or `checked 1 file: no problems found`.
///
/// Only non-zero counts are listed; infos count as findings in the list but
/// never make a run fail (that is the caller's exit-status logic).
pub fn summary_line(files: usize, summary: &Summary) -> String {
    let checked = format!("checked {}", plural(files, "file", "files"));
    if summary.is_empty() {
        return format!("{checked}: no problems found");
    }
    let counts: Vec<String> = [
        (summary.errors, "error", "errors"),
        (summary.warnings, "warning", "warnings"),
        (summary.infos, "info", "infos"),
    ]
    .into_iter()
    .filter(|&(n, _, _)| n > 0)
    .map(|(n, one, many)| plural(n, one, many))
    .collect();
    format!("{checked}: {}", counts.join(", "))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Renders diagnostics in the given format.
///
/// The diagnostics are rendered in [`sort_diagnostics`] order. Human output
/// is one report per diagnostic, each followed by a blank line (at most
/// [`MAX_HUMAN_REPORTS_PER_FILE`] per file, then a note counting the rest),
/// and does not
/// include the [`summary_line`] (the caller appends it); concise and GitHub
/// output are one line per diagnostic; JSON output is one pretty-printed
/// document whose `summary.files` is `sources.len()`; SARIF output is one
/// pretty-printed SARIF log, written even when there are no diagnostics.
/// Every output is empty or ends with a newline. Spans are clamped to their
/// file, so a bad span never panics.
pub fn render(
    diags: &[Diagnostic],
    sources: &Sources,
    format: Format,
    options: &RenderOptions,
) -> String {
    render_parts(diags, sources, format, options).concat()
}

/// [`render`]'s output in pieces, in order: their concatenation is the
/// report. A large human report comes in many pieces, which a caller can
/// write one after the other (`write_vectored`) instead of joining them
/// into one more copy of the report.
pub fn render_parts(
    diags: &[Diagnostic],
    sources: &Sources,
    format: Format,
    options: &RenderOptions,
) -> Vec<String> {
    let mut parts = Vec::new();
    let limit = MAX_HUMAN_REPORTS_PER_FILE;
    render_each(
        diags,
        sources,
        format,
        options,
        (usize::MAX, limit),
        &mut |part| {
            parts.push(part);
            Ok(())
        },
    )
    .expect("collecting parts does not fail");
    parts
}

/// [`render`] written to `out` as it is rendered: a human report is
/// written a block of reports at a time rather than built whole in
/// memory. Returns the first write error.
pub fn render_to(
    diags: &[Diagnostic],
    sources: &Sources,
    format: Format,
    options: &RenderOptions,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    render_to_limited(
        diags,
        sources,
        format,
        options,
        MAX_HUMAN_REPORTS_PER_FILE,
        out,
    )
}

/// [`render_to`] showing at most `per_file` human reports per file
/// (`usize::MAX`: every one); `wfc check --max-reports-per-file`.
pub fn render_to_limited(
    diags: &[Diagnostic],
    sources: &Sources,
    format: Format,
    options: &RenderOptions,
    per_file: usize,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    render_each(
        diags,
        sources,
        format,
        options,
        (STREAM_BLOCK, per_file),
        &mut |part| out.write_all(part.as_bytes()),
    )?;
    out.flush()
}

/// How many human reports [`render_to`] renders before writing them.
const STREAM_BLOCK: usize = 1024;

/// Renders `diags` in pieces, in order, handing each to `emit`; human
/// reports are rendered `block` at a time, at most `limit` per file.
fn render_each(
    diags: &[Diagnostic],
    sources: &Sources,
    format: Format,
    options: &RenderOptions,
    (block, limit): (usize, usize),
    emit: &mut dyn FnMut(String) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut sorted: Vec<&Diagnostic> = diags.iter().collect();
    sorted.sort_by(|a, b| compare(a, b, sources));
    let whole = match format {
        Format::Human => {
            let (shown, omitted) = limit_per_file(&sorted, limit);
            for chunk in shown.chunks(block.max(1)) {
                for part in human::render(chunk, sources, options.color) {
                    emit(part)?;
                }
            }
            for (file, count) in omitted {
                let path = sources
                    .try_get(file)
                    .map_or("<unknown file>", |f| f.path.as_str());
                emit(format!(
                    "note: {count} more diagnostic{} in `{path}` not shown: human output shows the first {limit} of each file (`wfc check --max-reports-per-file 0` shows all; `--format concise` or `--format json` lists them)\n\n",
                    if count == 1 { "" } else { "s" }
                ))?;
            }
            return Ok(());
        }
        Format::Concise => concise::render(&sorted, sources),
        Format::Json => json::render(&sorted, sources),
        Format::Github => github::render(&sorted, sources),
        Format::Sarif => sarif::render(&sorted, sources),
    };
    emit(whole)
}

/// How many reports human output shows per file (by primary location), as
/// compilers stop after so many errors: a file full of errors would
/// otherwise bury everything else, and make the report as large as the
/// errors are many. The rest are counted in one note per file, after the
/// reports; the other formats list every diagnostic.
pub const MAX_HUMAN_REPORTS_PER_FILE: usize = 100;

/// The first `limit` diagnostics of each file, in order, and per file (in
/// order of first omission) how many were left out.
fn limit_per_file<'d>(
    sorted: &[&'d Diagnostic],
    limit: usize,
) -> (Vec<&'d Diagnostic>, Vec<(FileId, usize)>) {
    let mut seen: std::collections::HashMap<FileId, usize> = Default::default();
    let mut omitted: Vec<(FileId, usize)> = Vec::new();
    let mut shown = Vec::with_capacity(sorted.len().min(limit));
    for &d in sorted {
        let file = d.primary.location.file;
        let count = seen.entry(file).or_default();
        *count += 1;
        if *count <= limit {
            shown.push(d);
        } else {
            match omitted.iter_mut().find(|(f, _)| *f == file) {
                Some((_, n)) => *n += 1,
                None => omitted.push((file, 1)),
            }
        }
    }
    (shown, omitted)
}

/// One human report (without the blank line that follows it in
/// [`render`]) drawn by our own renderer, or `None` when it leaves this
/// report to ariadne. For the differential tests only.
#[doc(hidden)]
pub fn human_report_fast(d: &Diagnostic, sources: &Sources, color: bool) -> Option<String> {
    human::one_fast(d, sources, color)
}

/// One human report (without the blank line that follows it in
/// [`render`]) drawn by ariadne, shown only the lines the report points
/// at when `windowed` (as [`render`] does), else whole files. For the
/// differential tests only.
#[doc(hidden)]
pub fn human_report_ariadne(
    d: &Diagnostic,
    sources: &Sources,
    color: bool,
    windowed: bool,
) -> String {
    human::one_ariadne(d, sources, color, windowed)
}

/// Sorts diagnostics deterministically: by the primary file's path (then its
/// id), primary span start and end, code, severity (most severe first) and
/// message.
pub fn sort_diagnostics(diags: &mut [Diagnostic], sources: &Sources) {
    diags.sort_by(|a, b| compare(a, b, sources));
}

fn compare(a: &Diagnostic, b: &Diagnostic, sources: &Sources) -> Ordering {
    let path = |d: &Diagnostic| {
        sources
            .try_get(d.primary.location.file)
            .map(|f| f.path.as_str())
    };
    let (la, lb) = (a.primary.location, b.primary.location);
    path(a)
        .cmp(&path(b))
        .then(la.file.cmp(&lb.file))
        .then(la.span.start.cmp(&lb.span.start))
        .then(la.span.end.cmp(&lb.span.end))
        .then(a.code.code.cmp(b.code.code))
        .then(b.severity.cmp(&a.severity))
        .then(a.message.cmp(&b.message))
}

/// The message followed by one `note: …` line per note and a `help: …`
/// line, for formats whose only text field is the message (GitHub, SARIF).
fn message_with_notes_and_help(d: &Diagnostic) -> String {
    let mut text = d.message.clone();
    for note in &d.notes {
        text.push_str("\nnote: ");
        text.push_str(note);
    }
    if let Some(help) = &d.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    text
}

/// A location resolved against [`Sources`]: the file (when known) and the
/// span clamped to it. Shared by the renderers so they agree on positions.
struct Resolved<'s> {
    file: Option<&'s SourceFile>,
    span: Span,
}

impl<'s> Resolved<'s> {
    fn new(location: FileSpan, sources: &'s Sources) -> Self {
        let file = sources.try_get(location.file);
        let span = match file {
            Some(f) => f.clamp_span(location.span),
            // Without the text only the order of the ends can be repaired.
            None => Span {
                start: location.span.start,
                end: location.span.end.max(location.span.start),
            },
        };
        Resolved { file, span }
    }

    /// The display path; an unknown file id is a bug in a check, shown
    /// rather than panicked on.
    fn path(&self) -> &'s str {
        self.file.map_or("<unknown file>", |f| f.path.as_str())
    }

    fn start(&self) -> LineCol {
        self.line_col(self.span.start)
    }

    fn end(&self) -> LineCol {
        self.line_col(self.span.end)
    }

    fn line_col(&self, offset: u32) -> LineCol {
        self.file
            .map_or(LineCol { line: 1, column: 1 }, |f| f.line_col(offset))
    }

    /// The UTF-16 column of the span's start (1 for an unknown file).
    fn start_utf16_column(&self) -> u32 {
        self.file.map_or(1, |f| f.utf16_column(self.span.start))
    }

    /// The UTF-16 column of the span's end (1 for an unknown file).
    fn end_utf16_column(&self) -> u32 {
        self.file.map_or(1, |f| f.utf16_column(self.span.end))
    }

    /// The text under the span (empty for an unknown file).
    fn text(&self) -> &'s str {
        self.file.map_or("", |f| &f.text[self.span.range()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for (format, name) in Format::ALL.into_iter().zip(Format::NAMES) {
            assert_eq!(format.as_str(), name);
            assert_eq!(name.parse::<Format>(), Ok(format));
        }
        assert_eq!("JSON".parse::<Format>(), Ok(Format::Json));
        assert_eq!("GitHub".parse::<Format>(), Ok(Format::Github));
        let err = "xml".parse::<Format>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown output format `xml` (expected one of: human, concise, json, github, sarif)"
        );
    }

    #[test]
    fn summary_line_pluralises() {
        let s = |errors, warnings, infos| Summary {
            errors,
            warnings,
            infos,
        };
        assert_eq!(
            summary_line(3, &s(0, 0, 0)),
            "checked 3 files: no problems found"
        );
        assert_eq!(
            summary_line(1, &s(0, 0, 0)),
            "checked 1 file: no problems found"
        );
        assert_eq!(
            summary_line(0, &s(0, 0, 0)),
            "checked 0 files: no problems found"
        );
        assert_eq!(
            summary_line(12, &s(2, 1, 0)),
            "checked 12 files: 2 errors, 1 warning"
        );
        assert_eq!(summary_line(1, &s(1, 0, 0)), "checked 1 file: 1 error");
        assert_eq!(
            summary_line(2, &s(0, 2, 1)),
            "checked 2 files: 2 warnings, 1 info"
        );
        assert_eq!(
            summary_line(2, &s(1, 1, 2)),
            "checked 2 files: 1 error, 1 warning, 2 infos"
        );
    }
}
