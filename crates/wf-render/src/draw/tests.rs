//! One test per shape the fast path draws, with the expected text inline;
//! each is also checked against ariadne, and the shapes left to ariadne are
//! checked to be declined.

use crate::{human_report_ariadne, human_report_fast};
use wf_diagnostics::{Diagnostic, FileId, Sources, Span, codes};

fn code() -> &'static wf_diagnostics::Code {
    codes::ALL[0]
}

/// The report drawn by the fast path, after checking it is ariadne's.
fn drawn(d: &Diagnostic, sources: &Sources) -> String {
    for color in [false, true] {
        let ours = human_report_fast(d, sources, color).expect("drawn by the fast path");
        assert_eq!(ours, human_report_ariadne(d, sources, color, false));
    }
    human_report_fast(d, sources, false).unwrap()
}

fn at(file: FileId, start: usize, end: usize) -> wf_diagnostics::FileSpan {
    Span::new(start, end).in_file(file)
}

macro_rules! shape {
    ($name:ident, $sources:expr, $diag:expr, $expected:expr) => {
        #[test]
        fn $name() {
            let (sources, a, b) = $sources;
            let _ = b;
            let d: Diagnostic = $diag(a, b);
            let text = drawn(&d, &sources);
            assert_eq!(text, $expected, "\n{text}");
        }
    };
}

fn two(a: &str, b: &str) -> (Sources, FileId, FileId) {
    let mut sources = Sources::new();
    let ia = sources.add("a.dot", a);
    let ib = sources.add("b.dot", b);
    (sources, ia, ib)
}

const GRAPH: &str = "digraph G {\n  a -> b\n  b -> c\n  c -> d\n}\n";

shape!(
    one_label,
    two(GRAPH, ""),
    |a, _| Diagnostic::new(code(), "m", at(a, 14, 20)).with_primary_label("this edge"),
    "error[WF0001]: m\n   ╭─[ a.dot:2:3 ]\n   │\n 2 │   a -> b\n   │   ───┬──  \n   │      ╰──── this edge\n───╯\n"
);

shape!(
    labels_on_distant_lines,
    two(&format!("{}x\n", "\n".repeat(9)), ""),
    |a, _| Diagnostic::new(code(), "m", at(a, 9, 10))
        .with_primary_label("here")
        .with_label(at(a, 0, 0), "start"),
    "error[WF0001]: m\n    ╭─[ a.dot:10:1 ]\n    │\n  1 │ \n    │ │ \n    │ ╰─ start\n    │ \n 10 │ x\n    │ ┬  \n    │ ╰── here\n────╯\n"
);

shape!(
    several_labels_on_one_line,
    two(GRAPH, ""),
    |a, _| Diagnostic::new(code(), "m", at(a, 14, 15))
        .with_primary_label("from")
        .with_label(at(a, 16, 18), "arrow")
        .with_label(at(a, 14, 20), "whole"),
    "error[WF0001]: m\n   ╭─[ a.dot:2:3 ]\n   │\n 2 │   a -> b\n   │   ┬──┬──  \n   │   ╰─────── from\n   │      │    \n   │      ╰──── arrow\n   │      │    \n   │      ╰──── whole\n───╯\n"
);

shape!(
    empty_span_at_the_end_of_the_file,
    two(GRAPH, ""),
    |a, _| Diagnostic::new(code(), "m", at(a, GRAPH.len(), GRAPH.len())).with_primary_label("end"),
    "error[WF0001]: m\n   ╭─[ a.dot:5:3 ]\n   │\n 5 │ }\n   │   │ \n   │   ╰─ end\n───╯\n"
);

shape!(
    span_over_the_line_break,
    two("a -> b\r\nc\r\n", ""),
    |a, _| Diagnostic::new(code(), "m", at(a, 5, 8)).with_primary_label("b and its break"),
    "error[WF0001]: m\n   ╭─[ a.dot:1:6 ]\n   │\n 1 │ a -> b\n   │      ─┬─  \n   │       ╰─── b and its break\n───╯\n"
);

shape!(
    empty_span_at_a_line_start_after_other_labels,
    two(GRAPH, ""),
    |a, _| Diagnostic::new(code(), "m", at(a, 12, 13))
        .with_primary_label("first")
        .with_label(at(a, 21, 21), "line start"),
    "error[WF0001]: m\n   ╭─[ a.dot:2:1 ]\n   │\n 2 │   a -> b\n   │ ┬        │ \n   │ ╰────────── first\n   │          │ \n   │          ╰─ line start\n───╯\n"
);

shape!(
    tabs_and_wide_characters,
    two("\tx = \"日本\" \t é\n", ""),
    |a, _| Diagnostic::new(code(), "m", at(a, 6, 12)).with_primary_label("wide"),
    "error[WF0001]: m\n   ╭─[ a.dot:1:7 ]\n   │\n 1 │     x = \"日本\"    é\n   │          ──┬─  \n   │            ╰─── wide\n───╯\n"
);

shape!(
    labels_in_two_files,
    two(GRAPH, "b\nbb\n"),
    |a, b| Diagnostic::new(code(), "m", at(a, 14, 15))
        .with_primary_label("here")
        .with_label(at(b, 2, 4), "there"),
    "error[WF0001]: m\n   ╭─[ a.dot:2:3 ]\n   │\n 2 │   a -> b\n   │   ┬  \n   │   ╰── here\n   │\n   ├─[ b.dot:2:1 ]\n   │\n 2 │ bb\n   │ ─┬  \n   │  ╰── there\n───╯\n"
);

shape!(
    notes_and_helps,
    two(GRAPH, ""),
    |a, _| Diagnostic::new(code(), "m", at(a, 14, 15))
        .with_primary_label("")
        .with_note("one")
        .with_note("two\nlines")
        .with_help("only help\nsecond line"),
    "error[WF0001]: m\n   ╭─[ a.dot:2:3 ]\n   │\n 2 │   a -> b\n   │   ┬  \n   │   ╰── \n   │ \n   │ Help: only help\n   │       second line\n   │ \n   │ Note 1: one\n   │ \n   │ Note 2: two\n   │         lines\n───╯\n"
);

#[test]
fn colour_escapes() {
    let (sources, a, _) = two("ab\n", "");
    let d = Diagnostic::new(code(), "m", at(a, 1, 2)).with_primary_label("b");
    let ours = human_report_fast(&d, &sources, true).unwrap();
    assert_eq!(ours, human_report_ariadne(&d, &sources, true, false));
    assert_eq!(
        ours,
        "\u{1b}[31merror[WF0001]:\u{1b}[0m m\n   \u{1b}[38;5;246m╭\u{1b}[0m\u{1b}[38;5;246m─\u{1b}[0m\u{1b}[38;5;246m[\u{1b}[0m a.dot:1:2 \u{1b}[38;5;246m]\u{1b}[0m\n   \u{1b}[38;5;246m│\u{1b}[0m\n \u{1b}[38;5;246m1 │\u{1b}[0m \u{1b}[38;5;249ma\u{1b}[0m\u{1b}[31mb\u{1b}[0m\n \u{1b}[38;5;240m  │\u{1b}[0m  \u{1b}[31m┬\u{1b}[0m  \n \u{1b}[38;5;240m  │\u{1b}[0m  \u{1b}[31m╰\u{1b}[0m\u{1b}[31m─\u{1b}[0m\u{1b}[31m─\u{1b}[0m b\n\u{1b}[38;5;246m───╯\u{1b}[0m\n"
    );
}

#[test]
fn shapes_left_to_ariadne() {
    // A span over two lines.
    let (sources, a, b) = two("ab\ncd\n", "é\nxyz\n");
    let d = Diagnostic::new(code(), "m", at(a, 1, 4)).with_primary_label("two lines");
    assert_eq!(human_report_fast(&d, &sources, false), None);
    // A snippet in a second file after non-ASCII text.
    let d = Diagnostic::new(code(), "m", at(a, 1, 2))
        .with_primary_label("")
        .with_label(at(b, 4, 5), "");
    assert_eq!(human_report_fast(&d, &sources, false), None);
    // A file with a line break ariadne knows and `\n` does not.
    for odd in ["\r", "\x0b", "\x0c", "\u{85}", "\u{2028}", "\u{2029}"] {
        let (sources, a, _) = two(&format!("ab{odd}cd\n"), "");
        let d = Diagnostic::new(code(), "m", at(a, 0, 1)).with_primary_label("");
        assert_eq!(human_report_fast(&d, &sources, false), None, "{odd:?}");
    }
}
