//! The annotated test files under `tests/check/`.
//!
//! Each `.wf` or `.dot` file (or each directory under
//! `tests/check/projects/`, its `.wf` and `.dot` files checked as one
//! program) carries its own
//! expectations as `//` comments:
//!
//! ```text
//! a -> b -> a   // error[WF0201]: cycle
//! ```
//!
//! An annotation `// SEVERITY[CODE]` or `// SEVERITY[CODE]: text` expects a
//! diagnostic with that severity and code whose primary span starts on that
//! line and whose message contains `text`. When the comment stands alone on
//! its line it applies to the next line that is not itself an annotation (for
//! lines where a trailing comment would change the meaning, such as an
//! unterminated string). Every diagnostic must be expected and every
//! expectation met. The rendered human output is also snapshotted, with the
//! source, in `tests/check/snapshots/`.

use crate::common;

use common::{files_with_extensions, repo_root};

use std::path::{Path, PathBuf};

use wf_diagnostics::{Diagnostic, Sources};
use wf_render::{self as render, Format, RenderOptions};

#[derive(Debug, Clone, PartialEq)]
struct Expectation {
    file: String,
    line: u32,
    severity: String,
    code: String,
    text: String,
}

/// Parses the annotations of one file.
fn expectations(path: &str, text: &str) -> Vec<Expectation> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let Some((before, annotation)) = find_annotation(line) else {
            continue;
        };
        let target = if before.trim().is_empty() {
            // Stand-alone annotation: applies to the next non-annotation line.
            let mut next = index + 1;
            while next < lines.len()
                && find_annotation(lines[next]).is_some_and(|(b, _)| b.trim().is_empty())
            {
                next += 1;
            }
            next
        } else {
            index
        };
        let (severity, code, text) = annotation;
        out.push(Expectation {
            file: path.to_string(),
            line: target as u32 + 1,
            severity,
            code,
            text,
        });
    }
    out
}

/// Finds `// severity[CODE]: text` in a line; returns the code before it and the parts.
fn find_annotation(line: &str) -> Option<(&str, (String, String, String))> {
    for severity in ["error", "warning", "info"] {
        let marker = format!("// {severity}[WF");
        if let Some(at) = line.find(&marker) {
            let rest = &line[at + 3 + severity.len() + 1..];
            let close = rest.find(']')?;
            let code = rest[..close].to_string();
            let text = rest[close + 1..].trim_start_matches(':').trim().to_string();
            return Some((&line[..at], (severity.to_string(), code, text)));
        }
    }
    None
}

fn actual(diag: &Diagnostic, sources: &Sources) -> Expectation {
    let file = sources.get(diag.primary.location.file);
    Expectation {
        file: file.path.clone(),
        line: file.line_col(diag.primary.location.span.start).line,
        severity: diag.severity.as_str().to_string(),
        code: diag.code.code.to_string(),
        text: diag.message.clone(),
    }
}

/// Checks one test case (one file, or one project directory) and returns the
/// snapshot text.
fn run_case(files: &[PathBuf]) -> String {
    let root = repo_root();
    let mut sources = Sources::new();
    let mut expected = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path).unwrap();
        let shown = path.strip_prefix(&root).unwrap().display().to_string();
        expected.extend(expectations(&shown, &text));
        sources.add(shown, text);
    }
    let diagnostics = wf_analysis::check_sources(&sources);
    let mut unmatched: Vec<Expectation> = diagnostics.iter().map(|d| actual(d, &sources)).collect();
    let mut missing = Vec::new();
    for exp in &expected {
        let found = unmatched.iter().position(|a| {
            a.file == exp.file
                && a.line == exp.line
                && a.severity == exp.severity
                && a.code == exp.code
                && a.text.contains(&exp.text)
        });
        match found {
            Some(i) => {
                unmatched.remove(i);
            }
            None => missing.push(exp.clone()),
        }
    }
    let rendered = render::render(
        &diagnostics,
        &sources,
        Format::Human,
        &RenderOptions { color: false },
    );
    if !missing.is_empty() || !unmatched.is_empty() {
        let mut report = String::new();
        for m in &missing {
            report += &format!(
                "  missing:    {}:{}: {}[{}]: {}\n",
                m.file, m.line, m.severity, m.code, m.text
            );
        }
        for u in &unmatched {
            report += &format!(
                "  unexpected: {}:{}: {}[{}]: {}\n",
                u.file, u.line, u.severity, u.code, u.text
            );
        }
        panic!("diagnostics differ from the annotations:\n{report}\nrendered:\n{rendered}");
    }
    let mut snapshot = String::new();
    for (_, file) in sources.iter() {
        snapshot += &format!("----- {} -----\n{}", file.path, file.text);
        if !file.text.ends_with('\n') {
            snapshot.push('\n');
        }
    }
    snapshot += "----- diagnostics -----\n";
    snapshot += &rendered;
    snapshot
}

fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo_root().join("tests/check/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings
}

/// Snapshot name for a case: its path under `tests/check`, with `/` as `__`.
fn snapshot_name(relative: &Path) -> String {
    relative.display().to_string().replace(['/', '\\'], "__")
}

/// Runs each case, collecting failures so one run reports all of them.
fn run_all(cases: Vec<(PathBuf, Vec<PathBuf>)>) {
    let mut failures = Vec::new();
    for (relative, files) in cases {
        let result = std::panic::catch_unwind(|| {
            let snapshot = run_case(&files);
            snapshot_settings()
                .bind(|| insta::assert_snapshot!(snapshot_name(&relative), snapshot));
        });
        if result.is_err() {
            failures.push(relative.display().to_string());
        }
    }
    assert!(failures.is_empty(), "failing cases: {failures:#?}");
}

#[test]
fn annotated_files() {
    let dir = repo_root().join("tests/check");
    let cases = files_with_extensions(&dir, &["wf", "dot"])
        .into_iter()
        .map(|path| (path.strip_prefix(&dir).unwrap().to_path_buf(), path))
        .filter(|(relative, _)| !relative.starts_with("projects"))
        .map(|(relative, path)| (relative, vec![path]))
        .collect::<Vec<_>>();
    assert!(
        cases.len() >= 60,
        "expected at least 60 test files, found {}",
        cases.len()
    );
    run_all(cases);
}

#[test]
fn annotated_projects() {
    let base = repo_root().join("tests/check");
    let Ok(entries) = std::fs::read_dir(base.join("projects")) else {
        return;
    };
    let mut projects: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    let cases = projects
        .into_iter()
        .map(|project| {
            let files = files_with_extensions(&project, &["wf", "dot"]);
            (project.strip_prefix(&base).unwrap().to_path_buf(), files)
        })
        .collect();
    run_all(cases);
}

#[test]
fn annotation_parsing() {
    let text = "a -> b // error[WF0201]: cycle\n// warning[WF0205]\nc\n";
    let exps = expectations("x.wf", text);
    assert_eq!(exps.len(), 2);
    assert_eq!(
        (exps[0].line, exps[0].code.as_str(), exps[0].text.as_str()),
        (1, "WF0201", "cycle")
    );
    assert_eq!((exps[1].line, exps[1].severity.as_str()), (3, "warning"));
}

/// The diagnostics of `text` checked alone as the file `name`, and whether
/// `wf-ir`'s compiler accepts its program (what `wfc build` and `wfc run`
/// need).
fn check_and_compile(name: &str, text: &str) -> (Vec<Diagnostic>, Result<(), String>) {
    let mut db = wf_analysis::Database::new("");
    db.set_file(name, name, text);
    let diagnostics = db.diagnostics();
    let compiled = wf_compile::compile_with(&db.program(), &db.sources())
        .map(drop)
        .map_err(|e| e.to_string());
    (diagnostics, compiled)
}

/// One sample per compile-blocking code, each an instance the compiler
/// refuses (see `wf_analysis::suppress::COMPILE_BLOCKING`).
const COMPILE_BLOCKING_SAMPLES: &[(&str, &str)] = &[
    (
        "WF0101",
        "workflow A { start -> done }\nworkflow A { start -> done }\n",
    ),
    (
        "WF0103",
        "workflow A {\n  entry = nowhere\n  start -> done\n}\n",
    ),
    (
        "WF0104",
        "workflow A {\n  call c = Nowhere\n  start -> c -> done\n}\n",
    ),
    (
        "WF0201",
        "workflow A {\n  start -> a -> b -> a\n  b -> done\n}\n",
    ),
    ("WF0202", "workflow A {\n}\n"),
    ("WF0203", "workflow A {\n  a -> done\n  b -> done\n}\n"),
    (
        "WF0307",
        "workflow A {\n  needs x: widget\n  start -> done\n}\n",
    ),
    (
        "WF0401",
        "workflow A {\n  needs t: string, p: string\n  branch d\n  start -> d\n  d -> done when t matches p\n  d -> done\n}\n",
    ),
    (
        "WF0501",
        "workflow A {\n  start -> done { weight = \"2\" }\n}\n",
    ),
    (
        "WF0502",
        "workflow A {\n  wall_clock = \"1h30m\"\n  start -> done\n}\n",
    ),
    (
        "WF0503",
        "workflow A {\n  max_steps = 0\n  start -> done\n}\n",
    ),
    (
        "WF0504",
        "workflow A {\n  tool c { command = \"c\"  retries = 3  backoff = \"exponential\" }\n  start -> c -> done\n}\n",
    ),
    (
        "WF0505",
        "workflow A {\n  retry_target = nowhere\n  start -> done\n}\n",
    ),
];

/// Every compile-blocking code: its sample is refused by the compiler, and
/// a `// wfc: allow(…)` naming it neither silences it (so `wfc check`
/// fails as `wfc build` does) nor goes unremarked (WF0010 on the comment).
/// Iterates the set, so a code added to it needs a sample here.
#[test]
fn compile_blocking_errors_are_refused_by_the_compiler_and_cannot_be_suppressed() {
    for code in wf_analysis::suppress::COMPILE_BLOCKING {
        let Some((_, sample)) = COMPILE_BLOCKING_SAMPLES
            .iter()
            .find(|(c, _)| *c == code.code)
        else {
            panic!("{} has no sample the compiler refuses", code.code);
        };
        let (diagnostics, compiled) = check_and_compile("t.wf", sample);
        assert!(
            diagnostics.iter().any(|d| d.code.code == code.code),
            "the sample of {} does not report it: {diagnostics:?}",
            code.code
        );
        assert!(compiled.is_err(), "the sample of {} compiles", code.code);
        // Suppressed before every workflow and on every line.
        let suppressed = sample
            .replace(
                "workflow ",
                &format!("// wfc: allow({})\nworkflow ", code.name),
            )
            .replace('\n', &format!(" // wfc: allow({})\n", code.code));
        let (diagnostics, _) = check_and_compile("t.wf", &suppressed);
        assert!(
            diagnostics
                .iter()
                .any(|d| d.code.code == code.code && d.severity == wf_diagnostics::Severity::Error),
            "{} was suppressed: {diagnostics:?}",
            code.code
        );
        assert!(
            diagnostics
                .iter()
                .any(|d| d.code.code == "WF0010" && d.message.contains("cannot be suppressed")),
            "no WF0010 for allow({})",
            code.code
        );
    }
}

/// What `wfc check` passes, `wfc build` compiles: every annotated test file
/// without errors compiles.
#[test]
fn files_without_errors_compile() {
    let dir = repo_root().join("tests/check");
    let mut checked = 0;
    for path in files_with_extensions(&dir, &["wf", "dot"]) {
        if path.strip_prefix(&dir).unwrap().starts_with("projects") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let name = format!("t.{}", path.extension().unwrap().to_string_lossy());
        let (diagnostics, compiled) = check_and_compile(&name, &text);
        if diagnostics
            .iter()
            .any(|d| d.severity == wf_diagnostics::Severity::Error)
        {
            continue;
        }
        checked += 1;
        assert!(compiled.is_ok(), "{}: {compiled:?}", path.display());
    }
    assert!(checked >= 60, "only {checked} files without errors");
}
