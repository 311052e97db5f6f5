//! `.wf` `parallel` and `join` (docs/runtime.md, "Parallel branches").
//!
//! A `.wf` `parallel` node is one step the engine takes with the agent's
//! help: every valid outgoing edge starts a branch, an engine of its own
//! on the same workflow with a copy of the scope as it is now (a branch's
//! writes are invisible to its siblings), which runs until it reaches a
//! `join` (or `exit`) node, not run. The branches run at once, up to
//! `max_parallel`, when the agent and the tool runner can be forked, else
//! one after another with the run's own. The keys the branches wrote are
//! merged by the join's `merge` strategy ([`merge`]) and become the
//! parallel node's writes; the run continues at the join. The whole
//! fan-out is the step's logged decision, so a resume or a replay applies
//! it without running the branches again.

use std::time::Instant;

use serde_json::{Value, json};
use wf_ir::{NodeIdx, Opcode, WorkflowIdx};

use super::fan_branch::{Env, LentTools, Run, run_journaled};
use super::merge::merge;
use super::{Engine, StepInput};
use crate::agent::{BlackboardView, Decision, DecisionAgent, Outcome, Status, ToolRunner};
use crate::attractor::nested::Inherited;
use crate::attractor::parallel::journal::Journal;
use crate::attractor::parallel::policy::{self, BranchResult, Policy};

impl Engine<'_> {
    /// Runs the `.wf` fan-out at `node` and returns the step's decision.
    pub(super) fn fan_out(
        &mut self,
        agent: &mut dyn DecisionAgent,
        wf: WorkflowIdx,
        node: NodeIdx,
    ) -> StepInput {
        let program = self.program;
        let w = &program.workflows[wf.0 as usize];
        let ir = &w.nodes[node.0 as usize];
        let targets: Vec<NodeIdx> = self
            .valid
            .iter()
            .map(|e| w.edges[e.0 as usize].to)
            .collect();
        let decide = |outcome| StepInput::Decision {
            decision: Decision::Advance(outcome),
            failure: None,
        };
        let name = program.str(ir.id);
        let policy = match Policy::from_node(program, ir, &ir.spec, targets.len()) {
            Ok(p) => p,
            Err(e) => return decide(Outcome::failed(format!("node `{name}`: {e}"))),
        };
        let view = self.blackboard();
        let context: Vec<(String, Value)> = view
            .keys()
            .into_iter()
            .filter_map(|k| view.get(k).map(|v| (k.to_owned(), v.clone())))
            .collect();
        let inherited = Inherited::new(&self.config, &self.limits, self.step, self.elapsed);
        // The branches' questions are scoped under this node and visit.
        let scope = format!(
            "{}{}/",
            self.config.question_scope,
            crate::question::question_id(name, self.visit_count(wf, node))
        );
        // Only a fan-out of the run itself may wait for an effect to be
        // settled (engine/fan_effect.rs); for answers, one nested in a
        // branch that waits too (its engine has a folder of its own and
        // a list for the questions it waits on, engine/fan_wait.rs;
        // docs/runtime.md, "Gates in parallel branches").
        let journal_dir = self.out.log.as_ref().and_then(|log| log.journal_dir());
        let nested_asks =
            self.out.log.is_none() && self.out.questions.is_some() && self.journal_root().is_some();
        // `--assume-done`/`--rerun` of a node of one of these branches.
        let settle = self.take_branch_settlement(&scope);
        // Branches take time: the next step reads the clock.
        self.clock_due = true;
        // Finished branches are journaled (docs/runtime.md, "Durable
        // fan-outs"), in a durable run's directory or, nested in a branch
        // of one, in the branch's folder.
        let journal = match self.journal_root() {
            Some(dir) => Journal::in_dir_at(
                &dir.join("branches")
                    .join(crate::attractor::safe_name(self.wf_name(wf)))
                    .join(crate::attractor::safe_name(name)),
                self.step,
            ),
            None => Journal::default(),
        };
        // The keys the branches share, and hand to the run at the end.
        let keys = self.fan_keys(&journal, targets.len());
        let env = Env {
            program,
            wf,
            fan_out: node,
            context: &context,
            inherited: &inherited,
            scope: &scope,
            may_wait: journal_dir.is_some() && self.config.questions_wait,
            may_ask: (journal_dir.is_some() || nested_asks) && self.config.questions_wait,
            settle: &settle,
            keys: keys.as_ref(),
        };
        let width = (policy.max_parallel as usize).min(targets.len());
        // Whether a branch may ask the agent: any node but a tool (a call's
        // callee asks).
        let ask = targets.iter().any(|&t| {
            crate::attractor::parallel::concurrent::branch_nodes(program, wf, node, t)
                .iter()
                .any(|n| w.nodes[n.0 as usize].op != Opcode::Tool)
        });
        let tools = self.tools.as_deref().map(|t| t as _);
        let forks = (width > 1)
            .then(|| super::fan_pool::forks(agent, ask, tools, width))
            .flatten();
        let concurrency = forks.as_ref().map_or(1, Vec::len);
        let sequential_reason = match () {
            _ if forks.is_some() => None,
            _ if targets.len() < 2 => Some("a single branch"),
            _ if width < 2 => Some("max_parallel=1"),
            _ if ask && agent.fork().is_none() => {
                Some("the agent cannot be copied to another thread")
            }
            _ => Some("the tool runner cannot be copied to another thread"),
        };
        let started = Instant::now();
        let skipped = |i: usize, why: &str| -> (Run, Option<u64>) {
            let id = program.str(w.nodes[targets[i].0 as usize].id);
            let result = BranchResult::not_run(id, why);
            (Run::ended_with(result, None, 0, false), None)
        };
        let runs: Vec<(Run, Option<u64>)> = match forks {
            Some(workers) => {
                let runs = super::fan_pool::run(
                    workers,
                    &targets,
                    crate::agents::order::reach(program, wf, node, &targets),
                    |worker| worker,
                    |r: &(Run, Option<u64>)| r.0.ended().then(|| policy.stop_after(&r.0.result))?,
                    skipped,
                    |(agent, tools), i, t| {
                        let tools = tools
                            .as_deref_mut()
                            .map(|t| Box::new(LentTools(t)) as Box<dyn ToolRunner>);
                        let at = started.elapsed().as_millis() as u64;
                        let run = run_journaled(env, (i, t), agent.as_mut(), tools, &journal);
                        (run, Some(at))
                    },
                );
                runs.into_iter()
                    .enumerate()
                    .map(|(i, r)| {
                        r.unwrap_or_else(|| {
                            let (mut run, at) = skipped(i, "");
                            run.result.outcome = Status::Fail;
                            run.result.notes = None;
                            run.result.failure_reason = Some(
                                "the branch's thread stopped unexpectedly (a bug in wfc)".into(),
                            );
                            (run, at)
                        })
                    })
                    .collect()
            }
            None => {
                let mut tools = self.tools.take();
                let mut out = Vec::new();
                let mut stopped: Option<String> = None;
                for (i, &t) in targets.iter().enumerate() {
                    if let Some(why) = &stopped {
                        out.push(skipped(i, why));
                        continue;
                    }
                    let lent = tools
                        .as_deref_mut()
                        .map(|t| Box::new(LentTools(t)) as Box<dyn ToolRunner>);
                    let at = started.elapsed().as_millis() as u64;
                    let run = run_journaled(env, (i, t), agent, lent, &journal);
                    // A branch that waits has not ended: it stops nothing.
                    if run.ended() {
                        stopped = policy.stop_after(&run.result);
                    }
                    out.push((run, Some(at)));
                }
                self.tools = tools;
                out
            }
        };
        journal.note_interrupted(self.step);
        // The effects the branches completed happened, whatever the
        // fan-out's outcome: their keys are the run's from now on.
        self.join_keys(keys);
        // So are their effects to compensate if the run fails (also those
        // of a fan-out that suspends: a cancellation undoes them).
        self.join_compensations(&journal, &runs, &scope);
        let mut outcome = Outcome::success();
        let mut started = json!({"branch_count": targets.len(),
            "max_parallel": policy.max_parallel, "concurrency": concurrency});
        if let Some(why) = sequential_reason {
            started["sequential_reason"] = json!(why);
        }
        outcome.events.push(event("ParallelStarted", started));
        let mut results = Vec::with_capacity(runs.len());
        let mut joins = Vec::new();
        let asked: Vec<crate::question::PendingQuestion> =
            runs.iter().flat_map(|(r, _)| r.questions()).collect();
        let unsettled: Vec<crate::effects::PendingEffect> = runs
            .iter()
            .filter_map(|(r, _)| r.unsettled.clone())
            .collect();
        // The branches one of the agent's stops ended, each with its reason.
        let stopped_by = |why: fn(&Run) -> Option<&String>| -> Vec<String> {
            (runs.iter())
                .filter_map(|(r, _)| Some(format!("branch `{}`: {}", r.result.id, why(r)?)))
                .collect()
        };
        let agent_errors = stopped_by(|r| r.agent_error.as_ref());
        let suspensions = stopped_by(|r| r.suspended.as_ref());
        let stopped = !agent_errors.is_empty() || !suspensions.is_empty();
        if !asked.is_empty() || !unsettled.is_empty() || stopped {
            // A suspension carries no events: the branches that ended keep
            // theirs, told when the fan-out ends.
            for (index, (run, at)) in runs.iter().enumerate() {
                if run.ended() && !run.resumed && at.is_some() {
                    let _ = journal.record_events(index, (*at, run.duration_ms), &run.events);
                }
            }
            // Branches an agent error or the agent's own suspension
            // stopped, and nothing else waits: the step ends with the
            // agent error (or suspends), which suspends the run (or the
            // branch around a nested fan-out, in turn); a resume runs those
            // branches again, the others from the journal.
            if asked.is_empty() && unsettled.is_empty() {
                let count = |n: usize| match n {
                    1 => "a branch".to_owned(),
                    n => format!("{n} branches"),
                };
                let name = self.node_name(wf, node);
                let mut message = if agent_errors.is_empty() {
                    format!(
                        "the agent suspended {} of parallel node `{name}`: {}",
                        count(suspensions.len()),
                        suspensions.join("; ")
                    )
                } else {
                    format!(
                        "an agent error stopped {} of parallel node `{name}`: {}",
                        count(agent_errors.len()),
                        agent_errors.join("; ")
                    )
                };
                if !agent_errors.is_empty() && !suspensions.is_empty() {
                    message.push_str(&format!(
                        "; the agent also suspended {}: {}",
                        count(suspensions.len()),
                        suspensions.join("; ")
                    ));
                }
                if let Err(e) = journal.suspend(self.step + 1) {
                    message.push_str(&format!(
                        " (the finished branches could not be noted ({e}): a resumed run runs them again)"
                    ));
                }
                if agent_errors.is_empty() {
                    return StepInput::Decision {
                        decision: Decision::Suspend { reason: message },
                        failure: None,
                    };
                }
                return StepInput::AgentError {
                    message,
                    suspended: self.config.suspend_on_agent_error,
                    failure: None,
                };
            }
            // An unsettled effect comes first: the run cannot go on
            // before it is settled, whatever the answers.
            let reason = match (asked.is_empty(), unsettled.is_empty()) {
                (_, true) => self.fan_suspend(&journal, &asked),
                (true, false) => self.fan_suspend_effect(&journal, &unsettled),
                (false, false) => {
                    let questions = self.fan_suspend(&journal, &asked);
                    let effect = self.fan_suspend_effect(&journal, &unsettled);
                    format!("{effect}; then {questions}")
                }
            };
            return StepInput::Decision {
                decision: Decision::Suspend { reason },
                failure: None,
            };
        }
        for (index, (mut run, mut at)) in runs.into_iter().enumerate() {
            if run.resumed
                && let Some((offset, duration_ms, events)) = journal.load_events(index)
            {
                (at, run.duration_ms, run.events, run.resumed) =
                    (offset, duration_ms, events, false);
            }
            let r = &run.result;
            if run.resumed {
                outcome.events.push(event(
                    "ParallelBranchCompleted",
                    json!({"branch": r.id, "index": index, "duration_ms": run.duration_ms,
                           "outcome": r.outcome.as_str(), "resumed": true}),
                ));
            } else if let Some(at) = at {
                outcome.events.push(event(
                    "ParallelBranchStarted",
                    json!({"branch": r.id, "index": index, "offset_ms": at}),
                ));
                for e in run.events.events {
                    outcome.events.push(event(
                        "ParallelBranchEvent",
                        json!({"branch": r.id, "index": index, "event": e}),
                    ));
                }
                outcome.events.push(event(
                    "ParallelBranchCompleted",
                    json!({"branch": r.id, "index": index, "duration_ms": run.duration_ms,
                           "outcome": r.outcome.as_str()}),
                ));
            }
            joins.extend(run.join);
            results.push(run.result);
        }
        let (ok, failed) = policy::counts(&results);
        let join = policy.join_outcome(&results);
        outcome.status = join.status;
        outcome.failure_reason = join.reason;
        outcome.notes = Some(format!(
            "{ok} of {} branches succeeded, {failed} failed",
            results.len()
        ));
        if outcome.status == Status::Fail {
            return decide(outcome);
        }
        joins.dedup();
        let at = match joins.as_slice() {
            [j] => *j,
            [] => {
                outcome.status = Status::Fail;
                outcome.failure_reason =
                    Some(format!("node `{name}`: no branch reached a `join` node"));
                return decide(outcome);
            }
            _ => {
                outcome.status = Status::Fail;
                outcome.failure_reason = Some(format!(
                    "node `{name}`: the branches reached different `join` nodes"
                ));
                return decide(outcome);
            }
        };
        let join_node = &w.nodes[at.0 as usize];
        let strategy = join_node
            .engine
            .merge
            .map_or("last_wins", |m| program.str(m));
        // A failed branch's writes are not merged: it did not do its work.
        let kept: Vec<&BranchResult> = results.iter().filter(|r| r.succeeded()).collect();
        match merge(strategy, &kept) {
            Ok(writes) => {
                outcome.writes = writes;
                outcome.jump = Some(program.str(join_node.id).to_owned());
            }
            Err(reason) => {
                outcome.status = Status::Fail;
                outcome.failure_reason = Some(format!("node `{name}`: {reason}"));
            }
        }
        decide(outcome)
    }
}

fn event(name: &str, data: Value) -> crate::agent::HandlerEvent {
    crate::agent::HandlerEvent {
        name: name.to_owned(),
        data,
    }
}
