//! One step: start, limits, call push, asking the agent (or the tool
//! runner), and the helpers every part of a step uses.

use std::time::Instant;

use wf_ir::{NodeIdx, Opcode, WorkflowIdx};

use super::support::failed;
use super::{Engine, StepInput};
use crate::agent::{BlackboardView, Decision, DecisionAgent, DecisionContext, Status};
use crate::blackboard::{Blackboard, Frame, Phase};
use crate::event::Event;
use crate::failure::{FailureKind, RunFailure};
use crate::guard::{GuardEnv, eval};
use crate::report::RunStatus;
use crate::template::{ShellCommand, shell_command};

/// With an instant agent, the clock is read every this many steps.
const CLOCK_EVERY: u64 = 64;

/// A step the engine takes alone must replay an `engine` input.
fn engine_step(src: &Source<'_>, what: &str) -> Result<(), RunFailure> {
    match src {
        Source::Replay(input) if *input != StepInput::Engine => Err(log_mismatch(format!(
            "the log records a decision where {what}"
        ))),
        _ => Ok(()),
    }
}

/// A logged input that does not fit the state: the run directory's log
/// does not belong to its snapshot.
fn log_mismatch(message: String) -> RunFailure {
    RunFailure::new(FailureKind::Store, message)
}

/// Where a step's input comes from.
pub(crate) enum Source<'a> {
    /// Ask the agent.
    Live(&'a mut dyn DecisionAgent),
    /// Re-apply a logged input.
    Replay(StepInput),
}

impl<'p> Engine<'p> {
    /// Runs one step. `Err` only when a replayed input does not fit the
    /// state (a log that does not belong to its snapshot).
    pub(crate) fn do_step(&mut self, src: Source<'_>) -> Result<(), RunFailure> {
        // Reading the clock costs about as much as a whole step, so with an
        // instant agent it is read every `CLOCK_EVERY` steps only.
        let (now, instant) = match &src {
            Source::Live(agent) => {
                let instant = agent.is_instant();
                let now = if !instant
                    || std::mem::take(&mut self.clock_due)
                    || self.clock_mark.is_none()
                    || self.step.is_multiple_of(CLOCK_EVERY)
                {
                    let now = Instant::now();
                    if let Some(mark) = self.clock_mark {
                        self.elapsed += now - mark;
                    }
                    self.clock_mark = Some(now);
                    Some(now)
                } else {
                    None
                };
                (now, instant)
            }
            Source::Replay(_) => (None, false),
        };
        if let Some(log) = &mut self.out.log {
            log.begin();
        }
        self.out.clock.new_step();
        if !self.started {
            self.started = true;
            if let Some(reason) = self.missing_needs() {
                self.fail_run(FailureKind::Contract, reason);
                return Ok(());
            }
            self.enter_node();
            if self.status != RunStatus::Running {
                return Ok(());
            }
        }
        if let Source::Replay(StepInput::Abort { reason, kind }) = &src {
            self.fail_run(kind.unwrap_or(FailureKind::Limit), reason.clone());
            return Ok(());
        }
        if let Source::Replay(StepInput::OverBudget { depth, reason }) = &src {
            if *depth < 2 || *depth > self.frames.len() {
                return Err(log_mismatch(format!(
                    "the log ends a callee at depth {depth}, which is not a callee's"
                )));
            }
            self.record_input(&StepInput::OverBudget {
                depth: *depth,
                reason: reason.clone(),
            });
            self.fail_call(*depth, reason.clone());
            return Ok(());
        }
        if self.step >= self.limits.max_steps {
            let reason = format!(
                "the run reached its limit of {} steps (max_steps)",
                self.limits.max_steps
            );
            self.fail_run(FailureKind::Limit, reason);
            return Ok(());
        }
        if now.is_some() && self.elapsed > self.limits.wall_clock {
            let reason = format!(
                "the run exceeded its wall-clock limit of {} ms",
                self.limits.wall_clock.as_millis()
            );
            self.record_input(&StepInput::Abort {
                reason: reason.clone(),
                kind: Some(FailureKind::Limit),
            });
            self.fail_run(FailureKind::Limit, reason);
            return Ok(());
        }
        // A callee's own budgets; a replay applies the logged outcome of
        // this check instead (the wall clock is not replayable).
        if self.budgets
            && matches!(src, Source::Live(_))
            && let Some((depth, reason)) = self.over_budget(now.is_some())
        {
            self.record_input(&StepInput::OverBudget {
                depth,
                reason: reason.clone(),
            });
            self.fail_call(depth, reason);
            return Ok(());
        }
        // A sink that lost events (a full disk) ends the run: its events
        // would no longer tell what happened. Recorded like a time limit,
        // so a resume replays the same end.
        if let Source::Live(_) = &src
            && let Some(reason) = self.out.sink.as_ref().and_then(|s| s.failure())
        {
            self.record_input(&StepInput::Abort {
                reason: reason.clone(),
                kind: Some(FailureKind::Store),
            });
            self.fail_run(FailureKind::Store, reason);
            return Ok(());
        }
        let frame = self.frames.last().expect("the root frame is never popped");
        let (wf, node, phase) = (frame.workflow, frame.node, frame.phase);
        let ir_node = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        if phase == Phase::Entered && ir_node.op == Opcode::Call {
            engine_step(&src, "a call node starts its callee")?;
            self.record_input(&StepInput::Engine);
            self.push_call(wf, node);
            return Ok(());
        }
        // A callee that failed: its failure is the call node's outcome,
        // applied by the engine (the agent is not asked).
        if phase == Phase::Returned
            && let Some(reason) = self.frames.last_mut().and_then(|f| f.callee_failure.take())
        {
            engine_step(&src, "a call node takes its callee's failure")?;
            self.record_input(&StepInput::Engine);
            // The callee's failure is the trace's latest entry: the call
            // node fails with its kind (a tool that failed in the callee
            // is a tool failure of the call).
            let kind = self.last_failure_kind();
            self.fail_node(wf, node, kind, reason);
            return Ok(());
        }
        // A `.wf` `parallel` node runs its branches (`fan_out.rs`); an
        // Attractor one runs its handler (the agent).
        let fan_out = ir_node.op == Opcode::Parallel
            && self.program.workflows[wf.0 as usize].dialect != wf_ir::Dialect::Attractor;
        if !self.compute_valid(wf, node, Status::Success.as_str(), None) {
            return Ok(());
        }
        // A required read with no value: the node fails without running.
        if let Some(reason) = self.missing_reads(wf, node) {
            engine_step(&src, "a node fails for a missing read")?;
            self.record_input(&StepInput::Engine);
            self.apply_advance(failed(reason), false, FailureKind::Contract);
            return Ok(());
        }
        // A routing node: the engine decides alone (route.rs). A log
        // written before routing nodes were automatic records the agent's
        // input here instead: it is re-applied as recorded.
        if matches!(src, Source::Live(_) | Source::Replay(StepInput::Engine))
            && let Some(decision) = self.automatic(wf, node, phase)
        {
            self.record_input(&StepInput::Engine);
            self.apply_decision(decision, FailureKind::Node);
            return Ok(());
        }
        let mut input = match src {
            Source::Replay(StepInput::Engine) => {
                return Err(log_mismatch(
                    "the log records an engine step where the agent decides".into(),
                ));
            }
            Source::Replay(input) => input,
            // A graceful stop was requested: nothing more is asked or run.
            Source::Live(_) if let Some(signal) = self.interrupt_requested() => {
                Self::interrupted_input(signal)
            }
            Source::Live(agent) if fan_out => {
                let input = self.fan_out(agent, wf, node);
                self.unless_interrupted(wf, node, input, true)
            }
            Source::Live(agent) => match self.effect_before(wf, node) {
                Some(input) => input,
                None => {
                    let started = if instant { None } else { now };
                    // An Attractor fan-out's branches share the run's keys,
                    // and theirs are the run's after it (fan_keys.rs).
                    let keys = self.attractor_fan_keys(wf, node);
                    // So are their effects to compensate (fan_saga.rs).
                    let handed = keys
                        .as_ref()
                        .map(|_| super::fan_saga::FanEffects::default());
                    let fan = (keys.as_ref(), handed.as_ref());
                    let input = self.ask(agent, wf, node, started, fan);
                    self.join_keys(keys);
                    if let Some(handed) = handed {
                        let lists = handed.into_inner().unwrap_or_else(|e| e.into_inner());
                        self.hand_over(lists);
                    }
                    // A step a stop cut short is no effect to record.
                    let input = self.unless_interrupted(wf, node, input, false);
                    self.effect_after(wf, node, &input);
                    input
                }
            },
        };
        // The agent, a tool or branches may have taken time since this
        // step's first event (a run's first step enters its node first).
        self.out.clock.stale();
        self.screen(&mut input);
        self.record_input(&input);
        // A reused effect: recorded as such, applied as what it produced.
        if let StepInput::Reused {
            key,
            of_step,
            produced,
        } = input
        {
            if !matches!(
                *produced,
                StepInput::Tool { .. } | StepInput::Decision { .. }
            ) {
                return Err(log_mismatch(
                    "the log records a reused effect that is not a tool outcome or a decision"
                        .into(),
                ));
            }
            self.emit_reused(wf, node, key.as_deref(), of_step);
            input = *produced;
        }
        match input {
            StepInput::Engine => unreachable!("handled above"),
            StepInput::Reused { .. } => unreachable!("unwrapped above"),
            StepInput::OverBudget { .. } => {
                return Err(log_mismatch(
                    "the log ends a callee where the agent decides".into(),
                ));
            }
            StepInput::Abort { reason, kind } => {
                self.fail_run(kind.unwrap_or(FailureKind::Limit), reason)
            }
            StepInput::AgentError {
                message,
                suspended,
                failure,
            } => {
                let reason = format!(
                    "the agent failed at node `{}` of workflow `{}`: {message}",
                    self.node_name(wf, node),
                    self.wf_name(wf)
                );
                let kind = failure.unwrap_or(FailureKind::Agent);
                if kind == FailureKind::Interrupted {
                    self.suspend_interrupted(wf, node, &message);
                } else if suspended {
                    // The error is recorded, the node's state is left as it
                    // was: a resume asks the agent again at this node.
                    self.record_failure(wf, node, kind, reason.clone());
                    self.apply_decision(Decision::Suspend { reason }, kind);
                } else {
                    self.fail_run(kind, reason);
                }
            }
            StepInput::Decision { decision, failure } => {
                self.apply_decision(decision, failure.unwrap_or(FailureKind::Node))
            }
            StepInput::Tool { outcome, refused } => {
                self.apply_outcome(outcome, true, FailureKind::Tool, !refused)
            }
        }
        Ok(())
    }

    /// Asks the agent (or the tool runner) at the current node.
    fn ask(
        &mut self,
        agent: &mut dyn DecisionAgent,
        wf: WorkflowIdx,
        node: NodeIdx,
        started: Option<Instant>,
        (fan_keys, fan_effects): (
            Option<&std::sync::Arc<super::fan_keys::SharedKeys>>,
            Option<&super::fan_saga::FanEffects>,
        ),
    ) -> StepInput {
        let workflow = &self.program.workflows[wf.0 as usize];
        let ir_node = &workflow.nodes[node.0 as usize];
        let tool = ir_node.op == Opcode::Tool;
        // A tool gets no more than the wall clock has left (`cut`: that is
        // less than its own timeout, which its failure then says).
        let mut cut = None;
        let timeout = if tool {
            let own = self
                .node_timeout(wf, node)
                .unwrap_or(self.info[wf.0 as usize].default_timeout);
            let left = self.time_left();
            if left < own {
                cut = Some(left);
            }
            Some(own.min(left))
        } else {
            self.decision_timeout(wf, node)
        };
        // Tools take time, and so may an Attractor handler (parallel
        // branches, child pipelines) even with an instant backend: the next
        // step reads the clock.
        if tool || workflow.dialect == wf_ir::Dialect::Attractor {
            self.clock_due = true;
        }
        let view = Blackboard {
            program: self.program,
            frames: &self.frames,
            visible: &self.visible,
            keys: &self.keys,
        };
        let frame = self.frames.last().expect("the root frame is never popped");
        let ctx = DecisionContext {
            program: self.program,
            workflow_idx: wf,
            workflow,
            node_idx: node,
            node: ir_node,
            blackboard: &view,
            valid_edges: &self.valid,
            depth: self.frames.len(),
            attempt: frame.attempt,
            step: self.step,
            visit: self.visits[self.info[wf.0 as usize].visit_base + node.0 as usize],
            incoming_edge: self.incoming,
            config: &self.config,
            limits: &self.limits,
            elapsed: self.elapsed,
            fan_keys,
            fan_effects,
        };
        if ir_node.op == Opcode::Tool {
            let command = ir_node
                .engine
                .command
                .map(|c| match ir_node.templates.get("command") {
                    Some(t) => shell_command(self.program, t, &view),
                    None => Ok(ShellCommand::plain(self.program.str(c))),
                });
            let refused = !matches!((&self.tools, &command), (Some(_), Some(Ok(_))));
            let mut outcome = match (&mut self.tools, command) {
                (_, None) => failed("the tool node has no `command`".into()),
                (_, Some(Err(e))) => failed(e.to_string()),
                (None, Some(Ok(cmd))) => failed(format!(
                    "tool nodes are refused (--tools refuse; --tools run or --allow-tools runs them, --tools simulate dry-runs them): node `{}` would run `{}`",
                    self.program.str(ir_node.id),
                    cmd.script
                )),
                (Some(runner), Some(Ok(cmd))) => runner.run(
                    &ctx,
                    &cmd,
                    timeout.unwrap_or(self.info[wf.0 as usize].default_timeout),
                ),
            };
            if let (Some(left), Some(reason)) = (cut, outcome.failure_reason.as_mut())
                && outcome.status == Status::Fail
            {
                reason.push_str(&format!(
                    " (the run's wall-clock limit of {} ms left the tool {} ms)",
                    self.limits.wall_clock.as_millis(),
                    left.as_millis()
                ));
            }
            return StepInput::Tool { outcome, refused };
        }
        let result = agent.decide(&ctx);
        let took = started.map(|s| s.elapsed()).unwrap_or_default();
        let suspend = self.config.suspend_on_agent_error;
        match result {
            Err(e) => StepInput::AgentError {
                message: e.message,
                suspended: suspend,
                failure: None,
            },
            Ok(decision) => match timeout {
                // Too late: a `human` node's `default` is taken (whatever
                // the late answer said), else the node fails.
                Some(limit) if took > limit && !matches!(decision, Decision::Suspend { .. }) => {
                    match ctx.timeout_default(limit) {
                        Some(decision) => StepInput::Decision {
                            decision,
                            failure: None,
                        },
                        None => {
                            let message = format!(
                                "timed out: the agent took {} ms, over the node's timeout of {} ms",
                                took.as_millis(),
                                limit.as_millis()
                            );
                            if suspend {
                                // A slow agent is the agent's trouble, not
                                // the node's: a durable run waits for it.
                                StepInput::AgentError {
                                    message,
                                    suspended: true,
                                    failure: Some(FailureKind::Limit),
                                }
                            } else {
                                StepInput::Decision {
                                    decision: Decision::Advance(failed(message)),
                                    failure: Some(FailureKind::Limit),
                                }
                            }
                        }
                    }
                }
                _ => StepInput::Decision {
                    decision,
                    failure: None,
                },
            },
        }
    }

    fn record_input(&mut self, input: &StepInput) {
        if let Some(log) = &mut self.out.log {
            log.set_input(input);
        }
    }

    /// Fills `self.valid` with the outgoing edges whose guards hold for this
    /// outcome; `false` when a guard failed (the run has failed).
    pub(crate) fn compute_valid(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
        outcome: &str,
        label: Option<&str>,
    ) -> bool {
        let workflow = &self.program.workflows[wf.0 as usize];
        let range = workflow.nodes[node.0 as usize].edges;
        self.valid.clear();
        let env = GuardEnv {
            program: self.program,
            frames: &self.frames,
            visible: &self.visible,
            outcome,
            label,
            regexes: &self.regexes,
            peer_statuses: workflow.dialect == wf_ir::Dialect::Attractor,
        };
        let mut error = None;
        self.valid_guarded = false;
        for i in range.start..range.start + range.len {
            let edge = &workflow.edges[i as usize];
            match &edge.guard {
                None => self.valid.push(wf_ir::EdgeIdx(i)),
                Some(code) => {
                    self.valid_guarded = true;
                    match eval(code, &env) {
                        Ok(true) => self.valid.push(wf_ir::EdgeIdx(i)),
                        Ok(false) => {}
                        Err(m) => {
                            error = Some(format!(
                                "the guard of edge `{}` in workflow `{}` failed: {m}",
                                self.program.str(edge.id),
                                self.program.str(workflow.name)
                            ));
                            break;
                        }
                    }
                }
            }
        }
        match error {
            Some(reason) => {
                self.fail_run(FailureKind::Guard, reason);
                false
            }
            None => true,
        }
    }

    /// Starts the callee of the call node the current frame is at.
    fn push_call(&mut self, wf: WorkflowIdx, node: NodeIdx) {
        let call_node = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        let Some(call) = &call_node.call else {
            let reason = format!(
                "call node `{}` of workflow `{}` has no callee",
                self.node_name(wf, node),
                self.wf_name(wf)
            );
            // The verifier refuses such IR.
            self.fail_run(FailureKind::Internal, reason);
            return;
        };
        if self.frames.len() as u64 >= self.limits.max_depth {
            let reason = format!(
                "node `{}` of workflow `{}` would call `{}` at depth {}, over the call depth limit of {} (max_depth)",
                self.node_name(wf, node),
                self.wf_name(wf),
                self.wf_name(call.workflow),
                self.frames.len() + 1,
                self.limits.max_depth
            );
            self.fail_run(FailureKind::Limit, reason);
            return;
        }
        let callee = call.workflow;
        let needs = &self.program.workflows[callee.0 as usize].needs;
        if let Some(missing) = self.missing_keys(needs.iter().map(|k| &k.key)) {
            let reason = format!(
                "workflow `{}` needs {missing}, which {} in scope",
                self.wf_name(callee),
                if missing.contains(',') {
                    "have no value"
                } else {
                    "has no value"
                }
            );
            self.fail_node(wf, node, FailureKind::Contract, reason);
            return;
        }
        let entry = self.program.workflows[callee.0 as usize].entry;
        let mut frame = match self.spare.pop() {
            Some(mut f) => {
                f.reset(callee, entry);
                f
            }
            None => Frame::new(callee, entry),
        };
        frame.pushed = (self.step, self.elapsed);
        frame.key_mark = self.keys.len();
        // The callee's entry is entered by no edge of its own workflow
        // (the caller's edge would name another workflow's edge).
        self.incoming = None;
        self.frames.push(frame);
        if self.out.on() {
            let ev = Event::WorkflowPush {
                step: self.step,
                workflow: self.wf_name(callee),
                caller: self.wf_name(wf),
                node: self.node_name(wf, node),
                depth: self.frames.len(),
            };
            self.out.emit(&ev);
        }
        self.enter_node();
    }

    /// Applies a `fail` outcome the engine decided at the current node
    /// (`wf`/`node`): a missing callee need, a failed callee. Retries and
    /// failure routing apply as to an agent's failure.
    pub(crate) fn fail_node(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
        kind: FailureKind,
        reason: String,
    ) {
        if self.compute_valid(wf, node, Status::Fail.as_str(), None) {
            self.apply_advance(failed(reason), false, kind);
        }
    }

    /// The keys of `decl` with no value in scope, as "`a`, `b`".
    fn missing_keys<'k>(&self, decl: impl IntoIterator<Item = &'k wf_ir::StrId>) -> Option<String> {
        let view = Blackboard {
            program: self.program,
            frames: &self.frames,
            visible: &self.visible,
            keys: &self.keys,
        };
        let missing: Vec<String> = decl
            .into_iter()
            .map(|&k| self.program.str(k))
            .filter(|k| view.get(k).is_none())
            .map(|k| format!("`{k}`"))
            .collect();
        (!missing.is_empty()).then(|| missing.join(", "))
    }

    /// Why the node cannot run: a required `reads` key with no value in
    /// scope (a failed node upstream routed on without writing it).
    fn missing_reads(&self, wf: WorkflowIdx, node: NodeIdx) -> Option<String> {
        let n = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        let required = n.reads.iter().filter(|r| !r.optional).map(|r| &r.key);
        let missing = self.missing_keys(required)?;
        Some(format!(
            "the node reads {missing}, which {} in scope (a node that writes {} failed or was skipped on the way here)",
            if missing.contains(',') {
                "have no value"
            } else {
                "has no value"
            },
            if missing.contains(',') { "them" } else { "it" }
        ))
    }

    /// The root workflow's `needs` keys the run was not given, as a
    /// failure reason (a callee's needs are checked when it is called).
    fn missing_needs(&self) -> Option<String> {
        let wf = self.frames[0].workflow;
        let needs = &self.program.workflows[wf.0 as usize].needs;
        let missing = self.missing_keys(needs.iter().map(|k| &k.key))?;
        Some(format!(
            "workflow `{}` needs {missing}, which the run was not given (`wfc run --set KEY=VALUE`)",
            self.wf_name(wf),
        ))
    }

    /// Emits `node:enter` for the current node and counts the visit; fails
    /// the run when the node's visit limit is exceeded.
    pub(crate) fn enter_node(&mut self) {
        let f = self.frames.last().expect("the root frame is never popped");
        let (wf, node) = (f.workflow, f.node);
        if self.out.on() {
            let ev = Event::NodeEnter {
                step: self.step,
                workflow: self.wf_name(wf),
                node: self.node_name(wf, node),
                depth: self.frames.len(),
            };
            self.out.emit(&ev);
        }
        let info = &self.info[wf.0 as usize];
        // A node's own `max_visits` (checked ≥ 1 by `wfc check`) bounds
        // its loop in place of the workflow's limit.
        let own = self.program.workflows[wf.0 as usize].nodes[node.0 as usize]
            .spec
            .get("max_visits")
            .and_then(serde_json::Value::as_u64)
            .filter(|&n| n >= 1);
        let (base, max) = (info.visit_base, own.unwrap_or(info.max_visits));
        let slot = &mut self.visits[base + node.0 as usize];
        *slot = slot.saturating_add(1);
        let count = *slot;
        if u64::from(count) > max {
            let whose = if own.is_some() {
                "the node's own limit"
            } else {
                "its limit"
            };
            let reason = format!(
                "node `{}` of workflow `{}` was entered {} times, over {whose} of {} (max_visits)",
                self.node_name(wf, node),
                self.wf_name(wf),
                count,
                max
            );
            self.fail_run(FailureKind::Limit, reason);
        }
    }
}
