//! `stack.manager_loop` (seed 4.11): supervises a child pipeline.
//!
//! The child is the `.dot` file `stack.child_dotfile` (fabro:
//! `stack.child_workflow`) names (the node's attribute, else the graph's),
//! relative to the parent pipeline's directory, confined like an import
//! (see `confine` below): `wfc check` checks the same rules, and they hold
//! here again because the IR may come from elsewhere. It is loaded by the
//! [`ChildLoader`](super::parallel::ChildLoader) the CLI provides and runs
//! in its own engine with the same backend, interviewer and tool runner
//! (`--allow-tools`), the run's engine configuration, and what is left of
//! the run's limits (its own limits apply where tighter); its run
//! directory is `{run_dir}/{manager node}/child/`.
//!
//! The engine is single-threaded, so supervision is cooperative: one
//! **cycle** lets the child run for up to `manager.poll_interval` (default
//! 45 s) of wall time — at least one step, and never past its end — then
//! the manager observes it. That is the seed's "wait" (the child's work is
//! the wait; the manager never sleeps on top of it). After each cycle:
//!
//! 1. with `observe` in `manager.actions` (default `observe,wait`), the
//!    child's telemetry is recorded: `stack.child.status` (`running`,
//!    `completed`, `failed`), `stack.child.outcome`, `stack.child.current_node`,
//!    `stack.child.steps`, `stack.child.cycles`;
//! 2. a completed child whose last outcome is not `fail` → `success`; a
//!    failed child → `fail` ("Child failed: …");
//! 3. `manager.stop_condition` (the condition language of section 10,
//!    against the child's context plus the `stack.child.*` keys) → `success`.
//!
//! After `manager.max_cycles` (default 1000) cycles: `fail` ("Max cycles
//! exceeded"). With `steer` in `manager.actions`, after each cycle the
//! child is still running, the manager writes its instructions
//! (`manager.steer_prompt`, else its `prompt`) into the stage directory of
//! the node the child runs next, once per node it moves to ([`steer`]);
//! this needs a run directory. `stack.child_autostart=false` is refused
//! (there is no other way to start the child).
//!
//! A gate in the child with no answer (or in a fan-out of the child), in
//! a run with a run directory, suspends the run (a manager in a branch or
//! a child: the branch or child around it waits in turn): the child is
//! kept where it waits, in the manager's own folder, and restored there
//! on resume ([`wait`]). So is a child an agent error suspended, whose
//! step is then tried again. Elsewhere a suspended child fails the node.
//!
//! In a run with a run directory the child has a folder of its own for
//! the manager's step ([`journal`]): the fan-outs in it journal there, so
//! a child run again after a kill does not run their finished branches
//! again, and its keyed effects are recorded there.

mod condition;
pub mod journal;
pub mod steer;
pub mod wait;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use condition::duration;
pub use condition::evaluate_condition;

use serde_json::{Map, Value, json};

use super::handler::{Handler, HandlerCx};
use super::parallel::branch::Lent;
use super::parallel::{Kit, install};
use super::{AttractorAgent, RunFiles};
use crate::agent::{AgentError, BlackboardView, Decision, DecisionAgent, Outcome, Status, Write};
use crate::report::RunStatus;

/// How deep child pipelines and parallel branches may nest (a child
/// naming its own file, or a branch leading back into a fan-out, would
/// otherwise recurse forever).
pub const MAX_CHILD_DEPTH: u32 = 8;

/// The `stack.manager_loop` handler.
pub struct ManagerLoop {
    kit: Kit,
}

impl ManagerLoop {
    /// A manager whose child pipelines get the handlers of `kit`.
    pub fn new(kit: Kit) -> Self {
        ManagerLoop { kit }
    }
}

fn fail(reason: String, writes: Vec<Write>) -> Decision {
    Decision::Advance(Outcome {
        status: Status::Fail,
        failure_reason: Some(reason),
        writes,
        ..Outcome::success()
    })
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// An attribute of the node, else of the graph.
fn attr(cx: &HandlerCx<'_, '_>, key: &str) -> Option<String> {
    cx.attrs
        .get(key)
        .or_else(|| cx.decision.workflow.spec.get(key))
        .map(text)
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

impl Handler for ManagerLoop {
    fn execute(&mut self, cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        let node = cx.node_id.to_owned();
        // fabro spells it `stack.child_workflow`.
        let dotfile = attr(cx, "stack.child_dotfile").or_else(|| attr(cx, "stack.child_workflow"));
        let Some(dotfile) = dotfile else {
            return Ok(fail(
                format!(
                    "manager node `{node}` has no `stack.child_dotfile` (on the node or the graph): there is no child pipeline to supervise"
                ),
                Vec::new(),
            ));
        };
        let max_cycles = match attr(cx, "manager.max_cycles").map(|m| m.parse::<u64>()) {
            None => 1000,
            Some(Ok(m)) if m >= 1 => m,
            Some(_) => {
                return Ok(fail(
                    format!(
                        "manager node `{node}`: manager.max_cycles must be a whole number of at least 1"
                    ),
                    Vec::new(),
                ));
            }
        };
        let poll = match attr(cx, "manager.poll_interval") {
            None => Duration::from_secs(45),
            Some(p) => match duration(&p) {
                Some(d) => d,
                None => {
                    return Ok(fail(
                        format!(
                            "manager node `{node}`: manager.poll_interval `{p}` is not a duration (e.g. 45s, 500ms)"
                        ),
                        Vec::new(),
                    ));
                }
            },
        };
        let stop = attr(cx, "manager.stop_condition");
        let actions = attr(cx, "manager.actions").unwrap_or_else(|| "observe,wait".into());
        let observe = actions.split(',').any(|a| a.trim() == "observe");
        let steering = actions.split(',').any(|a| a.trim() == "steer");
        let instructions = attr(cx, "manager.steer_prompt")
            .or_else(|| attr(cx, "prompt"))
            .map(|p| p.replace("$goal", cx.goal));
        if attr(cx, "stack.child_autostart").as_deref() == Some("false") {
            return Ok(fail(
                format!(
                    "manager node `{node}`: stack.child_autostart=false is not supported (the manager starts its child)"
                ),
                Vec::new(),
            ));
        }
        if self.kit.depth >= MAX_CHILD_DEPTH {
            return Ok(fail(
                format!(
                    "child pipelines are nested {MAX_CHILD_DEPTH} deep at `{node}` (does `{dotfile}` supervise itself?)"
                ),
                Vec::new(),
            ));
        }
        let path = match confine(&self.kit, &dotfile) {
            Ok(path) => path,
            Err(why) => {
                return Ok(fail(
                    format!(
                        "manager node `{node}` cannot load its child pipeline `{dotfile}`: {why}"
                    ),
                    Vec::new(),
                ));
            }
        };
        let Some(loader) = self.kit.loader.clone() else {
            return Ok(fail(
                format!(
                    "manager node `{node}` cannot load its child pipeline `{}`: this run has no child-pipeline loader",
                    path.display()
                ),
                Vec::new(),
            ));
        };
        let program = match loader(&path) {
            Ok(p) => p,
            Err(e) => {
                return Ok(fail(
                    format!(
                        "manager node `{node}`: the child pipeline `{}` cannot run: {e}",
                        path.display()
                    ),
                    Vec::new(),
                ));
            }
        };
        let Some(root) = program.workflows.first().map(|_| wf_ir::WorkflowIdx(0)) else {
            return Ok(fail(
                format!(
                    "manager node `{node}`: the child pipeline `{}` has no workflow",
                    path.display()
                ),
                Vec::new(),
            ));
        };
        // A child that waited at a gate for this step goes on from there:
        // in a run with a run directory, in the pipeline itself, and in a
        // branch or child whose enclosing places wait too (they pass the
        // list of questions down, `Kit::waiting`). Each place keeps its
        // child in its own folder ([`wait::place`]).
        let scope = format!(
            "{}{}/child/",
            self.kit.scope,
            crate::question::question_id(&node, cx.decision.visit)
        );
        let place = wait::place(&self.kit, cx.files, &node);
        let may_wait = cx.decision.config.questions_wait
            && place.is_some()
            && (self.kit.depth == 0 || self.kit.waiting.is_some());
        // A child an agent error suspended is kept too (with no question),
        // so the resumed run tries its step again.
        let keeps = may_wait || cx.decision.config.suspend_on_agent_error;
        let waited = place
            .as_deref()
            .filter(|_| keeps)
            .and_then(|p| wait::load(p, cx.decision.step));
        // The child's own folder, for the parent step it started at: the
        // journals of its fan-outs and its effect records ([`journal`]).
        let started = waited
            .as_ref()
            .and_then(|w| w.started_step)
            .unwrap_or(cx.decision.step);
        let own = journal::folder(&self.kit, cx.files, &node, started);
        let inherited = super::nested::Inherited::of(cx.decision).in_branch_dir(own.clone());
        let made = match &waited {
            Some(w) => inherited.restore(&program, &w.snapshot),
            None => inherited.engine(&program, root),
        };
        let mut child = match made {
            Ok(e) => e,
            Err(e) => {
                return Ok(fail(
                    format!("manager node `{node}`: the child pipeline cannot start: {e}"),
                    Vec::new(),
                ));
            }
        };
        // The child's own graph attributes, as a pipeline run starts with
        // (a restored child has its context).
        let fresh = if waited.is_some() {
            Vec::new()
        } else {
            super::graph_context(&program, &program.workflows[root.0 as usize])
        };
        for (k, v) in fresh {
            if let Err(e) = child.set_input(&k, v) {
                return Ok(fail(
                    format!("manager node `{node}`: the child pipeline cannot start: {e}"),
                    Vec::new(),
                ));
            }
        }
        let files = cx
            .files
            .map(|f| RunFiles::new(f.stage_path(&node).join("child")));
        child.set_tool_runner(super::nested::tool_runner(
            self.kit.tools.as_ref(),
            files.clone(),
        ));
        // Where the fan-outs in the child leave the questions they wait
        // on: the run's list, else one of the child's own; none when the
        // child cannot wait (their gates then fail their branches).
        let child_asked = match &self.kit.waiting {
            Some(w) if may_wait => Some(w.clone()),
            _ => may_wait.then(Default::default),
        };
        let kit = Kit {
            base_dir: path.parent().map(PathBuf::from),
            root: self.kit.root.clone().or_else(|| self.kit.base_dir.clone()),
            depth: self.kit.depth + 1,
            scope: scope.clone(),
            journal: own,
            waiting: child_asked.clone(),
            ..self.kit.clone()
        };
        let backend = cx
            .backend
            .as_deref_mut()
            .map(|b| Box::new(Lent(b as &mut dyn DecisionAgent)) as Box<dyn DecisionAgent>);
        let child_files = files.clone();
        let mut agent = AttractorAgent::new(backend, files);
        install(agent.registry_mut(), kit);
        let mut decision = None;
        let mut cycles = waited.as_ref().map_or(0, |w| w.cycles);
        let mut telemetry = Map::new();
        let mut steered_at = None;
        let mut interventions = 0u64;
        let mut steer_note = None;
        let mut steer_events = Vec::new();
        while cycles < max_cycles {
            cycles += 1;
            // A poll interval past the clock's range: the child runs to its end.
            let until = Instant::now().checked_add(poll);
            let status = loop {
                let s = child.step(&mut agent).clone();
                if s != RunStatus::Running || until.is_some_and(|u| Instant::now() >= u) {
                    break s;
                }
            };
            let errored = matches!(&status, RunStatus::Suspended { reason }
                if child.failures().last().is_some_and(|f| f.reason == *reason));
            if let RunStatus::Suspended { reason } = &status
                && errored
                && cx.decision.config.suspend_on_agent_error
            {
                // An agent error (in the child, or in a fan-out nested in
                // it) suspends the run, as one of the pipeline's own
                // would, rather than failing the child.
                let waiting = wait::ChildWaiting {
                    question: None,
                    snapshot: child.snapshot(),
                    cycles: cycles - 1,
                    resume_step: cx.decision.step + 1,
                    started_step: Some(started),
                };
                drop(agent);
                return wait::errored(
                    place.as_deref(),
                    &waiting,
                    self.kit.depth,
                    format!("the child pipeline of manager node `{node}`: {reason}"),
                );
            }
            if let RunStatus::Suspended { .. } = &status
                && may_wait
                && !errored
                && let Some(place) = &place
                && let Some((questions, own)) =
                    wait::questions(&program, &mut child, &scope, child_asked.as_ref(), &node)
            {
                // A gate nobody answered, in the child or nested in it:
                // the child waits, kept where it stands, and the run
                // suspends.
                let waiting = wait::ChildWaiting {
                    question: Some(questions[0].clone()),
                    snapshot: child.snapshot(),
                    // The cycle it waits in goes on when it is restored.
                    cycles: cycles - 1,
                    resume_step: cx.decision.step + 1,
                    started_step: Some(started),
                };
                let mut reason = wait::reason(&questions);
                match wait::save(place, &waiting) {
                    Ok(()) => {
                        // Those of a nested fan-out are in the list already.
                        if let (Some(w), true) = (&self.kit.waiting, own) {
                            w.borrow_mut().extend(questions);
                        }
                    }
                    Err(e) => reason.push_str(&format!(
                        " (where it waits could not be kept ({e}): a resumed run starts the child again)"
                    )),
                }
                drop(agent);
                return Ok(Decision::Suspend { reason });
            }
            let bb = child.blackboard();
            let (_, at, _) = child.position();
            let child_wf = &program.workflows[root.0 as usize];
            let (state, outcome) = match &status {
                RunStatus::Completed => (
                    "completed",
                    bb.get("outcome")
                        .map(text)
                        .unwrap_or_else(|| "success".into()),
                ),
                RunStatus::Failed { .. } | RunStatus::Suspended { .. } => {
                    ("failed", "fail".to_owned())
                }
                _ => ("running", bb.get("outcome").map(text).unwrap_or_default()),
            };
            telemetry = Map::from_iter([
                ("stack.child.status".to_owned(), json!(state)),
                ("stack.child.outcome".to_owned(), json!(outcome)),
                (
                    "stack.child.current_node".to_owned(),
                    json!(program.str(child_wf.nodes[at.0 as usize].id)),
                ),
                ("stack.child.steps".to_owned(), json!(child.steps())),
                ("stack.child.cycles".to_owned(), json!(cycles)),
            ]);
            match &status {
                RunStatus::Completed if outcome != "fail" => {
                    decision = Some(Ok("Child completed".to_owned()));
                    break;
                }
                RunStatus::Completed => {
                    decision = Some(Err(
                        "Child failed: it completed with outcome `fail`".to_owned()
                    ));
                    break;
                }
                RunStatus::Failed { reason } => {
                    decision = Some(Err(format!("Child failed: {reason}")));
                    break;
                }
                RunStatus::Suspended { reason } => {
                    decision = Some(Err(format!(
                        "Child failed: it suspended ({reason}), and a child pipeline cannot be resumed on its own"
                    )));
                    break;
                }
                _ => {}
            }
            if let Some(cond) = &stop {
                let lookup = |k: &str| telemetry.get(k).or_else(|| bb.get(k)).map(text);
                if evaluate_condition(cond, &lookup) {
                    decision = Some(Ok(format!("Stop condition satisfied: {cond}")));
                    break;
                }
            }
            // Steer the child at the node it runs next, once per node.
            if steering && steered_at != Some(at) {
                steered_at = Some(at);
                let target = program.str(child_wf.nodes[at.0 as usize].id).to_owned();
                match (&child_files, &instructions) {
                    (Some(files), Some(text)) => {
                        if let Err(e) = steer::intervene(files, &target, text) {
                            decision = Some(Err(format!("manager node `{node}`: {e}")));
                            break;
                        }
                        interventions += 1;
                        // Reported once the child's agent lets go of `cx`.
                        steer_events.push(json!({"node": target, "cycle": cycles}));
                    }
                    (None, _) => {
                        steer_note = Some("steer skipped: the run has no run directory");
                    }
                    (_, None) => {
                        steer_note =
                            Some("steer skipped: no manager.steer_prompt or prompt to send");
                    }
                }
            }
        }
        if steering {
            telemetry.insert("stack.child.interventions".to_owned(), json!(interventions));
        }
        drop(agent);
        for data in steer_events {
            cx.event("ManagerSteered", data);
        }
        cx.event(
            "ManagerCompleted",
            json!({"child": path.display().to_string(), "cycles": cycles}),
        );
        let writes: Vec<Write> = if observe {
            telemetry
                .into_iter()
                .map(|(key, value)| Write { key, value })
                .collect()
        } else {
            Vec::new()
        };
        Ok(match decision {
            Some(Ok(notes)) => Decision::Advance(Outcome {
                writes,
                notes: Some(match steer_note {
                    Some(n) => format!("{notes} ({n})"),
                    None => notes,
                }),
                ..Outcome::success()
            }),
            Some(Err(reason)) => fail(reason, writes),
            None => fail(
                format!(
                    "Max cycles exceeded ({max_cycles}, manager.max_cycles) without the child `{}` finishing or the stop condition holding",
                    path.display()
                ),
                writes,
            ),
        })
    }
}

/// The file the child pipeline path `written` names, by the rules of
/// imports (`wf_paths`, which `wfc check` applies too): relative to the parent
/// pipeline's directory, not absolute, inside the project root (also once
/// symbolic links are resolved), and a `.dot`, `.fabro` or `.gv` file.
/// Nothing else is ever handed to the loader, so no other file is read,
/// let alone quoted in a diagnostic. The error says why, with the code
/// `wfc check` reports.
fn confine(kit: &Kit, written: &str) -> Result<PathBuf, String> {
    use wf_paths::{PathProblem, normalize, resolve_child};
    let cwd = std::env::current_dir().unwrap_or_default();
    let absolute = |p: &Path| normalize(&cwd.join(p));
    let base = absolute(kit.base_dir.as_deref().unwrap_or(Path::new("")));
    let root = absolute(kit.root.as_deref().unwrap_or(&base));
    // `resolve` takes the naming file; only its directory matters.
    let path = resolve_child(&base.join("pipeline.dot"), written, &root).map_err(|p| match p {
        PathProblem::Absolute => "absolute paths are not allowed (WF0108)".to_owned(),
        PathProblem::EscapesRoot => {
            format!("it leaves the project root `{}` (WF0108)", root.display())
        }
        PathProblem::NotWf | PathProblem::Empty => {
            "it does not name a `.dot`, `.fabro` or `.gv` pipeline (WF0110)".to_owned()
        }
    })?;
    if let (Ok(real), Ok(real_root)) = (path.canonicalize(), root.canonicalize())
        && !real.starts_with(&real_root)
    {
        return Err(format!(
            "it leaves the project root `{}` through a symbolic link to `{}` (WF0108)",
            root.display(),
            real.display()
        ));
    }
    Ok(path)
}
