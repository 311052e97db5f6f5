//! `.dot` formatting on every DOT file the repository holds and on every
//! pipeline of the shared Attractor corpus (`../shared/corpus/attractor/`,
//! read in place, never copied): the result formats to itself, lowers to
//! the same model (spans aside) with the same diagnostics, and keeps every
//! comment in order. Files with syntax errors are refused, and counted.
//!
//! Without the corpus the corpus test prints that it was skipped, unless
//! `WFC_REQUIRE_CORPUS` is set, in which case it fails.
//! `WFC_CORPUS` points at another copy of the corpus folder.

use std::path::{Path, PathBuf};

use wf_analysis::db::strip_spans;
use wf_diagnostics::FileId;
use wf_fmt::{FormatError, Options, SourceKind};

use wf_test_support::corpus;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every pipeline file (`.dot`, `.fabro`, `.gv`) below `dir`, sorted,
/// skipping snapshot directories.
fn pipelines(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "snapshots") {
                    walk(&path, out);
                }
            } else if SourceKind::from_path(&path) == Some(SourceKind::Dot) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// What the lowering makes of a text: the model without spans, and the
/// diagnostics without positions.
fn meaning(text: &str) -> (Vec<wf_model::Workflow>, Vec<String>) {
    let lowered = wf_dot::parse_and_lower(text, FileId(0));
    let workflows = lowered.program.workflows.iter().map(strip_spans).collect();
    let mut findings: Vec<String> = lowered
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code.code, d.message))
        .collect();
    findings.sort();
    (workflows, findings)
}

/// The text of every comment, in order.
fn comments(text: &str) -> Vec<String> {
    wf_dot::parse(text, FileId(0))
        .comments
        .iter()
        .map(|c| text[c.span.range()].trim_end().to_string())
        .collect()
}

/// Checks one file; `Ok(false)` when it was refused for syntax errors.
fn check(name: &str, text: &str) -> Result<bool, String> {
    let options = Options::default();
    let formatted = match wf_fmt::format_source(text, SourceKind::Dot, &options) {
        Ok(formatted) => formatted,
        Err(FormatError::Syntax(_)) => {
            // Forced formatting of a broken file must still keep its meaning.
            let forced = wf_fmt::format_source_forced(text, SourceKind::Dot, &options)
                .map_err(|e| format!("{name}: forced: {e}"))?;
            if meaning(&forced) != meaning(text) {
                return Err(format!("{name}: forced formatting changed the meaning"));
            }
            return Ok(false);
        }
        Err(err) => return Err(format!("{name}: {err}")),
    };
    let again = wf_fmt::format_source(&formatted, SourceKind::Dot, &options)
        .map_err(|e| format!("{name}: the formatted text does not format: {e}"))?;
    if again != formatted {
        return Err(format!(
            "{name}: not idempotent\n--- once\n{formatted}\n--- twice\n{again}"
        ));
    }
    if meaning(&formatted) != meaning(text) {
        return Err(format!("{name}: the lowered model or its findings changed"));
    }
    if comments(&formatted) != comments(text) {
        return Err(format!("{name}: a comment was lost or moved out of order"));
    }
    if !formatted.ends_with('\n') || formatted.ends_with("\n\n") {
        return Err(format!("{name}: does not end with exactly one line break"));
    }
    check_ranges(name, text, &formatted)?;
    Ok(true)
}

/// Range formatting at a few offsets across the file: the result must
/// still format to the whole-file format (nothing outside the range was
/// damaged), and only lines around the offset may change.
fn check_ranges(name: &str, text: &str, formatted: &str) -> Result<(), String> {
    let options = Options::default();
    for step in 1..8 {
        let mut at = text.len() * step / 8;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let edits = wf_fmt::format_range(text, SourceKind::Dot, at..at, &options)
            .map_err(|e| format!("{name}: range at {at}: {e}"))?;
        let mut out = text.to_string();
        for edit in edits.iter().rev() {
            out.replace_range(edit.range.clone(), &edit.new_text);
        }
        let whole = wf_fmt::format_source(&out, SourceKind::Dot, &options)
            .map_err(|e| format!("{name}: after a range at {at}: {e}"))?;
        if whole != formatted {
            return Err(format!(
                "{name}: a range at {at} damaged the rest of the file"
            ));
        }
        if edits.len() == 1 && edits[0].range.len() == text.len() && formatted != text {
            // The whole file may only be replaced when the range touches
            // every statement, which an empty range in a file of several
            // statements cannot.
            let statements = formatted
                .lines()
                .filter(|l| l.starts_with([' ', '\t']))
                .count();
            if statements > 1 {
                return Err(format!("{name}: a range at {at} replaced the whole file"));
            }
        }
    }
    Ok(())
}

#[test]
fn repository_dot_files_format_safely() {
    let mut files = pipelines(&root().join("tests"));
    files.extend(pipelines(&root().join("crates/wf-dot/tests")));
    files.extend(pipelines(&root().join("examples")));
    assert!(
        files.len() >= 10,
        "expected DOT test files, found {}",
        files.len()
    );
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).ok()?;
            check(&path.display().to_string(), &text).err()
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn corpus_formats_safely() {
    let Some(dir) = corpus::shared_corpus("attractor") else {
        return;
    };
    let files = pipelines(&dir);
    assert!(
        files.len() >= 276,
        "expected the 276 corpus files, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    let mut refused = Vec::new();
    let mut changed = 0;
    for path in &files {
        let name = path.strip_prefix(&dir).unwrap().display().to_string();
        let Ok(text) = std::fs::read_to_string(path) else {
            failures.push(format!("{name}: not UTF-8"));
            continue;
        };
        match check(&name, &text) {
            Ok(true) => {
                let formatted =
                    wf_fmt::format_source(&text, SourceKind::Dot, &Options::default()).unwrap();
                changed += usize::from(formatted != text);
            }
            Ok(false) => refused.push(name),
            Err(failure) => failures.push(failure),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!(
        "{} corpus files: {} formatted ({changed} changed), {} refused for syntax errors",
        files.len(),
        files.len() - refused.len(),
        refused.len()
    );
    assert_eq!(refused.len(), EXPECTED_REFUSED, "refused: {refused:#?}");
    assert_eq!(
        changed, EXPECTED_CHANGED,
        "the number of corpus files `wfc fmt` changes moved: update docs/formatting.md"
    );
}

/// Corpus files that formatting changes (of the 273 it formats), as
/// docs/formatting.md records: keeping each file's indentation unit, its
/// hand-aligned columns, its one-line attribute lists, its `;` after every
/// statement and its `key = value` brought this down from 245; what
/// remains is stray `;` dropped, mixed spacing around `=` and `,`, and
/// hand-wrapped lists laid out one attribute per line.
const EXPECTED_CHANGED: usize = 86;

/// Corpus files with syntax errors (ports, HTML labels, undirected graphs,
/// real mistakes): `wfc fmt` refuses them without `--force`.
const EXPECTED_REFUSED: usize = 3;
