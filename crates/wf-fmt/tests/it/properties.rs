//! Formatter properties on every `.wf` input the repository holds: every
//! test file and example that parses without errors, and every ```wf block
//! of the docs. Formatting must succeed, be idempotent, parse to the same
//! tree (spans aside) and keep every comment's text. (The lowered model is
//! compared too, in `crates/wfc/tests/fmt.rs`, which can depend on the
//! analysis.)

use std::path::{Path, PathBuf};

use wf_diagnostics::FileId;
use wf_fmt::{Options, format};
use wf_syntax::{TriviaKind, dump};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn wf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            wf_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "wf") {
            out.push(path);
        }
    }
}

/// The ```wf blocks of a Markdown file, named `path:line`.
fn wf_blocks(path: &Path, out: &mut Vec<(String, String)>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut current: Option<(usize, String)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed.starts_with("```") && trimmed[3..].trim() == "wf" => {
                current = Some((index + 2, String::new()));
            }
            Some((start, block)) if trimmed.starts_with("```") => {
                out.push((format!("{}:{start}", path.display()), std::mem::take(block)));
                current = None;
            }
            Some((_, block)) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
}

/// Every input: (name, text) of files and doc blocks that parse cleanly.
fn inputs() -> Vec<(String, String)> {
    let root = repo_root();
    let mut files = Vec::new();
    wf_files(&root.join("tests"), &mut files);
    wf_files(&root.join("examples"), &mut files);
    files.sort();
    let mut out: Vec<(String, String)> = files
        .iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(p).ok()?)))
        .collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.push(root.join("README.md"));
    docs.sort();
    for doc in docs {
        wf_blocks(&doc, &mut out);
    }
    out.retain(|(_, text)| {
        !wf_syntax::parse(text, FileId(0))
            .diagnostics
            .iter()
            .any(|d| d.is_error())
    });
    out
}

fn comments(text: &str) -> Vec<String> {
    wf_syntax::parse(text, FileId(0))
        .trivia
        .iter()
        .filter(|t| t.kind != TriviaKind::BlankLines)
        .map(|t| text[t.span.range()].trim_end().to_string())
        .collect()
}

#[test]
fn formatting_is_idempotent_and_preserves_trees_and_comments() {
    let inputs = inputs();
    assert!(
        inputs.len() >= 100,
        "expected many inputs, found {}",
        inputs.len()
    );
    let options = Options::default();
    let mut failures = Vec::new();
    for (name, text) in &inputs {
        let once = match format(text, &options) {
            Ok(once) => once,
            Err(err) => {
                failures.push(format!("{name}: {err}"));
                continue;
            }
        };
        let twice = format(&once, &options).unwrap_or_else(|e| format!("<error: {e}>"));
        if once != twice {
            failures.push(format!(
                "{name}: not idempotent\n--- once\n{once}\n--- twice\n{twice}"
            ));
        }
        let before = dump::sexpr(&wf_syntax::parse(text, FileId(0)).file, false);
        let after = dump::sexpr(&wf_syntax::parse(&once, FileId(0)).file, false);
        if before != after {
            failures.push(format!("{name}: the tree changed"));
        }
        let missing: Vec<String> = comments(text)
            .into_iter()
            .filter(|c| !once.contains(c.as_str()))
            .collect();
        if !missing.is_empty() {
            failures.push(format!("{name}: comments lost: {missing:?}"));
        }
        if once
            .lines()
            .any(|l| l.ends_with(' ') && !l.trim().is_empty() && !in_text_block(&once, l))
        {
            failures.push(format!("{name}: trailing whitespace"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs failed:\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
}

/// Trailing whitespace inside a text block is part of its value, so only
/// lines outside text blocks are held to the no-trailing-space rule.
fn in_text_block(text: &str, line: &str) -> bool {
    let mut inside = false;
    for l in text.lines() {
        if l == line && inside {
            return true;
        }
        if l.matches("\"\"\"").count() % 2 == 1 {
            inside = !inside;
        }
    }
    false
}
