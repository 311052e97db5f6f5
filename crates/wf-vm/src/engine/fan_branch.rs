//! One branch of a `.wf` fan-out: an engine of its own on the workflow,
//! from the branch's first node to the `join` it reaches (see
//! [`super::fan_out`]).

use std::time::Instant;

use serde_json::Value;
use wf_ir::{NodeIdx, Opcode, WorkflowIdx};

use crate::agent::{DecisionAgent, DecisionContext, Outcome, Status, ToolRunner};
use crate::attractor::nested::Inherited;
use crate::attractor::parallel::journal::{Journal, Waiting};
use crate::attractor::parallel::policy::BranchResult;
use crate::attractor::parallel::trace::{BranchEvents, TraceSink};
use crate::failure::FailureKind;
use crate::report::RunStatus;

/// A branch's run.
pub(super) struct Run {
    pub(super) result: BranchResult,
    pub(super) join: Option<NodeIdx>,
    pub(super) events: BranchEvents,
    pub(super) duration_ms: u64,
    /// Taken from the journal: it finished before the run was killed.
    pub(super) resumed: bool,
    /// It waits at a `human` node whose agent suspended (journaled, so
    /// the resumed fan-out restores it there).
    pub(super) waiting: Option<Waiting>,
    /// When it waits at a fan-out nested in it: every question that
    /// fan-out's branches wait on (`waiting` holds the first).
    pub(super) asked: Vec<crate::question::PendingQuestion>,
    /// It waits before an `at_most_once` node an earlier run of it
    /// started and did not finish (not journaled: it runs again once the
    /// node is settled; engine/fan_effect.rs).
    pub(super) unsettled: Option<crate::effects::PendingEffect>,
    /// An agent error suspended it (`EngineConfig::suspend_on_agent_error`,
    /// a durable run's default): its reason. Not journaled: the run
    /// suspends on it, and the resumed fan-out runs the branch again.
    pub(super) agent_error: Option<String>,
    /// Its agent suspended at a node that asks no question, in a run
    /// whose questions wait: the reason. Not journaled either: the run
    /// suspends, and the resumed fan-out runs the branch again.
    pub(super) suspended: Option<String>,
    /// Its completed effects that name a compensation, for the join to
    /// hand over (a run without a directory: a durable branch's are in
    /// its folder; engine/fan_saga.rs).
    pub(super) compensable: Vec<crate::effects::Completed>,
}

impl Run {
    /// A branch that ended without running here: taken from the journal
    /// (`resumed`), or not run at all; nothing waits, no events.
    pub(super) fn ended_with(
        result: BranchResult,
        join: Option<NodeIdx>,
        duration_ms: u64,
        resumed: bool,
    ) -> Run {
        Run {
            result,
            join,
            events: BranchEvents::default(),
            duration_ms,
            resumed,
            waiting: None,
            asked: Vec::new(),
            unsettled: None,
            agent_error: None,
            suspended: None,
            compensable: Vec::new(),
        }
    }

    /// Whether the branch ended (it does not wait for an answer, a
    /// settlement or a retry after an agent error).
    pub(super) fn ended(&self) -> bool {
        self.waiting.is_none()
            && self.unsettled.is_none()
            && self.agent_error.is_none()
            && self.suspended.is_none()
    }

    /// The questions the branch waits on, in edge order: its own
    /// `human` node's, or those of the fan-out nested in it.
    pub(super) fn questions(&self) -> Vec<crate::question::PendingQuestion> {
        match &self.waiting {
            None => Vec::new(),
            Some(_) if !self.asked.is_empty() => self.asked.clone(),
            Some(w) => vec![w.question.clone()],
        }
    }
}

/// Lends a borrowed tool runner to an engine that wants to own one.
pub(super) struct LentTools<'a>(pub(super) &'a mut dyn ToolRunner);

impl ToolRunner for LentTools<'_> {
    fn run(
        &mut self,
        context: &DecisionContext<'_>,
        command: &crate::template::ShellCommand,
        timeout: std::time::Duration,
    ) -> Outcome {
        self.0.run(context, command, timeout)
    }
}

/// Everything a branch needs but its agent and tool runner.
#[derive(Clone, Copy)]
pub(super) struct Env<'e> {
    pub(super) program: &'e wf_ir::IrProgram,
    pub(super) wf: WorkflowIdx,
    pub(super) fan_out: NodeIdx,
    pub(super) context: &'e [(String, Value)],
    pub(super) inherited: &'e Inherited,
    /// The fan-out's question scope (`fan#1/`): a branch's questions are
    /// scoped under it and its own id.
    pub(super) scope: &'e str,
    /// A branch may wait at a `human` node (a journaled fan-out of a
    /// durable run whose questions wait), or before an unsettled
    /// `at_most_once` node.
    pub(super) may_wait: bool,
    /// A branch may wait at a `human` node: `may_wait`, or in a fan-out
    /// nested in a branch that may wait at one (engine/fan_wait.rs).
    pub(super) may_ask: bool,
    /// The user's settlements of `at_most_once` nodes of the branches, by
    /// their branch-qualified names (`fan#1/a/charge`).
    pub(super) settle: &'e [crate::effects::Resolution],
    /// The registry of idempotence keys the branches share
    /// (engine/fan_keys.rs).
    pub(super) keys: Option<&'e std::sync::Arc<super::fan_keys::SharedKeys>>,
}

/// Runs one branch from `start`; `durable`: the branch's own folder in a
/// durable run (engine/fan_durable.rs).
pub(super) fn run_branch(
    env: Env<'_>,
    start: NodeIdx,
    agent: &mut dyn DecisionAgent,
    tools: Option<Box<dyn ToolRunner + '_>>,
    from: Option<Waiting>,
    durable: Option<std::path::PathBuf>,
) -> Run {
    let t = Instant::now();
    let w = &env.program.workflows[env.wf.0 as usize];
    let id = env.program.str(w.nodes[start.0 as usize].id);
    let mut result = BranchResult {
        outcome: Status::Success,
        notes: None,
        ..BranchResult::not_run(id, "")
    };
    let mut join = None;
    let mut waiting = None;
    let mut asked = Vec::new();
    let mut unsettled = None;
    let mut agent_error = None;
    let mut suspended = None;
    let mut compensable = Vec::new();
    let trace = TraceSink::default();
    let made = (env.inherited).branch_engine(env.program, env.wf, start, env.context, from, &trace);
    match made {
        Err(e) => {
            result.outcome = Status::Fail;
            result.failure_reason = Some(e.to_string());
        }
        Ok(mut engine) => {
            engine.config.question_scope = format!("{}{id}/", env.scope);
            engine.effects.in_branch = true;
            if let Some(dir) = durable {
                engine.attach_branch_dir(dir);
            }
            engine.effects.shared = env.keys.cloned();
            // A settlement for a node of this branch, by its own name.
            for r in env.settle {
                if let Some(own) = r.node().strip_prefix(&engine.config.question_scope)
                    && !own.contains('/')
                {
                    engine.effects.resolution.push(r.renamed(own));
                }
            }
            if let Some(tools) = tools {
                engine.set_tool_runner(tools);
            }
            // Where a fan-out nested in the branch leaves the questions
            // its branches wait on (engine/fan_wait.rs).
            let nested = env.may_ask.then(crate::question::WaitingQuestions::default);
            if let Some(list) = &nested {
                engine.set_waiting_questions(list.clone());
            }
            engine.set_event_sink(Box::new(trace.clone()));
            loop {
                let (wf, node, depth) = engine.position();
                let op = env.program.workflows[wf.0 as usize].nodes[node.0 as usize].op;
                if depth == 1 && matches!(op, Opcode::Join | Opcode::Exit) {
                    join = (op == Opcode::Join).then_some(node);
                    break;
                }
                if depth == 1 && node == env.fan_out && engine.steps() > 0 {
                    result.outcome = Status::Fail;
                    result.failure_reason = Some(
                        "the branch came back to its own parallel node without reaching a join"
                            .into(),
                    );
                    break;
                }
                if let Some(p) = engine.branch_effect_wait(wf, node) {
                    result.outcome = Status::Fail;
                    result.failure_reason = Some(if env.may_wait {
                        format!(
                            "waiting for the at_most_once node `{}` to be settled",
                            p.node
                        )
                    } else {
                        format!(
                            "the at_most_once node `{}` was started by an earlier run of the branch and not recorded as finished: it is not run again, and a nested branch cannot wait for it to be settled",
                            p.node
                        )
                    });
                    unsettled = env.may_wait.then_some(p);
                    break;
                }
                let failures = engine.failures().len();
                match engine.step(agent).clone() {
                    RunStatus::Running => {}
                    RunStatus::Completed | RunStatus::Yielded => break,
                    RunStatus::Failed { reason } => {
                        result.outcome = Status::Fail;
                        result.failure_reason = Some(reason);
                        break;
                    }
                    RunStatus::Suspended { reason } => {
                        // An agent's own `suspend` at a `human` node (not
                        // an agent error) waits, where the fan-out can
                        // keep the branch.
                        if env.may_ask
                            && engine.failures().len() == failures
                            && let Some(w) = super::fan_wait::waiting(
                                &env,
                                id,
                                &mut engine,
                                nested.as_ref(),
                                &mut asked,
                            )
                        {
                            result.outcome = Status::Fail;
                            result.failure_reason = Some(format!(
                                "waiting for an answer to question `{}`",
                                w.question.id
                            ));
                            waiting = Some(w);
                            break;
                        }
                        result.outcome = Status::Fail;
                        // An agent error the run suspends on: the fan-out
                        // suspends the run, and a resume tries again.
                        let by_agent = engine.failures().len() > failures
                            && engine.failures().last().is_some_and(|f| {
                                matches!(f.kind, FailureKind::Agent | FailureKind::Limit)
                            });
                        if by_agent && engine.config.suspend_on_agent_error {
                            result.failure_reason =
                                Some(format!("suspended by an agent error ({reason})"));
                            agent_error = Some(reason);
                            break;
                        }
                        // The agent's own suspension elsewhere than at a
                        // question (awaiting external data; no failure
                        // recorded, unlike an interrupt): the run
                        // suspends as it would at the root.
                        if engine.failures().len() == failures && env.may_ask {
                            result.failure_reason = Some(format!("suspended ({reason})"));
                            suspended = Some(reason);
                            break;
                        }
                        result.failure_reason = Some(format!(
                            "the branch suspended ({reason}); branches cannot suspend"
                        ));
                        break;
                    }
                }
            }
            compensable = std::mem::take(&mut engine.effects.completed);
            for (k, v) in engine.report().blackboard.0 {
                let before = env.context.iter().find(|(pk, _)| *pk == k).map(|p| &p.1);
                if before != Some(&v) {
                    result.context_updates.insert(k, v);
                }
            }
        }
    }
    result.stopped_at = join.map(|j| env.program.str(w.nodes[j.0 as usize].id).to_owned());
    let events = std::mem::take(&mut *trace.0.borrow_mut());
    if let Some(w) = &mut waiting {
        w.set_events(&events.events);
    }
    Run {
        result,
        join,
        events,
        duration_ms: t.elapsed().as_millis() as u64,
        resumed: false,
        waiting,
        asked,
        unsettled,
        agent_error,
        suspended,
        compensable,
    }
}

/// [`run_branch`], unless the journal has the branch's result; journals
/// the result of a branch it runs.
pub(super) fn run_journaled(
    env: Env<'_>,
    (index, start): (usize, NodeIdx),
    agent: &mut dyn DecisionAgent,
    tools: Option<Box<dyn ToolRunner + '_>>,
    journal: &Journal,
) -> Run {
    let w = &env.program.workflows[env.wf.0 as usize];
    let id = env.program.str(w.nodes[start.0 as usize].id);
    if let Some((result, duration_ms)) = journal.load(index, id) {
        let join = result.stopped_at.as_deref().and_then(|at| {
            (w.nodes.iter())
                .position(|n| n.op == Opcode::Join && env.program.str(n.id) == at)
                .map(|i| NodeIdx(i as u32))
        });
        return Run::ended_with(result, join, duration_ms, true);
    }
    // Where it waited: at its own `human` node, or in a fan-out nested
    // in it.
    let from = journal.load_waiting_under(index, &format!("{}{id}/", env.scope));
    // Its decisions go to the journal with its result (agents/noting.rs).
    let decided = crate::agents::noting::seeded(from.as_ref());
    let mut noting = crate::agents::noting::Noting {
        inner: agent,
        decided: decided.clone(),
    };
    let mut run = run_branch(
        env,
        start,
        &mut noting,
        tools,
        from,
        journal.branch_dir(index),
    );
    if run.unsettled.is_some() || run.agent_error.is_some() || run.suspended.is_some() {
        // Not journaled: it runs again once the node is settled, or when
        // the run its agent (or agent error) suspended is resumed.
    } else if let Some(w) = &mut run.waiting {
        w.decided = crate::agents::noting::to_json(&decided);
        if let Err(e) = journal.record_waiting(index, w) {
            run.result.notes = Some(format!(
                "where it waits could not be journaled ({e}): a resumed run runs it again from its start"
            ));
        }
    } else if let Err(e) = journal.record_decided(
        index,
        &run.result,
        run.duration_ms,
        Some(crate::agents::noting::to_json(&decided).into()),
    ) {
        let note = format!("its result could not be journaled ({e}): a resumed run runs it again");
        run.result.notes = Some(note);
    }
    run
}
