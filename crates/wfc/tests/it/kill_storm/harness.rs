//! The storm: runs, kills, resumes and checks (see the module above).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use insta_cmd::get_cargo_bin;
use serde_json::Value;

use super::settle::{settle_flags, unsettled};
use crate::common::repo_root;

/// A fixture of `tests/run/kill_storm/`.
pub(super) fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/run/kill_storm").join(name)
}

/// A fresh scratch directory for this test process.
pub(super) fn scratch(name: &str) -> PathBuf {
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
pub(super) fn ledger(path: &Path) -> BTreeMap<String, Vec<usize>> {
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

/// Whether a step record is a fan-out's suspension on `at_most_once`
/// nodes of its branches that a kill cut off: a step the uninterrupted run
/// does not have (docs/runtime.md, "`at_most_once` in a branch").
fn effect_suspension(step: &Value) -> bool {
    step["decision"]["type"] == "suspend"
        && step["decision"]["reason"].as_str().is_some_and(|r| {
            r.contains("at_most_once") && r.contains("in parallel branch")
                || r.contains("in a parallel branch but not recorded as finished")
        })
}

/// The log's steps: for each, its number and the nodes it entered and
/// left (with the status it left them with). `suspensions`: how many
/// steps were fan-out suspensions on unsettled effects, left out.
fn step_sequence(run_dir: &Path, suspensions: &mut u64) -> Vec<(u64, Vec<String>)> {
    let text = std::fs::read_to_string(run_dir.join("log.jsonl")).unwrap();
    let mut steps = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("{\"step\"")) {
        let v: Value = serde_json::from_str(line).unwrap();
        if effect_suspension(&v) {
            // Numbered still: the steps after it must follow on.
            *suspensions += 1;
            steps.push((v["step"].as_u64().unwrap(), vec!["(suspension)".into()]));
            continue;
        }
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
        steps: step_sequence(&run_dir, &mut 0),
        keys: ledger.into_keys().collect(),
        duration: snapshot.unwrap_or(started).elapsed(),
    }
}

/// What one storm did.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub(super) kills: usize,
    pub(super) runs: usize,
    /// Keys that ran again after a kill cut off their `done` record.
    pub(super) reruns: usize,
    /// Unfinished `at_most_once` nodes settled (`--assume-done`,
    /// `--rerun`).
    pub(super) settled: usize,
}

/// One run, killed until a process completes it: what the checks need.
struct Killed {
    dir: PathBuf,
    run_dir: PathBuf,
    ledger_file: PathBuf,
    /// The completing process's report.
    report: Value,
    /// The keys each killed process had recorded done when it died, by
    /// process.
    recorded_at_kill: Vec<BTreeSet<String>>,
    kills: usize,
    settled: usize,
}

/// Runs `file` again and again, killing each process at a random moment,
/// until at least `kills` kills landed; checks every run (module docs).
pub(super) fn storm(name: &str, file: &str, kills: usize, seed: u64) -> Tally {
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
        let what = |killed: usize| {
            format!(
                "{name} (seed {seed}, KILL_STORM_SEED={seed} replays it), run {} killed {killed} times ({})",
                tally.runs,
                dir.display()
            )
        };
        let run = kill_until_done(&file, dir.clone(), &mut rng, span, &what);
        check(&run, &base, &what(run.kills), &mut tally);
        tally.kills += run.kills;
        tally.settled += run.settled;
    }
    eprintln!("{name}: {tally:?} (seed {seed})");
    tally
}

/// Runs `file` in `dir/run`, killing each process after a moment drawn
/// from `rng` (up to `span` ms from its first snapshot, or 30 ms from its
/// start for one in eight), resuming after each kill, until a process
/// completes the run (after 40 kills, the last is let be).
fn kill_until_done(
    file: &Path,
    dir: PathBuf,
    rng: &mut Rng,
    span: u64,
    what: &dyn Fn(usize) -> String,
) -> Killed {
    let mut run = Killed {
        run_dir: dir.join("run"),
        ledger_file: dir.join("ledger"),
        dir,
        report: Value::Null,
        recorded_at_kill: Vec::new(),
        kills: 0,
        settled: 0,
    };
    let mut settle: Vec<String> = Vec::new();
    loop {
        let attempt = run.recorded_at_kill.len();
        let out = run.dir.join(format!("p{attempt}"));
        let mut child = spawn(
            file,
            &run.run_dir,
            &run.ledger_file,
            (attempt, &settle),
            &out,
        );
        settle.clear();
        // One kill in eight lands while the process starts (creating its
        // run directory, or replaying its log); the others are drawn from
        // the first snapshot on, over the run's length.
        let early = rng.below(8) == 0;
        let t = Instant::now();
        while !early
            && !run.run_dir.join("snapshot.json").exists()
            && t.elapsed() < Duration::from_secs(20)
            && child.try_wait().unwrap().is_none()
        {
            std::thread::sleep(Duration::from_micros(200));
        }
        let last = run.kills >= 40;
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
        let Some(status) = exited else {
            child.kill().unwrap();
            child.wait().unwrap();
            run.recorded_at_kill.push(recorded_keys(&run.run_dir));
            run.kills += 1;
            continue;
        };
        let err = std::fs::read_to_string(out.with_extension("err")).unwrap();
        let text = std::fs::read_to_string(out.with_extension("out")).unwrap();
        // A tool of the killed process, forked but not yet past its
        // `exec`, can hold the lock a moment longer.
        if status.code() == Some(2) && err.contains("is in use by process") {
            std::thread::sleep(Duration::from_millis(20));
            run.recorded_at_kill.push(recorded_keys(&run.run_dir));
            continue;
        }
        // An `at_most_once` node the kill interrupted: the harness
        // settles it as its operator would, by looking at the world.
        let nodes = unsettled(&format!("{err}\n{text}"));
        if status.code() == Some(3) && !nodes.is_empty() {
            settle = settle_flags(&nodes, &run.ledger_file);
            run.settled += nodes.len();
            run.recorded_at_kill.push(recorded_keys(&run.run_dir));
            continue;
        }
        assert!(
            status.success(),
            "{}: process {attempt}: {status}\n{err}\n{text}",
            what(run.kills)
        );
        run.report = serde_json::from_str(&text).unwrap();
        return run;
    }
}

/// The four properties of the module docs, for one run.
fn check(run: &Killed, base: &Baseline, what: &str, tally: &mut Tally) {
    // 2. The same steps, each once: numbered without a gap or a repeat,
    // the same nodes in the same order once the suspensions on unsettled
    // effects in branches (a step each, which the uninterrupted run did
    // not take) are left out.
    let mut suspensions = 0;
    let steps = step_sequence(&run.run_dir, &mut suspensions);
    let numbers: Vec<u64> = steps.iter().map(|s| s.0).collect();
    let expected: Vec<u64> = (0..base.steps.len() as u64 + suspensions).collect();
    assert_eq!(numbers, expected, "{what}: steps lost or duplicated");
    let taken: Vec<&Vec<String>> = (steps.iter())
        .filter(|s| s.1 != ["(suspension)"])
        .map(|s| &s.1)
        .collect();
    let want: Vec<&Vec<String>> = base.steps.iter().map(|s| &s.1).collect();
    assert_eq!(taken, want, "{what}: the steps differ");
    // 1. It ends as the uninterrupted run did, in as many steps but
    // those suspensions.
    let mut ending_now = ending(&run.report);
    if let Some(n) = ending_now["steps"].as_u64() {
        ending_now["steps"] = (n - suspensions).into();
    }
    assert_eq!(ending_now, base.ending, "{what}: another ending");
    // 3. The ledger: the same effects; none twice in one process, none
    // again once recorded done; `at_most_once` ones (`once_…`) once.
    let ledger = ledger(&run.ledger_file);
    let keys: BTreeSet<String> = ledger.keys().cloned().collect();
    assert_eq!(keys, base.keys, "{what}: other effects ran");
    for (key, attempts) in &ledger {
        let mut seen = BTreeSet::new();
        for &a in attempts {
            assert!(
                seen.insert(a),
                "{what}: `{key}` ran twice in process {a}: {attempts:?}"
            );
            if let Some(k) = (0..a).find(|&k| run.recorded_at_kill[k].contains(key)) {
                panic!(
                    "{what}: `{key}` was recorded done when process {k} was killed, \
                     and ran again in process {a}: {attempts:?}"
                );
            }
        }
        if key.starts_with("once_") {
            assert_eq!(
                attempts.len(),
                1,
                "{what}: at_most_once `{key}` ran {attempts:?}"
            );
        }
        tally.reruns += attempts.len() - 1;
    }
    // 4. Its log replays.
    if run.kills > 0 {
        let out = Command::new(get_cargo_bin("wfc"))
            .current_dir(repo_root())
            .args(["replay", run.run_dir.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{what}: replay: {out:?}");
    }
}
