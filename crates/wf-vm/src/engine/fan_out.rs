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

use serde_json::{Map, Value, json};
use wf_ir::{NodeIdx, Opcode, WorkflowIdx};

use super::{Engine, StepInput};
use crate::agent::{
    BlackboardView, Decision, DecisionAgent, DecisionContext, Outcome, Status, ToolRunner, Write,
};
use crate::attractor::nested::Inherited;
use crate::attractor::parallel::journal::Journal;
use crate::attractor::parallel::policy::{self, BranchResult, Policy};
use crate::attractor::parallel::trace::{BranchEvents, TraceSink};
use crate::report::RunStatus;

/// A branch's run.
struct Run {
    result: BranchResult,
    join: Option<NodeIdx>,
    events: BranchEvents,
    duration_ms: u64,
    /// Taken from the journal: it finished before the run was killed.
    resumed: bool,
}

/// Lends a borrowed tool runner to an engine that wants to own one.
struct LentTools<'a>(&'a mut dyn ToolRunner);

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
struct Env<'e> {
    program: &'e wf_ir::IrProgram,
    wf: WorkflowIdx,
    fan_out: NodeIdx,
    context: &'e [(String, Value)],
    inherited: &'e Inherited,
}

fn run_branch(
    env: Env<'_>,
    start: NodeIdx,
    agent: &mut dyn DecisionAgent,
    tools: Option<Box<dyn ToolRunner + '_>>,
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
    let trace = TraceSink::default();
    match env.inherited.engine(env.program, env.wf) {
        Err(e) => {
            result.outcome = Status::Fail;
            result.failure_reason = Some(e.to_string());
        }
        Ok(mut engine) => {
            for (k, v) in env.context {
                let _ = engine.set_input(k, v.clone());
            }
            engine.start_at(start);
            if let Some(tools) = tools {
                engine.set_tool_runner(tools);
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
                match engine.step(agent).clone() {
                    RunStatus::Running => {}
                    RunStatus::Completed | RunStatus::Yielded => break,
                    RunStatus::Failed { reason } => {
                        result.outcome = Status::Fail;
                        result.failure_reason = Some(reason);
                        break;
                    }
                    RunStatus::Suspended { reason } => {
                        result.outcome = Status::Fail;
                        result.failure_reason = Some(format!(
                            "the branch suspended ({reason}); branches cannot suspend"
                        ));
                        break;
                    }
                }
            }
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
    Run {
        result,
        join,
        events,
        duration_ms: t.elapsed().as_millis() as u64,
        resumed: false,
    }
}

/// [`run_branch`], unless the journal has the branch's result; journals
/// the result of a branch it runs.
fn run_journaled(
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
        let events = BranchEvents::default();
        return Run {
            result,
            join,
            events,
            duration_ms,
            resumed: true,
        };
    }
    let mut run = run_branch(env, start, agent, tools);
    if let Err(e) = journal.record(index, &run.result, run.duration_ms) {
        let note = format!("its result could not be journaled ({e}): a resumed run runs it again");
        run.result.notes = Some(note);
    }
    run
}

/// Merges the keys the branches wrote, in edge order, by `strategy`
/// (docs/attributes.md, "Merge strategies"). `Err`: a `fail` conflict.
pub(crate) fn merge(strategy: &str, branches: &[&BranchResult]) -> Result<Vec<Write>, String> {
    let mut keys: Vec<&String> = Vec::new();
    for b in branches {
        for k in b.context_updates.keys() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let mut writes = Vec::with_capacity(keys.len());
    for key in keys {
        let from: Vec<(&str, &Value)> = branches
            .iter()
            .filter_map(|b| b.context_updates.get(key).map(|v| (b.id.as_str(), v)))
            .collect();
        let value = match strategy {
            "first_wins" => from[0].1.clone(),
            "collect" => Value::Array(from.iter().map(|(_, v)| (*v).clone()).collect()),
            "merge_dict" => {
                let mut map = Map::new();
                let mut last = None;
                for (_, v) in &from {
                    match v {
                        Value::Object(m) => map.extend(m.clone()),
                        other => last = Some((*other).clone()),
                    }
                }
                // A value that is not a map replaces, as `last_wins` would.
                last.unwrap_or(Value::Object(map))
            }
            "fail" if from.len() > 1 => {
                let names: Vec<String> = from.iter().map(|(b, _)| format!("`{b}`")).collect();
                let (last, rest) = names.split_last().expect("two or more");
                return Err(format!(
                    "branches {} and {last} each wrote `{key}`, and the join merges with `merge = fail`",
                    rest.join(", ")
                ));
            }
            _ => from[from.len() - 1].1.clone(),
        };
        writes.push(Write {
            key: key.clone(),
            value,
        });
    }
    Ok(writes)
}

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
        let env = Env {
            program,
            wf,
            fan_out: node,
            context: &context,
            inherited: &inherited,
        };
        // Branches take time: the next step reads the clock.
        self.clock_due = true;
        // Finished branches are journaled (docs/runtime.md, "Durable
        // fan-outs"), in a durable run's directory only.
        let journal = match &self.out.log {
            Some(log) => Journal::in_dir(
                log.dir()
                    .path()
                    .join("branches")
                    .join(crate::attractor::safe_name(self.wf_name(wf)))
                    .join(crate::attractor::safe_name(name))
                    .join(format!("step-{}", self.step)),
            ),
            None => Journal::default(),
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
            let (events, duration_ms) = (BranchEvents::default(), 0);
            (
                Run {
                    result,
                    join: None,
                    events,
                    duration_ms,
                    resumed: false,
                },
                None,
            )
        };
        let runs: Vec<(Run, Option<u64>)> = match forks {
            Some(workers) => {
                let runs = super::fan_pool::run(
                    workers,
                    &targets,
                    |r: &(Run, Option<u64>)| policy.stop_after(&r.0.result),
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
                    stopped = policy.stop_after(&run.result);
                    out.push((run, Some(at)));
                }
                self.tools = tools;
                out
            }
        };
        let mut outcome = Outcome::success();
        let mut started = json!({"branch_count": targets.len(),
            "max_parallel": policy.max_parallel, "concurrency": concurrency});
        if let Some(why) = sequential_reason {
            started["sequential_reason"] = json!(why);
        }
        outcome.events.push(event("ParallelStarted", started));
        let mut results = Vec::with_capacity(runs.len());
        let mut joins = Vec::new();
        for (index, (run, at)) in runs.into_iter().enumerate() {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn branch(id: &str, writes: Value) -> BranchResult {
        BranchResult {
            outcome: Status::Success,
            context_updates: writes.as_object().unwrap().clone(),
            ..BranchResult::not_run(id, "")
        }
    }

    #[test]
    fn merge_strategies_in_edge_order() {
        let a = branch("a", json!({"k": {"x": 1, "both": "a"}, "only_a": 1}));
        let b = branch("b", json!({"k": {"y": 2, "both": "b"}}));
        let got = |s: &str| {
            merge(s, &[&a, &b]).map(|w| w.into_iter().map(|w| (w.key, w.value)).collect::<Vec<_>>())
        };
        let k = |v: Value| vec![("k".to_string(), v), ("only_a".to_string(), json!(1))];
        assert_eq!(got("last_wins").unwrap(), k(json!({"y": 2, "both": "b"})));
        assert_eq!(got("first_wins").unwrap(), k(json!({"x": 1, "both": "a"})));
        assert_eq!(
            got("merge_dict").unwrap(),
            k(json!({"x": 1, "y": 2, "both": "b"}))
        );
        let collected = got("collect").unwrap();
        assert_eq!(
            collected[0].1,
            json!([{"x": 1, "both": "a"}, {"y": 2, "both": "b"}])
        );
        assert_eq!(collected[1].1, json!([1]));
        let conflict = got("fail").unwrap_err();
        assert_eq!(
            conflict,
            "branches `a` and `b` each wrote `k`, and the join merges with `merge = fail`"
        );
        // One writer is no conflict.
        assert!(merge("fail", &[&a]).is_ok());
    }
}
