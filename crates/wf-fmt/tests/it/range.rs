//! Range formatting (`wf_fmt::format_range`) for `.wf` and `.dot`: only
//! the whole items the range touches change, everything else stays
//! byte-identical, and a range over everything is the whole-file format.

use std::path::Path;

use wf_fmt::{Options, SourceKind, TextEdit, format_range, format_source};

const WF: &str = r#"workflow   Messy{
  goal="Tidy up"   // the goal
  step plan{prompt="Plan it"   timeout=15m}
  exit done{writes status:string}

  start->plan
  plan->done when outcome==success
}
workflow Other { step a  step b }
"#;

const DOT: &str = r#"digraph   G{
  start [shape=Mdiamond]; exit [shape=Msquare]
  plan [label = "Plan"]   // why
  plan->exit
}
"#;

fn apply(source: &str, edits: &[TextEdit]) -> String {
    let mut out = source.to_string();
    for edit in edits.iter().rev() {
        out.replace_range(edit.range.clone(), &edit.new_text);
    }
    out
}

fn range(source: &str, kind: SourceKind, range: std::ops::Range<usize>) -> String {
    let edits = format_range(source, kind, range, &Options::default()).unwrap();
    for pair in edits.windows(2) {
        assert!(
            pair[0].range.end <= pair[1].range.start,
            "overlapping edits"
        );
    }
    apply(source, &edits)
}

fn at(source: &str, needle: &str) -> usize {
    source
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in source"))
}

#[test]
fn wf_range_in_the_middle_formats_one_statement() {
    let start = at(WF, "step plan") + 3;
    let out = range(WF, SourceKind::Wf, start..start + 2);
    let expected = WF.replace(
        r#"  step plan{prompt="Plan it"   timeout=15m}"#,
        r#"  step plan { prompt = "Plan it"  timeout = 15m }"#,
    );
    assert_eq!(out, expected);
}

#[test]
fn wf_empty_range_formats_the_statement_it_is_in() {
    let start = at(WF, "plan->done") + 4;
    let out = range(WF, SourceKind::Wf, start..start);
    let expected = WF.replace(
        "plan->done when outcome==success",
        "plan -> done  when outcome == success",
    );
    assert_eq!(out, expected);
}

#[test]
fn wf_empty_range_between_items_changes_nothing() {
    let blank = at(WF, "\n\n") + 1;
    assert!(
        format_range(WF, SourceKind::Wf, blank..blank, &Options::default())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn wf_range_across_items_formats_each() {
    let start = at(WF, "goal=");
    let end = at(WF, "step plan") + 2;
    let out = range(WF, SourceKind::Wf, start..end);
    let expected = WF
        .replace(
            r#"  goal="Tidy up"   // the goal"#,
            r#"  goal = "Tidy up"  // the goal"#,
        )
        .replace(
            r#"  step plan{prompt="Plan it"   timeout=15m}"#,
            r#"  step plan { prompt = "Plan it"  timeout = 15m }"#,
        );
    assert_eq!(out, expected);
}

#[test]
fn wf_statement_sharing_a_line_takes_the_whole_line() {
    let start = at(WF, "step b");
    let out = range(WF, SourceKind::Wf, start..start + 1);
    let expected = WF.replace(
        "workflow Other { step a  step b }\n",
        "workflow Other {\n  step a\n  step b\n}\n",
    );
    assert_eq!(out, expected);
}

#[test]
fn wf_range_at_the_edges() {
    // The workflow header at the very start is on no statement's line.
    let out = range(WF, SourceKind::Wf, 0..0);
    assert_eq!(out, WF.replace("workflow   Messy{", "workflow Messy {"));
    // The end of the file (its last `}` and line break): the last line,
    // a whole workflow.
    let out = range(WF, SourceKind::Wf, WF.len() - 2..WF.len());
    assert!(
        out.ends_with("workflow Other {\n  step a\n  step b\n}\n"),
        "{out}"
    );
    assert!(
        out.starts_with("workflow   Messy{\n  goal=\"Tidy up\""),
        "{out}"
    );
    // Only the final line break: no item, nothing to do.
    let out = range(WF, SourceKind::Wf, WF.len() - 1..WF.len());
    assert_eq!(out, WF);
}

#[test]
fn wf_whole_range_is_the_whole_format() {
    let whole = format_source(WF, SourceKind::Wf, &Options::default()).unwrap();
    assert_eq!(range(WF, SourceKind::Wf, 0..WF.len()), whole);
    assert_eq!(range(&whole, SourceKind::Wf, 0..whole.len()), whole);
}

#[test]
fn dot_range_in_the_middle_formats_one_statement() {
    let start = at(DOT, "plan [");
    let out = range(DOT, SourceKind::Dot, start..start + 1);
    let expected = DOT.replace(
        "  plan [label = \"Plan\"]   // why",
        "  plan [label=\"Plan\"]  // why",
    );
    assert_eq!(out, expected);
}

#[test]
fn dot_statement_sharing_a_line_takes_the_whole_line() {
    let start = at(DOT, "exit [");
    let out = range(DOT, SourceKind::Dot, start..start);
    let expected = DOT.replace(
        "  start [shape=Mdiamond]; exit [shape=Msquare]\n",
        "  start [shape=Mdiamond]\n  exit [shape=Msquare]\n",
    );
    assert_eq!(out, expected);
}

#[test]
fn dot_range_across_items_and_edges() {
    let start = at(DOT, "plan [");
    let end = at(DOT, "plan->") + 5;
    let out = range(DOT, SourceKind::Dot, start..end);
    let expected = DOT
        .replace(
            "  plan [label = \"Plan\"]   // why",
            "  plan [label=\"Plan\"]  // why",
        )
        .replace("  plan->exit", "  plan -> exit");
    assert_eq!(out, expected);
    let out = range(DOT, SourceKind::Dot, 0..1);
    assert_eq!(out, DOT.replace("digraph   G{", "digraph G {"));
    let blank_free_end = DOT.len();
    let out = range(DOT, SourceKind::Dot, blank_free_end..blank_free_end);
    assert_eq!(
        out, DOT,
        "after the closing brace there is nothing to format"
    );
}

#[test]
fn dot_whole_range_is_the_whole_format() {
    let whole = format_source(DOT, SourceKind::Dot, &Options::default()).unwrap();
    assert_eq!(range(DOT, SourceKind::Dot, 0..DOT.len()), whole);
    assert!(
        format_range(&whole, SourceKind::Dot, 3..9, &Options::default())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn ranges_out_of_bounds_are_clamped_and_broken_files_refused() {
    let whole = format_source(DOT, SourceKind::Dot, &Options::default()).unwrap();
    assert_eq!(range(DOT, SourceKind::Dot, 0..usize::MAX), whole);
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = format_range(DOT, SourceKind::Dot, 9..3, &Options::default());
    assert!(reversed.is_ok());
    let broken = "digraph G { a [label=\"x\" \n b -> }\n";
    assert!(format_range(broken, SourceKind::Dot, 0..3, &Options::default()).is_err());
}

/// Every statement of every test file, formatted alone: the result still
/// formats to the whole-file format (so nothing outside was broken) and
/// is never further from it than the input.
#[test]
fn every_statement_of_the_test_files_formats_alone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let files = [
        ("tests/fmt/messy.wf", SourceKind::Wf),
        ("tests/fmt/dot/messy.dot", SourceKind::Dot),
    ];
    for (file, kind) in files {
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        let whole = format_source(&source, kind, &Options::default()).unwrap();
        for (offset, _) in source.char_indices() {
            let out = range(&source, kind, offset..offset);
            let again = format_source(&out, kind, &Options::default())
                .unwrap_or_else(|e| panic!("{file} at {offset}: {e}\n{out}"));
            assert_eq!(again, whole, "{file} at {offset}");
            // Idempotent: formatting the same range again changes nothing
            // when the first pass formatted that statement fully.
            let twice = range(&out, kind, offset.min(out.len())..offset.min(out.len()));
            let thrice = format_source(&twice, kind, &Options::default()).unwrap();
            assert_eq!(thrice, whole, "{file} at {offset}");
        }
    }
}
