//! `wfc check` over the whole shared Attractor corpus, as a user runs it:
//! one process, every check. No file may crash or hang the checker, every
//! error carries a location, and the first error of each file with errors is
//! snapshotted, so any change in what `wfc` says of real pipelines shows up
//! in review.
//!
//! The corpus is read where it is (`../shared/corpus/attractor`, or
//! `$WFC_CORPUS/attractor`), never copied. Without it the test says it was
//! skipped, unless `WFC_REQUIRE_CORPUS` is set (`.ci/run` sets it).

use crate::common;

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far above the ~40 ms a release build needs; a hang is a failure, not a
/// wait.
const TIMEOUT: Duration = Duration::from_secs(120);

#[test]
fn every_corpus_pipeline_checks_or_gets_located_errors() {
    let Some(dir) = common::shared_corpus("attractor") else {
        return;
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_wfc"))
        .args(["check", "--format", "concise"])
        .arg(&dir)
        // A directory walk skips `.gv` (Graphviz's own extension, mostly
        // diagrams); named files are checked whatever their extension.
        .args(pipelines(&dir, "gv"))
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("wfc starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).unwrap();
        out
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            child.kill().ok();
            panic!("`wfc check` on the corpus ran longer than {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = reader.join().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(
        status.code(),
        Some(1),
        "the corpus has files with errors, so `wfc check` exits 1\nstderr:\n{stderr}"
    );

    let prefix = format!("{}/", dir.display());
    let mut first_error: BTreeMap<String, String> = BTreeMap::new();
    let mut files_with_findings = BTreeMap::<String, usize>::new();
    for line in stdout.lines() {
        let rest = line
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("a finding outside the corpus or without a path: {line}"));
        // `path:line:col: severity[CODE] message`
        let mut parts = rest.splitn(4, ':');
        let (path, line_no, col, message) = (
            parts.next().unwrap(),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or("").trim_start(),
        );
        assert!(
            line_no.parse::<u32>().is_ok_and(|n| n > 0) && col.parse::<u32>().is_ok_and(|n| n > 0),
            "a finding without a location: {line}"
        );
        *files_with_findings.entry(path.to_string()).or_default() += 1;
        if message.starts_with("error[") {
            first_error
                .entry(path.to_string())
                .or_insert_with(|| format!("{path}:{line_no}:{col}: {message}"));
        }
    }
    let files = ["dot", "fabro", "gv"]
        .iter()
        .map(|ext| pipelines(&dir, ext).len())
        .sum::<usize>();
    assert!(
        files >= 276,
        "expected the 276 corpus pipelines, found {files}"
    );
    let mut summary = format!(
        "pipelines: {files}\nwith findings: {}\nwith errors: {}\n\nfirst error of each file with errors:\n",
        files_with_findings.len(),
        first_error.len()
    );
    for line in first_error.values() {
        summary.push_str(line);
        summary.push('\n');
    }
    insta::assert_snapshot!("attractor_corpus_first_errors", summary);
}

/// The files below `dir` with extension `ext`, sorted.
fn pipelines(dir: &std::path::Path, ext: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(pipelines(&path, ext));
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
    out.sort();
    out
}
