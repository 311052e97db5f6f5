//! The generated reference page and the explanations it is built from.

use std::path::PathBuf;

use wf_diagnostics::codes;
use wf_render::{REGENERATE_DOCS, diagnostics_markdown, explanation};

fn docs_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/diagnostics.md")
}

/// `docs/diagnostics.md` must match the registry. With `UPDATE_DOCS=1` the
/// test rewrites the file instead of failing.
#[test]
fn diagnostics_md_is_up_to_date() {
    let path = docs_path();
    let expected = diagnostics_markdown();
    if std::env::var_os("UPDATE_DOCS").is_some_and(|v| !v.is_empty()) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &expected).unwrap();
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    if actual != expected {
        panic!(
            "{} is stale (the code registry or an explanation changed).\n\
             Regenerate it with: {REGENERATE_DOCS}",
            path.display()
        );
    }
}

/// Ruff-style rule docs: the four sections in order, and a `.wf` example
/// (a `.dot` one for the DOT front end's codes, a `.json` one for Reflex's).
#[test]
fn explanations_have_the_four_sections_and_a_wf_example() {
    for code in codes::ALL {
        let text = explanation(code);
        let id = code.code;
        let find = |heading: &str| text.find(&format!("## {heading}\n"));
        let what = find("What it does").unwrap_or_else(|| panic!("{id}: no `## What it does`"));
        let why = find("Why is this bad?")
            .or_else(|| find("Why it matters"))
            .unwrap_or_else(|| panic!("{id}: no `## Why is this bad?` or `## Why it matters`"));
        let example = find("Example").unwrap_or_else(|| panic!("{id}: no `## Example`"));
        let fix = find("How to fix").unwrap_or_else(|| panic!("{id}: no `## How to fix`"));
        assert!(
            what < why && why < example && example < fix,
            "{id}: sections out of order"
        );
        assert!(
            text.starts_with("## What it does\n"),
            "{id}: must start with `## What it does`"
        );
        // `.dot` front-end codes show `.dot` input, and so does WF0110 (a
        // child pipeline, named in a pipeline); every other code `.wf`.
        // WF0011 is about IR files, which are JSON too.
        let fence = match code.family {
            _ if code.code == "WF0011" => "```json\n",
            wf_diagnostics::Family::Dot | wf_diagnostics::Family::Attractor => "```dot\n",
            _ if code.code == "WF0110" => "```dot\n",
            wf_diagnostics::Family::Reflex => "```json\n",
            _ => "```wf\n",
        };
        let example_section = &text[example..fix];
        assert!(
            example_section.contains(fence),
            "{id}: the example needs a {fence} snippet"
        );
        assert!(
            text[fix..].contains(fence),
            "{id}: `How to fix` needs the fixed {fence} snippet"
        );
        assert_eq!(
            text.matches("```").count() % 2,
            0,
            "{id}: unbalanced code fence"
        );
        assert!(!text.contains("TODO"), "{id}: placeholder left");
        assert!(text.ends_with('\n'), "{id}: must end with a newline");
    }
}
