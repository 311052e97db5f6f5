//! Running a fan-out's branches at once, on threads, up to `max_parallel`.
//!
//! The engine and the handlers are single-threaded (they share the run
//! directory's files, the interviewer and the tool runner through `Rc`),
//! so a branch on a thread gets copies of what it needs instead of the
//! parent's: a fork of the backend ([`DecisionAgent::fork`]) and of the
//! tool runner ([`ToolRunner::fork`]), one per worker thread, and the run
//! directory's layout. What cannot be copied decides the plan:
//! [`plan`] says why the branches must run one after another instead
//! (a `wait.human` gate or a child pipeline in a branch, a custom handler,
//! a backend or tool runner that cannot be forked), and the parallel
//! handler then runs them in edge order as before.
//!
//! Each finished branch is journaled ([`Journal`]) before the join, so a
//! resumed run does not run it again.
//!
//! Results are kept by branch index, so `parallel.results`, the events and
//! the join are in edge order whatever order the threads finish in.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use serde_json::Value;
use wf_ir::{IrProgram, NodeIdx, Opcode, WorkflowIdx};

use super::Kit;
use super::branch::{BranchEnv, run_branch_from, stop_kind_of};
use super::journal::Journal;
use super::policy::{BranchResult, Policy};
use super::trace::BranchEvents;
use crate::agent::{DecisionAgent, Status, ToolRunner};
use crate::attractor::RunFiles;
use crate::attractor::nested::{self, Inherited};

/// Handler types a branch on a thread cannot run: they need what only the
/// parent thread has (the interviewer, the child-pipeline loader).
const NEEDS_THE_PARENT: [&str; 2] = ["wait.human", "stack.manager_loop"];

/// One worker thread's own backend and tool runner.
type Worker = (
    Option<Box<dyn DecisionAgent + Send>>,
    Option<Box<dyn ToolRunner + Send>>,
);

/// How the branches of a fan-out run concurrently: one backend and tool
/// runner per worker thread.
pub struct Plan {
    workers: Vec<Worker>,
}

impl Plan {
    /// How many branches run at once.
    pub fn width(&self) -> usize {
        self.workers.len()
    }
}

/// What every branch shares, read-only.
pub struct Shared<'e> {
    /// The program.
    pub program: &'e IrProgram,
    /// The workflow of the parallel node.
    pub workflow: WorkflowIdx,
    /// The parent context when the fan-out started.
    pub context: &'e [(String, Value)],
    /// The run directory.
    pub files: Option<&'e RunFiles>,
    /// The handlers' shared parts (only `depth`, `base_dir` and `root`
    /// reach the threads).
    pub kit: &'e Kit,
    /// The parallel node.
    pub fan_out: NodeIdx,
    /// What is left of the run's limits.
    pub inherited: &'e Inherited,
    /// Where finished branches are recorded.
    pub journal: &'e Journal,
}

/// One branch's run: its result, and when it started and how long it
/// took (milliseconds since the fan-out started); `None` times for a
/// branch the policy did not start.
pub struct Ran {
    /// The result.
    pub result: BranchResult,
    /// Start, in ms since the fan-out started.
    pub offset_ms: Option<u64>,
    /// How long it ran.
    pub duration_ms: u64,
    /// It had finished before the run was interrupted: its result comes
    /// from the journal, it did not run again.
    pub resumed: bool,
    /// The branch's own events (none when it did not run here).
    pub events: BranchEvents,
    /// An agent error suspended the branch (a backend outage in a durable
    /// run), with its reason: the branch is not journaled, and the
    /// fan-out suspends the run, to run it again on resume.
    pub suspended: Option<String>,
    /// The branch waits at a gate nobody answered (journaled, so the
    /// resumed fan-out restores it there): the fan-out suspends the run.
    pub waiting: Option<super::journal::Waiting>,
    /// Its completed effects that name a compensation, from its engine's
    /// memory (a durable branch's are read from its folder), for the join
    /// to hand over (engine/fan_saga.rs).
    pub(crate) compensable: Vec<crate::effects::Completed>,
}

impl Ran {
    /// A branch that did not run here (not started, or its thread lost):
    /// its result alone.
    pub fn without_running(result: BranchResult) -> Ran {
        Ran {
            result,
            offset_ms: None,
            duration_ms: 0,
            resumed: false,
            events: BranchEvents::default(),
            suspended: None,
            waiting: None,
            compensable: Vec::new(),
        }
    }
}

/// Runs branch `index` (from `target`) unless the journal has its result,
/// and journals the result; `since` is when the fan-out started.
pub fn run_one(
    env: BranchEnv<'_>,
    index: usize,
    target: NodeIdx,
    journal: &Journal,
    since: Instant,
) -> Ran {
    let w = &env.program.workflows[env.workflow.0 as usize];
    let id = env.program.str(w.nodes[target.0 as usize].id);
    if let Some((result, duration_ms)) = journal.load(index, id) {
        return Ran {
            duration_ms,
            resumed: true,
            ..Ran::without_running(result)
        };
    }
    // The branch's own folder: its keyed effects are not done again when
    // it runs again after a kill.
    let inherited = env.inherited.in_branch_dir(journal.branch_dir(index));
    let BranchEnv {
        program,
        workflow,
        context,
        backend,
        files,
        kit,
        fan_out,
        ..
    } = env;
    // Its backend's decisions go to the journal with its result
    // (agents/noting.rs).
    let from = journal.load_waiting_under(index, &format!("{}{id}/", kit.scope));
    let decided = crate::agents::noting::seeded(from.as_ref());
    let mut noting = backend.map(|inner| crate::agents::noting::Noting {
        inner,
        decided: decided.clone(),
    });
    let env = BranchEnv {
        program,
        workflow,
        context,
        backend: noting.as_mut().map(|b| b as _),
        files,
        kit,
        fan_out,
        inherited: &inherited,
    };
    let t = Instant::now();
    let (mut result, events, suspended, mut waiting, compensable) =
        run_branch_from(env, target, from);
    let duration_ms = t.elapsed().as_millis() as u64;
    if suspended.is_some() {
        // Not journaled: the resumed run runs it again.
    } else if let Some(w) = &mut waiting {
        w.decided = crate::agents::noting::to_json(&decided);
        if let Err(e) = journal.record_waiting(index, w) {
            let note = format!(
                "where it waits could not be journaled ({e}): a resumed run runs it again from its start"
            );
            result.notes = Some(note);
        }
    } else if let Err(e) = journal.record_decided(
        index,
        &result,
        duration_ms,
        Some(crate::agents::noting::to_json(&decided).into()),
    ) {
        let note = format!("its result could not be journaled ({e}): a resumed run runs it again");
        result.notes = Some(match result.notes.take() {
            Some(n) => format!("{n}; {note}"),
            None => note,
        });
    }
    Ran {
        result,
        offset_ms: Some((t - since).as_millis() as u64),
        duration_ms,
        resumed: false,
        events,
        suspended,
        waiting,
        compensable,
    }
}

/// The nodes a branch from `start` may run: every node reachable without
/// passing a fan-in or exit node (where a branch stops) or the fan-out
/// itself. Nested fan-outs are included with their own branches.
pub(crate) fn branch_nodes(
    program: &IrProgram,
    wf: WorkflowIdx,
    fan_out: NodeIdx,
    start: NodeIdx,
) -> Vec<NodeIdx> {
    branch_nodes_of(program, &program.workflows[wf.0 as usize], fan_out, start)
}

/// The nodes a branch from `start` may run, in the workflow `w` of
/// `program`: every node reachable without passing a fan-in or exit node
/// or the fan-out itself (held by reference, as an agent finding the
/// branch a stage runs in holds it).
pub fn branch_nodes_of(
    program: &IrProgram,
    w: &wf_ir::IrWorkflow,
    fan_out: NodeIdx,
    start: NodeIdx,
) -> Vec<NodeIdx> {
    let mut seen = vec![false; w.nodes.len()];
    let mut out = Vec::new();
    let mut stack = vec![start];
    while let Some(n) = stack.pop() {
        if n == fan_out || std::mem::replace(&mut seen[n.0 as usize], true) {
            continue;
        }
        if stop_kind_of(program, &w.nodes[n.0 as usize]).is_some() {
            continue;
        }
        out.push(n);
        stack.extend(w.outgoing(n).iter().map(|e| e.to));
    }
    out
}

/// Whether the branches from `targets` can run on threads, `max_parallel`
/// at a time, and with what; `Err` says why they run one after another.
pub fn plan(
    s: &Shared<'_>,
    backend: Option<&dyn DecisionAgent>,
    targets: &[NodeIdx],
    policy: &Policy,
) -> Result<Plan, String> {
    let width = (policy.max_parallel as usize).min(targets.len());
    if width < 2 {
        return Err(if targets.len() < 2 {
            "a single branch".into()
        } else {
            "max_parallel=1".into()
        });
    }
    let w = &s.program.workflows[s.workflow.0 as usize];
    let (mut tools, mut asks) = (false, false);
    for &t in targets {
        for n in branch_nodes(s.program, s.workflow, s.fan_out, t) {
            let node = &w.nodes[n.0 as usize];
            let ty = node.handler.map_or("codergen", |h| s.program.str(h));
            let id = s.program.str(node.id);
            if NEEDS_THE_PARENT.contains(&ty) {
                return Err(format!("node `{id}` is a `{ty}` node"));
            }
            if s.kit.custom.iter().any(|(c, _)| c == ty) {
                return Err(format!("node `{id}` has the custom handler type `{ty}`"));
            }
            tools |= node.op == Opcode::Tool;
            // Only codergen stages consult the backend (tool nodes never
            // reach a handler; start, exit and conditional do not ask).
            asks |= node.op != Opcode::Tool && ty == "codergen";
        }
    }
    let mut workers = Vec::with_capacity(width);
    for _ in 0..width {
        let agent = match backend.filter(|_| asks) {
            None => None,
            Some(b) => Some(
                b.fork()
                    .ok_or("the backend cannot be copied to another thread")?,
            ),
        };
        let runner = match (&s.kit.tools, tools) {
            (Some(t), true) => Some(
                t.try_borrow()
                    .ok()
                    .and_then(|r| r.fork())
                    .ok_or("the tool runner cannot be copied to another thread")?,
            ),
            _ => None,
        };
        workers.push((agent, runner));
    }
    Ok(Plan { workers })
}

/// Runs the branches from `targets` as `plan` says and returns their
/// runs in edge order. A branch that ends the fan-out by the error or join
/// policy (`fail_fast`, `first_success`) keeps the branches not yet
/// started from starting; those already running finish.
pub fn run(s: &Shared<'_>, plan: Plan, targets: &[NodeIdx], policy: &Policy) -> Vec<Ran> {
    let started = Instant::now();
    let files = s.files.map(RunFiles::parts);
    // The parts of `s` the threads share (its kit holds `Rc`s).
    let (depth, base_dir, root) = (s.kit.depth, s.kit.base_dir.clone(), s.kit.root.clone());
    let (program, workflow, context, fan_out, inherited, journal) = (
        s.program,
        s.workflow,
        s.context,
        s.fan_out,
        s.inherited,
        s.journal,
    );
    let id_of = |target: NodeIdx| {
        program.str(program.workflows[workflow.0 as usize].nodes[target.0 as usize].id)
    };
    let slots = crate::engine::fan_pool::run(
        plan.workers,
        targets,
        crate::agents::order::reach(program, workflow, fan_out, targets),
        // The branch's run files and kit hold `Rc`s: made on its thread.
        |(agent, runner)| {
            let kit = Kit {
                depth,
                base_dir: base_dir.clone(),
                root: root.clone(),
                tools: runner
                    .map(|r| Rc::new(RefCell::new(nested::Owned(r))) as nested::SharedTools),
                ..Kit::default()
            };
            (agent, files.clone().map(RunFiles::from_parts), kit)
        },
        |ran: &Ran| policy.stop_after(&ran.result),
        |i, why| Ran::without_running(BranchResult::not_run(id_of(targets[i]), why)),
        |(agent, files, kit), i, target| {
            let env = BranchEnv {
                program,
                workflow,
                context,
                backend: agent.as_deref_mut().map(|b| b as &mut dyn DecisionAgent),
                files: files.as_ref(),
                kit,
                fan_out,
                inherited,
            };
            run_one(env, i, target, journal, started)
        },
    );
    slots
        .into_iter()
        .zip(targets)
        .map(|(slot, &target)| {
            slot.unwrap_or_else(|| {
                let id = id_of(target);
                Ran::without_running(BranchResult {
                    outcome: Status::Fail,
                    failure_reason: Some(
                        "the branch's thread stopped unexpectedly (a bug in wfc)".into(),
                    ),
                    notes: None,
                    ..BranchResult::not_run(id, "")
                })
            })
        })
        .collect()
}
