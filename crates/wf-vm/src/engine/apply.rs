//! Applying a decision: writes and their contracts, retries, edge
//! selection, failure routing, goal gates, completion and return.

use wf_ir::{EdgeIdx, NodeIdx, Opcode, WorkflowIdx};

use super::Engine;
use super::support::backoff_delay;
use crate::agent::{Decision, Outcome, Status, Write};
use crate::blackboard::{Entry, Phase};
use crate::contract;
use crate::event::Event;
use crate::failure::FailureKind;
use crate::report::RunStatus;
use crate::select::select;

impl Engine<'_> {
    /// Applies the agent's decision; a failing outcome is a failure of
    /// `kind` (`node` for the agent's own `fail`).
    pub(crate) fn apply_decision(&mut self, decision: Decision, kind: FailureKind) {
        match decision {
            Decision::Suspend { reason } => {
                let (wf, node, _) = self.position();
                if self.out.on() {
                    let ev = Event::EngineSuspend {
                        step: self.step,
                        workflow: self.wf_name(wf),
                        node: self.node_name(wf, node),
                        reason: &reason,
                    };
                    self.out.emit(&ev);
                }
                self.status = RunStatus::Suspended { reason };
            }
            Decision::Complete { writes } => {
                let (wf, node, _) = self.position();
                let n = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
                if n.edges.len > 0 {
                    let reason = format!(
                        "the agent chose `complete` at node `{}` of workflow `{}`, which is not a terminal (it has {} outgoing edge{})",
                        self.node_name(wf, node),
                        self.wf_name(wf),
                        n.edges.len,
                        if n.edges.len == 1 { "" } else { "s" }
                    );
                    self.fail_run(FailureKind::Agent, reason);
                    return;
                }
                let mut outcome = Outcome::success();
                outcome.writes = writes;
                self.apply_advance(outcome, false, kind);
            }
            Decision::Advance(outcome) => self.apply_advance(outcome, false, kind),
        }
    }

    /// Checks writes against the node's contract and the size limits;
    /// nothing is written here.
    fn stage(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
        writes: Vec<Write>,
        trusted: bool,
    ) -> Result<Vec<Entry>, String> {
        let ir_node = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        let mut staged = Vec::with_capacity(writes.len());
        let mut total = self.bb_bytes;
        for w in writes {
            let size = contract::serialized_size(&w.value);
            contract::check_write(
                self.program,
                ir_node,
                &w.key,
                &w.value,
                size,
                self.limits.max_write_bytes,
                trusted,
            )?;
            // Keys count: an entry holds its key as well as its value.
            let size = size + w.key.len();
            total += size;
            if total > self.limits.max_blackboard_bytes {
                return Err(format!(
                    "write to `{}` rejected: the blackboard would hold {total} bytes, over the limit of {}",
                    w.key, self.limits.max_blackboard_bytes
                ));
            }
            staged.push(Entry {
                key: self.keys.intern(&w.key),
                value: w.value,
                node,
                step: self.step,
                size: size as u32,
            });
        }
        Ok(staged)
    }

    pub(super) fn append(&mut self, staged: Vec<Entry>) -> usize {
        let depth = self.frames.len();
        let frame = self
            .frames
            .last_mut()
            .expect("the root frame is never popped");
        let first = frame.entries.len();
        for e in staged {
            self.bb_bytes += e.size as usize;
            frame.push(e, depth, &mut self.visible);
        }
        first
    }

    /// Applies an outcome at the current node (`trusted`: from the tool
    /// runner, whose output keys need not be declared). A failing outcome
    /// is a failure of `kind`, unless the engine rejects it for a broken
    /// contract.
    pub(crate) fn apply_advance(&mut self, outcome: Outcome, trusted: bool, kind: FailureKind) {
        self.apply_outcome(outcome, trusted, kind, true)
    }

    /// [`Self::apply_advance`]; a failure that is not `retryable` (a
    /// refusal a retry cannot change) is final at once: no retry, no
    /// backoff.
    pub(crate) fn apply_outcome(
        &mut self,
        mut outcome: Outcome,
        trusted: bool,
        kind: FailureKind,
        retryable: bool,
    ) {
        let mut kind = kind;
        let (wf, node, depth) = self.position();
        let ir_node = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        let writes = std::mem::take(&mut outcome.writes);
        let events = std::mem::take(&mut outcome.events);
        if self.out.on() {
            for e in &events {
                let ev = Event::HandlerEvent {
                    step: self.step,
                    workflow: self.wf_name(wf),
                    node: self.node_name(wf, node),
                    name: &e.name,
                    data: &e.data,
                };
                self.out.emit(&ev);
            }
        }
        let staged = if writes.is_empty() {
            Vec::new()
        } else {
            match self.stage(wf, node, writes, trusted) {
                Ok(s) => s,
                Err(reason) => {
                    outcome.status = Status::Fail;
                    outcome.failure_reason = Some(reason);
                    kind = FailureKind::Contract;
                    Vec::new()
                }
            }
        };
        let moves_on = matches!(
            outcome.status,
            Status::Success | Status::PartialSuccess | Status::Skipped
        );
        if moves_on && let Some(reason) = self.unmet_contract(wf, node, &staged, trusted, &outcome)
        {
            outcome.status = Status::Fail;
            outcome.failure_reason = Some(reason);
            kind = FailureKind::Contract;
        }
        // Attractor retries only `retry` (seed 3.5: a `fail` is final and
        // goes to failure routing at once); `.wf` retries both.
        let attractor = self.program.workflows[wf.0 as usize].dialect == wf_ir::Dialect::Attractor;
        let retried =
            outcome.status == Status::Retry || (outcome.status == Status::Fail && !attractor);
        let retries = ir_node
            .engine
            .retries
            .unwrap_or(self.info[wf.0 as usize].default_retries);
        if retried && !retryable && retries > 0 {
            // Said in the failure, so no one waits for attempts that
            // would only repeat it.
            if let Some(reason) = outcome.failure_reason.as_mut() {
                reason.push_str(" (not retried: a retry cannot change a refusal)");
            }
        }
        if retried && retryable {
            let max = ir_node
                .engine
                .retries
                .unwrap_or(self.info[wf.0 as usize].default_retries);
            let attempt = self.frames[depth - 1].attempt;
            let reason = outcome.failure_reason.clone().unwrap_or_else(|| {
                if outcome.status == Status::Retry {
                    "the node asked for a retry".into()
                } else {
                    "the node failed".into()
                }
            });
            if attempt <= max {
                self.record_failure(
                    wf,
                    node,
                    kind,
                    format!("attempt {attempt} of {}: {reason}", max + 1),
                );
                let seed = self.step ^ (u64::from(node.0) << 32) ^ u64::from(wf.0);
                let delay = backoff_delay(ir_node.engine.backoff.as_ref(), attempt, seed);
                if !self.out.replaying {
                    // Never past the wall clock: the next step reads the
                    // clock and ends the run when it is spent.
                    let left = self.time_left();
                    (self.sleeper)(delay.min(left));
                    self.clock_due = true;
                    self.out.clock.stale();
                }
                let frame = &mut self.frames[depth - 1];
                frame.attempt += 1;
                if ir_node.op == Opcode::Call {
                    // Retrying a call runs the callee again.
                    frame.phase = Phase::Entered;
                    frame.callee_failure = None;
                }
                if self.out.on() {
                    let ev = Event::NodeRetry {
                        step: self.step,
                        workflow: self.wf_name(wf),
                        node: self.node_name(wf, node),
                        depth,
                        attempt: attempt + 1,
                        delay_ms: delay.as_millis() as u64,
                        reason: &reason,
                    };
                    self.out.emit(&ev);
                }
                return;
            }
            if outcome.status == Status::Retry {
                if ir_node.engine.allow_partial {
                    outcome.status = Status::PartialSuccess;
                    outcome.notes = Some("retries exhausted, partial accepted".into());
                } else {
                    outcome.status = Status::Fail;
                    outcome.failure_reason = Some(if max > 0 {
                        format!("max retries exceeded ({max}): {reason}")
                    } else {
                        format!("{reason}, but the node has no retries")
                    });
                }
            }
        }
        let status = outcome.status;
        if status == Status::Fail {
            let reason = outcome
                .failure_reason
                .clone()
                .unwrap_or_else(|| "the node failed".into());
            self.record_failure(wf, node, kind, reason);
        }
        if ir_node.engine.goal_gate {
            self.frames[depth - 1].record_gate(node, status);
        }
        if ir_node.edges.len == 0 {
            if status == Status::Fail {
                let first = self.append(staged);
                self.route_failure(&outcome, first);
            } else {
                self.complete(staged);
            }
            return;
        }
        if let Some(target) = outcome.jump.as_deref().filter(|_| status != Status::Fail) {
            // A `.wf` fan-out continues at the `join` its branches reached
            // (`fan_out.rs`); nothing else in `.wf` moves without an edge.
            let to_join = ir_node.op == Opcode::Parallel
                && self.program.workflows[wf.0 as usize]
                    .nodes
                    .iter()
                    .any(|n| n.op == Opcode::Join && self.program.str(n.id) == target);
            if !attractor && !to_join {
                // Only pipeline handlers may leave a node without an edge:
                // in `.wf` every move follows an edge whose guard holds.
                // The step ends in an error: its writes are dropped.
                let reason = format!(
                    "the agent asked to continue at `{target}` from node `{}` of workflow `{}` without an edge; only Attractor pipelines allow that",
                    self.node_name(wf, node),
                    self.wf_name(wf)
                );
                self.fail_run(FailureKind::Agent, reason);
                return;
            }
            let first = self.append(staged);
            self.jump_to(target, status, first);
            return;
        }
        // The node's writes are visible to the guards' second evaluation.
        let first = self.append(staged);
        let label = outcome.preferred_label.as_deref();
        let program = self.program;
        let workflow = &program.workflows[wf.0 as usize];
        let mut revalidated = false;
        let chosen = match outcome.edge.as_deref() {
            // A `fail` outcome routes by the failure rules only (below): an
            // edge the agent named before the runtime failed the node (a
            // rejected write, a broken contract) must not carry it on.
            Some(id) if status != Status::Fail => {
                let named = |set: &[EdgeIdx]| {
                    set.iter()
                        .copied()
                        .find(|e| program.str(workflow.edges[e.0 as usize].id) == id)
                };
                // Reflex (seed 1.4): the agent picks among the edges it was
                // shown, whose guards ran before its writes; that choice is
                // taken. Otherwise the edge must hold for the real outcome
                // with the writes visible (`when outcome == fail`).
                let mut found = named(&self.valid);
                if found.is_none() && self.valid_guarded {
                    revalidated = true;
                    if !self.revalidate(wf, node, status, label) {
                        self.discard(first);
                        return;
                    }
                    found = named(&self.valid);
                }
                if found.is_none() {
                    self.discard(first);
                    let mut valid: Vec<EdgeIdx> = self.valid.clone();
                    if revalidated {
                        valid.extend_from_slice(&self.shown);
                    }
                    valid.sort_by_key(|e| e.0);
                    valid.dedup();
                    let valid: Vec<&str> = valid
                        .iter()
                        .map(|e| program.str(workflow.edges[e.0 as usize].id))
                        .collect();
                    let reason = format!(
                        "the agent chose edge `{id}` at node `{}` of workflow `{}`, which is not a valid edge there (valid: {})",
                        self.node_name(wf, node),
                        self.wf_name(wf),
                        if valid.is_empty() {
                            "none".to_owned()
                        } else {
                            valid.join(", ")
                        }
                    );
                    self.fail_run(FailureKind::Agent, reason);
                    return;
                }
                found
            }
            named => {
                // The engine selects: guards see the real outcome, its
                // label and the node's writes.
                if self.valid_guarded && !self.revalidate(wf, node, status, label) {
                    self.discard(first);
                    return;
                }
                if status == Status::Fail {
                    // Only edges whose condition holds for the failure; the
                    // agent's named edge first when it is one of them.
                    let guarded: Vec<EdgeIdx> = self
                        .valid
                        .iter()
                        .copied()
                        .filter(|e| workflow.edges[e.0 as usize].guard.is_some())
                        .collect();
                    let named = named.and_then(|id| {
                        guarded
                            .iter()
                            .copied()
                            .find(|e| program.str(workflow.edges[e.0 as usize].id) == id)
                    });
                    named.or_else(|| {
                        select(
                            program,
                            workflow,
                            &self.info[wf.0 as usize].labels,
                            &guarded,
                            &outcome,
                        )
                    })
                } else {
                    select(
                        program,
                        workflow,
                        &self.info[wf.0 as usize].labels,
                        &self.valid,
                        &outcome,
                    )
                }
            }
        };
        // Attractor's last step (seed 3.3): with no condition matched and no
        // unconditional edge, any edge, by weight then target id.
        let chosen = match chosen {
            None if attractor && status != Status::Fail => self.any_edge(wf, node),
            other => other,
        };
        let Some(edge) = chosen else {
            if status == Status::Fail {
                self.route_failure(&outcome, first);
            } else {
                self.discard(first);
                // Like the agents' own routing errors, say how to decide
                // the route another way.
                let reason = format!(
                    "no valid edge leaves node `{}` of workflow `{}` for outcome `{}`{}: \
                     no edge's guard holds for the values the agent gave; to decide yourself \
                     use --agent console, or name a program with --agent exec:COMMAND",
                    self.node_name(wf, node),
                    self.wf_name(wf),
                    status.as_str(),
                    label
                        .map(|l| format!(" (preferred label `{l}`)"))
                        .unwrap_or_default()
                );
                self.fail_run(FailureKind::Route, reason);
            }
            return;
        };
        let e = &workflow.edges[edge.0 as usize];
        self.emit_exit(wf, node, depth, status);
        if self.out.on() {
            let ev = Event::EdgeTraverse {
                step: self.step,
                workflow: self.wf_name(wf),
                edge: self.program.str(e.id),
                from: self.node_name(wf, node),
                to: self.node_name(wf, e.to),
                depth,
            };
            self.out.emit(&ev);
        }
        self.emit_writes(depth, first, node);
        if workflow.dialect == wf_ir::Dialect::Attractor
            && e.spec.get("loop_restart") == Some(&serde_json::Value::Bool(true))
        {
            self.restart_at(edge);
            return;
        }
        self.move_to(e.to);
        self.incoming = Some(edge);
        if status == Status::Fail {
            self.frames[depth - 1].entered_by_failure = true;
        }
    }

    /// Evaluates the guards again for the real outcome, with the node's
    /// writes visible; `self.shown` keeps the edges the agent was shown.
    /// `false` when a guard failed (the run has failed).
    fn revalidate(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
        status: Status,
        label: Option<&str>,
    ) -> bool {
        std::mem::swap(&mut self.valid, &mut self.shown);
        self.compute_valid(wf, node, status.as_str(), label)
    }

    /// Drops the current frame's entries from index `first` on: the step
    /// ended in an error, and an error leaves no writes behind.
    pub(super) fn discard(&mut self, first: usize) {
        let depth = self.frames.len();
        let frame = self
            .frames
            .last_mut()
            .expect("the root frame is never popped");
        let before = frame.bytes;
        frame.truncate(first, depth, &mut self.visible);
        self.bb_bytes -= before - frame.bytes;
    }

    /// Why an outcome that moves on breaks the contracts (section 5 of
    /// docs/runtime.md): a declared write it did not make (not for `tool`
    /// nodes, whose runner writes what it writes, nor `call` nodes, whose
    /// writes are their return maps), or, at a terminal other than a
    /// failure exit, a key the workflow `gives` that its frame does not
    /// hold.
    fn unmet_contract(
        &self,
        wf: WorkflowIdx,
        node: NodeIdx,
        staged: &[Entry],
        trusted: bool,
        outcome: &Outcome,
    ) -> Option<String> {
        let workflow = &self.program.workflows[wf.0 as usize];
        let n = &workflow.nodes[node.0 as usize];
        let written = |key: &str| staged.iter().any(|e| self.keys.name(e.key) == key);
        let list = |keys: Vec<&str>| {
            let plural = keys.len() > 1;
            let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
            (keys.join(", "), plural)
        };
        if !trusted && !matches!(n.op, Opcode::Tool | Opcode::Call) {
            let missing: Vec<&str> = n
                .writes
                .iter()
                .map(|w| self.program.str(w.key))
                .filter(|k| !written(k))
                .collect();
            if !missing.is_empty() {
                let (keys, plural) = list(missing);
                return Some(format!(
                    "the outcome did not write {keys}, which the node declares in `writes` (an outcome that moves on writes {})",
                    if plural { "them" } else { "it" }
                ));
            }
        }
        let frame = self.frames.last().expect("the root frame is never popped");
        // A failure exit completes as a failure: nothing is promised there.
        if n.edges.len == 0 && outcome.jump.is_none() && !frame.entered_by_failure {
            let missing: Vec<&str> = workflow
                .gives
                .iter()
                .map(|g| self.program.str(g.key))
                .filter(|k| {
                    !written(k) && self.keys.lookup(k).and_then(|id| frame.get(id)).is_none()
                })
                .collect();
            if !missing.is_empty() {
                let (keys, plural) = list(missing);
                return Some(format!(
                    "workflow `{}` would complete without {keys}, which it gives ({} every completion)",
                    self.wf_name(wf),
                    if plural {
                        "they are promised on"
                    } else {
                        "it is promised on"
                    }
                ));
            }
        }
        None
    }

    /// Moves the current frame to `target` and enters it.
    pub(super) fn move_to(&mut self, target: NodeIdx) {
        self.incoming = None;
        let f = self
            .frames
            .last_mut()
            .expect("the root frame is never popped");
        f.node = target;
        f.phase = Phase::Entered;
        f.attempt = 1;
        f.entered_by_failure = false;
        f.callee_failure = None;
        self.enter_node();
    }

    /// A failed node with no matching edge: its `retry_target`, else its
    /// `fallback_retry_target`, else the run fails.
    fn route_failure(&mut self, outcome: &Outcome, first: usize) {
        let (wf, node, depth) = self.position();
        let n = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        let reason = outcome
            .failure_reason
            .as_deref()
            .unwrap_or("the node failed");
        self.emit_exit(wf, node, depth, Status::Fail);
        self.emit_writes(depth, first, node);
        match n.engine.retry_target.or(n.engine.fallback_retry_target) {
            Some(target) => {
                self.move_to(target);
                self.frames[depth - 1].entered_by_failure = true;
            }
            None => {
                let run = format!(
                    "node `{}` of workflow `{}` failed: {reason}; no edge condition matched the failure and the node has no retry_target",
                    self.node_name(wf, node),
                    self.wf_name(wf)
                );
                let caller = format!(
                    "workflow `{}` failed at node `{}`: {reason}",
                    self.wf_name(wf),
                    self.node_name(wf, node)
                );
                // The failure itself is already in the trace.
                self.workflow_failed(run, caller);
            }
        }
    }
}
