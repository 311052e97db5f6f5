//! `wfc run --from NODE` and `wfc run --fork DIR --at STEP` (docs/runtime.md,
//! "Starting elsewhere: --from and --fork").

use std::path::{Path, PathBuf};

use serde_json::Value;
use wf_ir::{IrProgram, WorkflowIdx};
use wf_vm::required::{NeededBy, RequiredKey, required_from};
use wf_vm::{Engine, EngineConfig, ForkError, Origin, PersistError, RunDir, contract};

use super::agent::AgentSpec;
use super::resume::printable;
use super::{META_KIND, RunArgs, ToolMode, attractor, example};

/// Moves a new engine's start to `node` (`--from`): a node of the root
/// workflow, else an error with the closest id.
pub(super) fn start_from(
    engine: &mut Engine<'_>,
    program: &IrProgram,
    root: WorkflowIdx,
    node: &str,
) -> Result<(), String> {
    let wf = &program.workflows[root.0 as usize];
    if !wf.nodes.iter().any(|n| program.str(n.id) == node) {
        let name = program.str(wf.name);
        let ids = wf.nodes.iter().map(|n| program.str(n.id));
        // A node of another workflow of the file: say which.
        let elsewhere = program
            .workflows
            .iter()
            .find(|w| w.nodes.iter().any(|n| program.str(n.id) == node));
        let help = match ids
            .filter_map(|id| wf_analysis::suggest::closeness(node, id).map(|d| (d, id)))
            .min()
        {
            _ if let Some(w) = elsewhere => format!(
                "`{node}` is a node of workflow `{}`: run it with --workflow {}",
                program.str(w.name),
                program.str(w.name)
            ),
            Some((_, id)) => format!("did you mean `{id}`?"),
            None => format!("`wfc graph` lists the nodes of `{name}`"),
        };
        return Err(format!(
            "error: --from {node}: workflow `{name}` has no node `{node}`\n  help: {help}"
        ));
    }
    engine
        .start_from(node)
        .map(|_| ())
        .map_err(|e| format!("error: --from {node}: {e}"))
}

/// The keys a run from the engine's start node needs, with their types
/// where some node declares one (`--set` values for them are checked, and
/// kept as text for a `string`, as for the workflow's needs).
pub(super) fn typed_keys(
    engine: &Engine<'_>,
    program: &IrProgram,
    root: WorkflowIdx,
) -> Vec<(String, wf_ir::ValueType)> {
    let (_, start, _) = engine.position();
    required_from(program, root, start)
        .into_iter()
        .filter(|r| r.ty != wf_ir::ValueType::Any)
        .map(|r| (r.key, r.ty))
        .collect()
}

/// Refuses a `--from` run that was not given a key the start node, or a
/// node after it, needs before anything on the way writes it.
pub(super) fn check_given(
    engine: &Engine<'_>,
    program: &IrProgram,
    root: WorkflowIdx,
    node: &str,
) -> Result<(), String> {
    let (_, start, _) = engine.position();
    let board = engine.blackboard();
    let missing: Vec<RequiredKey> = required_from(program, root, start)
        .into_iter()
        .filter(|r| board.get_all(&r.key).is_empty())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let workflow = program.str(program.workflows[root.0 as usize].name);
    let list: Vec<String> = missing
        .iter()
        .map(|r| {
            let ty = contract::type_name(r.ty);
            let by = match &r.by {
                NeededBy::Workflow => format!("an input of workflow `{workflow}`"),
                NeededBy::Read(n) if n == node => format!("read by `{n}`"),
                NeededBy::Read(n) => format!("read by `{n}`, and not written on every path to it"),
                NeededBy::Call(n) => {
                    format!(
                        "needed by the workflow `{n}` calls, and not written on every path to it"
                    )
                }
            };
            format!("  `{}` ({ty}): {by}", r.key)
        })
        .collect();
    let sets: Vec<String> = missing
        .iter()
        .map(|r| format!("--set {}={}", r.key, example(r.ty)))
        .collect();
    let (n, it) = match missing.len() {
        1 => ("a key".to_owned(), "it"),
        n => (format!("{n} keys"), "them"),
    };
    Err(format!(
        "error: cannot start at `{node}`: {n} the run needs from there {} not given\n{}\n  \
         note: a run from `{node}` skips the nodes before it, so what they write must be given\n  \
         help: give {it} with {}",
        if missing.len() == 1 { "is" } else { "are" },
        list.join("\n"),
        sets.join(" ")
    ))
}

/// The source of `--fork DIR`: opened to read only (no lock is taken, so
/// a run still held by its process can be forked, up to its last complete
/// step; nothing in it is ever written), its pinned program (verified by
/// the IR loader) and its `meta.json`.
pub(super) fn fork_source(src: &Path) -> Result<(RunDir, IrProgram, Value), String> {
    let cannot = |e: &dyn std::fmt::Display| format!("error: cannot fork `{}`: {e}", src.display());
    let dir = RunDir::open_read_only(src).map_err(|e| match e {
        PersistError::NotFound(_) => format!("error: {e}"),
        e => cannot(&e),
    })?;
    let program = dir.program().map_err(|e| cannot(&e))?;
    let meta = dir.meta().map_err(|e| cannot(&e))?;
    if meta["kind"] != META_KIND {
        return Err(cannot(&"it was not started by `wfc run`"));
    }
    Ok((dir, program, meta))
}

/// The forked engine, made durable in `--run-dir NEW` (a new or empty
/// directory), whose `start.json` records the source and the step.
pub(super) fn fork<'p>(
    program: &'p IrProgram,
    source: &RunDir,
    args: &RunArgs,
    config: EngineConfig,
    meta: &Value,
    pipeline: bool,
) -> Result<(Engine<'p>, Option<RunDir>), String> {
    let at = args.at.unwrap_or_default();
    let src = source.path();
    let new = args
        .run_dir
        .as_deref()
        .expect("clap: --fork requires --run-dir");
    // Before anything is created: `RunDir::create` on the source itself
    // would take (and write) its lock file.
    if new.exists() && !is_empty_dir(new) {
        return Err(format!(
            "error: --run-dir {}: the directory exists and is not empty; a fork starts a new run\n  \
             help: name a new directory",
            new.display()
        ));
    }
    let engine = Engine::fork(program, source, at, config).map_err(|e| {
        let help = match &e {
            ForkError::OutOfRange { first, last, .. } => {
                format!("\n  help: choose a step from {first} to {last}")
            }
            ForkError::Ended { first, at, .. } => format!(
                "\n  help: fork it before its last step: at a step from {first} to {}",
                at.saturating_sub(1)
            ),
            ForkError::Diverged(_) => format!(
                "\n  help: `wfc replay {}` shows the divergence",
                src.display()
            ),
            ForkError::Engine(_) => String::new(),
        };
        format!(
            "error: cannot fork `{}` at step {at}: {e}{help}",
            src.display()
        )
    })?;
    let run_dir = RunDir::create(new, program, meta).map_err(|e| format!("error: {e}"))?;
    if pipeline {
        let source_file = meta["source"].as_str().unwrap_or("?");
        attractor::manifest(
            &wf_vm::attractor::RunFiles::new(new),
            program,
            engine.root(),
            Path::new(source_file),
        )?;
    }
    let origin = Origin::Fork {
        dir: absolute(src).display().to_string(),
        step: at,
    };
    let mut engine = engine;
    engine
        .persist_from(run_dir.clone(), origin)
        .map_err(|e| format!("error: {e}"))?;
    Ok((engine, Some(run_dir)))
}

/// The fork's `meta.json`: the source's, but for who decides and what
/// tools do, which are this command line's, as for a new run (a resume of
/// the fork defaults to them).
pub(super) fn fork_meta(source: &Value, agent: &AgentSpec, tools: ToolMode) -> Value {
    let mut meta = source.clone();
    meta["agent"] = agent.to_string().into();
    meta["tools"] = tools.name().into();
    meta["allow_tools"] = (tools == ToolMode::Run).into();
    meta
}

/// Says when the fork decides with another agent than its source did: a
/// command or file the source names is never run again unless this
/// command line names it.
pub(super) fn note_agent(source: &Value, spec: &AgentSpec) {
    let now = spec.to_string();
    if let Some(before) = source["agent"].as_str()
        && before != now
    {
        eprintln!(
            "note: the source run used `--agent {}`; the fork decides with `--agent {now}` (the agent comes from this command line)",
            printable(before)
        );
    }
}

fn is_empty_dir(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
}

/// `path` made absolute against the current directory (as given when that
/// fails): `start.json` must name the source wherever it is read from.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}
