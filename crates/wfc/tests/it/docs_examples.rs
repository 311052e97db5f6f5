//! The documentation cannot drift from the implementation: every ```wf block
//! in `docs/*.md` and `README.md` must parse without diagnostics, and every
//! file in `examples/` must check clean (all checks, not only syntax).
//! Blocks fenced as ```wf-invalid are shown as counter-examples and skipped.
//! `docs/diagnostics.md` is generated from the code explanations, whose
//! examples are wrong on purpose; `explanations.rs` checks those instead.

use crate::common;

use common::{repo_root, wf_files};

use std::path::PathBuf;

use wf_diagnostics::{FileId, Sources};
use wf_render::{self as render, Format, RenderOptions};

/// The ```wf code blocks of a Markdown file, with the line each starts on.
fn wf_blocks(markdown: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (index, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed.starts_with("```") && trimmed[3..].trim() == "wf" => {
                current = Some((index + 2, String::new()));
            }
            Some(_) if trimmed.starts_with("```") => blocks.push(current.take().unwrap()),
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    blocks
}

fn markdown_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter(|p| p.file_name().is_some_and(|n| n != "diagnostics.md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn every_wf_block_in_the_docs_parses() {
    let mut failures = Vec::new();
    let mut count = 0;
    for path in markdown_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, block) in wf_blocks(&text) {
            count += 1;
            let parsed = wf_syntax::parse(&block, FileId(0));
            if !parsed.diagnostics.is_empty() {
                let mut sources = Sources::new();
                sources.add(format!("{}:{line}", path.display()), block);
                failures.push(render::render(
                    &parsed.diagnostics,
                    &sources,
                    Format::Concise,
                    &RenderOptions { color: false },
                ));
            }
        }
    }
    assert!(
        count >= 10,
        "expected the docs to hold at least 10 wf examples, found {count}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_example_checks_clean() {
    let root = repo_root();
    let files = wf_files(&root.join("examples"));
    assert!(files.len() >= 5, "expected at least five examples");
    let mut sources = Sources::new();
    for path in &files {
        let shown = path.strip_prefix(&root).unwrap().display().to_string();
        sources.add(shown, std::fs::read_to_string(path).unwrap());
    }
    let diagnostics = wf_analysis::check_sources(&sources);
    assert!(
        diagnostics.is_empty(),
        "{}",
        render::render(
            &diagnostics,
            &sources,
            Format::Concise,
            &RenderOptions { color: false }
        )
    );
}
