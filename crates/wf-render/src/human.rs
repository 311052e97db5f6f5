//! Human output: annotated source snippets drawn by ariadne.
//!
//! ariadne draws the snippets, labels, notes and help; two things are ours:
//! the header line, which ariadne would write as `[WF0201] Error:` while we
//! want rustc's `error[WF0201]:`, and the fix, which is shown as one more help
//! line so a reader sees the suggested edit without asking for JSON.

use std::borrow::Cow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use ariadne::{Color, Config, Fmt, IndexType, Report, ReportKind};

use super::snippets::{self, SourceCache};
use super::{Resolved, draw};
use wf_diagnostics::{Applicability, Diagnostic, Fix, Severity, Sources};

fn severity_color(severity: Severity) -> Color {
    match severity {
        Severity::Error => Color::Red,
        Severity::Warning => Color::Yellow,
        Severity::Info => Color::Cyan,
    }
}

/// The longest line (in bytes) a report drawn by ariadne may point at;
/// ariadne prints whole lines.
const ARIADNE_MAX_LINE_BYTES: usize = 1000;

/// How much of the text an edit replaces a fix quotes, in characters.
const MAX_QUOTED_CHARS: usize = 80;

/// Colour of secondary labels: distinct from every severity colour.
const SECONDARY_COLOR: Color = Color::Blue;

/// Below this many diagnostics one thread renders them all: starting
/// threads would cost more than it saves.
const PARALLEL_MIN: usize = 64;
/// Diagnostics per unit of work a rendering thread takes at a time.
const BLOCK: usize = 16;

/// The human reports of `diags`, in order, each followed by a blank line,
/// in pieces (blocks rendered in parallel) whose concatenation is the
/// report.
pub(super) fn render(diags: &[&Diagnostic], sources: &Sources, color: bool) -> Vec<String> {
    let windows = snippets::windows(diags, sources);
    let render_block = |cache: &mut SourceCache<'_>, block: &[&Diagnostic]| {
        let mut out = String::new();
        for d in block {
            render_one(d, sources, color, cache, &mut out);
            out.push('\n');
        }
        out
    };
    let threads = if diags.len() < PARALLEL_MIN {
        1
    } else {
        wf_threads::cores()
    };
    if threads <= 1 {
        return vec![render_block(
            &mut SourceCache::new(sources, &windows),
            diags,
        )];
    }
    // Reports are independent: threads take blocks in turn and the blocks
    // stay in order, so the output is the same as from one thread.
    let blocks: Vec<&[&Diagnostic]> = diags.chunks(BLOCK).collect();
    let rendered: Mutex<Vec<String>> = Mutex::new(vec![String::new(); blocks.len()]);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut cache = SourceCache::new(sources, &windows);
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(block) = blocks.get(i) else { break };
            let text = render_block(&mut cache, block);
            rendered.lock().unwrap_or_else(|e| e.into_inner())[i] = text;
        }
    };
    std::thread::scope(|scope| {
        // This thread renders too: one thread fewer to start.
        for _ in 1..threads.min(blocks.len()) {
            wf_threads::spawn_apart(scope, work);
        }
        work();
    });
    rendered.into_inner().unwrap_or_else(|e| e.into_inner())
}

fn render_one(
    d: &Diagnostic,
    sources: &Sources,
    color: bool,
    cache: &mut SourceCache<'_>,
    out: &mut String,
) {
    let Some(body) = header(d, sources, color, out) else {
        return;
    };
    if body.draw(d, sources, color, cache, out) {
        return;
    }
    if body.trips_ariadne(sources) || body.on_a_long_line(sources) {
        body.draw_plain(d, sources, out);
    } else {
        body.draw_with_ariadne(d, color, cache, out);
    }
}

/// Writes the header line (ours, not ariadne's) and returns what is drawn
/// under it, or writes the plain tail and returns `None` when the primary
/// file is unknown.
fn header<'d>(
    d: &'d Diagnostic,
    sources: &Sources,
    color: bool,
    out: &mut String,
) -> Option<Body<'d>> {
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
        return None;
    }
    Some(Body::new(d, sources, primary.span))
}

/// What a report draws under its header: labels in ariadne's order, notes
/// and helps.
struct Body<'d> {
    primary: wf_diagnostics::FileSpan,
    marks: Vec<draw::Mark<'d>>,
    helps: Vec<Cow<'d, str>>,
}

impl<'d> Body<'d> {
    fn new(d: &'d Diagnostic, sources: &Sources, primary: wf_diagnostics::Span) -> Self {
        let mut helps: Vec<Cow<'d, str>> =
            d.help.iter().map(|h| Cow::Borrowed(h.as_str())).collect();
        if let Some(fix) = &d.fix {
            helps.push(Cow::Owned(fix_text(fix, sources)));
        }
        Body {
            primary: primary.in_file(d.primary.location.file),
            marks: marks(d, sources),
            helps,
        }
    }

    /// Draws the body with [`draw`]; `false` (nothing written) for a shape
    /// it leaves to ariadne.
    fn draw(
        &self,
        d: &Diagnostic,
        sources: &Sources,
        color: bool,
        cache: &mut SourceCache<'_>,
        out: &mut String,
    ) -> bool {
        let ink = |c: Color| if color { draw::ink(c) } else { None };
        let request = draw::Request {
            primary: self.primary,
            marks: &self.marks,
            notes: &d.notes,
            helps: &self.helps,
            inks: (ink(severity_color(d.severity)), ink(SECONDARY_COLOR)),
            color,
        };
        draw::report(&request, sources, &mut |file| cache.plain_breaks(file), out)
    }

    /// Whether ariadne 0.6 would panic on this report. For a snippet in a
    /// file other than the primary one it takes its first label's start, a
    /// character offset, as a byte offset to find the header's column, and
    /// slices the line there: that panics when the byte falls inside a
    /// multi-byte character. Checked for every label in another file, a
    /// superset of the first ones. Our drawing declines such reports too.
    fn trips_ariadne(&self, sources: &Sources) -> bool {
        self.marks.iter().any(|mark| {
            mark.file != self.primary.file
                && sources
                    .try_get(mark.file)
                    .is_some_and(|f| misread_offset_splits_a_char(&f.text, mark.span.start))
        })
    }

    /// Whether a label sits on a line longer than ariadne may be given:
    /// ariadne shows whole lines, so such a report goes without snippets
    /// (our drawing shows a window of the line instead, see
    /// `draw::MAX_LINE_CHARS`).
    fn on_a_long_line(&self, sources: &Sources) -> bool {
        self.marks.iter().any(|mark| {
            sources.try_get(mark.file).is_some_and(|f| {
                [mark.span.start, mark.span.end].iter().any(|&at| {
                    let k = f.line_index(at);
                    let start = f.line_start(k).unwrap_or(0);
                    let end = f.line_start(k + 1).unwrap_or(f.text.len());
                    end.saturating_sub(start) > ARIADNE_MAX_LINE_BYTES
                })
            })
        })
    }

    /// The report without snippets: each label as `--> path:line:col:
    /// message`, then notes and helps, for the reports neither drawing
    /// can show.
    fn draw_plain(&self, d: &Diagnostic, sources: &Sources, out: &mut String) {
        for mark in &self.marks {
            let at = Resolved::new(mark.span.in_file(mark.file), sources);
            let start = at.start();
            out.push_str(&format!(
                "  --> {}:{}:{}",
                at.path(),
                start.line,
                start.column
            ));
            if !mark.message.is_empty() {
                out.push_str(": ");
                out.push_str(mark.message);
            }
            out.push('\n');
        }
        plain_tail(d, sources, out);
    }

    /// Draws the body with ariadne.
    fn draw_with_ariadne(
        &self,
        d: &Diagnostic,
        color: bool,
        cache: &mut SourceCache<'_>,
        out: &mut String,
    ) {
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
            Severity::Info => ReportKind::Advice,
        };
        let config = Config::default()
            .with_index_type(IndexType::Byte)
            .with_color(color);
        let file = self.primary.file;
        let primary_span = (file, cache.shift(file, self.primary.span.range()));
        let mut builder = Report::build(kind, primary_span).with_config(config);
        builder.add_labels(self.marks.iter().map(|mark| {
            // Always give a message, even an empty one: ariadne underlines
            // only labelled spans, and without colour an unlabelled span
            // would not be marked at all.
            let span = (mark.file, cache.shift(mark.file, mark.span.range()));
            let mut label = ariadne::Label::new(span).with_message(mark.message);
            if color {
                label = label.with_color(if mark.primary {
                    severity_color(d.severity)
                } else {
                    SECONDARY_COLOR
                });
            }
            label
        }));
        for note in &d.notes {
            builder.add_note(note);
        }
        for help in &self.helps {
            builder.add_help(help);
        }

        let mut sink = Text(String::new());
        // Writing into a string cannot fail; ariadne only returns I/O errors.
        // The CLI prints reports on stdout, hence `write_for_stdout`.
        let _ = builder.finish().write_for_stdout(cache, &mut sink);
        let text = sink.0;
        // Drop ariadne's own header line (we wrote ours above). The report has
        // no message, so its header is exactly one line.
        let body = text.split_once('\n').map_or("", |(_, rest)| rest);
        out.push_str(body);
    }
}

/// One report as [`render`] writes it (without the blank line after it),
/// drawn by [`draw`]; `None` when it leaves the report to ariadne.
pub(super) fn one_fast(d: &Diagnostic, sources: &Sources, color: bool) -> Option<String> {
    let windows = snippets::Windows::new();
    let mut cache = SourceCache::new(sources, &windows);
    let mut out = String::new();
    if let Some(body) = header(d, sources, color, &mut out)
        && !body.draw(d, sources, color, &mut cache, &mut out)
    {
        return None;
    }
    Some(out)
}

/// One report as [`render`] writes it (without the blank line after it),
/// drawn by ariadne, given only the lines the report shows (as [`render`]
/// does) when `windowed`, else whole files.
pub(super) fn one_ariadne(
    d: &Diagnostic,
    sources: &Sources,
    color: bool,
    windowed: bool,
) -> String {
    let windows = if windowed {
        snippets::windows(&[d], sources)
    } else {
        snippets::Windows::new()
    };
    let mut cache = SourceCache::new(sources, &windows);
    let mut out = String::new();
    if let Some(body) = header(d, sources, color, &mut out) {
        body.draw_with_ariadne(d, color, &mut cache, &mut out);
    }
    out
}

/// ariadne's output: a string that takes formatted text as it comes.
/// ariadne writes everything with `write!`, often a character at a time;
/// into a `Vec<u8>` each piece goes through `io::Write`'s adapter and a
/// byte copy, which was a fifth of rendering.
struct Text(String);

impl std::io::Write for Text {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // ariadne never writes raw bytes; decode rather than trust them.
        self.0.push_str(&String::from_utf8_lossy(buf));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn write_fmt(&mut self, args: std::fmt::Arguments<'_>) -> std::io::Result<()> {
        std::fmt::Write::write_fmt(&mut self.0, args).map_err(std::io::Error::other)
    }
}

/// The labels in the order ariadne is given them: by file (the primary's
/// first) and then position, because ariadne starts a new snippet whenever
/// the file changes or a label goes back up the file. Labels into unknown
/// files cannot be drawn; dropping them keeps ariadne from complaining on
/// stderr.
fn marks<'d>(d: &'d Diagnostic, sources: &Sources) -> Vec<draw::Mark<'d>> {
    let primary_file = d.primary.location.file;
    let mut marks: Vec<draw::Mark<'d>> = std::iter::once((true, &d.primary))
        .chain(d.labels.iter().map(|l| (false, l)))
        .filter_map(|(primary, l)| {
            let file = sources.try_get(l.location.file)?;
            Some(draw::Mark {
                file: l.location.file,
                span: file.clamp_span(l.location.span),
                message: &l.message,
                primary,
            })
        })
        .collect();
    marks.sort_by_key(|m| {
        let path = sources.try_get(m.file).map(|f| f.path.as_str());
        (
            m.file != primary_file,
            path,
            m.file,
            m.span.start,
            m.span.end,
            !m.primary,
        )
    });
    marks
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
    // A fix may replace a long stretch of text: quote its start only.
    let cut = s.char_indices().nth(MAX_QUOTED_CHARS).map(|(i, _)| i);
    let s = match cut {
        Some(i) => Cow::Owned(format!("{}…", &s[..i])),
        None => Cow::Borrowed(s),
    };
    let escaped = s
        .replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
        .replace('\t', "\\t");
    format!("`{escaped}`")
}

/// Whether reading the character offset of byte `start` as a byte offset
/// lands inside a multi-byte character of a line (see
/// `Body::trips_ariadne`).
fn misread_offset_splits_a_char(text: &str, start: u32) -> bool {
    let start = (start as usize).min(text.len());
    let Some(before) = text.get(..start) else {
        return true;
    };
    let misread = before.chars().count();
    if misread == start {
        // ASCII before the label: the two offsets agree.
        return false;
    }
    let bytes = text.as_bytes();
    let line_start = bytes[..misread]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = bytes[misread..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| misread + i);
    misread > line_start && misread < line_end && !text.is_char_boundary(misread)
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

#[cfg(test)]
mod tests;
