//! `docs/formatting.md` shows what the formatter does: each ```wf (or
//! ```dot) block marked `<!-- before -->` must format to the block of the
//! same language marked `<!-- after -->` that follows it, and that one must
//! be formatted already.

use std::path::Path;

use wf_fmt::{Options, SourceKind, format_source};

/// One fenced block: its marker comment (if any), language, line number
/// and text.
type Block = (Option<String>, SourceKind, usize, String);

/// The ```wf and ```dot blocks of the page, each with the marker comment
/// that precedes it (if any) and its line number.
fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut marker: Option<String> = None;
    let mut current: Option<Block> = None;
    for (index, line) in markdown.lines().enumerate() {
        let trimmed = line.trim();
        let kind = match trimmed {
            "```wf" => Some(SourceKind::Wf),
            "```dot" => Some(SourceKind::Dot),
            _ => None,
        };
        match &mut current {
            None if kind.is_some() => {
                current = Some((marker.take(), kind.unwrap(), index + 2, String::new()));
            }
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
            Some((_, _, _, text)) => {
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
    let mut pairs = [0, 0];
    for window in blocks.windows(2) {
        let [
            (Some(before_mark), kind, line, before),
            (Some(after_mark), after_kind, after_line, after),
        ] = window
        else {
            continue;
        };
        if before_mark != "before" || after_mark != "after" || kind != after_kind {
            continue;
        }
        pairs[usize::from(*kind == SourceKind::Dot)] += 1;
        let got =
            format_source(before, *kind, &options).unwrap_or_else(|e| panic!("line {line}: {e}"));
        assert_eq!(
            &got, after,
            "docs/formatting.md:{line}: formats differently than shown at line {after_line}:\n{got}"
        );
        assert_eq!(
            &format_source(after, *kind, &options).unwrap(),
            after,
            "docs/formatting.md:{after_line}: not formatted"
        );
    }
    let marked = blocks
        .iter()
        .filter(|(m, _, _, _)| m.as_deref() == Some("before"))
        .count();
    assert_eq!(
        pairs[0] + pairs[1],
        marked,
        "every `<!-- before -->` block needs an `<!-- after -->` block right after it"
    );
    assert!(
        pairs[0] >= 7,
        "expected at least 7 `.wf` before/after pairs, found {}",
        pairs[0]
    );
    assert!(
        pairs[1] >= 3,
        "expected at least 3 `.dot` before/after pairs, found {}",
        pairs[1]
    );
}
