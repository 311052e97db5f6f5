//! Tests of the human renderer: windowed sources and parallel rendering.

use super::*;
use wf_diagnostics::{FileId, FileSpan, Span};

/// Renders with the windowed cache and with whole files (no windows).
fn both(d: &Diagnostic, sources: &Sources, color: bool) -> (String, String) {
    let windows = snippets::windows(&[d], sources);
    let (mut windowed, mut whole) = (String::new(), String::new());
    let mut cache = SourceCache::new(sources, &windows);
    render_one(d, sources, color, &mut cache, &mut windowed);
    let none = snippets::Windows::new();
    let mut cache = SourceCache::new(sources, &none);
    render_one(d, sources, color, &mut cache, &mut whole);
    (windowed, whole)
}

fn at(file: u32, start: usize, end: usize) -> FileSpan {
    Span::new(start, end).in_file(FileId(file))
}

/// Showing ariadne only the lines a report points at must not change a
/// byte of it: line numbers, margins, columns, multi-line labels, spans
/// at line ends and at the end of the file, odd line breaks before the
/// window (which make the cache fall back to the whole file), and
/// labels in a second file.
#[test]
fn windowed_sources_render_like_whole_files() {
    let mut lines: Vec<String> = (1..=120).map(|i| format!("line {i} — é")).collect();
    lines[3] = "a\rlone carriage return".into();
    let mut sources = Sources::new();
    let plain = lines.join("\n") + "\n";
    sources.add("plain.dot", plain.replace("a\rlone", "a lone"));
    sources.add("odd.dot", plain.clone());
    sources.add(
        "crlf.dot",
        plain.replace("a\rlone", "x").replace('\n', "\r\n"),
    );
    for sep in ["\x0b", "\x0c", "\u{85}", "\u{2028}", "\u{2029}"] {
        sources.add(
            format!("sep{}.dot", sep.len()),
            plain.replace("a\rlone", sep),
        );
    }
    sources.add("short.dot", "digraph G { a -> b }");
    // Non-ASCII before the window of a secondary snippet.
    let unicode = "é\n".repeat(50) + &"ascii line\n".repeat(100);
    let unicode_file = sources.add("unicode.dot", unicode).0;
    let code = &wf_diagnostics::codes::ALL[0];
    for (id, file) in sources.iter() {
        let len = file.text.len();
        let line_99 = file.line_start(98).unwrap_or(0);
        let spans = [
            (line_99, line_99 + 4),
            (line_99 + 2, (line_99 + 60).min(len)),
            (len, len),
            (len.saturating_sub(3), len),
            (line_99.saturating_sub(1), line_99),
            (0, 3),
        ];
        for (start, end) in spans {
            for color in [false, true] {
                let d = Diagnostic::new(code, "m", at(id.0, start, end))
                    .with_primary_label("here")
                    .with_label(at(id.0, start / 2, start / 2 + 1), "and here")
                    .with_label(at(0, 0, 4), "in another file")
                    .with_label(at(unicode_file, 1000, 1004), "and in a third");
                let (windowed, whole) = both(&d, &sources, color);
                assert_eq!(windowed, whole, "{} {start}..{end}", file.path);
            }
        }
    }
}

/// An empty span at the very end of a file ending in a line break is
/// on ariadne's last line, not on the empty line our index starts
/// there: the window must include that line.
#[test]
fn windowed_sources_render_the_end_of_the_file_like_whole_files() {
    let mut sources = Sources::new();
    let text = "\n—é\n";
    sources.add("a.dot", text);
    let d = Diagnostic::new(
        wf_diagnostics::codes::ALL[0],
        "m",
        at(0, text.len(), text.len()),
    )
    .with_primary_label("end");
    let (windowed, whole) = both(&d, &sources, false);
    assert_eq!(windowed, whole);
    assert!(whole.contains("a.dot:2:4"), "{whole}");
}

#[test]
fn parallel_rendering_keeps_the_order() {
    let mut sources = Sources::new();
    let text: String = (0..400).map(|i| format!("node{i}\n")).collect();
    sources.add("a.dot", text.clone());
    sources.add("b.dot", text);
    let code = &wf_diagnostics::codes::ALL[0];
    let diags: Vec<Diagnostic> = (0..300)
        .map(|i| {
            let start = (i * 7) % 2000;
            Diagnostic::new(code, format!("m{i}"), at(i as u32 % 2, start, start + 3))
        })
        .collect();
    let refs: Vec<&Diagnostic> = diags.iter().collect();
    let parallel = render(&refs, &sources, false).concat();
    let mut serial = String::new();
    let none = snippets::Windows::new();
    let mut cache = SourceCache::new(&sources, &none);
    for d in &refs {
        render_one(d, &sources, false, &mut cache, &mut serial);
        serial.push('\n');
    }
    assert_eq!(parallel, serial);
}

/// A label in a second file, after non-ASCII text, where ariadne would read
/// the label's character offset as a byte offset inside an `é`: ariadne
/// panics on it, so the report is written plainly instead.
#[test]
fn report_that_would_panic_ariadne_is_written_plainly() {
    let mut sources = Sources::new();
    let primary = sources.add("a.dot", "digraph G { a -> b }\n").0;
    // `z` is byte 9 and character 5: byte 5 is inside the third `é`.
    let second = sources.add("b.dot", "éééé\nz\n").0;
    let code = &wf_diagnostics::codes::ALL[0];
    let d = Diagnostic::new(code, "m", at(primary, 12, 13))
        .with_primary_label("here")
        .with_label(at(second, 9, 10), "and there");
    let text = render(&[&d], &sources, false).concat();
    assert!(text.contains("  --> a.dot:1:13: here\n"), "{text}");
    assert!(text.contains("  --> b.dot:2:1: and there\n"), "{text}");
    // The workaround is needed only while ariadne panics here.
    let body = Body::new(&d, &sources, Span::new(12, 13));
    assert!(body.trips_ariadne(&sources));
    let windows = snippets::Windows::new();
    let drawn = std::panic::catch_unwind(|| {
        let mut cache = SourceCache::new(&sources, &windows);
        let mut out = String::new();
        body.draw_with_ariadne(&d, false, &mut cache, &mut out);
    });
    assert!(
        drawn.is_err(),
        "ariadne no longer panics: drop trips_ariadne"
    );
}
