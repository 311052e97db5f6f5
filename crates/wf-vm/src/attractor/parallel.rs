//! `parallel` (seed 4.8): fan out to every outgoing edge, each branch with
//! an isolated copy of the context, then join by policy.
//!
//! Branches run **at once**, on threads, `max_parallel` (default 4) at a
//! time, when every branch can run away from the parent's thread (see
//! [`concurrent`]); otherwise one after another, in edge order, and the
//! `ParallelStarted` event says why (`sequential_reason`). Either way each
//! branch starts from the context as it was when the parallel node started
//! (not from a sibling's results), nothing a branch writes reaches the
//! parent context except through `parallel.results`, and results and
//! events are in edge order.
//!
//! A branch runs from its edge's target until it reaches a fan-in node
//! (`parallel.fan_in`, op `join`) or an exit node, which it does not run;
//! the run then continues at that node (all branches must end at the same
//! one). See [`branch`] for how a branch runs and [`policy`] for the join
//! and error policies.

mod asked;
pub mod branch;
pub mod concurrent;
pub mod journal;
pub mod policy;
mod start;
pub mod trace;

use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{Value, json};
use wf_ir::IrProgram;

use super::handler::{Handler, HandlerCx, HandlerRegistry};
use super::human::{SharedInterviewer, WaitHuman};
use crate::agent::{AgentError, Decision, Outcome, Status, Write};
use crate::engine::fan_saga::BranchEffects;
use branch::BranchEnv;
pub use policy::{BranchResult, ErrorPolicy, JoinPolicy, Policy};

/// Loads a child pipeline for `stack.manager_loop` (a `.dot` file, compiled
/// to IR). `wf-vm` does not parse `.dot`; the CLI provides this.
pub type ChildLoader = Rc<dyn Fn(&Path) -> Result<IrProgram, String>>;

/// What the handlers of R2 share: the interviewer every gate asks, the
/// child-pipeline loader, the directory child paths are relative to, and
/// the nesting depth of child pipelines. Branches and child pipelines get
/// their own agents; [`install`] gives them the same handlers.
#[derive(Clone, Default)]
pub struct Kit {
    /// The interviewer of `wait.human` gates; `None`: auto-approve.
    pub interviewer: Option<SharedInterviewer>,
    /// The child-pipeline loader; `None`: manager nodes fail clearly.
    pub loader: Option<ChildLoader>,
    /// The pipeline file's directory (`stack.child_dotfile` is relative to
    /// it); `None`: the working directory.
    pub base_dir: Option<PathBuf>,
    /// The project root child pipelines may not leave (the import rules,
    /// WF0108); `None`: `base_dir` of the root pipeline.
    pub root: Option<PathBuf>,
    /// How deep in child pipelines this pipeline runs (0 for the root).
    pub depth: u32,
    /// The run's tool runner (`None`: tools are not allowed, and tool
    /// nodes in branches and child pipelines fail with the refusal).
    pub tools: Option<super::nested::SharedTools>,
    /// Custom handler types and the agents that run them (`wfc run
    /// --handler TYPE=exec:CMD`).
    pub custom: Vec<(String, super::custom::SharedAgent)>,
    /// Where in the run these handlers run, as the prefix of their gates'
    /// question ids: empty for the root pipeline, `fan#1/a/` in the branch
    /// starting at `a` of the parallel node `fan` on its first visit.
    pub scope: String,
    /// Where the fan-outs and child pipelines of this pipeline leave the
    /// questions their branches and children wait on: for the branch,
    /// fan-out or manager above them, and at the root for the engine to
    /// record (`Engine::set_waiting_questions`). `None` in a nested
    /// pipeline: its gates fail their branches instead of waiting.
    pub waiting: Option<crate::question::WaitingQuestions>,
    /// In a parallel branch or a child pipeline of a durable run, its own
    /// folder, where the fan-outs and child pipelines nested in it keep
    /// their journals, laid out as the run directory keeps the root's
    /// (`{node}/branches/step-M/`, `{node}/child-journals/step-M/`);
    /// `None` for the root pipeline, and where nothing is journaled.
    pub journal: Option<PathBuf>,
}

impl Kit {
    /// The folder the fan-outs and child pipelines of this pipeline
    /// journal in: the run directory (its current pass) for the root
    /// pipeline, the branch's or child's own folder when nested
    /// ([`Kit::journal`]); `None` without a run directory.
    pub(crate) fn journal_root(&self, files: Option<&super::RunFiles>) -> Option<PathBuf> {
        match self.depth {
            0 => files.map(super::RunFiles::log_dir),
            _ => self.journal.clone(),
        }
    }
}

/// Registers `wait.human`, `parallel`, `parallel.fan_in` and
/// `stack.manager_loop` with what `kit` provides.
pub fn install(registry: &mut HandlerRegistry, kit: Kit) {
    let human = match &kit.interviewer {
        Some(i) => WaitHuman::new(i.clone()),
        None => WaitHuman::default(),
    }
    .scoped(&kit.scope);
    registry.register("wait.human", Box::new(human));
    registry.register("parallel", Box::new(Parallel { kit: kit.clone() }));
    registry.register("parallel.fan_in", Box::new(super::fan_in::FanIn));
    registry.register(
        "stack.manager_loop",
        Box::new(super::manager::ManagerLoop::new(kit.clone())),
    );
    for (ty, agent) in &kit.custom {
        registry.register(
            ty,
            Box::new(super::custom::AgentHandler::new(agent.clone())),
        );
    }
}

/// The `parallel` handler.
#[derive(Default)]
pub struct Parallel {
    kit: Kit,
}

impl Parallel {
    /// A handler whose branches get the handlers of `kit`.
    pub fn new(kit: Kit) -> Self {
        Parallel { kit }
    }
}

fn fail(reason: String) -> Decision {
    Decision::Advance(Outcome {
        status: Status::Fail,
        failure_reason: Some(reason),
        ..Outcome::success()
    })
}

impl Handler for Parallel {
    fn execute(&mut self, cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        let d = cx.decision;
        let targets: Vec<_> = d.valid_edge_list().map(|e| e.to).collect();
        if targets.is_empty() {
            return Ok(fail("No outgoing edges for parallel node".into()));
        }
        if self.kit.depth >= super::manager::MAX_CHILD_DEPTH {
            return Ok(fail(format!(
                "node `{}`: parallel branches and child pipelines are nested {} deep here (does a branch lead back into a fan-out?)",
                cx.node_id,
                super::manager::MAX_CHILD_DEPTH
            )));
        }
        let policy = match Policy::from_node(d.program, d.node, &cx.attrs, targets.len()) {
            Ok(p) => p,
            Err(e) => return Ok(fail(format!("node `{}`: {e}", cx.node_id))),
        };
        // The context as it is now: every branch starts from this copy.
        let view = d.blackboard;
        let context: Vec<(String, Value)> = view
            .keys()
            .into_iter()
            .filter_map(|k| view.get(k).map(|v| (k.to_owned(), v.clone())))
            .collect();
        // The branches' gates scope their question ids under this node and
        // visit (their branch adds its own id).
        let kit = Kit {
            scope: format!(
                "{}{}/",
                self.kit.scope,
                crate::question::question_id(cx.node_id, d.visit)
            ),
            ..self.kit.clone()
        };
        // A nested fan-out journals in the folder of the branch or child
        // it runs in, at that engine's step: the branch run again after a
        // kill takes the same steps to it.
        let journal = match self.kit.journal_root(cx.files) {
            Some(root) => journal::Journal::under(&root, cx.node_id, d.step),
            None => journal::Journal::default(),
        };
        // The branches share the run's idempotence keys, and those their
        // folders recorded before a kill (engine/fan_keys.rs).
        if let Some(keys) = d.fan_keys {
            keys.seed_branches(&journal, targets.len());
        }
        let inherited = super::nested::Inherited::of(d).with_keys(d.fan_keys.cloned());
        let shared = concurrent::Shared {
            program: d.program,
            workflow: d.workflow_idx,
            context: &context,
            files: cx.files,
            kit: &kit,
            fan_out: d.node_idx,
            inherited: &inherited,
            journal: &journal,
        };
        let asked_before = asked::mark(&kit);
        let plan = concurrent::plan(&shared, cx.backend.as_deref(), &targets, &policy);
        let mut started_data = json!({"branch_count": targets.len(),
            "join_policy": policy.join.name(), "error_policy": policy.error.name(),
            "max_parallel": policy.max_parallel,
            "concurrency": plan.as_ref().map_or(1, concurrent::Plan::width)});
        if let Err(why) = &plan {
            started_data["sequential_reason"] = json!(why);
        }
        cx.event("ParallelStarted", started_data);
        let started = std::time::Instant::now();
        let runs = match plan {
            Ok(plan) => concurrent::run(&shared, plan, &targets, &policy),
            Err(_) => {
                let backend = cx
                    .backend
                    .as_deref_mut()
                    .map(|b| b as &mut dyn crate::agent::DecisionAgent);
                one_at_a_time(&shared, backend, &targets, &policy)
            }
        };
        // The effects the branches completed happened, whatever comes of
        // the fan-out (also when it suspends): the engine hands those to
        // compensate over to the run when this returns (engine/fan_saga.rs).
        if let Some(sink) = d.fan_effects {
            let lists = (runs.iter().enumerate()).map(|(i, ran)| {
                let prefix = format!("{}{}/", kit.scope, ran.result.id);
                let dir = journal.branch_dir(i);
                let updates = &ran.result.context_updates;
                BranchEffects::of(dir.as_deref(), &ran.compensable, &prefix, updates)
            });
            sink.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .extend(lists);
        }
        // A branch that an agent error suspended (a backend outage in a
        // durable run) suspends the fan-out once every branch has ended.
        let suspended = runs
            .iter()
            .find_map(|r| Some((r.result.id.clone(), r.suspended.clone()?)));
        // The questions of the branches that wait at a gate (theirs, or
        // nested in them).
        let waiting = asked::collect(&kit, asked_before, &runs);
        let mut results: Vec<BranchResult> = Vec::with_capacity(runs.len());
        // Each started branch's events, in edge order (deterministic
        // whatever order concurrent branches finished in).
        // A fan-out that suspends for a question cannot tell events (a
        // suspension carries none): each branch that ended keeps its own
        // in the journal, told when the fan-out ends on resume.
        let asking = suspended.is_none() && !waiting.is_empty();
        for (index, mut ran) in runs.into_iter().enumerate() {
            if ran.waiting.is_some() {
                // Its events are told once it ends, on resume.
                results.push(ran.result);
                continue;
            }
            if asking && !ran.resumed {
                let _ = shared.journal.record_events(
                    index,
                    (ran.offset_ms, ran.duration_ms),
                    &ran.events,
                );
            }
            if ran.resumed
                && let Some(told) = shared.journal.load_events(index)
            {
                (ran.offset_ms, ran.duration_ms, ran.events) = told;
                ran.resumed = false;
            }
            if ran.resumed {
                let r = &ran.result;
                cx.event(
                    "ParallelBranchCompleted",
                    json!({"branch": r.id, "index": index, "duration_ms": ran.duration_ms,
                           "success": r.succeeded(), "outcome": r.outcome.as_str(),
                           "resumed": true}),
                );
            } else if let Some(offset) = ran.offset_ms {
                let r = &ran.result;
                cx.event(
                    "ParallelBranchStarted",
                    json!({"branch": r.id, "index": index, "offset_ms": offset}),
                );
                for event in ran.events.events {
                    cx.event(
                        "ParallelBranchEvent",
                        json!({"branch": r.id, "index": index, "event": event}),
                    );
                }
                let mut done = json!({"branch": r.id, "index": index,
                    "duration_ms": ran.duration_ms, "success": r.succeeded(),
                    "outcome": r.outcome.as_str()});
                if ran.events.dropped > 0 {
                    done["events_dropped"] = json!(ran.events.dropped);
                }
                cx.event("ParallelBranchCompleted", done);
            }
            results.push(ran.result);
        }
        shared.journal.note_interrupted(d.step);
        let asked = waiting_reason(&waiting);
        if let Some(w) = &self.kit.waiting {
            w.borrow_mut().extend(waiting);
        }
        let errored = suspended.is_some();
        let suspended = match (suspended, asked) {
            (Some((branch, reason)), _) => Some(format!("parallel branch `{branch}`: {reason}")),
            (None, Some(asked)) => Some(asked),
            (None, None) => None,
        };
        if let Some(mut reason) = suspended {
            // The resumed run asks the node again at the next step.
            if let Err(e) = shared.journal.suspend(d.step + 1) {
                reason.push_str(&format!(
                    " (the finished branches could not be noted ({e}): a resumed run runs them again)"
                ));
            }
            // Nested in a branch or a child pipeline, an agent error stays
            // one: the branch or child around suspends on it in turn, up
            // to the run (a suspension of its own would fail it).
            if errored && self.kit.depth > 0 {
                return Err(AgentError { message: reason });
            }
            return Ok(Decision::Suspend { reason });
        }
        let join = policy.join_outcome(&results);
        let kept: Vec<&BranchResult> = results
            .iter()
            .filter(|r| !(policy.error == ErrorPolicy::Ignore && r.outcome == Status::Fail))
            .collect();
        let (succeeded, failed) = policy::counts(&results);
        cx.event(
            "ParallelCompleted",
            json!({"duration_ms": started.elapsed().as_millis() as u64,
                   "success_count": succeeded, "failure_count": failed}),
        );
        let mut outcome = Outcome {
            status: join.status,
            failure_reason: join.reason,
            notes: Some(format!(
                "{succeeded} of {} branches succeeded, {failed} failed (join_policy={}, error_policy={})",
                results.len(),
                policy.join.name(),
                policy.error.name()
            )),
            writes: vec![
                Write {
                    key: "parallel.results".into(),
                    value: serde_json::to_value(&kept).unwrap_or(Value::Null),
                },
                Write {
                    key: "parallel.success_count".into(),
                    value: json!(succeeded),
                },
                Write {
                    key: "parallel.failure_count".into(),
                    value: json!(failed),
                },
            ],
            ..Outcome::success()
        };
        if outcome.status != Status::Fail {
            let fallback = branch::static_fan_in(d.program, d.workflow_idx, &targets)
                .map(|n| d.str(d.workflow.nodes[n.0 as usize].id));
            match policy::convergence(&results, fallback) {
                Ok(node) => {
                    outcome.suggested_next = vec![node.clone()];
                    outcome.jump = Some(node);
                }
                Err(reason) => {
                    outcome.status = Status::Fail;
                    outcome.failure_reason = Some(format!("node `{}`: {reason}", cx.node_id));
                }
            }
        }
        Ok(Decision::Advance(outcome))
    }
}

/// Why a fan-out whose branches wait at gates suspends: the questions.
fn waiting_reason(waiting: &[crate::question::PendingQuestion]) -> Option<String> {
    let ids: Vec<String> = waiting.iter().map(|q| format!("`{}`", q.id)).collect();
    match waiting {
        [] => None,
        [q] => Some(format!(
            "waiting for an answer to question {} in {}",
            ids[0], q.place
        )),
        _ => Some(format!(
            "waiting for answers to {} questions in parallel branches: {}",
            waiting.len(),
            ids.join(", ")
        )),
    }
}

/// Runs the branches in edge order, one after another (see
/// [`concurrent::plan`] for when), stopping as the policy says.
fn one_at_a_time(
    s: &concurrent::Shared<'_>,
    mut backend: Option<&mut dyn crate::agent::DecisionAgent>,
    targets: &[wf_ir::NodeIdx],
    policy: &Policy,
) -> Vec<concurrent::Ran> {
    let started = std::time::Instant::now();
    let mut runs = Vec::with_capacity(targets.len());
    let mut stopped: Option<String> = None;
    for (index, &target) in targets.iter().enumerate() {
        let w = &s.program.workflows[s.workflow.0 as usize];
        let id = s.program.str(w.nodes[target.0 as usize].id);
        if let Some(why) = &stopped {
            runs.push(concurrent::Ran::without_running(BranchResult::not_run(
                id, why,
            )));
            continue;
        }
        let env = BranchEnv {
            program: s.program,
            workflow: s.workflow,
            context: s.context,
            backend: backend.as_deref_mut().map(|b| b as _),
            files: s.files,
            kit: s.kit,
            fan_out: s.fan_out,
            inherited: s.inherited,
        };
        let ran = concurrent::run_one(env, index, target, s.journal, started);
        // A branch that waits at a gate has not ended: it stops nothing.
        if ran.waiting.is_none() {
            stopped = policy.stop_after(&ran.result);
        }
        runs.push(ran);
    }
    runs
}

#[cfg(test)]
mod tests;
