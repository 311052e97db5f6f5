//! The shared Attractor corpus (`../shared/corpus/attractor/`, read in
//! place; skipped with a message when missing) through `wfc build` and a
//! simulated `wfc run --agent auto`: no crash, no hang, the counts of
//! completed, failed and refused runs in a reviewed snapshot, and every
//! failure one of the pipeline's own (issue 17 item 7).

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::repo_root;
use insta_cmd::get_cargo_bin;
use serde_json::Value;

fn wfc(args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(repo_root())
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0");
    cmd
}

/// What one simulated run of a corpus pipeline came to, for the summary.
fn classify(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => "completed".into(),
        Some(1) => {
            let reason = serde_json::from_slice::<Value>(&out.stdout)
                .ok()
                .and_then(|s| s["reason"].as_str().map(str::to_string))
                .unwrap_or_default();
            let bucket = if let Some(i) = reason.find("runs the `") {
                let rest = &reason[i + 10..];
                format!(
                    "handler `{}` not implemented yet",
                    &rest[..rest.find('`').unwrap_or(0)]
                )
            } else if let Some(i) = reason.find("has the handler type `") {
                let rest = &reason[i + 22..];
                format!(
                    "unknown handler type `{}`",
                    &rest[..rest.find('`').unwrap_or(0)]
                )
            } else if let Some(why) = dry_run_stop(&reason) {
                format!("dry run stopped: {why}")
            } else if reason.contains("No outgoing edges for human gate") {
                "a human gate with no choices (WF0208)".into()
            } else if reason.contains("has no `stack.child_dotfile`") {
                "a manager with no child pipeline (WF0861)".into()
            } else if reason.contains("--allow-tools") {
                "tool node without --allow-tools".into()
            } else if reason.contains("(max_visits)") {
                "loop bounded by max_visits".into()
            } else if reason.contains("(max_steps)") {
                "max_steps reached".into()
            } else if reason.contains("no valid edge leaves") {
                "no valid edge for the outcome".into()
            } else if reason.contains("goal gate") {
                "goal gate unsatisfied, no retry target".into()
            } else if reason.contains("no child-pipeline loader") {
                "stack.manager_loop: no child-pipeline loader".into()
            } else {
                let short = reason
                    .split("; no edge condition")
                    .next()
                    .unwrap_or_default();
                format!("other: {short}")
            };
            format!("failed: {bucket}")
        }
        Some(2)
            if stderr.contains("fix it and run again")
                || stderr.contains("fix them and run again") =>
        {
            "refused: check errors".into()
        }
        Some(2) => format!("refused: {}", stderr.lines().last().unwrap_or_default()),
        Some(3) => "suspended".into(),
        other => panic!("wfc ended with {other:?} (a crash?): {stderr}"),
    }
}

/// The kind of reason a dry run gave for stopping at a loop it cannot
/// leave (`wf_vm::attractor::explore`), by its first way out.
fn dry_run_stop(reason: &str) -> Option<&'static str> {
    let (_, why) = reason.split_once("dry run: no exit can be reached")?;
    let first = why.split("; ").next().unwrap_or(why);
    Some(if first.contains("an outcome no handler returns") {
        "a loop's way out needs an outcome no handler returns"
    } else if first.contains("which never holds when edges are chosen") {
        "a loop's way out needs `outcome=retry`, which never holds when edges are chosen"
    } else if first.contains("a key the engine writes") {
        "a loop's way out needs a key the engine writes"
    } else if first.contains("no edge leads out of it") {
        "a loop no edge leads out of"
    } else {
        "a loop's way out needs a condition the dry run does not meet"
    })
}

/// The failures that are the pipeline's own: what it says cannot happen
/// in any run of this engine, whatever the stages report. Each is named
/// in the run's reason and reported by `wfc check`, where a check can see
/// it.
const OWN: &[&str] = &[
    "failed: dry run stopped: a loop's way out needs an outcome no handler returns",
    "failed: dry run stopped: a loop's way out needs `outcome=retry`, which never holds when edges are chosen",
    "failed: dry run stopped: a loop's way out needs a key the engine writes",
    "failed: dry run stopped: a loop no edge leads out of",
    "failed: a human gate with no choices (WF0208)",
    "failed: a manager with no child pipeline (WF0861)",
];

/// Runs `cmd`, failing the test when it takes over `limit` (a hang). The
/// output goes through files, so a chatty child never blocks on a full
/// pipe.
fn output_within(mut cmd: Command, limit: std::time::Duration, what: &str) -> Output {
    use std::process::Stdio;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wfc-run-dot-corpus");
    std::fs::create_dir_all(&dir).unwrap();
    let (out_path, err_path) = (dir.join("child.stdout"), dir.join("child.stderr"));
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} did not finish within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    Output {
        status,
        stdout: std::fs::read(&out_path).unwrap(),
        stderr: std::fs::read(&err_path).unwrap(),
    }
}

/// Every pipeline of the shared Attractor corpus (read in place) through
/// `wfc build` and a simulated `wfc run --agent auto`: no crash, no hang;
/// the counts of completed, failed and refused runs, by reason, are a
/// reviewed snapshot (docs/attractor.md, "Running pipelines").
#[test]
fn corpus_pipelines_build_and_run_in_simulation() {
    let Some(corpus) = common::shared_corpus("attractor") else {
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![corpus.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e == "dot" || e == "fabro" || e == "gv")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wfc-run-dot-corpus");
    std::fs::create_dir_all(&out_dir).unwrap();
    let ir = out_dir.join("out.ir.json");
    let mut builds = std::collections::BTreeMap::<&str, usize>::new();
    let mut runs = std::collections::BTreeMap::<String, usize>::new();
    let limit = std::time::Duration::from_secs(60);
    for file in &files {
        let f = file.to_str().unwrap();
        let built = output_within(
            wfc(&[
                "build",
                f,
                "-o",
                ir.to_str().unwrap(),
                "--format",
                "concise",
            ]),
            limit,
            &format!("wfc build {f}"),
        );
        let b = match built.status.code() {
            Some(0) => "built",
            Some(1) => "refused (check errors)",
            Some(2) => "trouble",
            other => panic!("wfc build {f} ended with {other:?}"),
        };
        *builds.entry(b).or_default() += 1;
        let ran = output_within(
            wfc(&[
                "run",
                f,
                "--agent",
                "auto",
                "--format",
                "json",
                "--progress",
                "never",
            ]),
            limit,
            &format!("wfc run {f}"),
        );
        *runs.entry(classify(&ran)).or_default() += 1;
    }
    let mut report = format!("{} pipelines\n\nwfc build:\n", files.len());
    for (k, n) in &builds {
        report.push_str(&format!("  {n:>4}  {k}\n"));
    }
    report.push_str("\nwfc run --agent auto:\n");
    for (k, n) in &runs {
        report.push_str(&format!("  {n:>4}  {k}\n"));
    }
    // Paths in reasons depend on where the corpus is.
    let report = report.replace(corpus.to_str().unwrap(), "[CORPUS]");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo_root().join("tests/run/dot/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("corpus_runs", report));
    // Issue 17 item 7: every pipeline that checks without errors (warnings
    // do not refuse a run) completes in simulation or fails for a reason
    // of its own.
    let ours: Vec<_> = runs
        .iter()
        .filter(|(k, _)| k.starts_with("failed") && !OWN.contains(&k.as_str()))
        .collect();
    assert!(
        ours.is_empty(),
        "failures that are not the pipeline's own: {ours:?}"
    );
    assert!(!runs.keys().any(|k| k == "suspended"), "{runs:?}");
}
