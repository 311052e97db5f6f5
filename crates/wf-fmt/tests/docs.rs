//! `docs/formatting.md` shows what the formatter does: each ```wf block
//! marked `<!-- before -->` must format to the ```wf block marked
//! `<!-- after -->` that follows it, and that one must be formatted already.

use std::path::Path;

use wf_fmt::{Options, format};

/// The ```wf blocks of the page, each with the marker comment that precedes
/// it (if any) and its line number.
fn blocks(markdown: &str) -> Vec<(Option<String>, usize, String)> {
    let mut out = Vec::new();
    let mut marker: Option<String> = None;
    let mut current: Option<(Option<String>, usize, String)> = None;
    for (index, line) in markdown.lines().enumerate() {
        let trimmed = line.trim();
        match &mut current {
            None if trimmed == "```wf" => current = Some((marker.take(), index + 2, String::new())),
            None if trimmed.starts_with("<!--") => {
                marker = Some(
                    trimmed
                        .trim_start_matches("<!--")
                        .trim_end_matches("-->")
                        .trim()
                        .to_string(),
                );
            }
            None if !trimmed.is_empty() => marker = None,
            Some(_) if trimmed.starts_with("```") => out.push(current.take().unwrap()),
            Some((_, _, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

#[test]
fn formatting_md_examples_format_as_shown() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/formatting.md");
    let markdown = std::fs::read_to_string(&path).unwrap();
    let blocks = blocks(&markdown);
    let options = Options::default();
    let mut pairs = 0;
    for window in blocks.windows(2) {
        let [
            (Some(before_mark), line, before),
            (Some(after_mark), after_line, after),
        ] = window
        else {
            continue;
        };
        if before_mark != "before" || after_mark != "after" {
            continue;
        }
        pairs += 1;
        let got = format(before, &options).unwrap_or_else(|e| panic!("line {line}: {e}"));
        assert_eq!(
            &got, after,
            "docs/formatting.md:{line}: formats differently than shown at line {after_line}:\n{got}"
        );
        assert_eq!(
            &format(after, &options).unwrap(),
            after,
            "docs/formatting.md:{after_line}: not formatted"
        );
    }
    let marked = blocks
        .iter()
        .filter(|(m, _, _)| m.as_deref() == Some("before"))
        .count();
    assert_eq!(
        pairs, marked,
        "every `<!-- before -->` block needs an `<!-- after -->` block right after it"
    );
    assert!(
        pairs >= 7,
        "expected at least 7 before/after pairs, found {pairs}"
    );
}
