//! Human output: annotated source snippets drawn by ariadne.
//!
//! ariadne draws the snippets, labels, notes and help; two things are ours:
//! the header line, which ariadne would write as `[WF0201] Error:` while we
//! want rustc's `error[WF0201]:`, and the fix, which is shown as one more help
//! line so a reader sees the suggested edit without asking for JSON.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use ariadne::{Color, Config, Fmt, IndexType, Report, ReportKind, Source};

use super::Resolved;
use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::source::{FileId, Sources};

/// An ariadne span: a file id and a byte range.
type AriadneSpan = (FileId, Range<usize>);

/// ariadne's view of [`Sources`]: one cache for every file, so labels that
/// point into other files render with their own snippet and path. Files are
/// indexed for ariadne lazily, only when a label points into them.
struct SourceCache<'s> {
    sources: &'s Sources,
    loaded: HashMap<FileId, Source<&'s str>>,
}

impl<'s> ariadne::Cache<FileId> for SourceCache<'s> {
    type Storage = &'s str;

    fn fetch(&mut self, id: &FileId) -> Result<&Source<&'s str>, impl fmt::Debug> {
        // Labels into unknown files are dropped before rendering, so the
        // error arm (which ariadne would print to stderr) is never taken.
        let Some(file) = self.sources.try_get(*id) else {
            return Err(format!("unknown file id {}", id.0));
        };
        Ok(self
            .loaded
            .entry(*id)
            .or_insert_with(|| Source::from(file.text.as_str())))
    }

    fn display<'a>(&self, id: &'a FileId) -> Option<impl fmt::Display + 'a> {
        self.sources.try_get(*id).map(|f| f.path.clone())
    }
}

fn severity_color(severity: Severity) -> Color {
    match severity {
        Severity::Error => Color::Red,
        Severity::Warning => Color::Yellow,
        Severity::Info => Color::Cyan,
    }
}

/// Colour of secondary labels: distinct from every severity colour.
const SECONDARY_COLOR: Color = Color::Blue;

pub(super) fn render(diags: &[&Diagnostic], sources: &Sources, color: bool) -> String {
    let mut cache = SourceCache {
        sources,
        loaded: HashMap::new(),
    };
    let mut out = String::new();
    for d in diags {
        render_one(d, sources, color, &mut cache, &mut out);
        out.push('\n');
    }
    out
}

fn render_one(
    d: &Diagnostic,
    sources: &Sources,
    color: bool,
    cache: &mut SourceCache<'_>,
    out: &mut String,
) {
    let header = format!("{}[{}]:", d.severity.as_str(), d.code.code);
    let header = if color {
        header.fg(severity_color(d.severity)).to_string()
    } else {
        header
    };
    out.push_str(&format!("{header} {}\n", d.message));

    let primary = Resolved::new(d.primary.location, sources);
    if primary.file.is_none() {
        // Without its file there is no snippet to draw: say what we can.
        plain_tail(d, sources, out);
        return;
    }

    let kind = match d.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
        Severity::Info => ReportKind::Advice,
    };
    let config = Config::default()
        .with_index_type(IndexType::Byte)
        .with_color(color);
    let primary_span = (d.primary.location.file, primary.span.range());
    let mut builder = Report::build(kind, primary_span).with_config(config);
    builder.add_labels(labels(d, sources, color));
    for note in &d.notes {
        builder.add_note(note);
    }
    if let Some(help) = &d.help {
        builder.add_help(help);
    }
    if let Some(fix) = &d.fix {
        builder.add_help(fix_text(fix, sources));
    }

    let mut buf = Vec::new();
    // Writing into a Vec cannot fail; ariadne only returns I/O errors. The
    // CLI prints reports on stdout, hence `write_for_stdout`.
    let _ = builder.finish().write_for_stdout(cache, &mut buf);
    let text = String::from_utf8_lossy(&buf);
    // Drop ariadne's own header line (we wrote ours above). The report has
    // no message, so its header is exactly one line.
    let body = text.split_once('\n').map_or("", |(_, rest)| rest);
    out.push_str(body);
}

/// The ariadne labels: the primary one in the severity's colour, secondary
/// ones in another. They are ordered by file (the primary's first) and then
/// position, because ariadne starts a new snippet whenever the file changes
/// or a label goes back up the file.
fn labels(d: &Diagnostic, sources: &Sources, color: bool) -> Vec<ariadne::Label<AriadneSpan>> {
    let primary_file = d.primary.location.file;
    let mut located: Vec<(bool, &crate::Label)> = vec![(true, &d.primary)];
    located.extend(d.labels.iter().map(|l| (false, l)));
    // Labels into unknown files cannot be drawn; dropping them keeps ariadne
    // from complaining on stderr.
    located.retain(|(_, l)| sources.try_get(l.location.file).is_some());
    located.sort_by_key(|(is_primary, l)| {
        let file = l.location.file;
        let path = sources.try_get(file).map(|f| f.path.as_str());
        let span = Resolved::new(l.location, sources).span;
        (
            file != primary_file,
            path,
            file,
            span.start,
            span.end,
            !is_primary,
        )
    });
    located
        .into_iter()
        .map(|(is_primary, l)| {
            let span = Resolved::new(l.location, sources).span;
            // Always give a message, even an empty one: ariadne underlines
            // only labelled spans, and without colour an unlabelled span
            // would not be marked at all.
            let mut label =
                ariadne::Label::new((l.location.file, span.range())).with_message(&l.message);
            if color {
                label = label.with_color(if is_primary {
                    severity_color(d.severity)
                } else {
                    SECONDARY_COLOR
                });
            }
            label
        })
        .collect()
}

/// The fix as a help entry: its message, how safe it is, and one line per
/// edit saying where and what changes.
fn fix_text(fix: &Fix, sources: &Sources) -> String {
    let safety = match fix.applicability {
        Applicability::MachineApplicable => "fix",
        Applicability::MaybeIncorrect => "suggested fix",
    };
    let mut text = format!("{safety}: {}", fix.message);
    for edit in &fix.edits {
        let at = Resolved::new(edit.location, sources);
        let start = at.start();
        let (old, new) = (quote(at.text()), quote(&edit.replacement));
        let what = match (at.text().is_empty(), edit.replacement.is_empty()) {
            (true, _) => format!("insert {new}"),
            (false, true) => format!("delete {old}"),
            (false, false) => format!("replace {old} with {new}"),
        };
        text.push_str(&format!(
            "\n{}:{}:{}: {what}",
            at.path(),
            start.line,
            start.column
        ));
    }
    text
}

/// Backtick-quotes a snippet, escaping line breaks and tabs so an edit stays
/// on one line.
fn quote(s: &str) -> String {
    let escaped = s
        .replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
        .replace('\t', "\\t");
    format!("`{escaped}`")
}

/// Notes, help and fix as plain lines, for a diagnostic whose file is unknown.
fn plain_tail(d: &Diagnostic, sources: &Sources, out: &mut String) {
    for note in &d.notes {
        out.push_str(&format!("  = note: {note}\n"));
    }
    if let Some(help) = &d.help {
        out.push_str(&format!("  = help: {help}\n"));
    }
    if let Some(fix) = &d.fix {
        out.push_str(&format!(
            "  = help: {}\n",
            fix_text(fix, sources).replace('\n', "\n          ")
        ));
    }
}
