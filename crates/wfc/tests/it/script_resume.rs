//! A resumed `script:` agent gives the answers an uninterrupted run would
//! (docs/agents.md, "Resumed scripts"): a run suspended, or killed with
//! SIGKILL mid fan-out, then resumed, ends with the report and the
//! per-node answers of the run never interrupted. Each case carries its
//! expectation beside its fixture: `tests/run/script_resume/NAME.trace`
//! (`UPDATE_TRACES=1` rewrites it), which both runs must match.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use insta_cmd::get_cargo_bin;
use serde_json::Value;

use crate::common::{repo_root, summary};

const DIR: &str = "tests/run/script_resume";

fn wfc(args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(repo_root())
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .env_remove("WFC_TEST_SLEEP");
    cmd
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("wfc-script-resume")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    dir
}

fn script(name: &str) -> String {
    format!("script:{DIR}/{name}.json")
}

/// `wfc ARGS --format json`: the output and its summary.
fn run_json(args: &[&str]) -> (Output, Value) {
    let out = wfc(&[args, &["--format", "json"]].concat())
        .output()
        .unwrap();
    let json = summary(&out);
    (out, json)
}

/// What a run's answers came to: its status, where it ended, its
/// blackboard, and the response each pipeline stage kept (`response.md`).
fn trace(report: &Value, run_dir: &Path) -> String {
    let mut out = format!(
        "status: {}\nat: {}/{}\nblackboard: {}\n",
        report["status"].as_str().unwrap_or("?"),
        report["at"]["workflow"].as_str().unwrap_or("?"),
        report["at"]["node"].as_str().unwrap_or("?"),
        report["blackboard"]
    );
    let mut stages: Vec<_> = std::fs::read_dir(run_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("response.md").is_file())
        .collect();
    stages.sort();
    for stage in stages {
        let response = std::fs::read_to_string(stage.join("response.md")).unwrap();
        let name = stage.file_name().unwrap().to_string_lossy().into_owned();
        out.push_str(&format!("response {name}: {response:?}\n"));
    }
    out
}

/// Checks `got` against `DIR/NAME.trace` (`UPDATE_TRACES=1` rewrites it).
fn expect_trace(name: &str, got: &str) {
    let file = repo_root().join(DIR).join(format!("{name}.trace"));
    if std::env::var_os("UPDATE_TRACES").is_some() {
        std::fs::write(&file, got).unwrap();
    }
    let want = std::fs::read_to_string(&file).unwrap_or_default();
    assert_eq!(got, want, "{} differs", file.display());
}

/// `wfc replay DIR` verifies the run.
fn replays(dir: &Path) {
    let out = wfc(&["replay", dir.to_str().unwrap()]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("identical"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The run `args` (a fresh run) never interrupted, with the script
/// `uninterrupted`: its trace.
fn uninterrupted(name: &str, file: &str, agent: &str) -> String {
    let dir = scratch(&format!("{name}-uninterrupted"));
    let d = dir.to_str().unwrap();
    let (out, report) = run_json(&[
        "run",
        file,
        "--agent",
        agent,
        "--run-dir",
        d,
        "--allow-tools",
    ]);
    assert_eq!(out.status.code(), Some(0), "{report}");
    trace(&report, &dir)
}

/// A pipeline whose script suspends at `implement`'s second visit: the
/// resumed run starts the script where the log left it, so `plan` and
/// `implement` get their second answers, not their first ones again
/// (before, the script started over: the run suspended again, at the
/// same place, for ever).
#[test]
fn a_resumed_pipeline_script_goes_on_where_its_log_left_it() {
    let dir = scratch("smoke-suspend");
    let d = dir.to_str().unwrap();
    let agent = script("smoke_suspend");
    let file = "tests/run/dot/smoke.dot";
    let out = wfc(&["run", file, "--agent", &agent, "--run-dir", d])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "suspends at implement");
    let (out, resumed) = run_json(&["run", "--resume", d, "--agent", &agent]);
    assert_eq!(out.status.code(), Some(0), "{resumed}");
    let got = trace(&resumed, &dir);
    expect_trace("smoke_suspend", &got);
    let plain = "script:tests/run/dot/scripts/smoke.json";
    assert_eq!(uninterrupted("smoke", file, plain), got);
    replays(&dir);
}

/// A `.wf` fan-out run twice (two calls of `Round`), suspended between
/// the rounds: the first round's branches took their answers inside
/// their branches (journaled, not in the root log), so the second round
/// gets the second answers (before: the first ones again).
#[test]
fn a_resumed_script_skips_the_answers_of_finished_branches() {
    let dir = scratch("fan-suspend");
    let d = dir.to_str().unwrap();
    let agent = script("suspend");
    let file = "tests/run/script_resume/fan_loop.wf";
    let out = wfc(&[
        "run",
        file,
        "--agent",
        &agent,
        "--run-dir",
        d,
        "--allow-tools",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(3), "suspends at review");
    let (out, resumed) = run_json(&["run", "--resume", d, "--agent", &agent, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(0), "{resumed}");
    let got = trace(&resumed, &dir);
    expect_trace("fan_loop", &got);
    assert_eq!(uninterrupted("fan", file, &script("uninterrupted")), got);
    replays(&dir);
}

/// The first journaled branch result of the first fan-out whose
/// journals are in `dir/fan`, once written.
fn first_branch_journal(dir: &Path, fan: &str) -> Option<PathBuf> {
    let fan = dir.join(fan);
    let step = std::fs::read_dir(fan).ok()?.flatten().next()?.path();
    let a = step.join("0.json");
    a.is_file().then_some(a)
}

/// Killed with SIGKILL in the first fan-out, once branch `a` finished
/// (journaled) and while `b` sleeps after taking its answer: the resumed
/// run takes `a`'s result from the journal (its answer used up) and runs
/// `b` again, which gets the same answer as before (not skipped: the
/// branch is redone). The end is the uninterrupted run's.
#[test]
fn a_kill_mid_fan_out_skips_only_the_answers_of_journaled_branches() {
    let (dir, got) = killed_mid_fan_out("fan_loop.wf", "uninterrupted", "branches/Round/fan");
    expect_trace("fan_loop", &got);
    replays(&dir);
}

/// The same in a pipeline whose fan-out runs twice (`review` loops back):
/// the second round's branches get the script's second answers.
#[test]
fn a_kill_mid_pipeline_fan_out_skips_only_the_answers_of_journaled_branches() {
    let file = "tests/run/script_resume/fan_loop.dot";
    let (dir, got) = killed_mid_fan_out("fan_loop.dot", "dot_uninterrupted", "fan/branches");
    expect_trace("fan_loop_dot", &got);
    assert_eq!(
        uninterrupted("dot", file, &script("dot_uninterrupted")),
        got
    );
    replays(&dir);
}

/// Runs `DIR/file` with the script `name`, kills it with SIGKILL once the
/// first branch of the fan-out journaled in `fan` finished (while the
/// second sleeps), resumes it: its run directory and trace.
fn killed_mid_fan_out(file: &str, name: &str, fan: &str) -> (PathBuf, String) {
    let dir = scratch(&format!("kill-{file}"));
    let d = dir.to_str().unwrap();
    let agent = script(name);
    let file = format!("{DIR}/{file}");
    let file = file.as_str();
    let mut child = wfc(&[
        "run",
        file,
        "--agent",
        &agent,
        "--run-dir",
        d,
        "--allow-tools",
    ])
    .env("WFC_TEST_SLEEP", "10")
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let t = Instant::now();
    while first_branch_journal(&dir, fan).is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "branch a never finished"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let journal = std::fs::read_to_string(first_branch_journal(&dir, fan).unwrap()).unwrap();
    assert!(journal.contains(r#""decided""#), "{journal}");
    let (out, resumed) = run_json(&["run", "--resume", d, "--agent", &agent, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(0), "{resumed}");
    let got = trace(&resumed, &dir);
    (dir, got)
}

/// A branch that waits at a gate the script suspends at: the resumed run
/// restores it there, so the answer it took before the gate (journaled
/// with where it waits) stays taken: the gate gets its next answer, and
/// the second round the second answers (before: the gate suspended
/// again, for ever).
#[test]
fn a_branch_restored_at_its_gate_keeps_the_answers_it_took() {
    let dir = scratch("gate-suspend");
    let d = dir.to_str().unwrap();
    let agent = script("gate_suspend");
    let file = "tests/run/script_resume/gate_loop.wf";
    let out = wfc(&["run", file, "--agent", &agent, "--run-dir", d])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "branch a waits at its gate");
    let (out, resumed) = run_json(&["run", "--resume", d, "--agent", &agent]);
    assert_eq!(out.status.code(), Some(0), "{resumed}");
    let got = trace(&resumed, &dir);
    expect_trace("gate_loop", &got);
    let plain = script("gate_uninterrupted");
    assert_eq!(uninterrupted("gate", file, &plain), got);
    replays(&dir);
}

/// Random kills (SIGKILL at seeded moments, `KILL_STORM_SEED` to vary
/// them) of the two-round `.wf` fan-out and of each process resuming it:
/// however the kills fall, the run ends with the uninterrupted run's
/// answers, and it replays.
#[test]
fn random_kills_of_a_scripted_fan_out_never_change_its_answers() {
    let seed = std::env::var("KILL_STORM_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x005c_2197_u64);
    let mut rng = seed;
    let mut next = move |bound: u64| {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (rng >> 33) % bound
    };
    let agent = script("uninterrupted");
    let file = "tests/run/script_resume/fan_loop.wf";
    let mut kills = 0;
    for round in 0..6 {
        let dir = scratch(&format!("storm-{round}"));
        let d = dir.to_str().unwrap();
        // Up to three kills, then a resume left to finish.
        for attempt in 0..4 {
            let fresh = !dir.join("log.jsonl").exists();
            let args: Vec<&str> = match fresh {
                true => vec!["run", file, "--agent", &agent, "--run-dir", d],
                false => vec!["run", "--resume", d, "--agent", &agent],
            };
            if fresh {
                let _ = std::fs::remove_dir_all(&dir);
            }
            let mut cmd = wfc(&[&args[..], &["--allow-tools"]].concat());
            cmd.env("WFC_TEST_SLEEP", "0.05")
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            if attempt == 3 {
                let status = cmd.status().unwrap();
                assert_eq!(status.code(), Some(0), "round {round} (seed {seed})");
                break;
            }
            let mut child = cmd.spawn().unwrap();
            std::thread::sleep(Duration::from_millis(next(120)));
            if child.try_wait().unwrap().is_none() {
                child.kill().unwrap();
                kills += 1;
            }
            child.wait().unwrap();
        }
        let (out, report) = run_json(&["run", "--resume", d, "--agent", &agent]);
        assert_eq!(out.status.code(), Some(0), "round {round}: {report}");
        let got = trace(&report, &dir);
        assert_eq!(
            got,
            std::fs::read_to_string(repo_root().join(DIR).join("fan_loop.trace")).unwrap(),
            "round {round} (seed {seed})"
        );
        replays(&dir);
    }
    assert!(kills >= 6, "{kills} kills landed");
}

/// A run suspended at `review`, answered with `wfc answer`, resumed to a
/// suspension at `work`, resumed again: the answer `wfc answer` gave is
/// not the script's, so the second resume does not count it as a script
/// answer used up, and `review`'s second visit gets the script's
/// `[D] Done` (before: its queue was one answer short, and the run
/// suspended on "no answer left").
#[test]
fn an_answer_given_with_wfc_answer_is_not_a_script_answer_used() {
    let dir = scratch("answered");
    let d = dir.to_str().unwrap();
    let agent = script("answered");
    let file = "tests/run/script_resume/answered.wf";
    let out = wfc(&["run", file, "--agent", &agent, "--run-dir", d])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "suspends at review");
    let out = wfc(&["answer", d, "Y"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = wfc(&["run", "--resume", d, "--agent", &agent])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "suspends at work: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (out, resumed) = run_json(&["run", "--resume", d, "--agent", &agent]);
    assert_eq!(out.status.code(), Some(0), "{resumed}");
    expect_trace("answered", &trace(&resumed, &dir));
    replays(&dir);
}

/// Two concurrent branches whose calls ask the same node `check`, one
/// queue of two answers: whichever branch gets there first (each sleeps
/// first, one longer than the other, in turn), branch `a` takes the first
/// answer and `b` the second, the answers a run of the branches one after
/// another in edge order gives (before: the first to arrive took the
/// first answer, so the branches traded answers with the timing).
#[test]
fn concurrent_branches_take_a_shared_queues_answers_in_edge_order() {
    runs_with_delays("shared_node.wf", "shared_node", "shared_node");
}

/// The same for the branches of a pipeline fan-out that both run the
/// stage `check`.
#[test]
fn concurrent_pipeline_branches_take_a_shared_queues_answers_in_edge_order() {
    runs_with_delays("shared_node.dot", "shared_node_dot", "shared_node_dot");
}

/// Runs `DIR/file` with the script `name` six times, the branches'
/// delays (`$DELAY_A`, `$DELAY_B`) in turn favouring one and the other:
/// every run ran its branches at once and ends with the trace `trace`.
fn runs_with_delays(file: &str, name: &str, trace_name: &str) {
    let agent = script(name);
    let file = format!("{DIR}/{file}");
    let delays = [
        ("0.4", "0"),
        ("0", "0.4"),
        ("0.2", "0"),
        ("0", "0.2"),
        ("0", "0"),
        ("0.1", "0"),
    ];
    for (round, (a, b)) in delays.into_iter().enumerate() {
        let dir = scratch(&format!("{name}-{round}"));
        let d = dir.to_str().unwrap();
        let out = wfc(&[
            "run",
            &file,
            "--agent",
            &agent,
            "--run-dir",
            d,
            "--allow-tools",
            "--format",
            "json",
        ])
        .env("DELAY_A", a)
        .env("DELAY_B", b)
        .output()
        .unwrap();
        let report = summary(&out);
        assert_eq!(out.status.code(), Some(0), "{report}");
        let log = std::fs::read_to_string(dir.join("log.jsonl")).unwrap();
        assert!(
            log.contains(r#""concurrency":2"#),
            "the branches ran at once"
        );
        expect_trace(trace_name, &trace(&report, &dir));
    }
}

/// A kill in an Attractor fan-out nested in a branch, once its inner
/// branch `i1` finished (journaled in the outer branch's own folder): the
/// resumed run takes `i1`'s result from that journal, so the resumed
/// script counts `i1`'s answer as used, and the second round gets `i1`'s
/// second answer (before: nested journals were not read, and the second
/// round got the first answer again). The end is the uninterrupted run's.
#[test]
fn a_kill_in_a_fan_out_nested_in_a_branch_keeps_its_finished_answers_used() {
    let file = "tests/run/script_resume/nested_loop.dot";
    let agent = script("nested_loop");
    let dir = scratch("nested-kill");
    let d = dir.to_str().unwrap();
    let mark = scratch("nested-kill.mark");
    let _ = std::fs::remove_file(&mark);
    let out = wfc(&[
        "run",
        file,
        "--agent",
        &agent,
        "--run-dir",
        d,
        "--allow-tools",
    ])
    .env("WFC_TEST_MARK", &mark)
    .output()
    .unwrap();
    assert_eq!(out.status.code(), None, "killed by i2");
    let journal = dir.join("outer/branches/step-1/0/inner/branches/step-1/0.json");
    assert!(journal.is_file(), "{}", journal.display());
    // From now on the mark is there: `i2` does not kill.
    let marked = |args: &[&str]| {
        let out = wfc(&[args, &["--allow-tools", "--format", "json"]].concat())
            .env("WFC_TEST_MARK", &mark)
            .output()
            .unwrap();
        let report = summary(&out);
        assert_eq!(out.status.code(), Some(0), "{report}");
        report
    };
    let resumed = marked(&["run", "--resume", d, "--agent", &agent]);
    let got = trace(&resumed, &dir);
    expect_trace("nested_loop", &got);
    let plain = scratch("nested-plain");
    let p = plain.to_str().unwrap();
    let report = marked(&["run", file, "--agent", &agent, "--run-dir", p]);
    assert_eq!(trace(&report, &plain), got);
    replays(&dir);
}

/// A kill in a child pipeline's fan-out, once its branch `i1` finished
/// (journaled in the child's own folder, `boss/child-journals/step-N/`):
/// the manager runs its child again, whose fan-out takes `i1`'s result
/// from there, so the resumed script counts `i1`'s answer as used and the
/// second child gets `i1`'s second answer (before: child journals were not
/// read, and the second child got the first answer again).
#[test]
fn a_kill_in_a_child_pipelines_fan_out_keeps_its_finished_answers_used() {
    let file = "tests/run/script_resume/child_loop.dot";
    let agent = script("child_loop");
    let dir = scratch("child-kill");
    let d = dir.to_str().unwrap();
    let mark = scratch("child-kill.mark");
    let _ = std::fs::remove_file(&mark);
    let run = |args: &[&str]| {
        wfc(&[args, &["--allow-tools", "--format", "json"]].concat())
            .env("WFC_TEST_MARK", &mark)
            .output()
            .unwrap()
    };
    let out = run(&["run", file, "--agent", &agent, "--run-dir", d]);
    assert_eq!(out.status.code(), None, "killed by i2");
    let journal = dir.join("boss/child-journals/step-1/fan/branches/step-1/0.json");
    assert!(journal.is_file(), "{}", journal.display());
    // From now on the mark is there: `i2` does not kill.
    let out = run(&["run", "--resume", d, "--agent", &agent]);
    let report = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    let i1 = std::fs::read_to_string(dir.join("boss/child/i1/response.md")).unwrap();
    let got = format!("{}response boss/child/i1: {i1:?}\n", trace(&report, &dir));
    expect_trace("child_loop", &got);
    let plain = scratch("child-plain");
    let p = plain.to_str().unwrap();
    let out = run(&["run", file, "--agent", &agent, "--run-dir", p]);
    let report = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    let i1 = std::fs::read_to_string(plain.join("boss/child/i1/response.md")).unwrap();
    let want = format!("{}response boss/child/i1: {i1:?}\n", trace(&report, &plain));
    assert_eq!(want, got);
    replays(&dir);
}
