//! `wfc fmt`: the formatter keeps the meaning of every `.wf` input the
//! repository holds (the lowered model, spans aside, and the diagnostics),
//! and CLI snapshots of its modes. Fixtures live in `tests/fmt/`, snapshots
//! in `tests/fmt/snapshots/`.

use crate::common;

use common::{repo_root, wf_files};

use std::path::{Path, PathBuf};
use std::process::Command;

use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};
use wf_analysis::db::strip_spans;
use wf_analysis::lower::lower_parsed;
use wf_diagnostics::{FileId, Sources};
use wf_fmt::Options;

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

/// Every test file, example and doc block that parses without errors.
fn inputs() -> Vec<(String, String)> {
    let root = repo_root();
    let mut files = wf_files(&root.join("tests"));
    files.extend(wf_files(&root.join("examples")));
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

/// The lowered model of one file, spans blanked.
fn model(text: &str) -> Vec<wf_model::Workflow> {
    let parsed = wf_syntax::parse(text, FileId(0));
    lower_parsed(&[(FileId(0), &parsed)])
        .program
        .workflows
        .iter()
        .map(strip_spans)
        .collect()
}

/// What the checker says of one file, positions aside.
fn findings(text: &str) -> Vec<String> {
    let mut sources = Sources::new();
    sources.add("input.wf", text);
    let mut out: Vec<String> = wf_analysis::check_sources(&sources)
        .iter()
        .map(|d| format!("{}[{}] {}", d.severity.as_str(), d.code.code, d.message))
        .collect();
    out.sort();
    out
}

#[test]
fn formatting_preserves_the_model_and_the_findings() {
    let inputs = inputs();
    assert!(
        inputs.len() >= 100,
        "expected many inputs, found {}",
        inputs.len()
    );
    let mut failures = Vec::new();
    for (name, text) in &inputs {
        let formatted = match wf_fmt::format(text, &Options::default()) {
            Ok(formatted) => formatted,
            Err(err) => {
                failures.push(format!("{name}: {err}"));
                continue;
            }
        };
        if model(text) != model(&formatted) {
            failures.push(format!("{name}: the lowered model changed"));
        }
        if findings(text) != findings(&formatted) {
            failures.push(format!(
                "{name}: the findings changed\n  before: {:?}\n  after:  {:?}",
                findings(text),
                findings(&formatted)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `wfc` run from `dir` with a clean, deterministic environment.
fn wfc_in(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(dir)
        .args(args)
        .env_remove("NO_COLOR")
        .env("RUST_BACKTRACE", "0");
    cmd
}

fn wfc(args: &[&str]) -> Command {
    wfc_in(&repo_root(), args)
}

macro_rules! fmt_snapshot {
    ($name:literal, $cmd:expr) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(repo_root().join("tests/fmt/snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| assert_cmd_snapshot!($name, $cmd));
    }};
}

#[test]
fn check_formatted_directory() {
    fmt_snapshot!(
        "fmt_check_clean",
        wfc(&["fmt", "--check", "tests/fmt/clean"])
    );
}

#[test]
fn check_lists_files_that_would_change() {
    fmt_snapshot!(
        "fmt_check_messy",
        wfc(&["fmt", "--check", "tests/fmt/messy.wf", "tests/fmt/clean"])
    );
}

#[test]
fn diff_shows_the_changes() {
    fmt_snapshot!(
        "fmt_diff_messy",
        wfc(&["fmt", "--diff", "tests/fmt/messy.wf"])
    );
}

#[test]
fn syntax_errors_are_not_formatted() {
    fmt_snapshot!(
        "fmt_broken",
        wfc(&["fmt", "--check", "tests/fmt/broken.wf"])
    );
}

#[test]
fn force_formats_around_syntax_errors() {
    fmt_snapshot!(
        "fmt_broken_forced",
        wfc(&["fmt", "--diff", "--force", "tests/fmt/broken.wf"])
    );
}

#[test]
fn stdin_to_stdout() {
    let source = std::fs::read_to_string(repo_root().join("tests/fmt/messy.wf")).unwrap();
    fmt_snapshot!("fmt_stdin", wfc(&["fmt", "-"]).pass_stdin(source));
}

#[test]
fn stdin_check() {
    let source = std::fs::read_to_string(repo_root().join("tests/fmt/messy.wf")).unwrap();
    fmt_snapshot!(
        "fmt_stdin_check",
        wfc(&["fmt", "--check", "--stdin-filename", "messy.wf", "-"]).pass_stdin(source)
    );
}

#[test]
fn stdin_with_syntax_errors() {
    let source = std::fs::read_to_string(repo_root().join("tests/fmt/broken.wf")).unwrap();
    fmt_snapshot!(
        "fmt_stdin_broken",
        wfc(&["fmt", "--stdin-filename", "broken.wf", "-"]).pass_stdin(source)
    );
}

#[test]
fn stdin_cannot_mix_with_paths() {
    fmt_snapshot!(
        "fmt_stdin_and_paths",
        wfc(&["fmt", "-", "tests/fmt/messy.wf"])
    );
}

#[test]
fn missing_file() {
    fmt_snapshot!(
        "fmt_missing_file",
        wfc(&["fmt", "tests/fmt/does-not-exist.wf"])
    );
}

#[test]
fn rewrites_in_place_only_when_changed() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let root = repo_root();
    std::fs::copy(root.join("tests/fmt/messy.wf"), dir.path().join("messy.wf")).unwrap();
    std::fs::copy(
        root.join("tests/fmt/clean/formatted.wf"),
        dir.path().join("formatted.wf"),
    )
    .unwrap();
    let untouched = std::fs::metadata(dir.path().join("formatted.wf"))
        .unwrap()
        .ino();

    let run = wfc_in(dir.path(), &["fmt"]).output().unwrap();
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        "1 file reformatted, 1 file left unchanged\n"
    );
    let expected = std::fs::read_to_string(root.join("tests/fmt/clean/formatted.wf")).unwrap();
    let rewritten = std::fs::read_to_string(dir.path().join("messy.wf")).unwrap();
    // The fixtures differ only in their first comment line.
    assert_eq!(
        rewritten.lines().skip(1).collect::<Vec<_>>(),
        expected.lines().skip(1).collect::<Vec<_>>()
    );
    assert_eq!(
        std::fs::metadata(dir.path().join("formatted.wf"))
            .unwrap()
            .ino(),
        untouched
    );
    // No temporary file is left behind.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["formatted.wf", "messy.wf"]);

    let again = wfc_in(dir.path(), &["fmt", "--check", "."])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{again:?}");
}

#[test]
fn writes_through_symbolic_links() {
    let dir = tempfile::tempdir().unwrap();
    let root = repo_root();
    std::fs::copy(root.join("tests/fmt/messy.wf"), dir.path().join("real.wf")).unwrap();
    std::os::unix::fs::symlink("real.wf", dir.path().join("link.wf")).unwrap();
    let run = wfc_in(dir.path(), &["fmt", "link.wf"]).output().unwrap();
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let link = std::fs::symlink_metadata(dir.path().join("link.wf")).unwrap();
    assert!(
        link.file_type().is_symlink(),
        "the link was replaced by a file"
    );
    let real = std::fs::read_to_string(dir.path().join("real.wf")).unwrap();
    assert!(real.contains("workflow Messy {\n"), "{real}");
}

#[test]
fn dot_check_lists_files_that_would_change() {
    fmt_snapshot!("fmt_dot_check", wfc(&["fmt", "--check", "tests/fmt/dot"]));
}

#[test]
fn dot_check_formatted() {
    fmt_snapshot!(
        "fmt_dot_check_clean",
        wfc(&["fmt", "--check", "tests/fmt/dot/clean"])
    );
}

#[test]
fn dot_diff_shows_the_changes() {
    fmt_snapshot!(
        "fmt_dot_diff",
        wfc(&["fmt", "--diff", "tests/fmt/dot/messy.dot"])
    );
}

#[test]
fn dot_syntax_errors_are_not_formatted() {
    fmt_snapshot!(
        "fmt_dot_broken",
        wfc(&["fmt", "--diff", "tests/fmt/dot/broken.dot"])
    );
}

#[test]
fn dot_stdin_takes_the_language_from_the_file_name() {
    let source = std::fs::read_to_string(repo_root().join("tests/fmt/dot/messy.dot")).unwrap();
    let expected =
        std::fs::read_to_string(repo_root().join("tests/fmt/dot/clean/formatted.dot")).unwrap();
    let run = with_stdin(
        wfc(&["fmt", "--stdin-filename", "pipeline.dot", "-"]),
        &source,
    );
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    assert_eq!(String::from_utf8_lossy(&run.stdout), expected);
    // Without a DOT file name, standard input is `.wf`: DOT does not parse.
    let run = with_stdin(wfc(&["fmt", "-"]), &source);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
}

/// Runs `cmd` with `input` on its standard input.
fn with_stdin(mut cmd: Command, input: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn dot_force_keeps_broken_statements() {
    fmt_snapshot!(
        "fmt_dot_broken_forced",
        wfc(&["fmt", "--diff", "--force", "tests/fmt/dot/broken.dot"])
    );
}
