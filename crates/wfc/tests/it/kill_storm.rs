//! Kill -9 at random moments (issue 17, "Tests"): real `wfc run`
//! processes on the fixtures of `tests/run/kill_storm/` (a `.wf` fan-out of
//! keyed effectful tools, an Attractor `parallel` fan-out with its fan-in,
//! a fan-out nested in a branch) are killed with SIGKILL at moments drawn
//! across the run's duration, then resumed, killed again, … until a
//! resume completes; then a new run starts. Every resumed run must:
//!
//! 1. end as the uninterrupted run did (status, step count, position and
//!    blackboard of the final report);
//! 2. have the uninterrupted run's step sequence in its log: steps `0..n`
//!    once each, each entering and leaving the same nodes with the same
//!    status (no recorded step lost or duplicated);
//! 3. run each keyed effect (a ledger line: key and process) at most once
//!    per process, never again once the killed process had recorded it
//!    done (in `log.jsonl`, or a branch's `effects.jsonl`), and run every
//!    key of the uninterrupted run;
//! 4. replay (`wfc replay`) identically.
//!
//! An effect whose command ran but whose `done` record the kill cut off
//! may run again: that is the at-least-once of a keyed effect (an
//! `at_most_once` node is the way to refuse it). The ledger check tells
//! the two apart by the process each line came from.
//!
//! The moments come from a seeded generator: a failure prints the seed;
//! `KILL_STORM_SEED=N cargo test -p wfc --test it kill_storm::` replays it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use insta_cmd::get_cargo_bin;
use serde_json::Value;

use crate::common::repo_root;

/// A fixture of `tests/run/kill_storm/`.
fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/run/kill_storm").join(name)
}

/// A fresh scratch directory for this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("kill-storm-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small seeded generator (PCG-style LCG): reproducible kill moments.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

/// One process of a run: `attempt` tags its tools' ledger lines.
/// `settle`: the flags that settle an unfinished `at_most_once` node.
fn spawn(
    file: &Path,
    run_dir: &Path,
    ledger: &Path,
    (attempt, settle): (usize, &[String]),
    out: &Path,
) -> Child {
    let run_dir = run_dir.to_str().unwrap();
    let mut args = vec!["run"];
    // A process killed before the first snapshot ran nothing: the run is
    // started again (docs/runtime.md, section 9).
    if !Path::new(run_dir).join("snapshot.json").exists() {
        args.extend([file.to_str().unwrap(), "--run-dir", run_dir]);
    } else {
        args.extend(["--resume", run_dir]);
    }
    args.extend(settle.iter().map(String::as_str));
    args.extend(["--allow-tools", "--format", "json", "--progress", "never"]);
    Command::new(get_cargo_bin("wfc"))
        .current_dir(repo_root())
        .args(&args)
        .env("WFC_TEST_LEDGER", ledger)
        .env("WFC_TEST_ATTEMPT", attempt.to_string())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(out.with_extension("out")).unwrap())
        .stderr(std::fs::File::create(out.with_extension("err")).unwrap())
        .spawn()
        .unwrap()
}

/// The ledger: for each key, the processes (attempts) it ran in.
fn ledger(path: &Path) -> BTreeMap<String, Vec<usize>> {
    let mut out: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for line in std::fs::read_to_string(path).unwrap_or_default().lines() {
        let (key, attempt) = line.split_once(' ').unwrap_or((line, ""));
        let attempt = attempt.trim().parse().unwrap_or(usize::MAX);
        out.entry(key.to_owned()).or_default().push(attempt);
    }
    out
}

/// The keys recorded done in the run directory: the log's effect lines
/// and every branch's `effects.jsonl`.
fn recorded_keys(run_dir: &Path) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let mut files = vec![run_dir.join("log.jsonl")];
    let mut dirs = vec![run_dir.to_owned()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.file_name().is_some_and(|n| n == "effects.jsonl") {
                files.push(p);
            }
        }
    }
    for f in files {
        for line in std::fs::read_to_string(&f).unwrap_or_default().lines() {
            if let Ok(v) = serde_json::from_str::<Value>(line)
                && v["effect"] == "done"
                && let Some(k) = v["key"].as_str()
            {
                keys.insert(k.to_owned());
            }
        }
    }
    keys
}

/// The log's steps: for each, its number and the nodes it entered and
/// left (with the status it left them with).
fn step_sequence(run_dir: &Path) -> Vec<(u64, Vec<String>)> {
    let text = std::fs::read_to_string(run_dir.join("log.jsonl")).unwrap();
    let mut steps = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("{\"step\"")) {
        let v: Value = serde_json::from_str(line).unwrap();
        let nodes = v["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let at = format!("{}/{}", e["workflow"].as_str()?, e["node"].as_str()?);
                match e["event"].as_str()? {
                    "node:enter" => Some(format!("enter {at}")),
                    "node:exit" => Some(format!("exit {at} {}", e["status"].as_str()?)),
                    _ => None,
                }
            })
            .collect();
        steps.push((v["step"].as_u64().unwrap(), nodes));
    }
    steps
}

/// The final report's comparable part.
fn ending(report: &Value) -> Value {
    serde_json::json!({"status": report["status"], "steps": report["steps"],
                       "at": report["at"], "blackboard": report["blackboard"]})
}

/// What the uninterrupted run did.
struct Baseline {
    ending: Value,
    steps: Vec<(u64, Vec<String>)>,
    keys: BTreeSet<String>,
    /// From its first snapshot to its end.
    duration: Duration,
}

fn baseline(name: &str, file: &Path) -> Baseline {
    let dir = scratch(&format!("{name}-baseline"));
    let (run_dir, ledger_file) = (dir.join("run"), dir.join("ledger"));
    let started = Instant::now();
    let mut child = spawn(file, &run_dir, &ledger_file, (0, &[]), &dir.join("p"));
    let mut snapshot = None;
    let status = loop {
        if snapshot.is_none() && run_dir.join("snapshot.json").exists() {
            snapshot = Some(Instant::now());
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let err = std::fs::read_to_string(dir.join("p.err")).unwrap_or_default();
    assert!(
        status.success(),
        "{name}: the uninterrupted run failed: {err}"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("p.out")).unwrap()).unwrap();
    let ledger = ledger(&ledger_file);
    assert!(
        ledger.values().all(|a| a == &[0]),
        "{name}: the uninterrupted run ran an effect twice: {ledger:?}"
    );
    Baseline {
        ending: ending(&report),
        steps: step_sequence(&run_dir),
        keys: ledger.into_keys().collect(),
        duration: snapshot.unwrap_or(started).elapsed(),
    }
}

/// What one storm did.
#[derive(Debug, Default)]
struct Tally {
    kills: usize,
    runs: usize,
    /// Keys that ran again after a kill cut off their `done` record.
    reruns: usize,
    /// Unfinished `at_most_once` nodes settled (`--assume-done`,
    /// `--rerun`).
    settled: usize,
}

/// Waits until no tool a killed process left running (each runs in a
/// process group of its own, which the kill of `wfc` spares) still runs:
/// until no process has `ledger_file` in its environment. Only then does
/// the ledger say whether an effect happened.
fn wait_for_orphans(ledger_file: &Path) {
    let needle = format!("WFC_TEST_LEDGER={}\0", ledger_file.display());
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        let running = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            })
            .any(|e| {
                std::fs::read(e.path().join("environ"))
                    .is_ok_and(|env| env.windows(needle.len()).any(|w| w == needle.as_bytes()))
            });
        if !running {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("tools of a killed process still run after 20 s");
}

/// The node an unsettled `at_most_once` effect suspended the run at.
fn unsettled(stderr: &str) -> Option<String> {
    let at = stderr.find("is at_most_once and was started")?;
    let head = &stderr[..at];
    let node = head.rsplit_once("node `")?.1;
    Some(node.split('`').next()?.to_owned())
}

/// How the operator settles `node`: its effect happened when the ledger
/// has it (after its command, if it still runs, has had time to write),
/// and then its outputs are what the command prints.
fn settle_flags(node: &str, ledger_file: &Path) -> Vec<String> {
    wait_for_orphans(ledger_file);
    if ledger(ledger_file).contains_key(node) {
        let outputs = serde_json::json!({
            format!("{node}.stdout"): format!("{node}\n"),
            format!("{node}.exit_code"): 0,
            format!("{node}.stderr"): "",
        });
        vec![
            "--assume-done".into(),
            node.into(),
            "--outputs".into(),
            outputs.to_string(),
        ]
    } else {
        vec!["--rerun".into(), node.into()]
    }
}

/// Runs `file` again and again, killing each process at a random moment,
/// until at least `kills` kills landed; checks every run (module docs).
fn storm(name: &str, file: &str, kills: usize, seed: u64) -> Tally {
    let file = fixture(file);
    let base = baseline(name, &file);
    let mut rng = Rng(seed);
    let mut tally = Tally::default();
    // Kill moments are drawn over the uninterrupted run's length, a bit
    // past it (a resumed process starts slower: it replays its log).
    let span = base.duration.as_millis() as u64 * 5 / 4 + 5;
    while tally.kills < kills {
        let dir = scratch(&format!("{name}-{}", tally.runs));
        tally.runs += 1;
        let (run_dir, ledger_file) = (dir.join("run"), dir.join("ledger"));
        // Keys each killed process had recorded done when it died.
        let mut recorded_at_kill: Vec<BTreeSet<String>> = Vec::new();
        let mut attempt = 0;
        let mut killed_here = 0;
        let mut settle: Vec<String> = Vec::new();
        let mut settled = 0;
        let report = loop {
            let out = dir.join(format!("p{attempt}"));
            let mut child = spawn(&file, &run_dir, &ledger_file, (attempt, &settle), &out);
            settle.clear();
            // One kill in eight lands while the process starts (creating
            // its run directory, or replaying its log); the others are
            // drawn from the first snapshot on, over the run's length.
            let early = rng.below(8) == 0;
            let t = Instant::now();
            while !early
                && !run_dir.join("snapshot.json").exists()
                && t.elapsed() < Duration::from_secs(20)
                && child.try_wait().unwrap().is_none()
            {
                std::thread::sleep(Duration::from_micros(200));
            }
            let last = killed_here >= 40;
            if !last {
                let wait = if early {
                    rng.below(30)
                } else {
                    rng.below(span)
                };
                std::thread::sleep(Duration::from_millis(wait));
            }
            let exited = match last {
                true => Some(child.wait().unwrap()),
                false => child.try_wait().unwrap(),
            };
            match exited {
                None => {
                    child.kill().unwrap();
                    child.wait().unwrap();
                    recorded_at_kill.push(recorded_keys(&run_dir));
                    tally.kills += 1;
                    killed_here += 1;
                    attempt += 1;
                }
                Some(status) => {
                    let err = std::fs::read_to_string(out.with_extension("err")).unwrap();
                    let text = std::fs::read_to_string(out.with_extension("out")).unwrap();
                    // A tool of the killed process, forked but not yet past
                    // its `exec`, can hold the lock a moment longer.
                    if status.code() == Some(2) && err.contains("is in use by process") {
                        std::thread::sleep(Duration::from_millis(20));
                        recorded_at_kill.push(recorded_keys(&run_dir));
                        attempt += 1;
                        continue;
                    }
                    // An `at_most_once` node the kill interrupted: the
                    // harness settles it as its operator would, by looking
                    // at the world (the ledger).
                    if status.code() == Some(3)
                        && let Some(node) = unsettled(&format!("{err}\n{text}"))
                    {
                        settle = settle_flags(&node, &ledger_file);
                        settled += 1;
                        recorded_at_kill.push(recorded_keys(&run_dir));
                        attempt += 1;
                        continue;
                    }
                    assert!(
                        status.success(),
                        "{name} (seed {seed}), run {}, process {attempt} after {killed_here} kills: {status}\n{err}\n{text}",
                        tally.runs
                    );
                    break serde_json::from_str::<Value>(&text).unwrap();
                }
            }
        };
        let what = format!(
            "{name} (seed {seed}, KILL_STORM_SEED={seed} replays it), run {} killed {killed_here} times ({})",
            tally.runs,
            dir.display()
        );
        // 1. It ends as the uninterrupted run did.
        assert_eq!(ending(&report), base.ending, "{what}: another ending");
        // 2. The same steps, each once.
        let steps = step_sequence(&run_dir);
        let numbers: Vec<u64> = steps.iter().map(|s| s.0).collect();
        let expected: Vec<u64> = (0..base.steps.len() as u64).collect();
        assert_eq!(numbers, expected, "{what}: steps lost or duplicated");
        for (got, want) in steps.iter().zip(&base.steps) {
            assert_eq!(got, want, "{what}: step {} differs", got.0);
        }
        // 3. The ledger.
        let ledger = ledger(&ledger_file);
        let keys: BTreeSet<String> = ledger.keys().cloned().collect();
        assert_eq!(keys, base.keys, "{what}: other effects ran");
        for (key, attempts) in &ledger {
            let mut seen = BTreeSet::new();
            for &a in attempts {
                assert!(
                    seen.insert(a),
                    "{what}: `{key}` ran twice in process {a}: {attempts:?}"
                );
                if let Some(k) = (0..a).find(|&k| recorded_at_kill[k].contains(key)) {
                    panic!(
                        "{what}: `{key}` was recorded done when process {k} was killed, \
                         and ran again in process {a}: {attempts:?}"
                    );
                }
            }
            tally.reruns += attempts.len() - 1;
        }
        // An `at_most_once` effect runs once, whatever the kills.
        for (key, attempts) in ledger.iter().filter(|(k, _)| k.starts_with("once_")) {
            assert_eq!(
                attempts.len(),
                1,
                "{what}: at_most_once `{key}` ran {attempts:?}"
            );
        }
        tally.settled += settled;
        // 4. Its log replays.
        if killed_here > 0 {
            let out = Command::new(get_cargo_bin("wfc"))
                .current_dir(repo_root())
                .args(["replay", run_dir.to_str().unwrap()])
                .output()
                .unwrap();
            assert!(out.status.success(), "{what}: replay: {out:?}");
        }
    }
    eprintln!("{name}: {tally:?} (seed {seed})");
    tally
}

/// The seed: `KILL_STORM_SEED`, else fixed (CI runs the same moments).
fn seed(offset: u64) -> u64 {
    std::env::var("KILL_STORM_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_0017_u64)
        .wrapping_add(offset)
}

/// 110 kills in all across the three fixtures (the tests run at once).
#[test]
fn a_wf_fan_out_of_keyed_effects_survives_random_kills() {
    let t = storm("wf_fan", "fan_effects.wf", 40, seed(1));
    assert!(t.runs >= 2, "{t:?}");
}

#[test]
fn an_attractor_fan_out_survives_random_kills() {
    let t = storm("dot_fan", "fan.dot", 35, seed(2));
    assert!(t.runs >= 2, "{t:?}");
}

#[test]
fn a_nested_fan_out_survives_random_kills() {
    let t = storm("nested", "nested.wf", 35, seed(3));
    assert!(t.runs >= 2, "{t:?}");
}

/// A `.dot` run killed between the step that enters its exit and the
/// step that completes it (found by the storm above): the resumed
/// process's lifecycle stood nowhere, so its `CheckpointSaved` named no
/// node where the uninterrupted run's named `done`, and `wfc replay` of
/// the resumed run diverged. The log now tells it where the run stood.
#[test]
fn a_dot_run_resumed_before_its_last_step_replays() {
    use wf_ir::WorkflowIdx;
    use wf_vm::agents::AutoAgent;
    use wf_vm::{Engine, EngineConfig, RunDir};
    let dir = scratch("dot_lifecycle");
    let file = dir.join("p.dot");
    let text = "digraph p {\n  start [shape=Mdiamond]\n  work [shape=box]\n  done [shape=Msquare]\n  start -> work -> done\n}\n";
    std::fs::write(&file, text).unwrap();
    let program = crate::common::dot::build(&file).unwrap();
    let run_dir = dir.join("run");
    let at = |engine: &Engine<'_>| {
        let node = engine.position().1;
        program
            .str(program.workflows[0].nodes[node.0 as usize].id)
            .to_owned()
    };
    {
        let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
        for (k, v) in wf_vm::attractor::graph_context(&program, &program.workflows[0]) {
            engine.set_input(&k, v).unwrap();
        }
        engine.set_checkpoints(true);
        let store = RunDir::create(&run_dir, &program, &serde_json::json!({})).unwrap();
        engine.persist_to(store).unwrap();
        let mut agent = AutoAgent::new();
        while at(&engine) != "done" {
            engine.step(&mut agent);
        }
        // The process dies here: the step into `done` is logged, no more.
    }
    let store = RunDir::open(&run_dir).unwrap();
    let mut engine = Engine::resume(&program, store, EngineConfig::default()).unwrap();
    let report = engine.run(&mut AutoAgent::new());
    assert_eq!(report.status.name(), "completed", "{report:?}");
    drop(engine);
    let store = RunDir::open_read_only(&run_dir).unwrap();
    let replay = Engine::replay(&program, &store).unwrap();
    assert_eq!(replay.divergence, None);
}

/// `wfc ARGS` with the ledger `ledger`: the exit code and stderr.
fn wfc_with(ledger: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(get_cargo_bin("wfc"))
        .current_dir(repo_root())
        .args(args)
        .env("WFC_TEST_LEDGER", ledger)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), err)
}

/// A kill inside a fan-out nested in a branch: resumed, the branch runs
/// again, but neither its keyed effect recorded before the kill (`x1`)
/// nor the inner branch that had finished (`i1`) runs again. Before, a
/// branch's engine had no run directory: it journaled and recorded
/// nothing, and both ran twice.
#[test]
fn a_kill_in_a_nested_fan_out_reruns_only_what_had_not_finished() {
    let dir = scratch("nested_kill");
    let (run_dir, ledger_file) = (dir.join("run"), dir.join("ledger"));
    let file = fixture("nested_kill.wf");
    let run = run_dir.to_str().unwrap();
    let (code, err) = wfc_with(
        &ledger_file,
        &[
            "run",
            file.to_str().unwrap(),
            "--allow-tools",
            "--run-dir",
            run,
        ],
    );
    assert_eq!(code, None, "`i2` kills the first process: {err}");
    let (code, err) = wfc_with(&ledger_file, &["run", "--resume", run, "--allow-tools"]);
    assert_eq!(code, Some(0), "{err}");
    let ledger = std::fs::read_to_string(&ledger_file).unwrap();
    assert_eq!(ledger, "y1\nx1\ni1\ni2\n");
    let inner = run_dir.join("branches/NestedKill/outer/step-1/1");
    assert!(inner.join("effects.jsonl").is_file(), "{}", inner.display());
    let (code, err) = wfc_with(&ledger_file, &["replay", run]);
    assert_eq!(code, Some(0), "{err}");
}

/// `--fork` carries the effect records of the steps before its point: the
/// fork reuses the keyed effect its source had completed instead of
/// running it again, records it in its own log (a resumed fork rebuilds
/// it from there), does not undo it when it fails (the source did), and
/// replays.
#[test]
fn a_fork_reuses_the_keyed_effects_its_source_completed() {
    let dir = scratch("fork_effects");
    let (source, fork, ledger_file) = (dir.join("src"), dir.join("fork"), dir.join("ledger"));
    let file = fixture("fork_effects.wf");
    let (src, new) = (source.to_str().unwrap(), fork.to_str().unwrap());
    let (code, err) = wfc_with(
        &ledger_file,
        &[
            "run",
            file.to_str().unwrap(),
            "--allow-tools",
            "--run-dir",
            src,
        ],
    );
    assert_eq!(code, Some(1), "`boom` fails the run: {err}");
    let ledger = std::fs::read_to_string(&ledger_file).unwrap();
    assert_eq!(ledger, "charge\nrefund\n");
    // Forked at `again`, after `charge` ran (steps 0 and 1).
    let (code, err) = wfc_with(
        &ledger_file,
        &[
            "run",
            "--fork",
            src,
            "--at",
            "2",
            "--run-dir",
            new,
            "--allow-tools",
        ],
    );
    assert_eq!(code, Some(1), "{err}");
    let ledger = std::fs::read_to_string(&ledger_file).unwrap();
    assert_eq!(
        ledger, "charge\nrefund\n",
        "the fork charged or refunded again"
    );
    let log = std::fs::read_to_string(fork.join("log.jsonl")).unwrap();
    let first: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(first["effect"], "done", "{first}");
    assert_eq!(first["key"], "charge-1", "{first}");
    assert_eq!(first.get("compensate"), None, "{first}");
    let step: Value = serde_json::from_str(log.lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        (&step["step"], &step["input"]),
        (&2.into(), &"reused".into())
    );
    let (code, err) = wfc_with(&ledger_file, &["replay", new]);
    assert_eq!(code, Some(0), "{err}");
}

/// `at_most_once` keyed effects under kills: an interrupted one suspends
/// the resumed run until settled (the harness looks at the ledger, as an
/// operator would look at the world), and each effect runs exactly once.
#[test]
fn at_most_once_effects_run_once_across_random_kills() {
    let t = storm("once", "once.wf", 25, seed(4));
    assert!(t.settled >= 1, "no kill left an effect to settle: {t:?}");
}
