//! Crash safety (issues 4 and 14): `wfc run --run-dir` is killed with
//! SIGKILL at many different points of a run and resumed each time. The
//! run must end as an uninterrupted run does: the same final blackboard, a
//! step log holding every step exactly once, each with the same decision
//! and events, the same `--events` file, byte for byte, and (pipelines) the
//! same `checkpoint.json`. Also: two processes on one run directory.

use crate::common;

use common::summary;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use insta_cmd::get_cargo_bin;
use serde_json::Value;

const STEPS: usize = 200;
/// The fast chain: no step delay, so kills land anywhere in a step.
const FAST_STEPS: usize = 5_000;

fn wfc(args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(common::repo_root())
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A chain of `steps` nodes, each writing its own key (the entry `start`
/// and the terminal included, the run takes `steps` steps).
fn long_chain(dir: &Path, steps: usize) -> PathBuf {
    let mut text = String::from("workflow Long {\n");
    for i in 1..steps - 1 {
        text.push_str(&format!("  step n{i} {{ writes k{i}: int }}\n"));
    }
    text.push_str("  exit done\n  start");
    for i in 1..steps - 1 {
        text.push_str(&format!(" -> n{i}"));
    }
    text.push_str(" -> done\n}\n");
    let path = dir.join("long.wf");
    std::fs::write(&path, text).unwrap();
    path
}

/// The step log as (step, record) pairs, without the run ids, times and
/// durations (of the records and their events) that differ between runs.
fn log(dir: &Path) -> Vec<Value> {
    let unstamped = |v: &mut Value| {
        for f in ["run", "ts", "duration_ms"] {
            v.as_object_mut().unwrap().remove(f);
        }
    };
    std::fs::read_to_string(dir.join("log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut record: Value = serde_json::from_str(l).unwrap();
            unstamped(&mut record);
            record["events"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .for_each(unstamped);
            record
        })
        .collect()
}

/// Complete lines in the step log so far.
fn logged_steps(dir: &Path) -> usize {
    std::fs::read(dir.join("log.jsonl")).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

/// A small deterministic generator for the kill delays.
struct Lcg(u64);

impl Lcg {
    fn next_in(&mut self, lo: u64, hi: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (self.0 >> 33) % (hi - lo)
    }
}

/// How a crash loop kills.
struct Kills {
    /// How many times.
    count: usize,
    /// `--step-delay-ms 2` and kills a few logged steps later; else no
    /// delay and kills when the log has grown by a random part of the rest.
    slow: bool,
    /// The uninterrupted run's log size (for `slow: false`).
    log_size: u64,
    /// At most this percentage of the rest of the log between two kills
    /// (for `slow: false`).
    max_percent: u64,
}

/// The uninterrupted run of `file` in `base/reference`, with its events in
/// `base/reference.jsonl`; returns its JSON summary.
fn reference_run(file: &str, base: &Path) -> Value {
    let dir = base.join("reference");
    let events = base.join("reference.jsonl");
    let out = wfc(&[
        "run",
        file,
        "--agent",
        "auto",
        "--format",
        "json",
        "--run-dir",
        dir.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0));
    summary(&out)
}

/// Runs `file` with `--run-dir` under `base/crashing` and its events in
/// `base/crashing.jsonl`, killing it with SIGKILL at random points and
/// resuming each time; returns the final run's output, the number of
/// kills and the kill points (steps logged at each kill).
fn crash_loop(
    file: &str,
    base: &Path,
    kills_wanted: Kills,
) -> (
    std::process::Output,
    usize,
    std::collections::BTreeSet<usize>,
) {
    let dir = base.join("crashing");
    let d = dir.to_str().unwrap();
    let events = base.join("crashing.jsonl");
    let e = events.to_str().unwrap();
    let mut common = vec!["--format", "json", "--events", e];
    if kills_wanted.slow {
        common.extend(["--step-delay-ms", "2"]);
    }
    let fresh = [
        &["run", file, "--agent", "auto", "--run-dir", d][..],
        &common,
    ]
    .concat();
    let resume = [&["run", "--resume", d, "--agent", "auto"][..], &common].concat();
    let mut rng = Lcg(0x5eed);
    let mut kills = 0;
    // How many steps were logged at each kill.
    let mut kill_points = std::collections::BTreeSet::new();
    let mut started_fresh = false;
    let deadline = Instant::now() + Duration::from_secs(120);
    let last = loop {
        assert!(Instant::now() < deadline, "the crash loop did not finish");
        // Until the first snapshot exists there is nothing to resume.
        let args = if started_fresh && dir.join("snapshot.json").exists() {
            &resume
        } else {
            let _ = std::fs::remove_dir_all(&dir);
            started_fresh = true;
            &fresh
        };
        // Files, not pipes: a summary bigger than a pipe's buffer would
        // block a child nobody reads from until it is waited for.
        let (out_path, err_path) = (base.join("stdout"), base.join("stderr"));
        let mut child = wfc(args)
            .stdout(std::fs::File::create(&out_path).unwrap())
            .stderr(std::fs::File::create(&err_path).unwrap())
            .spawn()
            .unwrap();
        if kills < kills_wanted.count {
            if kills_wanted.slow {
                // Kill once the log has grown by a few more steps (whatever
                // the machine's speed), a random moment later: between
                // steps, in the middle of a log append or of a snapshot.
                let target = logged_steps(&dir) + rng.next_in(3, 20) as usize;
                let wait_until = Instant::now() + Duration::from_secs(20);
                while logged_steps(&dir) < target
                    && Instant::now() < wait_until
                    && child.try_wait().unwrap().is_none()
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                std::thread::sleep(Duration::from_millis(rng.next_in(0, 5)));
            } else {
                // Once the run is stepping (checking, compiling and the
                // replay of a resume come first), steps take microseconds:
                // any moment is inside one.
                // Kill once a random part of the rest of the log is
                // written, whatever the machine's speed.
                let size = |d: &Path| std::fs::metadata(d.join("log.jsonl")).map_or(0, |m| m.len());
                let before = size(&dir);
                let rest = kills_wanted.log_size.saturating_sub(before);
                let target = before + rest * rng.next_in(1, kills_wanted.max_percent) / 100;
                let wait_until = Instant::now() + Duration::from_secs(20);
                while size(&dir) < target
                    && Instant::now() < wait_until
                    && child.try_wait().unwrap().is_none()
                {
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
            if child.try_wait().unwrap().is_none() {
                child.kill().unwrap(); // SIGKILL
                child.wait().unwrap();
                kills += 1;
                kill_points.insert(logged_steps(&dir));
                continue;
            }
        }
        let out = std::process::Output {
            status: child.wait().unwrap(),
            stdout: std::fs::read(&out_path).unwrap(),
            stderr: std::fs::read(&err_path).unwrap(),
        };
        if out.status.code() == Some(0) {
            assert_replays(&dir);
            break out;
        }
        panic!(
            "a resumed run ended with {:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    };
    (last, kills, kill_points)
}

#[cfg(unix)]
#[test]
fn killed_runs_resume_to_the_uninterrupted_result() {
    let base = scratch("wfc-crash-test");
    let file = long_chain(&base, STEPS);
    let file = file.to_str().unwrap();

    let reference_dir = base.join("reference");
    let reference_summary = reference_run(file, &base);
    assert_eq!(reference_summary["steps"], STEPS as u64);
    let reference_log = log(&reference_dir);
    assert_eq!(reference_log.len(), STEPS);

    let dir = base.join("crashing");
    let kills = Kills {
        count: 40,
        slow: true,
        log_size: 0,
        max_percent: 0,
    };
    let (last, kills, kill_points) = crash_loop(file, &base, kills);
    eprintln!("{kills} kills, after these numbers of logged steps: {kill_points:?}");
    let inside = kill_points.iter().filter(|&&n| n > 0 && n < STEPS).count();
    assert!(
        inside >= 5,
        "only {inside} different kill points inside the run: {kill_points:?}"
    );

    let final_summary = summary(&last);
    assert_eq!(final_summary["status"], "completed");
    assert_eq!(final_summary["steps"], reference_summary["steps"]);
    assert_eq!(final_summary["blackboard"], reference_summary["blackboard"]);
    let crashed_log = log(&dir);
    let steps: Vec<u64> = crashed_log
        .iter()
        .map(|r| r["step"].as_u64().unwrap())
        .collect();
    assert_eq!(
        steps,
        (0..STEPS as u64).collect::<Vec<_>>(),
        "a step is missing or recorded twice (after {kills} kills)"
    );
    assert_eq!(crashed_log, reference_log, "a step's record differs");
    same_events(&base, kills);
}

/// The `--events` files of the crashed and the reference run are equal.
fn same_events(base: &Path, kills: usize) {
    let read = |name: &str| common::unstamped(&std::fs::read_to_string(base.join(name)).unwrap());
    let (want, got) = (read("reference.jsonl"), read("crashing.jsonl"));
    if want != got {
        let first = want.lines().zip(got.lines()).position(|(a, b)| a != b);
        panic!(
            "the event files differ after {kills} kills ({} and {} lines); first difference at line {first:?}",
            want.lines().count(),
            got.lines().count()
        );
    }
}

/// A fast chain of 5,000 steps killed at random moments: steps take
/// microseconds, so kills land between an event's write and the step's
/// log record (where events were once written twice) and in log appends.
#[cfg(unix)]
#[test]
fn killed_fast_runs_keep_their_event_file_exact() {
    let base = scratch("wfc-crash-test-fast");
    let file = long_chain(&base, FAST_STEPS);
    let file = file.to_str().unwrap();
    let reference = reference_run(file, &base);
    let log_size = std::fs::metadata(base.join("reference/log.jsonl"))
        .unwrap()
        .len();
    let kills = Kills {
        count: 12,
        slow: false,
        log_size,
        max_percent: 60,
    };
    let (last, kills, kill_points) = crash_loop(file, &base, kills);
    eprintln!("{kills} kills, after these numbers of logged steps: {kill_points:?}");
    let inside = kill_points
        .iter()
        .filter(|&&n| n > 0 && n < FAST_STEPS)
        .count();
    assert!(
        inside >= 5,
        "only {inside} different kill points inside the run: {kill_points:?}"
    );
    let final_summary = summary(&last);
    assert_eq!(final_summary["status"], "completed");
    assert_eq!(final_summary["blackboard"], reference["blackboard"]);
    assert_eq!(logged_steps(&base.join("crashing")), FAST_STEPS);
    same_events(&base, kills);
}

/// An Attractor pipeline of `STEPS` nodes: start, LLM stages, exit.
fn long_pipeline(dir: &Path) -> PathBuf {
    let mut text =
        String::from("digraph long {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n");
    for i in 1..STEPS - 1 {
        text.push_str(&format!("  s{i} [prompt=\"Stage {i}\"]\n"));
    }
    text.push_str("  start");
    for i in 1..STEPS - 1 {
        text.push_str(&format!(" -> s{i}"));
    }
    text.push_str(" -> done\n}\n");
    let path = dir.join("long.dot");
    std::fs::write(&path, text).unwrap();
    path
}

fn checkpoint(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("checkpoint.json")).unwrap()).unwrap()
}

/// The same for a `.dot` pipeline: the run directory of seed 5.6 too must
/// end as an uninterrupted run's (`checkpoint.json` with every node
/// completed once, in order; a status file per stage).
#[cfg(unix)]
#[test]
fn killed_pipelines_resume_to_the_uninterrupted_result() {
    let base = scratch("wfc-crash-test-dot");
    let file = long_pipeline(&base);
    let file = file.to_str().unwrap();
    let reference_dir = base.join("reference");
    let reference_summary = reference_run(file, &base);
    assert_eq!(reference_summary["steps"], STEPS as u64);

    // No step delay: kills land anywhere in a step, between an event
    // written and the step's log record too.
    let log_size = std::fs::metadata(reference_dir.join("log.jsonl"))
        .unwrap()
        .len();
    let kills = Kills {
        count: 40,
        slow: false,
        log_size,
        max_percent: 8,
    };
    let (last, kills, kill_points) = crash_loop(file, &base, kills);
    let dir = base.join("crashing");
    let inside = kill_points.iter().filter(|&&n| n > 0 && n < STEPS).count();
    assert!(
        inside >= 5,
        "only {inside} different kill points inside the run: {kill_points:?}"
    );
    let final_summary = summary(&last);
    assert_eq!(final_summary["status"], "completed");
    assert_eq!(final_summary["blackboard"], reference_summary["blackboard"]);
    assert_eq!(
        log(&dir),
        log(&reference_dir),
        "a step's record differs (after {kills} kills)"
    );
    let (want, got) = (checkpoint(&reference_dir), checkpoint(&dir));
    assert_eq!(got["completed_nodes"], want["completed_nodes"]);
    assert_eq!(got["completed_nodes"].as_array().unwrap().len(), STEPS);
    assert_eq!(got["current_node"], "done");
    assert!(
        got["context"]["graph.goal"].is_string(),
        "{}",
        got["context"]
    );
    // All of it but the time it was written.
    let untimed = |mut c: Value| {
        c.as_object_mut().unwrap().remove("timestamp");
        c
    };
    assert_eq!(untimed(got), untimed(want));
    same_events(&base, kills);
    for i in 1..STEPS - 1 {
        let status = dir.join(format!("s{i}/status.json"));
        let text = std::fs::read_to_string(&status).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["outcome"], "success", "{}", status.display());
    }
}

/// Two processes on one run directory: while a run holds it, a second
/// `wfc run --resume` and a second `wfc run --run-dir` are refused with the
/// holder's pid (exit 2) and do nothing; once it ends, resuming works.
#[cfg(unix)]
#[test]
fn a_second_process_is_refused_while_a_run_holds_its_directory() {
    let base = scratch("wfc-lock-test");
    let file = long_chain(&base, 40);
    let file = file.to_str().unwrap();
    let dir = base.join("run");
    let d = dir.to_str().unwrap();
    let mut first = wfc(&[
        "run",
        file,
        "--agent",
        "auto",
        "--run-dir",
        d,
        "--step-delay-ms",
        "50",
    ])
    .spawn()
    .unwrap();
    let wait_until = Instant::now() + Duration::from_secs(20);
    while logged_steps(&dir) < 2 {
        assert!(Instant::now() < wait_until, "the first run did not start");
        std::thread::sleep(Duration::from_millis(5));
    }
    let want = format!(
        "error: run directory {d} is in use by process {}\n",
        first.id()
    );
    for args in [
        &["run", "--resume", d][..],
        &["run", file, "--agent", "auto", "--run-dir", d][..],
    ] {
        let before = logged_steps(&dir);
        let out = wfc(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), want, "{args:?}");
        assert!(out.stdout.is_empty());
        assert!(logged_steps(&dir) >= before);
    }
    first.kill().unwrap();
    first.wait().unwrap();
    let out = wfc(&["run", "--resume", d, "--agent", "auto", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps: Vec<u64> = log(&dir)
        .iter()
        .map(|r| r["step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, (0..40).collect::<Vec<_>>(), "each step once");
}

/// `wfc replay` of a run resumed after kills verifies (issue 17.4): the
/// log's decisions, re-applied from the start, give the logged events and
/// the final snapshot.
fn assert_replays(dir: &Path) {
    let out = wfc(&["replay", dir.to_str().unwrap()]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.ends_with(" steps: identical\n"), "{stdout}");
}
