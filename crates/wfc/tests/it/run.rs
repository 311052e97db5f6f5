//! `wfc run` CLI tests: snapshots of runs (arguments, exit status, stdout,
//! stderr) on `examples/` and the fixtures in `tests/run/`, suspension and
//! `--resume` in a separate process, `--events`, tools, the `exec:` agent,
//! and round trips through `wfc build`. Snapshots live in
//! `tests/run/snapshots/`; times and scratch paths are filtered out.

use crate::common;

use common::repo_root;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};
use serde_json::Value;

/// `wfc` run from the repository root with a clean environment.
fn wfc(args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(repo_root())
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0");
    cmd
}

macro_rules! run_snapshot {
    ($name:literal, $cmd:expr) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(repo_root().join("tests/run/snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.add_filter(r"\d+ms\)", "[TIME])");
        settings.add_filter(r#""elapsed_ms": \d+"#, r#""elapsed_ms": "[TIME]""#);
        settings.add_filter(r"/\S*/wfc-run-tests/", "[SCRATCH]/");
        common::redact_stamps(&mut settings);
        settings.bind(|| assert_cmd_snapshot!($name, $cmd));
    }};
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("wfc-run-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    dir
}

fn run_json(args: &[&str]) -> (Output, Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = wfc(&all).output().unwrap();
    let json = common::summary(&out);
    (out, json)
}

/// `wfc RUN… --events FILE --format json` with FILE `name` in `dir`: the
/// exit code, the summary without its timings, and the events written.
fn run_untimed(dir: &Path, run: &[&str], name: &str) -> (Option<i32>, Value, String) {
    let path = dir.join(name);
    let with = [run, &["--events", path.to_str().unwrap()][..]].concat();
    let (out, mut summary) = run_json(&with);
    summary.as_object_mut().unwrap().remove("elapsed_ms");
    for failure in summary["failures"].as_array_mut().unwrap() {
        failure.as_object_mut().unwrap().remove("time_ms");
    }
    (
        out.status.code(),
        summary,
        common::unstamped(&std::fs::read_to_string(path).unwrap()),
    )
}

#[test]
fn hello_completes_with_auto() {
    run_snapshot!(
        "hello_auto",
        wfc(&["run", "examples/hello.wf", "--agent", "auto"])
    );
}

#[test]
fn chain_with_inputs_and_progress() {
    run_snapshot!(
        "chain_progress",
        wfc(&[
            "run",
            "tests/run/chain.wf",
            "--agent",
            "auto",
            "--set",
            "name=Ada",
            "--progress",
            "always"
        ])
    );
}

#[test]
fn json_summary() {
    run_snapshot!(
        "chain_json",
        wfc(&[
            "run",
            "tests/run/chain.wf",
            "--agent",
            "auto",
            "--set",
            "name=\"Ada\"",
            "--set",
            "extra=[1,2]",
            "--format",
            "json"
        ])
    );
}

#[test]
fn every_example_runs_with_auto() {
    for file in common::wf_files(&repo_root().join("examples")) {
        let rel = file.strip_prefix(repo_root()).unwrap().to_str().unwrap();
        if rel.contains("/lib/") {
            continue;
        }
        let out = wfc(&["run", rel, "--agent", "auto", "--max-steps", "1000"])
            .output()
            .unwrap();
        // Auto's placeholders may leave a guard unmatched (failed, 1), but
        // the run must start and end with a report, never exit 2.
        let code = out.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{rel}: exit {code:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // A failed run's summary is on standard error.
        let summary = if code == Some(1) {
            &out.stderr
        } else {
            &out.stdout
        };
        assert!(!summary.is_empty(), "{rel}: no summary");
    }
}

#[test]
fn events_to_stdout() {
    run_snapshot!(
        "chain_events",
        wfc(&[
            "run",
            "tests/run/chain.wf",
            "--agent",
            "auto",
            "--set",
            "name=Ada",
            "--events",
            "-"
        ])
    );
}

#[test]
fn a_failing_node_fails_the_run() {
    run_snapshot!(
        "approve_fail",
        wfc(&[
            "run",
            "tests/run/approve.wf",
            "--agent",
            "script:tests/run/fail.json"
        ])
    );
}

#[test]
fn check_errors_refuse_the_run() {
    run_snapshot!("broken_refused", wfc(&["run", "tests/run/broken.wf"]));
}

#[test]
fn usage_errors() {
    run_snapshot!(
        "unknown_agent",
        wfc(&["run", "examples/hello.wf", "--agent", "gpt"])
    );
    run_snapshot!(
        "unknown_workflow",
        wfc(&["run", "examples/hello.wf", "--workflow", "Nope"])
    );
    run_snapshot!(
        "resume_missing",
        wfc(&["run", "--resume", "tests/run/no-such-run"])
    );
    run_snapshot!("bad_set", wfc(&["run", "examples/hello.wf", "--set", "x"]));
}

/// `--set` values must have the type the root workflow `needs`.
#[test]
fn set_values_are_checked_against_needs_types() {
    run_snapshot!(
        "set_wrong_type",
        wfc(&[
            "run",
            "tests/run/typed_needs.wf",
            "--set",
            "flags=[]",
            "--set",
            "count=abc"
        ])
    );
    run_snapshot!(
        "set_wrong_type_list",
        wfc(&[
            "run",
            "tests/run/typed_needs.wf",
            "--set",
            "count=3",
            "--set",
            "flags=1.5"
        ])
    );
    let (out, summary) = run_json(&[
        "run",
        "tests/run/typed_needs.wf",
        "--agent",
        "auto",
        "--set",
        "count=3",
        "--set",
        "flags=[\"a\"]",
    ]);
    assert_eq!(out.status.code(), Some(0), "{summary}");
    assert_eq!(summary["blackboard"]["count"], 3, "{summary}");
}

#[test]
fn suspension_without_run_dir_says_it_cannot_resume() {
    run_snapshot!(
        "approve_suspend_no_dir",
        wfc(&[
            "run",
            "tests/run/approve.wf",
            "--agent",
            "script:tests/run/suspend.json"
        ])
    );
}

#[test]
fn console_at_end_of_input_suspends() {
    let mut cmd = wfc(&["run", "tests/run/approve.wf", "--agent", "console"]);
    cmd.stdin(std::process::Stdio::null());
    run_snapshot!("approve_console_eof", cmd);
}

#[test]
fn console_answers_from_stdin() {
    let out = wfc(&[
        "run",
        "tests/run/approve.wf",
        "--agent",
        "console",
        "--format",
        "json",
    ])
    .stdin(std::process::Stdio::piped())
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .and_then(|mut child| {
        use std::io::Write;
        // plan: success, plan = "p"; review: R (reject). `start` and the
        // exit `rejected` are routing nodes: nothing is asked there.
        child.stdin.take().unwrap().write_all(b"1\np\nR\n")?;
        child.wait_with_output()
    })
    .unwrap();
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["status"], "completed", "{summary}");
    assert_eq!(summary["blackboard"], serde_json::json!({"plan": "p"}));
    let shown = String::from_utf8_lossy(&out.stderr);
    assert!(shown.contains("  2. [R] Reject  -> rejected"), "{shown}");
}

/// Suspend, then resume in a separate process: the same final state as a
/// run that never stopped.
#[test]
fn suspend_and_resume_reach_the_uninterrupted_state() {
    let dir = scratch("suspend-resume");
    let d = dir.to_str().unwrap();
    run_snapshot!(
        "approve_suspend",
        wfc(&[
            "run",
            "tests/run/approve.wf",
            "--agent",
            "script:tests/run/suspend.json",
            "--run-dir",
            d
        ])
    );
    let (resumed_out, resumed) = run_json(&[
        "run",
        "--resume",
        d,
        "--agent",
        "script:tests/run/approve.json",
    ]);
    assert_eq!(resumed_out.status.code(), Some(0));
    let (_, straight) = run_json(&[
        "run",
        "tests/run/approve.wf",
        "--agent",
        "script:tests/run/approve.json",
    ]);
    assert_eq!(resumed["status"], "completed");
    assert_eq!(resumed["blackboard"], straight["blackboard"]);
    // The log holds each step once, in order.
    let log = std::fs::read_to_string(dir.join("log.jsonl")).unwrap();
    let steps: Vec<u64> = log
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["step"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(steps, (0..steps.len() as u64).collect::<Vec<_>>());
    // Resuming a finished run changes nothing.
    let (again_out, again) = run_json(&["run", "--resume", d]);
    assert_eq!(again_out.status.code(), Some(0));
    assert_eq!(again["blackboard"], straight["blackboard"]);
    assert_eq!(again["steps"], resumed["steps"]);
}

#[test]
fn a_run_dir_is_not_reused() {
    let dir = scratch("reuse");
    let d = dir.to_str().unwrap();
    let args = ["run", "examples/hello.wf", "--run-dir", d];
    assert_eq!(wfc(&args).output().unwrap().status.code(), Some(0));
    run_snapshot!("run_dir_reused", wfc(&args));
}

#[test]
fn tools_run_only_when_allowed() {
    run_snapshot!(
        "tools_allowed",
        wfc(&["run", "tests/run/tools.wf", "--allow-tools"])
    );
    run_snapshot!(
        "tools_refused",
        wfc(&["run", "tests/run/tools.wf", "--tools", "refuse"])
    );
}

/// `${key}` in a tool command reaches it as a variable (a value with
/// quotes and a dollar reaches the command intact); `\$NAME` reaches the
/// shell as a literal `$NAME`; a key with no value fails the node.
#[test]
fn tool_commands_interpolate_keys() {
    let value = "it's \"a\" $x";
    let set = format!("env={value}");
    let mut cmd = wfc(&[
        "run",
        "tests/run/interpolate.wf",
        "--allow-tools",
        "--set",
        &set,
        "--format",
        "json",
    ]);
    cmd.env("WFC_TEST_HOME", "/home/test");
    let out = cmd.output().unwrap();
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    assert_eq!(out.status.code(), Some(0), "{summary}");
    assert_eq!(
        summary["blackboard"]["show.stdout"],
        format!("{value}|{value}.|/home/test"),
        "{summary}"
    );

    let (out, summary) = run_json(&[
        "run",
        "tests/run/interpolate.wf",
        "--workflow",
        "Missing",
        "--allow-tools",
    ]);
    assert_eq!(out.status.code(), Some(1), "{summary}");
    let reason = summary["failures"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("interpolates `nowhere`, which has no value in scope"),
        "{summary}"
    );
}

/// The three constructs of issue 14 that ran a `--set` value as shell code
/// (a here-document body, an apostrophe in a comment, quotes nested in
/// `"$(…)"`): the value now arrives verbatim and nothing else runs.
#[test]
fn tool_command_values_never_run_as_shell_code() {
    let file = repo_root().join("tests/run/injection.wf");
    // Each value is one the old quoting let run `touch PWNED` in that context.
    let value = "x;touch PWNED;$(touch PWNED)`touch PWNED` #'\"";
    for (workflow, value, printed) in [
        ("HereDoc", value, format!("{value}\n")),
        ("Comment", value, value.to_string()),
        ("Nested", "x;touch PWNED;y", "x;touch PWNED;y".to_string()),
    ] {
        let dir = scratch(&format!("injection-{workflow}"));
        std::fs::create_dir_all(&dir).unwrap();
        let set = format!("v={value}");
        let out = wfc(&[
            "run",
            file.to_str().unwrap(),
            "--workflow",
            workflow,
            "--allow-tools",
            "--set",
            &set,
            "--format",
            "json",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("{workflow}: {e}: {}", String::from_utf8_lossy(&out.stderr));
        });
        let made: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert!(made.is_empty(), "{workflow} ran the value: {made:?}");
        assert_eq!(out.status.code(), Some(0), "{workflow}: {summary}");
        assert_eq!(summary["blackboard"]["show.stdout"], printed, "{summary}");
    }
}

/// Interpolations where no reference to a value can be written are check
/// errors, each with its code, and `wfc run` refuses the file.
#[test]
fn tool_command_interpolations_in_unusable_contexts_are_refused() {
    run_snapshot!(
        "injection_refused_check",
        wfc(&["check", "tests/run/injection_refused.wf"])
    );
    let out = wfc(&[
        "run",
        "tests/run/injection_refused.wf",
        "--allow-tools",
        "--set",
        "v=1",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[WF0511]"), "{stderr}");
}

/// The root workflow's `needs` must be given; a string need keeps the text.
#[test]
fn needs_are_checked_and_string_needs_keep_their_text() {
    let (out, summary) = run_json(&["run", "examples/deploy_runbook.wf", "--agent", "auto"]);
    assert_eq!(out.status.code(), Some(1), "{summary}");
    assert!(
        summary["reason"]
            .as_str()
            .unwrap()
            .contains("needs `service`, `version`, `env`, which the run was not given"),
        "{summary}"
    );

    let (_, summary) = run_json(&["run", "tests/run/interpolate.wf", "--set", "env=1.2"]);
    assert_eq!(summary["blackboard"]["env"], "1.2", "{summary}");
}

#[test]
fn the_python_example_agent_drives_a_run() {
    if !Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: python3 is not available");
        return;
    }
    run_snapshot!(
        "chain_exec_python",
        wfc(&[
            "run",
            "tests/run/chain.wf",
            "--set",
            "name=Ada",
            "--agent",
            "exec:python3 examples/agents/echo_agent.py"
        ])
    );
}

#[test]
fn a_silent_exec_agent_fails_the_run_after_its_timeout() {
    let started = std::time::Instant::now();
    run_snapshot!(
        "exec_silent",
        wfc(&[
            "run",
            "tests/run/chain.wf",
            "--set",
            "name=Ada",
            "--agent",
            "exec:sleep 30",
            "--agent-timeout",
            "300ms"
        ])
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

/// `.wf` → run equals `.wf` → `wfc build` → IR → run.
#[test]
fn runs_from_ir_equal_runs_from_source() {
    let dir = scratch("round-trip");
    std::fs::create_dir_all(&dir).unwrap();
    let cases: &[(&str, &[&str])] = &[
        ("examples/hello.wf", &["--agent", "auto"]),
        (
            "examples/release.wf",
            &["--agent", "auto", "--workflow", "Release"],
        ),
        (
            "tests/run/chain.wf",
            &["--agent", "auto", "--set", "name=Ada"],
        ),
        (
            "tests/run/approve.wf",
            &["--agent", "script:tests/run/approve.json"],
        ),
    ];
    for (i, (file, args)) in cases.iter().enumerate() {
        let ir = dir.join(format!("{i}.json"));
        let build = wfc(&["build", file, "-o", ir.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            build.status.success(),
            "wfc build {file}: {}",
            String::from_utf8_lossy(&build.stderr)
        );
        let from_source = [&["run", *file][..], args].concat();
        let from_ir = [&["run", ir.to_str().unwrap()][..], args].concat();
        let events = |run: &[&str], name: &str| run_untimed(&dir, run, name);
        let a = events(&from_source, &format!("{i}-source.jsonl"));
        let b = events(&from_ir, &format!("{i}-ir.jsonl"));
        assert_eq!(a, b, "{file}");
    }
}

/// `.wf` → `wfc build --emit reflex` → Reflex JSON: `wfc check` is clean
/// and `wfc run` gives the same summary and events as running the `.wf`.
/// The cases use guards Reflex expresses (or none) and agents that do not
/// depend on declared write types, which Reflex JSON has no place for (so
/// `auto` writes `null` placeholders there).
#[test]
fn runs_from_reflex_json_equal_runs_from_source() {
    let dir = scratch("reflex-round-trip");
    std::fs::create_dir_all(&dir).unwrap();
    let cases: &[(&str, &str, &[&str])] = &[
        ("examples/hello.wf", "Hello", &["--agent", "auto"]),
        (
            "tests/run/routes.wf",
            "Routes",
            &["--agent", "auto", "--set", "mode=slow"],
        ),
    ];
    for (i, (file, workflow, args)) in cases.iter().enumerate() {
        let out_dir = dir.join(format!("{i}"));
        let build = wfc(&[
            "build",
            file,
            "--emit",
            "reflex",
            "-o",
            out_dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
        assert!(
            build.status.success(),
            "wfc build --emit reflex {file}: {}",
            String::from_utf8_lossy(&build.stderr)
        );
        let json = out_dir.join(format!("{workflow}.json"));
        let json = json.to_str().unwrap();
        let check = wfc(&["check", json]).output().unwrap();
        assert!(
            check.status.success(),
            "wfc check {json}: {}{}",
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&check.stderr)
        );
        let events = |run: &[&str], name: &str| run_untimed(&dir, run, name);
        let a = events(
            &[&["run", *file][..], args].concat(),
            &format!("{i}-source.jsonl"),
        );
        let b = events(
            &[&["run", json][..], args].concat(),
            &format!("{i}-reflex.jsonl"),
        );
        assert_eq!(a, b, "{file}");
    }
}

#[test]
fn help_documents_exit_codes() {
    let out = wfc(&["run", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "0  the run completed",
        "1  the run failed",
        "3  the run suspended",
    ] {
        assert!(help.contains(needle), "{help}");
    }
}

/// The Reflex fixtures of the shared corpus run to completion with the
/// default `rules` agent, read where they are (skipped when absent).
#[test]
fn reflex_corpus_runs_with_rules() {
    let Some(corpus) = common::shared_corpus("reflex") else {
        return;
    };
    for name in [
        "greeting.json",
        "define-part-object.json",
        "define-physical-object.json",
    ] {
        let path = corpus.join(name);
        let (out, summary) = run_json(&["run", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{name}: {summary}");
        assert_eq!(summary["status"], "completed", "{name}");
    }
}

/// Ctrl-C (SIGINT) on `wfc run` ends a running tool too, though the tool
/// runs in a process group of its own.
#[cfg(unix)]
#[test]
fn an_interrupted_run_leaves_no_tool_behind() {
    let dir = scratch("sigint");
    std::fs::create_dir_all(&dir).unwrap();
    let pidfile = dir.join("pid");
    let mut child = wfc(&["run", "tests/run/slow_tool.wf", "--allow-tools"])
        .env("PIDFILE", &pidfile)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let pid = loop {
        let written = std::fs::read_to_string(&pidfile).ok();
        if let Some(text) = written.filter(|t| t.ends_with('\n')) {
            break text.trim().to_string();
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "the tool never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let tool = common::process::Tool::of(&pid);
    assert!(tool.runs(), "the tool (pid {pid}) runs");
    let wfc_pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &wfc_pid])
            .status()
            .unwrap()
            .success()
    );
    let status = child.wait().unwrap();
    assert!(!status.success());
    // The sleeping tool was killed with wfc. Killed, it is a zombie until
    // whoever inherits it (wfc is gone) reaps it, which may take seconds
    // under load: dead all the same. The deadline only bounds the wait
    // for the kill to land, well within the tool's 30 s of sleep.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while tool.runs() {
        assert!(
            std::time::Instant::now() < deadline,
            "the tool (pid {pid}) outlived the interrupted run"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Writes, in `dir`, a `.wf` workflow whose human gate leads to a tool
/// that touches `marker`, and a script that suspends at the gate; returns
/// their paths (the resume-trust tests start there).
fn gate_with_a_tool(dir: &Path, marker: &Path) -> (PathBuf, PathBuf) {
    let workflow = dir.join("gate.wf");
    std::fs::write(
        &workflow,
        format!(
            "workflow Gate {{\n  human review \"Go?\"\n  tool mark {{ command = \"touch {}\" }}\n  exit done\n  start -> review\n  review -> mark \"[G] Go\"\n  mark -> done\n}}\n",
            marker.display()
        ),
    )
    .unwrap();
    let script = dir.join("suspend.json");
    std::fs::write(
        &script,
        r#"{"fallback": "auto", "nodes": {"review": [{"type": "suspend", "reason": "wait"}]}}"#,
    )
    .unwrap();
    (workflow, script)
}

/// Resuming takes the agent and the tool permission from the resuming
/// command line, never from `meta.json` (which a run directory's owner can
/// edit), and says what the run started with when they differ.
#[test]
fn resume_takes_the_agent_and_tools_from_the_command_line() {
    let dir = scratch("resume-trust");
    std::fs::create_dir_all(&dir).unwrap();
    let agent_marker = dir.join("AGENT_RAN");
    let tool_marker = dir.join("TOOL_RAN");
    let (workflow, script) = gate_with_a_tool(&dir, &tool_marker);
    let run = dir.join("run");
    let (w, s, r) = (
        workflow.to_str().unwrap(),
        script.to_str().unwrap(),
        run.to_str().unwrap(),
    );
    let agent = format!("script:{s}");
    let out = wfc(&["run", w, "--agent", &agent, "--run-dir", r])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    // The run directory claims an `exec:` agent and --allow-tools.
    let meta_path = run.join("meta.json");
    let mut meta: Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    meta["agent"] = Value::from(format!("exec:touch {}", agent_marker.display()));
    meta["allow_tools"] = Value::Bool(true);
    std::fs::write(&meta_path, meta.to_string()).unwrap();

    // A workflow the snapshot does not run is refused.
    let saved = std::fs::read_to_string(&meta_path).unwrap();
    let mut other = meta.clone();
    other["workflow"] = Value::from("Other");
    std::fs::write(&meta_path, other.to_string()).unwrap();
    let out = wfc(&["run", "--resume", r, "--agent", "auto"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).ends_with(
            "error: cannot resume: `meta.json` names the workflow `Other`, but the snapshot runs `Gate`\n"
        ),
        "{out:?}"
    );
    std::fs::write(&meta_path, saved).unwrap();

    let out = wfc(&["run", "--resume", r, "--agent", "auto", "--tools", "refuse"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!agent_marker.exists(), "the stored agent ran");
    assert!(!tool_marker.exists(), "a tool ran without --allow-tools");
    assert_eq!(out.status.code(), Some(1), "the tool is refused: {stderr}");
    let started = format!(
        "note: the run started with `--agent exec:touch {}`; it resumes with `--agent auto` (the agent comes from this command line, not from the run directory)\n",
        agent_marker.display()
    );
    assert!(stderr.contains(&started), "{stderr}");
    assert!(
        stderr.contains("note: the run started with `--allow-tools`; its tool nodes are refused now unless you pass `--allow-tools` again\n"),
        "{stderr}"
    );
}

/// An event file that cannot be written (a full disk) fails the run with
/// the file's name, rather than losing events silently.
#[cfg(target_os = "linux")]
#[test]
fn a_full_event_file_fails_the_run() {
    run_snapshot!(
        "events_disk_full",
        wfc(&[
            "run",
            "examples/hello.wf",
            "--agent",
            "auto",
            "--events",
            "/dev/full"
        ])
    );
}

/// The final snapshot failing (here: its temporary file cannot be created,
/// as on a full disk) does not turn a completed run into a failed one: the
/// log holds the end, and `wfc run` warns.
#[test]
fn a_failed_final_snapshot_is_a_warning() {
    let dir = scratch("final-snapshot");
    let d = dir.to_str().unwrap();
    let out = wfc(&[
        "run",
        "tests/run/approve.wf",
        "--agent",
        "script:tests/run/suspend.json",
        "--run-dir",
        d,
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(3));
    std::fs::create_dir(dir.join("snapshot.json.tmp")).unwrap();
    let (out, summary) = run_json(&[
        "run",
        "--resume",
        d,
        "--agent",
        "script:tests/run/approve.json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(summary["status"], "completed");
    assert!(
        stderr.contains("warning: could not write the final snapshot"),
        "{stderr}"
    );
    // The log has the end: resuming again reports the completed run.
    std::fs::remove_dir(dir.join("snapshot.json.tmp")).unwrap();
    let (again, resumed) = run_json(&["run", "--resume", d]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(resumed["blackboard"], summary["blackboard"]);
}

/// Shell for an `exec:` agent: accepts protocol version 2 at the hello.
const HELLO: &str = r#"read -r h; echo '{"type":"hello","version":2}'; "#;

/// Shell setting `$id` to the id of the request in `$line`.
const ID: &str = r#"id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/'); "#;

/// Issue 14.6: an agent that writes one stray line (a second answer, late)
/// fails the run, naming both ids, instead of having every later answer
/// applied one node off.
#[test]
fn a_stray_agent_line_fails_the_run_instead_of_shifting_answers() {
    // `greet`'s write (the first question: `start` is a routing node).
    const GREETING: &str = r#"\"writes\":[{\"key\":\"greeting\",\"value\":\"hi\"}]"#;
    let agent = format!(
        "exec:{HELLO}read -r line; {ID}\
         echo \"{{\\\"id\\\":$id,\\\"type\\\":\\\"advance\\\",\\\"status\\\":\\\"success\\\",{GREETING}}}\"; \
         sleep 0.3; echo \"{{\\\"id\\\":$id,\\\"type\\\":\\\"advance\\\",\\\"status\\\":\\\"success\\\"}}\"; \
         while read -r line; do {ID}echo \"{{\\\"id\\\":$id,\\\"type\\\":\\\"complete\\\"}}\"; done"
    );
    let (out, summary) = run_json(&[
        "run",
        "tests/run/chain.wf",
        "--set",
        "name=Ada",
        "--agent",
        &agent,
    ]);
    assert_eq!(out.status.code(), Some(1), "{summary}");
    let reason = summary["reason"].as_str().unwrap();
    assert!(
        reason.contains("the agent failed at node `count` of workflow `Chain`"),
        "{reason}"
    );
    assert!(
        reason.contains("answered request 2 with the id 1, which is not that request's"),
        "{reason}"
    );
    assert_eq!(summary["at"]["node"], "count", "{summary}");
}

/// The shell agent of `docs/agents.md` speaks the protocol.
#[test]
fn the_documented_shell_agent_works() {
    let doc = std::fs::read_to_string(repo_root().join("docs/agents.md")).unwrap();
    let line = doc
        .lines()
        .find(|l| l.starts_with("wfc run examples/hello.wf --agent 'exec:read -r hello"))
        .expect("the shell agent example");
    let agent = line
        .trim_start_matches("wfc run examples/hello.wf --agent '")
        .trim_end_matches('\'');
    let (out, summary) = run_json(&["run", "examples/hello.wf", "--agent", agent]);
    assert_eq!(out.status.code(), Some(0), "{summary}");
    assert_eq!(summary["at"]["node"], "done", "{summary}");
}

/// Issue 14.11: a `human` node's `default` is taken when its timeout
/// passes (an `exec:` agent that never answers there), and the resumed run
/// replays that choice rather than asking again.
#[test]
fn a_human_default_is_taken_at_the_timeout_and_replayed_on_resume() {
    let dir = scratch("gate-default");
    let d = dir.to_str().unwrap();
    // Answers `plan`, stays silent at `review` (`start` and the exit
    // `rejected` are routing nodes: the agent is not asked there).
    let agent = format!(
        "exec:{HELLO}read -r line; {ID}\
         echo \"{{\\\"id\\\":$id,\\\"type\\\":\\\"advance\\\",\\\"status\\\":\\\"success\\\"}}\"; \
         read -r line; sleep 5"
    );
    let (out, summary) = run_json(&[
        "run",
        "tests/run/gate_default.wf",
        "--agent",
        &agent,
        "--run-dir",
        d,
    ]);
    assert_eq!(out.status.code(), Some(0), "{summary}");
    assert_eq!(summary["at"]["node"], "rejected", "{summary}");
    // `auto` would choose `[A] Approve` if it were asked at `review`.
    let (out, summary) = run_json(&["run", "--resume", d, "--agent", "auto"]);
    assert_eq!(out.status.code(), Some(0), "{summary}");
    assert_eq!(summary["at"]["node"], "rejected", "{summary}");
    // The log records the default taken, as the decision at `review`.
    let log = std::fs::read_to_string(dir.join("log.jsonl")).unwrap();
    assert!(
        log.contains("no answer within 300ms: took the default choice `[R] Reject`"),
        "{log}"
    );
}

/// Issue 14.11: the console agent stops waiting at a `human` node's
/// timeout and takes its default (standard input open and silent).
#[test]
fn the_console_takes_a_human_default_at_the_timeout() {
    use std::process::Stdio;
    let mut child = wfc(&[
        "run",
        "tests/run/gate_default.wf",
        "--agent",
        "console",
        "--format",
        "json",
    ])
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // `start` and `plan` succeed; then nothing more is typed, but input
    // stays open.
    use std::io::Write as _;
    stdin.write_all(b"\n\n").unwrap();
    let started = std::time::Instant::now();
    let waiter = std::thread::spawn(move || child.wait_with_output().unwrap());
    std::thread::sleep(std::time::Duration::from_millis(1500));
    drop(stdin);
    let out = waiter.join().unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("(answer within 300ms; then the default `[R] Reject` is taken)"),
        "{err}"
    );
    assert!(
        err.contains("No answer within 300ms: taking the default `[R] Reject`."),
        "{err}"
    );
    assert_eq!(summary["status"], "completed", "{summary}");
    assert_eq!(summary["at"]["node"], "rejected", "{summary}");
}

/// Issue 14.15: without `--agent`, a `.wf` file runs with `auto` (a dry
/// run, said on stderr) instead of `rules` stopping at the first fork.
#[test]
fn a_wf_file_runs_with_auto_by_default() {
    run_snapshot!(
        "default_agent_wf",
        wfc(&["run", "tests/run/routes.wf", "--set", "mode=fast"])
    );
}

/// Issue 14.15: `rules` at a fork its specs do not route says how to run
/// with another agent.
#[test]
fn rules_at_an_unrouted_fork_says_how_to_choose_another_agent() {
    run_snapshot!(
        "rules_unrouted_fork",
        wfc(&[
            "run",
            "tests/run/fork.wf",
            "--set",
            "mode=fast",
            "--agent",
            "rules"
        ])
    );
}

/// Issue 14.17: `--max-steps 2` reports 2 steps, and the summary says
/// where the run stopped.
#[test]
fn max_steps_reports_the_steps_that_ran() {
    run_snapshot!(
        "max_steps_2",
        wfc(&[
            "run",
            "tests/run/chain.wf",
            "--set",
            "name=Ada",
            "--agent",
            "auto",
            "--max-steps",
            "2"
        ])
    );
    let (_, summary) = run_json(&[
        "run",
        "tests/run/chain.wf",
        "--set",
        "name=Ada",
        "--agent",
        "auto",
        "--max-steps",
        "2",
    ]);
    assert_eq!(summary["steps"], 2, "{summary}");
    // Two steps ran (`start`, `greet`); the third would run `count`.
    assert_eq!(summary["at"]["workflow"], "Chain", "{summary}");
    assert_eq!(summary["at"]["node"], "count", "{summary}");
}

/// Issue 14.17: a failure repeated at each attempt of a tool with a
/// 30-line command is one line of the human summary, cut short.
#[test]
fn a_long_repeated_failure_is_shown_once_and_short() {
    run_snapshot!(
        "long_tool_failure",
        wfc(&[
            "run",
            "tests/run/long_tool.wf",
            "--agent",
            "auto",
            "--tools",
            "refuse"
        ])
    );
}

/// Issue 15.5: every kind of run failure reaches the JSON report (the
/// run's `kind` and `code`, and its failure trace's last entry) and the
/// `engine:error` event, with the documented exit status.
#[test]
fn each_failure_kind_is_in_the_report_and_the_events() {
    let dir = scratch("failure-kinds");
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let fork = file(
        "fork.wf",
        "workflow Fork {\n  start -> review\n  review -> a\n  review -> b\n  a -> done\n  b -> done\n}\n",
    );
    let needs = file(
        "needs.wf",
        "workflow Greet {\n  needs name: string\n  start -> hello -> done\n}\n",
    );
    let gate = file(
        "gate.wf",
        "workflow Gate {\n  needs ok: any\n  start -> check\n  check -> ship when ok\n  check -> hold when !ok\n  ship -> done\n  hold -> done\n}\n",
    );
    let route = file(
        "route.wf",
        "workflow Route {\n  needs env: string\n  start -> pick\n  pick -> a when env == \"a\"\n  pick -> b when env == \"b\"\n  a -> done\n  b -> done\n}\n",
    );
    let timeout = file(
        "timeout.wf",
        "workflow Slow {\n  step think { timeout = 10ms }\n  start -> think -> done\n}\n",
    );
    let mut cases: Vec<(&str, Vec<&str>)> = vec![
        ("limit", vec!["examples/hello.wf", "--max-steps", "1"]),
        ("limit", vec![&timeout, "--step-delay-ms", "50"]),
        ("agent", vec![&fork, "--agent", "rules"]),
        ("tool", vec!["tests/run/tools.wf", "--tools", "refuse"]),
        ("contract", vec![&needs]),
        ("guard", vec![&gate, "--set", "ok=yes"]),
        (
            "node",
            vec![
                "tests/run/approve.wf",
                "--agent",
                "script:tests/run/fail.json",
            ],
        ),
        ("route", vec![&route, "--set", "env=c"]),
        // `program` (WF0910) no longer comes from a `.wf` source that
        // checks clean: `.wf` `parallel` nodes run (run_parallel.rs).
    ];
    if cfg!(target_os = "linux") {
        cases.push(("store", vec!["examples/hello.wf", "--events", "/dev/full"]));
    }
    let codes = [
        ("limit", "WF0901"),
        ("agent", "WF0902"),
        ("tool", "WF0903"),
        ("contract", "WF0904"),
        ("guard", "WF0905"),
        ("store", "WF0906"),
        ("node", "WF0908"),
        ("route", "WF0909"),
        ("program", "WF0910"),
    ];
    for (i, (kind, args)) in cases.into_iter().enumerate() {
        let code = codes.iter().find(|(k, _)| *k == kind).unwrap().1;
        let events = dir.join(format!("events-{i}.jsonl"));
        let events = events.to_str().unwrap();
        let mut all = vec!["run"];
        all.extend(&args);
        if !args.contains(&"--events") {
            all.extend(["--events", events]);
        }
        let (out, report) = run_json(&all);
        let what = format!("{kind}: {args:?}: {report}");
        assert_eq!(out.status.code(), Some(1), "{what}");
        assert_eq!(report["status"], "failed", "{what}");
        assert_eq!(report["kind"], kind, "{what}");
        assert_eq!(report["code"], code, "{what}");
        let last = report["failures"].as_array().unwrap().last().unwrap();
        assert_eq!(
            (&last["kind"], &last["code"]),
            (&report["kind"], &report["code"])
        );
        if args.contains(&"--events") {
            continue; // the event file is the one that failed
        }
        let text = std::fs::read_to_string(events).unwrap();
        let error: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(error["event"], "engine:error", "{what}");
        assert_eq!(
            (&error["kind"], &error["code"]),
            (&report["kind"], &report["code"])
        );
        assert_eq!(error["reason"], report["reason"], "{what}");
    }
}

/// Issue 15.5: a run code is explained by code and by name.
#[test]
fn explain_covers_the_run_failure_codes() {
    let by_code = wfc(&["explain", "WF0903"]).output().unwrap();
    let by_name = wfc(&["explain", "tool-failed"]).output().unwrap();
    assert_eq!(by_code.status.code(), Some(0));
    assert_eq!(by_code.stdout, by_name.stdout);
    let text = String::from_utf8_lossy(&by_code.stdout);
    assert!(
        text.starts_with("# WF0903: tool-failed\n\nFamily: run."),
        "{text}"
    );
    assert!(text.contains("## How to fix"), "{text}");
}

/// Issue 15.5: the progress line of an engine error carries its code.
#[test]
fn the_progress_line_of_a_failure_names_its_code() {
    let out = wfc(&[
        "run",
        "tests/run/tools.wf",
        "--agent",
        "auto",
        "--tools",
        "refuse",
        "--progress",
        "always",
    ])
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("Tools/hello: error[WF0903]: node `hello` of workflow `Tools` failed: tool nodes are refused (--tools refuse; --tools run or --allow-tools runs them, --tools simulate dry-runs them): node `hello` would run"),
        "{stderr}"
    );
}

/// Issue 14 leftover: a node the runtime fails (`rules` writes nothing for
/// `plan`, which declares `writes plan`) ends the run there, instead of
/// following the single edge `rules` named and failing later at the fork.
#[test]
fn a_node_the_runtime_fails_does_not_follow_the_agents_edge() {
    run_snapshot!(
        "rules_failed_node",
        wfc(&[
            "run",
            "tests/run/routes.wf",
            "--set",
            "mode=fast",
            "--agent",
            "rules"
        ])
    );
}

/// Issue 17.7: under `--agent auto` (the default for `.wf`) tool nodes are
/// simulated, saying so once: each succeeds, runs nothing, and writes a
/// placeholder output and a placeholder of its declared type for each key
/// it declares. `--tools simulate` given explicitly needs no note; any
/// other agent still refuses tools unless told; `--allow-tools` is
/// `--tools run` and cannot be combined with `--tools`.
#[test]
fn tool_nodes_are_simulated_under_the_auto_agent() {
    run_snapshot!("tools_simulated", wfc(&["run", "tests/run/tools.wf"]));
    let dir = scratch("tools-simulated");
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("RAN");
    let file = dir.join("decl.wf");
    std::fs::write(
        &file,
        format!(
            "workflow Decl {{\n  tool count {{\n    command = \"touch {}\"\n    writes lines: int, tags: list, label: string, ok: bool\n  }}\n  exit done\n  start -> count -> done\n}}\n",
            marker.display()
        ),
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let (out, report) = run_json(&["run", f, "--agent", "auto", "--tools", "simulate"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!marker.exists(), "a simulated tool ran");
    assert!(!stderr.contains("simulated"), "{stderr}");
    let board = &report["blackboard"];
    assert_eq!(board["lines"], 0, "{report}");
    assert_eq!(board["tags"], serde_json::json!([]), "{report}");
    assert_eq!(board["label"], "<label>", "{report}");
    assert_eq!(board["ok"], true, "{report}");
    assert_eq!(board["count.exit_code"], 0, "{report}");
    let stdout = board["count.stdout"].as_str().unwrap();
    assert!(
        stdout.contains("simulated") && stdout.contains("touch"),
        "{stdout}"
    );
    // Another agent refuses tools unless told.
    let (out, report) = run_json(&["run", f, "--agent", "rules"]);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert_eq!(report["kind"], "tool", "{report}");
    let both = wfc(&["run", f, "--allow-tools", "--tools", "refuse"])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&both.stderr).contains("cannot be used with"),
        "{both:?}"
    );
    assert!(!marker.exists(), "a tool ran");
}

/// Issue 17.10: `program.json` is compact (one line: it was pretty, 198 MB
/// for a 200 k-node chain), and a run directory with a pretty
/// `program.json` (written by an older wfc) still resumes.
#[test]
fn program_json_is_compact_and_old_pretty_ones_resume() {
    let dir = scratch("compact-program");
    std::fs::create_dir_all(&dir).unwrap();
    let workflow = dir.join("gate.wf");
    std::fs::write(
        &workflow,
        "workflow Gate {\n  human review \"Go?\"\n  exit done\n  start -> review\n  review -> done \"[G] Go\"\n}\n",
    )
    .unwrap();
    let script = dir.join("suspend.json");
    std::fs::write(
        &script,
        r#"{"fallback": "auto", "nodes": {"review": [{"type": "suspend", "reason": "wait"}]}}"#,
    )
    .unwrap();
    let run = dir.join("run");
    let (w, r) = (workflow.to_str().unwrap(), run.to_str().unwrap());
    let agent = format!("script:{}", script.display());
    let out = wfc(&["run", w, "--agent", &agent, "--run-dir", r])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let path = run.join("program.json");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 1, "not compact: {text}");
    assert!(text.ends_with("}\n") && !text.contains("\n "), "{text}");
    // An older wfc wrote it pretty-printed: it still loads.
    let program: Value = serde_json::from_str(&text).unwrap();
    let pretty = serde_json::to_string_pretty(&program).unwrap();
    assert!(pretty.contains("\n  "));
    std::fs::write(&path, pretty).unwrap();
    let (out, report) = run_json(&["run", "--resume", r, "--agent", "auto"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(report["at"]["node"], "done", "{report}");
}

/// Issue 17.7: the tool mode of a resumed run comes from the resuming
/// command line: a run started with `--allow-tools` and resumed with
/// `--agent auto` alone simulates its tools (and says so), running nothing.
#[test]
fn a_resumed_run_takes_the_tool_mode_from_the_command_line() {
    let dir = scratch("resume-tool-mode");
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("TOOL_RAN");
    let (workflow, script) = gate_with_a_tool(&dir, &marker);
    let run = dir.join("run");
    let (w, r) = (workflow.to_str().unwrap(), run.to_str().unwrap());
    let agent = format!("script:{}", script.display());
    let out = wfc(&["run", w, "--agent", &agent, "--allow-tools", "--run-dir", r])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["tools"], "run", "{meta}");
    let out = wfc(&["run", "--resume", r, "--agent", "auto"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!marker.exists(), "a simulated tool ran");
    assert!(
        stderr.contains("note: the run started with `--allow-tools`; its tool nodes are simulated now unless you pass `--allow-tools` again\n"),
        "{stderr}"
    );
    assert_eq!(
        stderr
            .matches("note: tool nodes are simulated (--tools simulate)")
            .count(),
        1,
        "{stderr}"
    );
}

/// `wfc replay ARGS…` (issue 17.4): the exit status, stdout and stderr.
fn replay(args: &[&str]) -> (Option<i32>, String, String) {
    let out = wfc(&[&["replay"][..], args].concat()).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// Every file of a run directory, with its bytes.
fn dir_files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap_or_default())
        })
        .collect()
}

/// A suspended run, then the same run resumed to completion, replay
/// identically from their recorded decisions (no agent given), and the
/// replay leaves the run directory as it was, lock file included.
#[test]
fn replay_verifies_suspended_and_completed_runs_and_writes_nothing() {
    let dir = scratch("replay-suspend");
    let d = dir.to_str().unwrap();
    let suspend = [
        "run",
        "tests/run/approve.wf",
        "--agent",
        "script:tests/run/suspend.json",
        "--run-dir",
        d,
    ];
    assert_eq!(wfc(&suspend).output().unwrap().status.code(), Some(3));
    let before = dir_files(&dir);
    assert!(before.contains_key("start.json"), "{:?}", before.keys());
    assert_eq!(
        replay(&[d]),
        (
            Some(0),
            "replayed 3 steps: identical\n".into(),
            String::new()
        )
    );
    assert!(
        dir_files(&dir) == before,
        "the replay changed the run directory"
    );
    let resume = [
        "run",
        "--resume",
        d,
        "--agent",
        "script:tests/run/approve.json",
    ];
    assert_eq!(wfc(&resume).output().unwrap().status.code(), Some(0));
    assert_eq!(
        replay(&[d]),
        (
            Some(0),
            "replayed 6 steps: identical\n".into(),
            String::new()
        )
    );
    // The same decisions against the same source replay identically too.
    let (code, out, err) = replay(&[d, "--against", "tests/run/approve.wf"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "replayed 6 steps against `tests/run/approve.wf`: identical\n"
    );
}

/// A changed recorded write, a changed final state, a missing start and a
/// missing directory: the first divergence is named (exit 1), a directory
/// that cannot be replayed is an error (exit 2).
#[test]
fn replay_names_the_first_divergence() {
    let dir = scratch("replay-tampered");
    let d = dir.to_str().unwrap();
    let run = [
        "run",
        "tests/run/approve.wf",
        "--agent",
        "script:tests/run/approve.json",
        "--run-dir",
        d,
    ];
    assert_eq!(wfc(&run).output().unwrap().status.code(), Some(0));
    let log = std::fs::read_to_string(dir.join("log.jsonl")).unwrap();
    let forged = log.replacen(
        r#""writes":[{"key":"plan","value":"<plan>"}]},"events""#,
        r#""writes":[{"key":"plan","value":"forged"}]},"events""#,
        1,
    );
    assert_ne!(forged, log);
    std::fs::write(dir.join("log.jsonl"), &forged).unwrap();
    let (code, out, err) = replay(&[d]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert_eq!(out, "");
    assert_eq!(
        err,
        "error: the replay diverges at step 2 (log.jsonl line 2): event 3 of the step\n  \
         recorded: {\"depth\":1,\"event\":\"blackboard:write\",\"node\":\"plan\",\"step\":1,\"workflow\":\"Approve\",\"writes\":[{\"key\":\"plan\",\"value\":\"<plan>\"}]}\n  \
         replayed: {\"depth\":1,\"event\":\"blackboard:write\",\"node\":\"plan\",\"step\":1,\"workflow\":\"Approve\",\"writes\":[{\"key\":\"plan\",\"value\":\"forged\"}]}\n\
         note: the 1 step before it replayed identically\n"
    );
    std::fs::write(dir.join("log.jsonl"), &log).unwrap();

    // The final state is checked too.
    let snap = std::fs::read_to_string(dir.join("snapshot.json")).unwrap();
    let changed = snap.replacen(r#""value":"<plan>""#, r#""value":"other""#, 1);
    assert_ne!(changed, snap);
    std::fs::write(dir.join("snapshot.json"), &changed).unwrap();
    let (code, _, err) = replay(&[d]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with(
            "error: the replay diverges at step 5: the state `snapshot.json` holds after 5 steps, at `frames[0].entries[0].value`\n  recorded: \"other\"\n  replayed: \"<plan>\"\n"
        ),
        "{err}"
    );
    std::fs::write(dir.join("snapshot.json"), &snap).unwrap();
    assert_eq!(replay(&[d]).0, Some(0));

    std::fs::remove_file(dir.join("start.json")).unwrap();
    let (code, _, err) = replay(&[d]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains(
            "start.json` is corrupt: it is missing: the run was started by a wfc without replay"
        ),
        "{err}"
    );
    let gone = dir.join("gone");
    let (code, _, err) = replay(&[gone.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("error: run directory ") && err.ends_with("gone does not exist\n"),
        "{err}"
    );
}

/// `--against`: the recorded decisions against a changed workflow stop
/// where the two part (the approval's label changed: its edge is no
/// longer taken).
#[test]
fn replay_against_a_changed_workflow_names_where_it_parts() {
    let dir = scratch("replay-against");
    let d = dir.to_str().unwrap();
    let run = [
        "run",
        "tests/run/approve.wf",
        "--agent",
        "script:tests/run/approve.json",
        "--run-dir",
        d,
    ];
    assert_eq!(wfc(&run).output().unwrap().status.code(), Some(0));
    let source = std::fs::read_to_string(repo_root().join("tests/run/approve.wf")).unwrap();
    let changed = dir.with_extension("wf");
    std::fs::write(
        &changed,
        source.replace("plan -> review", "plan -> rejected"),
    )
    .unwrap();
    let (code, out, err) = replay(&[d, "--against", changed.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        err.contains("diverges at step 2 (log.jsonl line 2): event 2 of the step"),
        "{err}"
    );
    assert!(
        err.contains(r#""to":"review""#) && err.contains(r#""to":"rejected""#),
        "{err}"
    );
    // A file without the run's workflow is not a changed one: exit 2.
    let (code, _, err) = replay(&[d, "--against", "examples/hello.wf"]);
    assert_eq!(code, Some(2));
    assert!(
        err.ends_with(
            "the state the run started from does not fit `examples/hello.wf`: no workflow `Approve`\n"
        ),
        "{err}"
    );
}

/// Every durable run of the fixtures (`.wf` examples and tests, `.dot`
/// pipelines; completed, failed and suspended) replays identically.
#[test]
fn every_fixture_run_replays_identically() {
    let base = scratch("replay-all");
    let root = repo_root();
    let mut files = common::wf_files(&root.join("examples"));
    files.extend(common::wf_files(&root.join("tests/run")));
    files.extend(common::files_with_extensions(
        &root.join("tests/run/dot"),
        &["dot"],
    ));
    let mut replayed = 0;
    for (i, file) in files.iter().enumerate() {
        // Slow tools would only make the test slow; their refusal replays.
        let dir = base.join(i.to_string());
        let out = wfc(&[
            "run",
            file.to_str().unwrap(),
            "--run-dir",
            dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
        if !dir.join("snapshot.json").exists() {
            // Files that do not check clean never start a run.
            assert_eq!(out.status.code(), Some(2), "{}", file.display());
            continue;
        }
        let (code, stdout, stderr) = replay(&[dir.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{}: {stderr}", file.display());
        assert!(stdout.ends_with(": identical\n"), "{stdout}");
        replayed += 1;
    }
    assert!(replayed >= 40, "only {replayed} runs replayed");
}

/// An `exec:` agent that crashes (exits) at its first request while
/// `marker` does not exist, creating it; from then on it answers
/// `success` at every node.
fn crashing_once_agent(marker: &Path) -> String {
    format!(
        "exec:{HELLO}read -r line; \
         if [ ! -e '{m}' ]; then touch '{m}'; exit 1; fi; \
         while :; do {ID}echo \"{{\\\"id\\\":$id,\\\"type\\\":\\\"advance\\\",\\\"status\\\":\\\"success\\\"}}\"; \
         read -r line || exit 0; done",
        m = marker.display()
    )
}

/// Issue 17.1: an agent error suspends a durable run (exit 3) with the
/// error recorded and a hint, and `--resume` asks the agent again at the
/// same node: the run then completes as an uninterrupted one does.
#[test]
fn an_agent_crash_suspends_a_durable_run_and_resume_tries_again() {
    let dir = scratch("agent-crash-suspends");
    let marker = dir.with_extension("marker");
    let _ = std::fs::remove_file(&marker);
    let agent = crashing_once_agent(&marker);
    let d = dir.to_str().unwrap();
    let run = [
        "run",
        "examples/hello.wf",
        "--agent",
        &agent,
        "--run-dir",
        d,
    ];
    let (out, summary) = run_json(&run);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{summary}\n{stderr}");
    assert_eq!(summary["status"], "suspended", "{summary}");
    assert_eq!(summary["at"]["node"], "greet", "{summary}");
    let reason = summary["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("the agent failed at node `greet` of workflow `Hello`: "),
        "{reason}"
    );
    // The error is recorded in the failure trace, with its kind.
    let failures = summary["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{summary}");
    assert_eq!(failures[0]["code"], "WF0902", "{summary}");
    assert_eq!(failures[0]["reason"], reason, "{summary}");
    assert!(
        stderr.contains("hint: the run suspended on an agent error (WF0902 agent-failed): the agent failed at node `greet`"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("`wfc run --resume {d}` tries the step again")),
        "{stderr}"
    );
    // The run directory holds a suspended run, and the log records it.
    let snapshot: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("snapshot.json")).unwrap()).unwrap();
    assert_eq!(snapshot["status"]["status"], "suspended", "{snapshot}");
    let log = std::fs::read_to_string(dir.join("log.jsonl")).unwrap();
    assert!(log.contains(r#""input":"agent_error""#), "{log}");
    assert!(log.contains(r#""suspended":true"#), "{log}");
    // A run suspended by an agent error replays as it ran (issue 17.4).
    assert_eq!(replay(&[d]).0, Some(0), "{:?}", replay(&[d]));

    let (out, resumed) = run_json(&["run", "--resume", d, "--agent", &agent]);
    assert_eq!(out.status.code(), Some(0), "{resumed}");
    assert_eq!(resumed["status"], "completed", "{resumed}");
    assert_eq!(resumed["at"]["node"], "done", "{resumed}");
    let (_, straight) = run_json(&["run", "examples/hello.wf", "--agent", &agent]);
    assert_eq!(resumed["blackboard"], straight["blackboard"]);
    // The suspending step is in the log once, the retried one after it.
    let log = std::fs::read_to_string(dir.join("log.jsonl")).unwrap();
    let steps: Vec<u64> = log
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["step"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(steps, (0..steps.len() as u64).collect::<Vec<_>>(), "{log}");
    assert_eq!(replay(&[d]).0, Some(0), "{:?}", replay(&[d]));
}

/// Issue 17.1: `--on-error fail` keeps the old behaviour in a durable run:
/// the agent's crash fails it (exit 1).
#[test]
fn on_error_fail_fails_a_durable_run_on_an_agent_crash() {
    let dir = scratch("agent-crash-fails");
    let marker = dir.with_extension("marker");
    let _ = std::fs::remove_file(&marker);
    let agent = crashing_once_agent(&marker);
    let d = dir.to_str().unwrap();
    let (out, summary) = run_json(&[
        "run",
        "examples/hello.wf",
        "--agent",
        &agent,
        "--run-dir",
        d,
        "--on-error",
        "fail",
    ]);
    assert_eq!(out.status.code(), Some(1), "{summary}");
    assert_eq!(summary["status"], "failed", "{summary}");
    assert_eq!(summary["code"], "WF0902", "{summary}");
    // A failed run stays failed: resuming it runs nothing.
    let (out, again) = run_json(&["run", "--resume", d, "--agent", &agent]);
    assert_eq!(out.status.code(), Some(1), "{again}");
    assert_eq!(again["steps"], summary["steps"], "{again}");
}

/// Issue 17.1: an agent slower than its timeout suspends a durable run,
/// as a crash does; `--on-error suspend` without a run directory is a
/// usage error, since nothing could resume the run.
#[test]
fn an_agent_timeout_suspends_and_suspend_needs_a_run_dir() {
    let dir = scratch("agent-timeout-suspends");
    let d = dir.to_str().unwrap();
    let (out, summary) = run_json(&[
        "run",
        "examples/hello.wf",
        "--agent",
        "exec:sleep 30",
        "--agent-timeout",
        "300ms",
        "--run-dir",
        d,
    ]);
    assert_eq!(out.status.code(), Some(3), "{summary}");
    assert_eq!(summary["failures"][0]["code"], "WF0902", "{summary}");
    let out = wfc(&[
        "run",
        "examples/hello.wf",
        "--agent",
        "auto",
        "--on-error",
        "suspend",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --on-error suspend needs a run directory: a run without one cannot be resumed\n  \
         help: add --run-dir DIR, or use --on-error fail\n"
    );
}

/// Issue 17.1: `wfc status` of a run suspended at a `human` node: its
/// state, position, steps and the question it waits on, in text and JSON.
#[test]
fn status_shows_a_suspended_run_and_its_question() {
    let dir = scratch("status-suspended");
    let d = dir.to_str().unwrap();
    let out = wfc(&[
        "run",
        "tests/run/approve.wf",
        "--agent",
        "script:tests/run/suspend.json",
        "--run-dir",
        d,
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(3));
    run_snapshot!("status_suspended", wfc(&["status", d]));
    run_snapshot!(
        "status_suspended_json",
        wfc(&["status", d, "--format", "json"])
    );
    // Reading it took no lock: the run resumes.
    let (out, resumed) = run_json(&[
        "run",
        "--resume",
        d,
        "--agent",
        "script:tests/run/approve.json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{resumed}");
    run_snapshot!("status_completed", wfc(&["status", d]));
}

/// Issue 17.1: `wfc status` names the agent error that suspended a run.
#[test]
fn status_names_the_error_that_suspended_a_run() {
    let dir = scratch("status-error");
    let marker = dir.with_extension("marker");
    let _ = std::fs::remove_file(&marker);
    let agent = crashing_once_agent(&marker);
    let d = dir.to_str().unwrap();
    let out = wfc(&[
        "run",
        "examples/hello.wf",
        "--agent",
        &agent,
        "--run-dir",
        d,
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let out = wfc(&["status", d, "--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let state: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(state["state"], "suspended", "{state}");
    assert_eq!(state["error"]["code"], "WF0902", "{state}");
    assert_eq!(state["error"]["node"], "greet", "{state}");
    assert_eq!(state["questions"], Value::Array(vec![]), "{state}");
    let out = wfc(&["status", d]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "error: agent (WF0902 agent-failed): the agent failed at node `greet` of workflow `Hello`: "
        ),
        "{text}"
    );
}

/// Issue 17.1: a run in progress is reported as running, in use by its
/// process, and `wfc status` does not disturb it.
#[test]
fn status_of_a_run_in_progress_names_its_process() {
    let dir = scratch("status-in-use");
    let d = dir.to_str().unwrap();
    let mut child = wfc(&[
        "run",
        "examples/hello.wf",
        "--agent",
        "exec:sleep 30",
        "--agent-timeout",
        "20s",
        "--run-dir",
        d,
    ])
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .spawn()
    .unwrap();
    // The run has started once its first snapshot is there.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !dir.join("snapshot.json").exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = wfc(&["status", d, "--format", "json"]).output().unwrap();
    let state: Value = serde_json::from_slice(&out.stdout).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(out.status.code(), Some(0), "{state}");
    assert_eq!(state["state"], "running", "{state}");
    assert_eq!(state["in_use_by"], child.id(), "{state}");
    // Killed, the run is interrupted, and the lock is free again.
    let out = wfc(&["status", d, "--format", "json"]).output().unwrap();
    let state: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(state["state"], "interrupted", "{state}");
    assert_eq!(state["in_use_by"], Value::Null, "{state}");
}

/// Issue 17.1: a missing, empty or corrupt run directory is an error
/// naming the problem (exit 2), never a panic.
#[test]
fn status_of_a_missing_or_corrupt_directory_is_an_error() {
    let dir = scratch("status-corrupt");
    let d = dir.to_str().unwrap();
    run_snapshot!("status_missing", wfc(&["status", d]));
    std::fs::create_dir_all(&dir).unwrap();
    run_snapshot!("status_not_a_run", wfc(&["status", d]));
    std::fs::write(dir.join("snapshot.json"), "{").unwrap();
    std::fs::write(dir.join("program.json"), "{").unwrap();
    run_snapshot!("status_corrupt", wfc(&["status", d]));
    // Reading took no lock file either.
    assert!(!dir.join("run.lock").exists());
}

/// Issue 17.1: in a durable `.dot` pipeline, a stage's backend error
/// (here an `exec:` backend that crashes) suspends the run once the stage's
/// retries are spent, instead of failing the stage; the resume completes.
#[test]
fn a_backend_crash_suspends_a_durable_pipeline() {
    let dir = scratch("pipeline-backend-crash");
    let marker = dir.with_extension("marker");
    let _ = std::fs::remove_file(&marker);
    let agent = crashing_once_agent(&marker);
    let d = dir.to_str().unwrap();
    let pipeline = "examples/llm/review.dot";
    let (out, summary) = run_json(&["run", pipeline, "--agent", &agent, "--run-dir", d]);
    assert_eq!(out.status.code(), Some(3), "{summary}");
    assert_eq!(summary["at"]["node"], "implement", "{summary}");
    assert_eq!(summary["failures"][0]["code"], "WF0902", "{summary}");
    let (out, resumed) = run_json(&["run", "--resume", d, "--agent", &agent]);
    assert_eq!(out.status.code(), Some(0), "{resumed}");
    assert_eq!(resumed["at"]["node"], "done", "{resumed}");
    // Without a run directory the stage fails, as Attractor's rules say.
    let _ = std::fs::remove_file(&marker);
    let (out, failed) = run_json(&["run", pipeline, "--agent", &agent]);
    assert_eq!(out.status.code(), Some(1), "{failed}");
    assert_eq!(failed["code"], "WF0908", "{failed}");
}

/// Events lost in the run's last step (after the engine's last look at its
/// sinks) are reported with the store failure's code, not as a plain
/// `error:` line. The event file is cut there by a file-size limit (with
/// SIGXFSZ ignored, a write past it fails with EFBIG, as on a full disk).
#[cfg(target_os = "linux")]
#[test]
fn events_lost_in_the_last_step_are_a_typed_store_error() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        eprintln!("skipped: no prlimit");
        return;
    }
    let dir = scratch("events-last-step");
    std::fs::create_dir_all(&dir).unwrap();
    let full = dir.join("full.jsonl");
    let args = [
        "run",
        "tests/run/chain.wf",
        "--set",
        "name=Ada",
        "--agent",
        "auto",
    ];
    let mut whole = args.to_vec();
    whole.extend(["--events", full.to_str().unwrap()]);
    assert!(wfc(&whole).output().unwrap().status.success());
    // Where the last step's events begin: the limit falls inside them.
    let text = std::fs::read_to_string(&full).unwrap();
    let step = |l: &str| serde_json::from_str::<Value>(l).unwrap()["step"].as_u64();
    let last = text.lines().filter_map(step).max().unwrap();
    let before: usize = text
        .lines()
        .take_while(|l| step(l) != Some(last))
        .map(|l| l.len() + 1)
        .sum();
    let limit = before + (text.len() - before) / 2;
    let cut = dir.join("cut.jsonl");
    let mut limited = args.to_vec();
    limited.extend(["--events", cut.to_str().unwrap()]);
    let out = Command::new("sh")
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; exec prlimit --fsize={limit} \"$0\" \"$@\""
        ))
        .arg(get_cargo_bin("wfc"))
        .args(&limited)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.starts_with("completed Chain at done"), "{stdout}");
    let reason = format!(
        "error[WF0906]: could not write the event file `{}`: ",
        cut.display()
    );
    assert!(stderr.starts_with(&reason), "{stderr}");
    assert!(stderr.contains("see `wfc explain WF0906`"), "{stderr}");
}

/// `wfc run FILE` checks FILE as a member of the project (`wf.toml`) found
/// from its folder, as `wfc check` does: the project's root lets an import
/// reach a library beside the file's folder and confines every import
/// (WF0108 past it), and the project's `[lints]` levels apply (its allowed
/// unreachable draft step is not reported).
#[test]
fn run_honours_the_project_of_its_file() {
    let out = wfc(&["run", "tests/run/project/flows/main.wf", "--agent", "auto"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("WF0205"),
        "the project allows it: {stderr}"
    );
    let out = wfc(&[
        "run",
        "tests/run/project/flows/escapes_root.wf",
        "--agent",
        "auto",
    ])
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("error[WF0108]: import path `../../chain.wf` leaves the project root"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing ran");
}

/// A resumed `script:` run goes on with the answers an uninterrupted run
/// would give: the answers the log records as taken are used up, so the
/// suspension answered first is not given again (it was, before: every
/// resume suspended anew). It ends as the run answered without the
/// suspension does.
#[test]
fn a_resumed_script_run_does_not_repeat_answers() {
    let dir = scratch("script-resume");
    let d = dir.to_str().unwrap();
    let script = "script:tests/run/suspend_then_reject.json";
    let out = wfc(&[
        "run",
        "tests/run/approve.wf",
        "--agent",
        script,
        "--run-dir",
        d,
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(3), "suspends at review first");
    let (out, resumed) = run_json(&["run", "--resume", d, "--agent", script]);
    assert_eq!(out.status.code(), Some(0), "{resumed}");
    let plain = dir.with_extension("json");
    std::fs::write(
        &plain,
        r#"{"fallback": "auto", "nodes": {"review": ["[R] Reject"]}}"#,
    )
    .unwrap();
    let agent = format!("script:{}", plain.display());
    let (_, uninterrupted) = run_json(&["run", "tests/run/approve.wf", "--agent", &agent]);
    assert_eq!(resumed["status"], "completed", "{resumed}");
    assert_eq!(resumed["at"], uninterrupted["at"], "{resumed}");
    assert_eq!(resumed["blackboard"], uninterrupted["blackboard"]);
}

/// The log carries the run id and time once per record (docs/runtime.md,
/// "How the log carries run ids and times"): its events leave them out,
/// yet the event file of a resumed run (rebuilt from the log for the
/// steps before the resume) has them on every event, the same id as
/// `wfc status` names, and `wfc replay` verifies the run.
#[test]
fn every_event_of_a_resumed_event_file_has_the_run_id_and_a_time() {
    let dir = scratch("inherited-stamps");
    std::fs::create_dir_all(&dir).unwrap();
    let run_dir = dir.join("run");
    let d = run_dir.to_str().unwrap();
    let events = dir.join("events.jsonl");
    let e = events.to_str().unwrap();
    let out = wfc(&[
        "run",
        "tests/run/approve.wf",
        "--agent",
        "script:tests/run/suspend.json",
        "--run-dir",
        d,
        "--events",
        e,
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let out = wfc(&[
        "run",
        "--resume",
        d,
        "--agent",
        "script:tests/run/approve.json",
        "--events",
        e,
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0));

    let status = wfc(&["status", d, "--format", "json"]).output().unwrap();
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    let run = status["run_id"].as_str().unwrap().to_owned();
    assert_eq!(run.len(), 36);
    let log = std::fs::read_to_string(run_dir.join("log.jsonl")).unwrap();
    let records: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &Value| r.get("step").is_some())
        .collect();
    assert!(records.len() > 2);
    for r in &records {
        assert_eq!(r["run"], run.as_str(), "{r}");
        for ev in r["events"].as_array().unwrap() {
            assert!(ev.get("run").is_none(), "{ev}");
        }
    }
    let text = std::fs::read_to_string(&events).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let logged: usize = records
        .iter()
        .map(|r| r["events"].as_array().unwrap().len())
        .sum();
    assert_eq!(lines.len(), logged, "{text}");
    for ev in &lines {
        assert_eq!(ev["run"], run.as_str(), "{ev}");
        assert!(ev["ts"].as_str().is_some_and(|t| t.ends_with('Z')), "{ev}");
    }
    let replay = wfc(&["replay", d]).output().unwrap();
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}
