//! Helpers for the Attractor `.dot` runtime tests: the `wfc` binary on the
//! fixtures of `tests/run/dot/`, and the `wf_vm` API on programs `wfc
//! build` compiled (for what the CLI cannot reach: custom handlers,
//! interviewers, child loaders).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::rc::Rc;

use insta_cmd::get_cargo_bin;
use serde_json::Value;
use wf_ir::{IrProgram, WorkflowIdx};
use wf_vm::attractor::human::shared;
use wf_vm::attractor::interviewer::Interviewer;
use wf_vm::attractor::parallel::{ChildLoader, Kit, install};
use wf_vm::attractor::{AttractorAgent, RunFiles};
use wf_vm::{CollectSink, DecisionAgent, Engine, EngineConfig, Report};

use crate::common::repo_root;

/// A fixture of `tests/run/dot/`.
pub fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/run/dot").join(name)
}

/// `wfc ARGS` from the repository root.
pub fn wfc(args: &[&str]) -> Output {
    Command::new(get_cargo_bin("wfc"))
        .current_dir(repo_root())
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("wfc runs")
}

/// A fresh scratch directory, per process (two test runs may share the
/// target directory).
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("wfc-dot-tests-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `wfc check --format concise FILE`: the exit code and the output.
pub fn check(file: &Path) -> (i32, String) {
    let out = wfc(&["check", "--format", "concise", file.to_str().unwrap()]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// `wfc build FILE -o -`, loaded and verified.
pub fn build(file: &Path) -> Result<IrProgram, String> {
    let out = wfc(&["build", file.to_str().unwrap(), "-o", "-"]);
    if !out.status.success() {
        return Err(format!(
            "wfc build {} failed: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    wf_ir::load(&String::from_utf8_lossy(&out.stdout)).map_err(|e| e.to_string())
}

/// The child-pipeline loader tests use: `wfc build`.
pub fn loader() -> ChildLoader {
    Rc::new(|p: &Path| build(p))
}

/// `wfc run FILE ARGS --format json`: the exit code and the report.
pub fn run(file: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["run", file.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend(["--format", "json"]);
    let out = wfc(&all);
    let report = crate::common::summary(&out);
    (out.status.code().unwrap_or(-1), report)
}

/// A JSON file in `dir`.
pub fn write_json(dir: &Path, name: &str, value: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(value).unwrap()).unwrap();
    p
}

/// What an API run gives back.
pub struct ApiRun {
    pub report: Report,
    /// Event names with their node (`node:enter start`, `handler:event
    /// ParallelStarted`, …).
    pub events: Vec<String>,
}

/// Runs `program`'s first workflow through the `wf_vm` API: the Attractor
/// adapter with `backend` (None: simulation), the R2 handlers with
/// `interviewer` and the test loader, `customize` to register more
/// handlers, and the run directory `dir`.
pub fn api_run(
    program: &IrProgram,
    dir: &Path,
    base_dir: Option<&Path>,
    backend: Option<Box<dyn DecisionAgent>>,
    interviewer: Option<Box<dyn Interviewer>>,
    customize: impl FnOnce(&mut AttractorAgent<'static>),
) -> ApiRun {
    let root = WorkflowIdx(0);
    let mut engine = Engine::new(program, root, EngineConfig::default()).unwrap();
    for (k, v) in wf_vm::attractor::graph_context(program, &program.workflows[0]) {
        engine.set_input(&k, v).unwrap();
    }
    engine.set_sleeper(Box::new(|_| {}));
    let sink = CollectSink::default();
    engine.set_event_sink(Box::new(sink.clone()));
    let mut agent = AttractorAgent::new(backend, Some(RunFiles::new(dir)));
    install(
        agent.registry_mut(),
        Kit {
            interviewer: interviewer.map(shared),
            loader: Some(loader()),
            base_dir: base_dir.map(Path::to_path_buf),
            root: None,
            depth: 0,
            tools: None,
            custom: Vec::new(),
            ..Kit::default()
        },
    );
    customize(&mut agent);
    let report = engine.run(&mut agent);
    let events = sink
        .events()
        .iter()
        .map(|v| {
            let name = v["event"].as_str().unwrap_or("?").to_owned();
            let what = v
                .get("name")
                .or_else(|| v.get("node"))
                .and_then(Value::as_str)
                .unwrap_or("");
            format!("{name} {what}")
        })
        .collect();
    ApiRun { report, events }
}
