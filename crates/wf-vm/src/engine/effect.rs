//! The engine's side of effects that happen once (`crate::effects`):
//! reusing a completed effect, the durable start of an `at_most_once`
//! node, its settlement on resume, and compensations when a run fails.

use wf_ir::{NodeIdx, Opcode, Part, WorkflowIdx};

use super::fan_keys::Claim;
use super::support::failed;
use super::{Engine, StepInput};
use crate::agent::{BlackboardView, Decision, DecisionContext, Outcome, Status, Write};
use crate::blackboard::Blackboard;
use crate::effects::{
    AT_MOST_ONCE, COMPENSATE, Compensation, EFFECT, EffectRecord, IDEMPOTENCE_KEY, PendingEffect,
    Resolution, is_done, is_effectful, node_named,
};
use crate::event::Event;
use crate::report::RunStatus;
use crate::template::{ShellCommand, render, shell_command};

/// A node's effect attributes.
struct Attrs {
    key: bool,
    at_most_once: bool,
    compensate: Option<String>,
}

impl<'p> Engine<'p> {
    /// The effect attributes of an effectful node, `None` for others.
    fn effect_attrs(&self, wf: WorkflowIdx, node: NodeIdx) -> Option<Attrs> {
        if !self.effects.any {
            return None;
        }
        let n = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        if !is_effectful(n.op) {
            return None;
        }
        let attrs = Attrs {
            key: n.spec.contains_key(IDEMPOTENCE_KEY),
            at_most_once: n.spec.get(EFFECT).and_then(|v| v.as_str()) == Some(AT_MOST_ONCE),
            compensate: n
                .spec
                .get(COMPENSATE)
                .and_then(|v| v.as_str())
                .map(str::to_owned),
        };
        (attrs.key || attrs.at_most_once || attrs.compensate.is_some()).then_some(attrs)
    }

    /// The node's idempotence key, interpolated from the blackboard;
    /// `Err` names a key with no value (two different effects would share
    /// the key with the value left out).
    fn idempotence_key(&self, wf: WorkflowIdx, node: NodeIdx) -> Result<Option<String>, String> {
        let n = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        let Some(t) = n.templates.get(IDEMPOTENCE_KEY) else {
            return Ok(n
                .spec
                .get(IDEMPOTENCE_KEY)
                .and_then(|v| v.as_str())
                .map(str::to_owned));
        };
        let view = self.blackboard();
        for part in t {
            if let Part::Key(k) = part
                && view.get(self.program.str(*k)).is_none()
            {
                return Err(format!(
                    "the idempotence key of node `{}` interpolates `{}`, which has no value in scope: the node was not run",
                    self.node_name(wf, node),
                    self.program.str(*k)
                ));
            }
        }
        Ok(Some(render(self.program, t, &view)))
    }

    /// Before a live step asks the agent or runs the tool: the input to
    /// use instead (a reused effect, or the user's `--assume-done`), else
    /// `None` (for an `at_most_once` node of a durable run, after its
    /// `started` record is on disk).
    pub(super) fn effect_before(&mut self, wf: WorkflowIdx, node: NodeIdx) -> Option<StepInput> {
        let attrs = self.effect_attrs(wf, node)?;
        let (wf_name, node_name) = (self.wf_name(wf), self.node_name(wf, node));
        if let Some(i) =
            (self.effects.pending.iter()).position(|p| p.workflow == wf_name && p.node == node_name)
        {
            self.effects.pending.remove(i);
            let settled = (self.effects.resolution.iter()).position(|r| r.node() == node_name);
            if let Some(Resolution::AssumeDone { writes, .. }) =
                settled.map(|i| self.effects.resolution.remove(i))
            {
                return Some(self.assumed_done(wf, node, writes));
            }
        }
        // This very step's effect finished before a kill cut it off the log.
        if let Some((step, key, input)) = &self.effects.last_done
            && *step == self.step
        {
            return Some(StepInput::Reused {
                key: key.clone(),
                of_step: *step,
                produced: Box::new(input.clone()),
            });
        }
        // A branch run again: what its earlier run left of the node.
        if attrs.at_most_once
            && self.out.log.is_none()
            && self.effects.branch_dir.is_some()
            && let Some(input) = self.branch_effect_before(wf, node)
        {
            return Some(input);
        }
        let key = match self.idempotence_key(wf, node) {
            Ok(key) => key,
            Err(reason) => return Some(self.failed_input(wf, node, reason)),
        };
        if let Some(key) = &key
            && let Some((step, input)) = self.effects.by_key.get(key)
        {
            return Some(StepInput::Reused {
                key: Some(key.clone()),
                of_step: *step,
                produced: Box::new(input.clone()),
            });
        }
        // A branch: a sibling may have completed the key, or run it now
        // (then this waits for it: engine/fan_keys.rs).
        if let Some(key) = key
            && let Some(shared) = self.effects.shared.clone()
        {
            match shared.claim(&key) {
                Claim::Done(done) => {
                    return Some(StepInput::Reused {
                        key: Some(key),
                        of_step: done.step,
                        produced: Box::new(done.input),
                    });
                }
                Claim::Mine(guard) => self.effects.claim = Some(guard),
            }
        }
        if attrs.at_most_once {
            let record = EffectRecord::Started {
                step: self.step,
                workflow: wf_name.to_owned(),
                node: node_name.to_owned(),
            };
            // Synced before the effect: a kill from here on is seen on
            // resume (a branch's, in its own folder).
            let written = self.write_effect_record(&record, true);
            if let Some((e, place)) = written {
                // Not run: a waiting sibling may run it.
                self.effects.claim = None;
                let reason = format!(
                    "could not record the start of the at_most_once node `{node_name}` in {place} ({e}): it was not run"
                );
                return Some(self.failed_input(wf, node, reason));
            }
        }
        None
    }

    /// An `at_most_once` node of a durable run whose step is interrupted
    /// (`interrupted.rs`): its `started` record is written again for the
    /// next step, where the resumed run finds it pending and asks, as
    /// after a kill (the interrupted step itself is committed).
    pub(super) fn carry_started(&mut self, wf: WorkflowIdx, node: NodeIdx) {
        if !self.effect_attrs(wf, node).is_some_and(|a| a.at_most_once) {
            return;
        }
        let record = EffectRecord::Started {
            step: self.step + 1,
            workflow: self.wf_name(wf).to_owned(),
            node: self.node_name(wf, node).to_owned(),
        };
        if let Some(log) = &mut self.out.log
            && let Err(e) = log.append_effect(&record, true)
        {
            self.persist_warning = Some(format!(
                "could not record the interrupted at_most_once node `{}` in the run log: {e}",
                self.node_name(wf, node)
            ));
        }
    }

    /// The step of an `at_most_once` node the user settled with
    /// `--assume-done`: a success with the given outputs, recorded as done,
    /// without running it (at the run's level or in a branch).
    pub(super) fn assumed_done(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
        writes: Vec<(String, serde_json::Value)>,
    ) -> StepInput {
        let outcome = Outcome {
            writes: writes
                .into_iter()
                .map(|(key, value)| Write { key, value })
                .collect(),
            notes: Some("assumed done by the user (--assume-done)".into()),
            ..Outcome::success()
        };
        let input = self.outcome_input(wf, node, outcome);
        self.effect_after(wf, node, &input);
        input
    }

    /// After a live step asked the agent or ran the tool: a completed
    /// effect is recorded (in the log of a durable run) and indexed.
    pub(super) fn effect_after(&mut self, wf: WorkflowIdx, node: NodeIdx, input: &StepInput) {
        // Dropped unless the effect completed: a waiting sibling runs it.
        let claim = self.effects.claim.take();
        let Some(attrs) = self.effect_attrs(wf, node) else {
            return;
        };
        let partial = self.partial_when_spent(wf, node, input);
        let input = partial.as_ref().unwrap_or(input);
        if !is_done(input) {
            return;
        }
        // Checked before the node ran (an `Err` never gets here).
        let key = self.idempotence_key(wf, node).ok().flatten();
        let (workflow, node) = (
            self.wf_name(wf).to_owned(),
            self.node_name(wf, node).to_owned(),
        );
        // A branch's effects are ordered across its siblings by when they
        // completed (engine/fan_saga.rs).
        let ts = (attrs.compensate.is_some() && self.effects.in_branch)
            .then(|| crate::stamp::rfc3339(crate::stamp::now_ms()));
        let record = || EffectRecord::Done {
            step: self.step,
            workflow: workflow.clone(),
            node: node.clone(),
            key: key.clone(),
            compensate: attrs.compensate.clone(),
            input: Box::new(input.clone()),
            id: None,
            ts: ts.clone(),
            scope: None,
        };
        if let Some(log) = &mut self.out.log {
            // Handed to the OS like a step record (a kill loses nothing).
            if let Err(e) = log.append_effect(&record(), false) {
                self.persist_warning = Some(format!(
                    "could not record the effect of node `{node}` in the run log: {e}"
                ));
            }
        } else if let Some(dir) = &self.effects.branch_dir
            && let Err(e) = super::fan_durable::record(dir, &record())
        {
            // A branch of a durable fan-out: unrecorded, the effect runs
            // again if the branch does.
            self.persist_warning = Some(format!(
                "could not record the effect of node `{node}` in its branch's folder: {e}"
            ));
        }
        let step = self.step;
        // A branch's siblings and its fan-out's join see it: through the
        // claim, or directly for a node that ran without claiming its key
        // (an `at_most_once` node the user settled: engine/fan_effect.rs).
        let done = || super::fan_keys::Done {
            step,
            workflow: workflow.clone(),
            node: node.clone(),
            input: input.clone(),
        };
        match (claim, &self.effects.shared, &key) {
            (Some(claim), _, _) => claim.done(done()),
            (None, Some(shared), Some(key)) => shared.insert_done(key, done()),
            _ => {}
        }
        let extra = crate::effects::DoneExtra {
            compensate: attrs.compensate,
            ts,
            ..Default::default()
        };
        (self.effects).add_done(step, workflow, node, key, extra, input.clone());
    }

    /// A `retry` on the node's last attempt when the node has
    /// `allow_partial`: the `partial_success` the engine makes of it
    /// (apply.rs), which is the result to record under its key, so a
    /// later execution reuses it as such (never a `retry`).
    fn partial_when_spent(
        &self,
        wf: WorkflowIdx,
        node: NodeIdx,
        input: &StepInput,
    ) -> Option<StepInput> {
        let ir = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        let (StepInput::Tool { outcome, .. }
        | StepInput::Decision {
            decision: Decision::Advance(outcome),
            ..
        }) = input
        else {
            return None;
        };
        let retries = (ir.engine.retries).unwrap_or(self.info[wf.0 as usize].default_retries);
        let attempt = self.frames.last()?.attempt;
        if outcome.status != Status::Retry || !ir.engine.allow_partial || attempt <= retries {
            return None;
        }
        let partial = Outcome {
            status: Status::PartialSuccess,
            notes: Some("retries exhausted, partial accepted".into()),
            ..outcome.clone()
        };
        Some(self.outcome_input(wf, node, partial))
    }

    /// `outcome` as the step input of a node of `node`'s kind.
    pub(super) fn outcome_input(
        &self,
        wf: WorkflowIdx,
        node: NodeIdx,
        outcome: Outcome,
    ) -> StepInput {
        match self.program.workflows[wf.0 as usize].nodes[node.0 as usize].op {
            Opcode::Tool => StepInput::Tool {
                outcome,
                refused: false,
            },
            _ => StepInput::Decision {
                decision: Decision::Advance(outcome),
                failure: None,
            },
        }
    }

    /// A failure of `node` decided before anything ran.
    pub(super) fn failed_input(&self, wf: WorkflowIdx, node: NodeIdx, reason: String) -> StepInput {
        self.outcome_input(wf, node, failed(reason))
    }

    /// Emits `effect:reused` for a reused input at the current node.
    pub(super) fn emit_reused(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
        key: Option<&str>,
        of_step: u64,
    ) {
        if self.out.on() {
            let ev = Event::EffectReused {
                step: self.step,
                workflow: self.wf_name(wf),
                node: self.node_name(wf, node),
                depth: self.frames.len(),
                key,
                of_step,
            };
            self.out.emit(&ev);
        }
    }

    /// Whether an unsettled `at_most_once` node keeps the run from going
    /// on (none of the pending ones is settled): the run is then
    /// suspended, naming every one. Once some are settled the run goes
    /// on; a branch whose node is still unsettled waits again.
    pub(super) fn effect_blocked(&mut self) -> bool {
        if self.effects.pending.is_empty() || !self.effects.resolution.is_empty() {
            return false;
        }
        self.status = RunStatus::Suspended {
            reason: unsettled_reason(&self.effects.pending),
        };
        true
    }

    /// The `at_most_once` nodes a resumed run found started but not
    /// finished, until the user settles them ([`Engine::resolve_effect`]):
    /// one of the run itself, or one per waiting branch of a fan-out.
    pub fn pending_effects(&self) -> &[PendingEffect] {
        &self.effects.pending
    }

    /// Settles one pending `at_most_once` node (`--assume-done` /
    /// `--rerun`, once per node); `Err` when none is pending, it is not
    /// one of them, or it is settled already.
    pub fn resolve_effect(&mut self, resolution: Resolution) -> Result<(), String> {
        let node = resolution.node();
        if self.effects.pending.is_empty() {
            return Err(format!(
                "no at_most_once node is waiting to be settled in this run, so `{node}` cannot be assumed done or rerun"
            ));
        }
        if !self.effects.pending.iter().any(|p| p.node == node) {
            let names: Vec<String> = (self.effects.pending.iter())
                .map(|p| format!("`{}`", p.node))
                .collect();
            return Err(match &names[..] {
                [one] => format!("the run waits on the at_most_once node {one}, not `{node}`"),
                _ => format!(
                    "the run waits on the at_most_once nodes {}, not `{node}`",
                    names.join(", ")
                ),
            });
        }
        if self.effects.resolution.iter().any(|r| r.node() == node) {
            return Err(format!(
                "the at_most_once node `{node}` is settled twice: name it in one --assume-done or --rerun"
            ));
        }
        if let RunStatus::Suspended { .. } = self.status
            && self.effects.resolution.is_empty()
        {
            self.status = RunStatus::Running;
        }
        self.effects.resolution.push(resolution);
        Ok(())
    }

    /// Cancels the run (`wfc run --resume DIR --cancel`): one more step,
    /// logged as an `abort` input of kind `cancelled`, ends it as failed;
    /// [`Engine::run`] then compensates its completed effects. A pending
    /// `at_most_once` node is left as it is (its effect may or may not
    /// have happened: it has no `done` record to compensate). `Err` when
    /// the run has already ended.
    pub fn cancel(&mut self, reason: &str) -> Result<(), String> {
        if self.status.is_final() {
            return Err(format!(
                "the run has already ended ({}): there is nothing to cancel",
                self.status.name()
            ));
        }
        self.effects.pending.clear();
        self.effects.resolution.clear();
        self.status = RunStatus::Running;
        let reason = format!("the run was cancelled: {reason}");
        let input = StepInput::Abort {
            reason: reason.clone(),
            kind: Some(crate::failure::FailureKind::Cancelled),
        };
        if let Some(log) = &mut self.out.log {
            log.begin();
            log.set_input(&input);
        }
        self.fail_run(crate::failure::FailureKind::Cancelled, reason);
        self.step += 1;
        self.finish_step();
        Ok(())
    }

    /// How many completed effects name a compensation that has not run
    /// yet: what a cancellation or a failure would run.
    pub fn compensations_due(&self) -> usize {
        (self.effects.completed.iter())
            .filter(|c| !c.compensated(&self.effects))
            .count()
    }

    /// The compensations that ran, in order (resumed runs: those of
    /// earlier processes too).
    pub fn compensations(&self) -> &[Compensation] {
        &self.effects.results
    }

    /// A failed run undoes its completed effects: the compensating node of
    /// each, in reverse order of completion, each once (recorded in the
    /// log, so a resume runs only those that have not finished).
    pub(crate) fn compensate(&mut self) {
        if !matches!(self.status, RunStatus::Failed { .. }) {
            return;
        }
        let todo: Vec<_> = self
            .effects
            .completed
            .iter()
            .rev()
            .filter(|c| !c.compensated(&self.effects))
            .cloned()
            .collect();
        for c in todo {
            // A graceful stop leaves the rest for a resume (or `wfc
            // cancel`) to run, as a kill would.
            if self.interrupt_requested().is_some() {
                break;
            }
            let target = (0..self.program.workflows.len())
                .map(|i| WorkflowIdx(i as u32))
                .find(|&w| self.wf_name(w) == c.workflow)
                .and_then(|w| Some((w, node_named(self.program, w, &c.compensate)?)));
            let outcome = match target {
                Some((wf, node)) => self.run_compensation(wf, node, c.scope.as_deref()),
                None => failed(format!(
                    "the compensating node `{}` does not exist in workflow `{}`",
                    c.compensate, c.workflow
                )),
            };
            // Killed by the stop: not recorded, so it runs again.
            if outcome.status == Status::Fail && self.interrupt_requested().is_some() {
                break;
            }
            let record = EffectRecord::Compensated {
                step: c.step,
                id: c.id.clone(),
                workflow: c.workflow.clone(),
                node: c.node.clone(),
                by: c.compensate.clone(),
                status: outcome.status,
                reason: outcome.failure_reason.clone(),
            };
            if let Some(log) = &mut self.out.log
                && let Err(e) = log.append_effect(&record, true)
            {
                self.persist_warning = Some(format!(
                    "could not record the compensation of node `{}` in the run log: {e}",
                    c.node
                ));
            }
            if let Some(sink) = &mut self.out.sink {
                sink.emit(&Event::EffectCompensated {
                    workflow: &c.workflow,
                    node: &c.node,
                    by: &c.compensate,
                    status: outcome.status,
                    reason: outcome.failure_reason.as_deref(),
                });
            }
            match &c.id {
                Some(id) => self.effects.compensated_ids.insert(id.clone()),
                None => self.effects.compensated.insert(c.step),
            };
            self.effects.results.push(Compensation {
                workflow: c.workflow,
                node: c.node,
                by: c.compensate,
                status: outcome.status,
                reason: outcome.failure_reason,
            });
        }
    }

    /// Runs the command of the compensating `tool` node `node` against
    /// the blackboard as the run left it, with `scope` over it (an effect
    /// handed over from a parallel branch: engine/fan_saga.rs).
    fn run_compensation(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
        scope: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> Outcome {
        let workflow = &self.program.workflows[wf.0 as usize];
        let ir_node = &workflow.nodes[node.0 as usize];
        if ir_node.op != Opcode::Tool {
            return failed(format!(
                "the compensating node `{}` is not a `tool` node",
                self.program.str(ir_node.id)
            ));
        }
        let timeout = self
            .node_timeout(wf, node)
            .unwrap_or(self.info[wf.0 as usize].default_timeout);
        let base = Blackboard {
            program: self.program,
            frames: &self.frames,
            visible: &self.visible,
            keys: &self.keys,
        };
        let view = super::fan_saga::Overlay::new(&base, scope);
        let command = ir_node
            .engine
            .command
            .map(|c| match ir_node.templates.get("command") {
                Some(t) => shell_command(self.program, t, &view),
                None => Ok(ShellCommand::plain(self.program.str(c))),
            });
        let frame = self.frames.last().expect("the root frame is never popped");
        let ctx = DecisionContext {
            program: self.program,
            workflow_idx: wf,
            workflow,
            node_idx: node,
            node: ir_node,
            blackboard: &view,
            valid_edges: &[],
            depth: self.frames.len(),
            attempt: frame.attempt,
            step: self.step,
            visit: self.visits[self.info[wf.0 as usize].visit_base + node.0 as usize],
            incoming_edge: None,
            config: &self.config,
            limits: &self.limits,
            elapsed: self.elapsed,
            fan_keys: None,
            fan_effects: None,
        };
        let outcome = match (&mut self.tools, command) {
            (_, None) => failed("the compensating node has no `command`".into()),
            (_, Some(Err(e))) => failed(e.to_string()),
            (None, Some(Ok(cmd))) => failed(format!(
                "tool nodes run only with --allow-tools (compensation `{}` would run `{}`)",
                self.program.str(ir_node.id),
                cmd.script
            )),
            (Some(runner), Some(Ok(cmd))) => runner.run(&ctx, &cmd, timeout),
        };
        // Only success or failure: a compensation has no route to take.
        match outcome.status {
            Status::Fail => outcome,
            _ => Outcome {
                status: Status::Success,
                ..outcome
            },
        }
    }
}

/// Why a run waits on the unsettled `at_most_once` nodes `pending`: each
/// named, with the flags that settle it.
pub(super) fn unsettled_reason(pending: &[PendingEffect]) -> String {
    // A node of a parallel branch goes by its branch-qualified name
    // (engine/fan_effect.rs); its step is the branch's, not the run's.
    let when = |p: &PendingEffect| match p.node.contains('/') {
        true => "in a parallel branch".to_owned(),
        // Human text numbers steps from 1 (docs/runtime.md, "Step numbers").
        false => format!("at step {}", p.step + 1),
    };
    match pending {
        [p] => format!(
            "node `{}` of workflow `{}` is at_most_once and was started {} but not recorded as finished: its effect may or may not have happened; resume with `--assume-done {}` if it happened, `--rerun {}` to run it again",
            p.node,
            p.workflow,
            when(p),
            p.node,
            p.node
        ),
        _ => {
            let names: Vec<String> = pending
                .iter()
                .map(|p| {
                    format!(
                        "node `{}` of workflow `{}` (started {})",
                        p.node,
                        p.workflow,
                        when(p)
                    )
                })
                .collect();
            format!(
                "{} at_most_once nodes were started but not recorded as finished: {}; their effects may or may not have happened; resume with `--assume-done NODE` for each that happened and `--rerun NODE` for each that did not (several in one command)",
                pending.len(),
                names.join(", ")
            )
        }
    }
}

impl Engine<'_> {
    /// Writes an effect record where this engine keeps them: the run log
    /// (synced when `sync`), or a branch engine's own folder (always
    /// synced); an engine that persists nothing writes nothing. `Err`:
    /// why it could not, and where it was to go.
    pub(super) fn write_effect_record(
        &mut self,
        record: &EffectRecord,
        sync: bool,
    ) -> Option<(String, &'static str)> {
        match (&mut self.out.log, &self.effects.branch_dir) {
            (Some(log), _) => log
                .append_effect(record, sync)
                .err()
                .map(|e| (e.to_string(), "the run log")),
            (None, Some(dir)) => super::fan_durable::record(dir, record)
                .err()
                .map(|e| (e.to_string(), "its branch's folder")),
            (None, None) => None,
        }
    }
}
