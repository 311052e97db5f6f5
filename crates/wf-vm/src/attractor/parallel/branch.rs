//! Running one branch of a fan-out.
//!
//! A branch is its own engine on the same program and workflow, started at
//! the branch's first node with a copy of the parent context written in as
//! inputs: that is the isolated context clone of the seed. Its nodes run
//! through their handlers (an [`AttractorAgent`] with the same backend, run
//! directory and R2 handlers); its `tool` nodes run through the run's tool
//! runner (`--allow-tools`); it has the run's engine configuration and
//! what is left of the run's limits (steps, wall clock, sizes), with the
//! usual edge selection and retries. Before each step the branch checks where it stands: a fan-in or
//! exit node ends it, unrun. A branch whose run fails (a node failure with
//! no route, a limit) is a failed branch, not a failed pipeline; the join
//! policy decides.

use std::path::Path;

use serde_json::{Map, Value};
use wf_ir::{IrProgram, NodeIdx, Opcode, WorkflowIdx};

use super::journal::Waiting;
use super::policy::BranchResult;
use super::trace::{BranchEvents, TraceSink};
use super::{Kit, install};
use crate::agent::{AgentError, BlackboardView, Decision, DecisionAgent, DecisionContext, Status};
use crate::attractor::nested::{self, Inherited};
use crate::attractor::{AttractorAgent, RunFiles};
use crate::effects::Completed;
use crate::engine::Engine;
use crate::report::RunStatus;

/// What a branch runs with.
pub struct BranchEnv<'e> {
    /// The program.
    pub program: &'e IrProgram,
    /// The workflow the parallel node is in.
    pub workflow: WorkflowIdx,
    /// The parent context when the fan-out started.
    pub context: &'e [(String, Value)],
    /// The user's decision agent (`None`: simulation).
    pub backend: Option<&'e mut dyn DecisionAgent>,
    /// The run directory.
    pub files: Option<&'e RunFiles>,
    /// The handlers' shared parts.
    pub kit: &'e Kit,
    /// The parallel node the branch fans out from.
    pub fan_out: NodeIdx,
    /// The configuration and what is left of the limits of the run.
    pub inherited: &'e Inherited,
}

/// Lends a borrowed agent to an agent that wants to own one.
pub(crate) struct Lent<'a>(pub &'a mut dyn DecisionAgent);

impl DecisionAgent for Lent<'_> {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        self.0.decide(ctx)
    }

    fn is_instant(&self) -> bool {
        self.0.is_instant()
    }

    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        self.0.fork()
    }
}

/// Where a branch stops: a fan-in or exit node, by handler type or opcode.
pub(crate) fn stop_kind(
    program: &IrProgram,
    wf: WorkflowIdx,
    node: NodeIdx,
) -> Option<&'static str> {
    stop_kind_of(
        program,
        &program.workflows[wf.0 as usize].nodes[node.0 as usize],
    )
}

/// [`stop_kind`] of the node `n` of `program`.
pub(crate) fn stop_kind_of(program: &IrProgram, n: &wf_ir::IrNode) -> Option<&'static str> {
    let handler = n.handler.map(|h| program.str(h));
    match (n.op, handler) {
        (_, Some("parallel.fan_in")) | (Opcode::Join, _) => Some("fan-in"),
        (_, Some("exit")) | (Opcode::Exit, _) => Some("exit"),
        _ => None,
    }
}

/// The fan-in node the graph leads the branches to: the nearest stop
/// node (breadth first) from each start, when they all agree.
pub fn static_fan_in(program: &IrProgram, wf: WorkflowIdx, starts: &[NodeIdx]) -> Option<NodeIdx> {
    let w = &program.workflows[wf.0 as usize];
    let mut found = None;
    for &s in starts {
        let mut seen = vec![false; w.nodes.len()];
        let mut queue = std::collections::VecDeque::from([s]);
        let mut hit = None;
        while let Some(n) = queue.pop_front() {
            if std::mem::replace(&mut seen[n.0 as usize], true) {
                continue;
            }
            if stop_kind(program, wf, n).is_some() {
                hit = Some(n);
                break;
            }
            queue.extend(w.outgoing(n).iter().map(|e| e.to));
        }
        match (found, hit) {
            (_, None) => return None,
            (None, h) => found = h,
            (Some(f), Some(h)) if f != h => return None,
            _ => {}
        }
    }
    found
}

/// Runs the branch that starts at `start`: its result, its events, and
/// why it suspended when an agent error suspended it (a backend outage in
/// a durable run): the fan-out then suspends the run rather than failing
/// the branch ([`super::concurrent::Ran::suspended`]).
pub fn run_branch(
    env: BranchEnv<'_>,
    start: NodeIdx,
) -> (BranchResult, BranchEvents, Option<String>) {
    let (result, events, suspended, _, _) = run_branch_from(env, start, None);
    (result, events, suspended)
}

/// [`run_branch`], from where the branch waited when `from` is given (a
/// resumed fan-out), and with what it waits on when it stops at a gate
/// nobody answered, or at a fan-out or manager nested in it that waits,
/// in a journaled fan-out (docs/runtime.md, "Gates in parallel
/// branches"); last, the effects it completed that name a compensation,
/// from its engine's memory, for the join to hand over when the branch
/// has no folder (engine/fan_saga.rs).
pub(crate) fn run_branch_from(
    env: BranchEnv<'_>,
    start: NodeIdx,
    from: Option<Waiting>,
) -> (
    BranchResult,
    BranchEvents,
    Option<String>,
    Option<Waiting>,
    Vec<Completed>,
) {
    let id = env
        .program
        .str(env.program.workflows[env.workflow.0 as usize].nodes[start.0 as usize].id);
    let mut result = BranchResult {
        id: id.to_owned(),
        outcome: Status::Success,
        score: 0.0,
        stopped_at: None,
        notes: None,
        failure_reason: None,
        context_updates: Map::new(),
    };
    let trace = TraceSink::default();
    let made =
        env.inherited
            .branch_engine(env.program, env.workflow, start, env.context, from, &trace);
    let mut engine = match made {
        Ok(e) => e,
        Err(e) => {
            result.outcome = Status::Fail;
            result.failure_reason = Some(e.to_string());
            return (result, BranchEvents::default(), None, None, Vec::new());
        }
    };
    // Its effects are stamped with when they completed, and keep what
    // they produced, for the join (engine/fan_saga.rs).
    engine.effects.in_branch = true;
    let mut suspended = None;
    let mut waiting = None;
    // Only a journaled fan-out (a run with a run directory) keeps a
    // branch that waits: the pipeline's own, or a nested one whose
    // enclosing branches and child wait too (they pass the list down,
    // `Kit::waiting`); elsewhere the gate fails the branch.
    let may_wait = env.files.is_some()
        && match env.kit.depth {
            0 => true,
            _ => env.kit.journal.is_some() && env.kit.waiting.is_some(),
        };
    let scope = format!("{}{id}/", env.kit.scope);
    // Where the fan-outs and child pipelines nested in the branch leave
    // the questions they wait on: the run's list, else one of its own.
    let asked = match &env.kit.waiting {
        Some(w) => Some(w.clone()),
        None => may_wait.then(Default::default),
    };
    engine.set_event_sink(Box::new(trace.clone()));
    engine.set_tool_runner(nested::tool_runner(
        env.kit.tools.as_ref(),
        env.files.cloned(),
    ));
    let mut agent = AttractorAgent::new(
        env.backend
            .map(|b| Box::new(Lent(b)) as Box<dyn DecisionAgent>),
        env.files.cloned(),
    );
    install(
        agent.registry_mut(),
        Kit {
            depth: env.kit.depth + 1,
            scope: scope.clone(),
            // Its nested fan-outs journal in its own folder.
            journal: env.inherited.branch_dir().map(Path::to_path_buf),
            waiting: asked.clone(),
            ..env.kit.clone()
        },
    );
    loop {
        let (wf, node, depth) = engine.position();
        if depth == 1
            && let Some(kind) = stop_kind(env.program, wf, node)
        {
            result.stopped_at = Some(
                env.program
                    .str(env.program.workflows[wf.0 as usize].nodes[node.0 as usize].id)
                    .to_owned(),
            );
            result.notes = Some(format!("reached the {kind} node"));
            break;
        }
        if depth == 1 && node == env.fan_out && engine.steps() > 0 {
            result.outcome = Status::Fail;
            result.failure_reason = Some(
                "the branch came back to its own fan-out node without reaching a fan-in".into(),
            );
            break;
        }
        let failures = engine.failures().len();
        match engine.step(&mut agent).clone() {
            RunStatus::Running => {}
            RunStatus::Completed | RunStatus::Yielded => {
                result.notes = Some("reached the end of its path".into());
                break;
            }
            RunStatus::Failed { reason } => {
                result.outcome = Status::Fail;
                result.failure_reason = Some(reason);
                break;
            }
            RunStatus::Suspended { reason } => {
                // A branch has no way to be resumed on its own. An agent
                // error that suspended it (recorded in the failure trace,
                // unlike an answer `suspend`) suspends the whole fan-out;
                // so does a gate nobody answered, where the fan-out can
                // keep the branch.
                if engine.failures().len() > failures {
                    suspended = Some(reason.clone());
                } else if may_wait
                    && let Some(mut q) = crate::question::pending(env.program, &mut engine)
                {
                    let fan = env.program.workflows[env.workflow.0 as usize].nodes
                        [env.fan_out.0 as usize]
                        .id;
                    q.id = format!("{scope}{}", q.id);
                    q.place = format!("branch `{id}` of parallel node `{}`", env.program.str(fan));
                    result.failure_reason =
                        Some(format!("waiting for an answer to question `{}`", q.id));
                    result.outcome = Status::Fail;
                    waiting = Some(Waiting {
                        question: q,
                        snapshot: engine.snapshot(),
                        events: Vec::new(),
                        decided: Vec::new(),
                    });
                    break;
                } else if may_wait
                    && let Some(first) = nested_question(
                        asked.as_ref(),
                        &scope,
                        &format!(
                            "branch `{id}` of parallel node `{}`",
                            env.program.str(
                                env.program.workflows[env.workflow.0 as usize].nodes
                                    [env.fan_out.0 as usize]
                                    .id
                            )
                        ),
                    )
                {
                    // A fan-out or child pipeline nested in the branch
                    // suspended for the questions it left: the branch
                    // waits where it stands, and asks the node again on
                    // resume (which restores what waits below it).
                    result.failure_reason = Some(format!(
                        "waiting for an answer to question `{}` (nested in the branch)",
                        first.id
                    ));
                    result.outcome = Status::Fail;
                    waiting = Some(Waiting {
                        question: first,
                        snapshot: engine.snapshot(),
                        events: Vec::new(),
                        decided: Vec::new(),
                    });
                    break;
                }
                result.outcome = Status::Fail;
                result.failure_reason = Some(format!(
                    "the branch suspended ({reason}); branches cannot suspend"
                ));
                break;
            }
        }
    }
    let bb = engine.blackboard();
    if result.outcome != Status::Fail
        && let Some(status) = bb
            .get("outcome")
            .and_then(Value::as_str)
            .and_then(parse_status)
    {
        result.outcome = status;
        if status == Status::Fail {
            result.failure_reason = bb
                .get("failure_reason")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
    }
    for (k, v) in engine.report().blackboard.0 {
        let before = env
            .context
            .iter()
            .find(|(pk, _)| *pk == k)
            .map(|(_, pv)| pv);
        if before != Some(&v) {
            result.context_updates.insert(k, v);
        }
    }
    if let Some(score) = result.context_updates.get("score").and_then(Value::as_f64) {
        result.score = score;
    }
    let compensable = std::mem::take(&mut engine.effects.completed);
    drop(engine);
    let events = std::mem::take(&mut *trace.0.borrow_mut());
    if let Some(w) = &mut waiting {
        w.set_events(&events.events);
    }
    (result, events, suspended, waiting, compensable)
}

/// The first question the handlers nested in the branch whose questions
/// are scoped `scope` left in `asked`, when they left one. Each of them
/// has the branch, `within`, added to where it is asked (`wfc status`
/// then says every place on the way, as the id does).
pub(crate) fn nested_question(
    asked: Option<&crate::question::WaitingQuestions>,
    scope: &str,
    within: &str,
) -> Option<crate::question::PendingQuestion> {
    let mut first = None;
    for q in asked?.borrow_mut().iter_mut() {
        if q.id.starts_with(scope) {
            q.place.push_str(&format!(", in {within}"));
            first = first.or_else(|| Some(q.clone()));
        }
    }
    first
}

impl Engine<'_> {
    /// Starts the run at `node` instead of the workflow's entry (a branch's
    /// first node). Only before the first step.
    pub(crate) fn start_at(&mut self, node: NodeIdx) {
        if !self.started {
            self.frames[0].node = node;
        }
    }
}

fn parse_status(s: &str) -> Option<Status> {
    Some(match s {
        "success" => Status::Success,
        "partial_success" => Status::PartialSuccess,
        "retry" => Status::Retry,
        "fail" => Status::Fail,
        "skipped" => Status::Skipped,
        _ => return None,
    })
}
