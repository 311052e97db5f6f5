//! Parallel branches (issue 17 item 6): Attractor fan-outs run their
//! branches at once, up to `max_parallel`, and say so in their events.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use crate::common::dot::{fixture, scratch, wfc};

/// `wfc run FILE --agent auto --allow-tools` with a run directory: the
/// output and the `handler:event` events, by name.
fn run(test: &str, file: &str, extra: &[&str]) -> (Output, PathBuf, Vec<Value>) {
    run_as(test, file, "auto", extra)
}

/// [`run`] with another `--agent`.
fn run_as(test: &str, file: &str, agent: &str, extra: &[&str]) -> (Output, PathBuf, Vec<Value>) {
    let dir = scratch(test);
    let run_dir = dir.join("run");
    let events = dir.join("events.jsonl");
    let file = fixture(file);
    let mut args = vec![
        "run",
        file.to_str().unwrap(),
        "--agent",
        agent,
        "--allow-tools",
        "--format",
        "json",
        "--progress",
        "never",
        "--run-dir",
        run_dir.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = wfc(&args);
    let events = std::fs::read_to_string(&events)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|e: &Value| e["event"] == "handler:event")
        .collect();
    (out, run_dir, events)
}

fn named<'e>(events: &'e [Value], name: &str) -> Vec<&'e Value> {
    events.iter().filter(|e| e["name"] == name).collect()
}

/// Each branch's `(start, end)` in ms since the fan-out started, from its
/// `ParallelBranchStarted` and `ParallelBranchCompleted` events.
fn intervals(events: &[Value]) -> Vec<(u64, u64)> {
    let started = named(events, "ParallelBranchStarted");
    let done = named(events, "ParallelBranchCompleted");
    assert_eq!(started.len(), done.len());
    started
        .iter()
        .zip(&done)
        .map(|(s, d)| {
            assert_eq!(s["data"]["branch"], d["data"]["branch"]);
            let at = s["data"]["offset_ms"].as_u64().unwrap();
            (at, at + d["data"]["duration_ms"].as_u64().unwrap())
        })
        .collect()
}

/// The most branches running at one moment.
fn most_at_once(spans: &[(u64, u64)]) -> usize {
    spans
        .iter()
        .map(|&(t, _)| spans.iter().filter(|&&(s, e)| s <= t && t < e).count())
        .max()
        .unwrap_or(0)
}

#[test]
fn attractor_branches_run_at_once() {
    let (out, _, events) = run("par_at_once", "parallel_sleep.dot", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let started = named(&events, "ParallelStarted");
    assert_eq!(started[0]["data"]["concurrency"], 4, "{}", started[0]);
    let spans = intervals(&events);
    // The events are in edge order, whatever order the branches ended in.
    let ids: Vec<_> = named(&events, "ParallelBranchCompleted")
        .iter()
        .map(|e| e["data"]["branch"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    // Every branch started before any ended: all four overlapped. One
    // after another, each would start after the one before it ended.
    let first_end = spans.iter().map(|s| s.1).min().unwrap();
    assert!(spans.iter().all(|s| s.0 < first_end), "{spans:?}");
    assert_eq!(most_at_once(&spans), 4, "{spans:?}");
    // And the fan-out took well under the 4 × 300 ms of a sequential run.
    let took = named(&events, "ParallelCompleted")[0]["data"]["duration_ms"]
        .as_u64()
        .unwrap();
    assert!(took < 750, "the fan-out took {took} ms: {spans:?}");
}

#[test]
fn max_parallel_bounds_the_branches_at_once() {
    let (out, _, events) = run("par_max_2", "parallel_sleep_2.dot", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let started = named(&events, "ParallelStarted");
    assert_eq!(started[0]["data"]["concurrency"], 2, "{}", started[0]);
    assert_eq!(started[0]["data"]["max_parallel"], 2, "{}", started[0]);
    let spans = intervals(&events);
    assert_eq!(spans.len(), 4);
    assert_eq!(most_at_once(&spans), 2, "{spans:?}");
}

/// Item 3: a fan-out killed with SIGKILL while one branch runs resumes
/// without running the branch that had finished.
#[test]
fn a_killed_fan_out_resumes_without_rerunning_finished_branches() {
    use std::time::{Duration, Instant};
    let dir = scratch("par_durable");
    let run_dir = dir.join("run");
    let d = run_dir.to_str().unwrap();
    let file = fixture("parallel_durable.dot");
    let f = file.to_str().unwrap();
    let ran = run_dir.join("ran.txt");
    let mut first = std::process::Command::new(insta_cmd::get_cargo_bin("wfc"))
        .current_dir(crate::common::repo_root())
        .args(["run", f, "--agent", "auto", "--allow-tools"])
        .args(["--progress", "never", "--run-dir", d])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed once `a` is journaled and `b` is running.
    let journal = run_dir.join("fan/branches/step-1/0.json");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(&ran).unwrap_or_default();
        if journal.exists() && text.contains('b') {
            break;
        }
        assert!(Instant::now() < deadline, "the fan-out did not get going");
        std::thread::sleep(Duration::from_millis(10));
    }
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    assert!(!run_dir.join("fan/branches/step-1/1.json").exists());
    std::fs::write(run_dir.join("resume"), "").unwrap();
    let events = dir.join("events.jsonl");
    let out = wfc(&[
        "run",
        "--resume",
        d,
        "--agent",
        "auto",
        "--allow-tools",
        "--format",
        "json",
        "--events",
        events.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // `a` ran once; `b`, killed half-way, ran again.
    let mut lines: Vec<String> = std::fs::read_to_string(&ran)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    assert_eq!(lines, ["a", "b", "b"]);
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = s["blackboard"]["parallel.results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{s}");
    assert!(results.iter().all(|r| r["outcome"] == "success"), "{s}");
    let log: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let done: Vec<&Value> = log
        .iter()
        .filter(|e| e["name"] == "ParallelBranchCompleted")
        .collect();
    assert_eq!(done[0]["data"]["branch"], "a");
    assert_eq!(done[0]["data"]["resumed"], true, "{}", done[0]);
    assert!(done[1]["data"].get("resumed").is_none(), "{}", done[1]);
    // The log follows the recorded fan-out: replay verifies it.
    let replay = wfc(&["replay", d]);
    let said = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(replay.status.code(), Some(0), "{said}");
}

/// Item 4: the branches' own events are in the run's event log, each with
/// its branch, grouped by branch in edge order (as the log records them,
/// whatever order the threads ran in), so a replay sees one order.
#[test]
fn branch_events_are_logged_with_their_branch() {
    let (out, run_dir, events) = run("par_events", "parallel_sleep.dot", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let mut current: Option<String> = None;
    let mut seen = Vec::new();
    for e in &events {
        let data = &e["data"];
        match e["name"].as_str().unwrap() {
            "ParallelBranchStarted" => current = data["branch"].as_str().map(str::to_owned),
            "ParallelBranchCompleted" => current = None,
            "ParallelBranchEvent" => {
                let branch = data["branch"].as_str().unwrap();
                assert_eq!(current.as_deref(), Some(branch), "{e}");
                let inner = &data["event"];
                if inner["event"] == "node:enter" && inner["node"] == branch {
                    seen.push(branch.to_owned());
                }
            }
            _ => {}
        }
    }
    assert_eq!(seen, ["a", "b", "c", "d"]);
    let replay = wfc(&["replay", run_dir.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(replay.status.code(), Some(0), "{said}");
}

/// Branches that need the run's own thread (a human gate asks the run's
/// interviewer) run one after another, and the log says why; branches
/// whose nodes never ask the backend run at once even when the backend
/// cannot be copied to a thread (a script read in order).
#[test]
fn the_log_says_why_branches_ran_one_after_another() {
    let (out, _, events) = run("par_gate", "parallel_gate.dot", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let started = named(&events, "ParallelStarted");
    let data = &started[0]["data"];
    assert_eq!(data["concurrency"], 1, "{data}");
    assert_eq!(data["sequential_reason"], "node `b` is a `wait.human` node");

    let dir = scratch("par_script");
    let script = dir.join("script.json");
    std::fs::write(&script, r#"{"nodes": {}}"#).unwrap();
    let agent = format!("script:{}", script.display());
    let (out, _, events) = run_as("par_script_run", "parallel_sleep.dot", &agent, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let started = named(&events, "ParallelStarted");
    assert_eq!(started[0]["data"]["concurrency"], 4, "{}", started[0]);
}

/// Item 1: a `.wf` `parallel` runs its branches at once (three tools of
/// 300 ms each), each in its own copy of the scope, and the `join` sees
/// every branch's writes; the run directory replays.
#[test]
fn wf_parallel_and_join_run() {
    let (out, run_dir, events) = run("wf_par", "../parallel.wf", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["at"]["node"], "done", "{s}");
    for region in ["eu", "us", "jp"] {
        assert_eq!(
            s["blackboard"][format!("ask_{region}.stdout")],
            format!("{region}\n")
        );
    }
    let started = named(&events, "ParallelStarted");
    assert_eq!(started[0]["data"]["concurrency"], 3, "{}", started[0]);
    let spans = intervals(&events);
    assert_eq!(most_at_once(&spans), 3, "{spans:?}");
    let replay = wfc(&["replay", run_dir.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(replay.status.code(), Some(0), "{said}");
}

/// Item 1: the join's `merge` strategies, on two branches writing one key
/// (a script answers for them); `merge = fail` makes the parallel node
/// fail, routed like any failure (here to the `failed` exit).
#[test]
fn wf_join_merges_by_its_strategy() {
    let source = std::fs::read_to_string(fixture("../parallel_merge.wf")).unwrap();
    let script = fixture("../parallel_merge.json");
    let agent = format!("script:{}", script.display());
    let expect = [
        ("last_wins", r#"{"both":"right","r":2}"#),
        ("first_wins", r#"{"both":"left","l":1}"#),
        (
            "collect",
            r#"[{"both":"left","l":1},{"both":"right","r":2}]"#,
        ),
        ("merge_dict", r#"{"both":"right","l":1,"r":2}"#),
        ("fail", "null"),
    ];
    for (strategy, want) in expect {
        let dir = scratch(&format!("wf_merge_{strategy}"));
        let file = dir.join("merge.wf");
        std::fs::write(&file, source.replace("MERGE", strategy)).unwrap();
        let out = wfc(&[
            "run",
            file.to_str().unwrap(),
            "--agent",
            &agent,
            "--format",
            "json",
            "--progress",
            "never",
        ]);
        let s: Value = serde_json::from_slice(&out.stdout).unwrap();
        let want: Value = serde_json::from_str(want).unwrap();
        assert_eq!(s["blackboard"]["pick"], want, "{strategy}: {s}");
        if strategy == "fail" {
            assert_eq!(s["at"]["node"], "failed", "{s}");
            assert_eq!(
                s["failures"][0]["reason"],
                "node `fan`: branches `left` and `right` each wrote `pick`, and the join merges with `merge = fail`"
            );
        } else {
            assert_eq!(s["at"]["node"], "done", "{strategy}: {s}");
        }
    }
}

/// Item 3 for `.wf`: a fan-out killed with SIGKILL while one branch runs
/// resumes without running the branch that had finished, and replays.
#[test]
fn a_killed_wf_fan_out_resumes_without_rerunning_finished_branches() {
    use std::time::{Duration, Instant};
    let dir = scratch("wf_par_durable");
    let run_dir = dir.join("run");
    let d = run_dir.to_str().unwrap();
    let ran = dir.join("ran.txt");
    let set = format!("out={}", ran.display());
    let file = fixture("../parallel_durable.wf");
    let mut first = std::process::Command::new(insta_cmd::get_cargo_bin("wfc"))
        .current_dir(crate::common::repo_root())
        .args([
            "run",
            file.to_str().unwrap(),
            "--agent",
            "auto",
            "--allow-tools",
        ])
        .args(["--set", &set, "--progress", "never", "--run-dir", d])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed once `a` is journaled and `b` is running.
    let journal = run_dir.join("branches/Durable/fan/step-1");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(&ran).unwrap_or_default();
        if journal.join("0.json").exists() && text.contains('b') {
            break;
        }
        assert!(Instant::now() < deadline, "the fan-out did not get going");
        std::thread::sleep(Duration::from_millis(10));
    }
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    assert!(!journal.join("1.json").exists());
    std::fs::write(dir.join("ran.txt.resume"), "").unwrap();
    let args = ["run", "--resume", d, "--agent", "auto", "--allow-tools"];
    let out = wfc(&[&args[..], &["--format", "json"]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["at"]["node"], "done", "{s}");
    let mut lines: Vec<String> = std::fs::read_to_string(&ran)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    assert_eq!(lines, ["a", "b", "b"]);
    let replay = wfc(&["replay", d]);
    let said = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(replay.status.code(), Some(0), "{said}");
}

/// `.wf` branches run at once under a script agent, whose forks share its
/// answers (issue 17.6): tools alone, and steps that ask it (the join
/// still collects in edge order); under an agent that cannot be copied to
/// threads (an `exec:` program, one conversation) branches that ask it
/// run one after another, and the log says why.
#[test]
fn wf_branches_run_at_once_unless_they_ask_an_agent_that_cannot_fork() {
    let dir = scratch("wf_par_script");
    let script = dir.join("script.json");
    std::fs::write(&script, r#"{"fallback": "auto", "nodes": {}}"#).unwrap();
    let agent = format!("script:{}", script.display());
    let (out, _, events) = run_as("wf_par_script_tools", "../parallel.wf", &agent, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let started = named(&events, "ParallelStarted");
    assert_eq!(started[0]["data"]["concurrency"], 3, "{}", started[0]);

    let source = std::fs::read_to_string(fixture("../parallel_merge.wf")).unwrap();
    let file = dir.join("merge.wf");
    std::fs::write(&file, source.replace("MERGE", "collect")).unwrap();
    let script = fixture("../parallel_merge.json");
    let agent = format!("script:{}", script.display());
    let file = file.to_str().unwrap();
    let (out, _, events) = run_as("wf_par_script_steps", file, &agent, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    let want: Value =
        serde_json::from_str(r#"[{"both":"left","l":1},{"both":"right","r":2}]"#).unwrap();
    assert_eq!(s["blackboard"]["pick"], want, "{s}");
    let started = named(&events, "ParallelStarted");
    assert_eq!(started[0]["data"]["concurrency"], 2, "{}", started[0]);
    assert!(started[0]["data"].get("sequential_reason").is_none());

    let exec = "exec:python3 examples/agents/echo_agent.py";
    let (out, _, events) = run_as("wf_par_exec_steps", file, exec, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let started = named(&events, "ParallelStarted");
    assert_eq!(started[0]["data"]["concurrency"], 1, "{}", started[0]);
    assert_eq!(
        started[0]["data"]["sequential_reason"],
        "the agent cannot be copied to another thread"
    );
}

/// Each branch's `(start, end)` in ns, from the lines `BRANCH start|end
/// NS` its tool appended to `file`.
fn tool_spans(file: &std::path::Path) -> Vec<(String, u128, u128)> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut spans: Vec<(String, u128, u128)> = Vec::new();
    for line in text.lines() {
        let [branch, what, ns] = line.split(' ').collect::<Vec<_>>()[..] else {
            panic!("a bad line in {}: {line}", file.display());
        };
        let ns: u128 = ns.parse().unwrap();
        match what {
            "start" => spans.push((branch.to_owned(), ns, 0)),
            _ => spans.iter_mut().find(|s| s.0 == branch).unwrap().2 = ns,
        }
    }
    spans.sort();
    spans
}

/// Issue 17.6: a `.wf` fan-out whose branches ask the agent (a step, then
/// a tool) runs them at once under `wfc run`, though the CLI wraps the
/// agent to apply recorded answers: with the `auto` agent and with a
/// script, with and without a run directory. Concurrency is read from
/// the tools' own clocks: every branch's tool started before any ended
/// (one after another, each would start after the last ended). A durable
/// run replays.
#[test]
fn wf_branches_that_ask_the_agent_run_at_once_under_wfc_run() {
    let script = format!("script:{}", fixture("../parallel_steps.json").display());
    for (agent, name) in [("auto", "auto"), (script.as_str(), "script")] {
        for durable in [false, true] {
            let dir = scratch(&format!("wf_par_steps_{name}_{durable}"));
            let times = dir.join("times.txt");
            let run_dir = dir.join("run");
            let events = dir.join("events.jsonl");
            let set = format!("out={}", times.display());
            let file = fixture("../parallel_steps.wf");
            let mut args = vec![
                "run",
                file.to_str().unwrap(),
                "--agent",
                agent,
                "--tools",
                "run",
                "--set",
                &set,
                "--format",
                "json",
                "--progress",
                "never",
                "--events",
                events.to_str().unwrap(),
            ];
            if durable {
                args.extend(["--run-dir", run_dir.to_str().unwrap()]);
            }
            let out = wfc(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{name} {durable}: {stderr}");
            let s: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(s["at"]["node"], "done", "{s}");
            for b in ["a", "b", "c", "d"] {
                assert_eq!(s["blackboard"][format!("{b}.ready")], true, "{s}");
            }
            let spans = tool_spans(&times);
            assert_eq!(spans.len(), 4, "{spans:?}");
            let last_start = spans.iter().map(|s| s.1).max().unwrap();
            let first_end = spans.iter().map(|s| s.2).min().unwrap();
            assert!(
                last_start < first_end,
                "{name} {durable}: the branches did not all run at once: {spans:?}"
            );
            let events: Vec<Value> = std::fs::read_to_string(&events)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let started = named(&events, "ParallelStarted");
            assert_eq!(started[0]["data"]["concurrency"], 4, "{}", started[0]);
            if durable {
                let replay = wfc(&["replay", run_dir.to_str().unwrap()]);
                let said = String::from_utf8_lossy(&replay.stdout);
                assert_eq!(replay.status.code(), Some(0), "{said}");
            }
        }
    }
}
