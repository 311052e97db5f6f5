//! Every durable run of the run fixtures replays (issue 17.4): each
//! workflow of `examples/`, `tests/run/` and `tests/run/dot/` is run with a
//! run directory — with `--agent auto`, and with its script when a `.json`
//! of the same name lies beside it — and `wfc replay` of the directory
//! must say "identical". A replay that diverges fails the test, naming the
//! fixture and the divergence.

use crate::common::repo_root;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use insta_cmd::get_cargo_bin;

fn wfc(args: &[&str]) -> Output {
    Command::new(get_cargo_bin("wfc"))
        .current_dir(repo_root())
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap()
}

/// The workflow files directly in `dir` (repository-relative) with one of
/// `exts`, sorted.
fn fixtures(dir: &str, exts: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo_root().join(dir))
        .unwrap()
        .map(|e| Path::new(dir).join(e.unwrap().file_name()))
        .filter(|p| p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)))
        .collect();
    files.sort();
    files
}

/// Runs `file` durably with `agent` in a fresh directory; when the run
/// got as far as a run directory, replays it. `Some(message)`: the replay
/// did not verify.
fn run_and_replay(file: &Path, agent: &str, dir: &Path) -> (bool, Option<String>) {
    let d = dir.to_str().unwrap();
    let mut args = vec![
        "run".to_owned(),
        file.to_str().unwrap().to_owned(),
        "--agent".into(),
        agent.into(),
        "--run-dir".into(),
        d.into(),
    ];
    let _ = std::fs::remove_dir_all(dir);
    let mut run = wfc(&args.iter().map(String::as_str).collect::<Vec<_>>());
    // A workflow that needs inputs: given `1` for each (a number, or the
    // text "1" for a string), so that it runs further than its start.
    let needs = missing_inputs(&String::from_utf8_lossy(&run.stderr));
    if !needs.is_empty() {
        for key in needs {
            args.extend(["--set".into(), format!("{key}=1")]);
        }
        let _ = std::fs::remove_dir_all(dir);
        run = wfc(&args.iter().map(String::as_str).collect::<Vec<_>>());
    }
    assert_ne!(
        run.status.code(),
        Some(101),
        "wfc run {} panicked: {}",
        file.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    if !dir.join("start.json").exists() {
        // Refused before it started (a check error, a missing input).
        return (false, None);
    }
    let replay = wfc(&["replay", d]);
    let stdout = String::from_utf8_lossy(&replay.stdout);
    let ok = replay.status.code() == Some(0) && stdout.ends_with(": identical\n");
    let problem = (!ok).then(|| {
        format!(
            "`wfc replay` of `wfc run {} --agent {agent}` exits {:?}:\n{stdout}{}",
            file.display(),
            replay.status.code(),
            String::from_utf8_lossy(&replay.stderr)
        )
    });
    (true, problem)
}

/// The inputs a run said it needs and was not given ("needs `a`, `b`,
/// which the run was not given").
fn missing_inputs(stderr: &str) -> Vec<String> {
    let Some(at) = stderr.find(", which the run was not given") else {
        return Vec::new();
    };
    let head = &stderr[..at];
    let list = &head[head.rfind("needs ").map_or(0, |i| i + 6)..];
    list.split(", ")
        .map(|k| k.trim_matches('`').to_owned())
        .filter(|k| !k.is_empty())
        .collect()
}

#[test]
fn every_durable_fixture_run_replays_identically() {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wfc-replay-sweep");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let mut files = fixtures("examples", &["wf"]);
    files.extend(fixtures("tests/run", &["wf"]));
    files.extend(fixtures("tests/run/dot", &["dot"]));
    let (mut replayed, mut problems) = (0, Vec::new());
    let mut long = 0;
    for (i, file) in files.iter().enumerate() {
        let mut agents = vec!["auto".to_owned()];
        let script = file.with_extension("json");
        if repo_root().join(&script).exists() {
            agents.push(format!("script:{}", script.display()));
        }
        for (j, agent) in agents.iter().enumerate() {
            let dir = scratch.join(format!("{i}-{j}"));
            let (ran, problem) = run_and_replay(file, agent, &dir);
            replayed += usize::from(ran);
            problems.extend(problem);
            let steps =
                std::fs::read_to_string(dir.join("log.jsonl")).map_or(0, |l| l.lines().count());
            long += usize::from(steps >= 3);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    // The sweep must not pass by running nothing.
    assert!(replayed >= 30, "only {replayed} runs replayed");
    assert!(long >= 25, "only {long} runs took 3 steps or more");
}
