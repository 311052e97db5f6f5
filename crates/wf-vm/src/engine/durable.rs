//! Durable runs: the first snapshot, resuming from a run directory, and
//! the per-step log record and periodic snapshots.

use std::time::Instant;

use wf_ir::IrProgram;

use super::{Engine, EngineError, step};
use crate::config::EngineConfig;
use crate::failure::FailureKind;
use crate::persist::{LogRecord, RunLog};
use crate::report::RunStatus;
use crate::store::{RunStore, StorePart};

impl<'p> Engine<'p> {
    /// Makes the run durable in `store` (a [`RunDir`](crate::RunDir), or
    /// any [`RunStore`]): writes the start state and the first snapshot
    /// now, then appends one log record per step.
    pub fn persist_to(&mut self, store: impl RunStore + 'static) -> Result<(), EngineError> {
        self.persist_with_origin(Box::new(store), None)
    }

    /// [`Engine::persist_to`], with `start.json` recording where the run
    /// started when not at its workflow's entry (`--from`, `--fork`).
    pub(super) fn persist_with_origin(
        &mut self,
        mut store: Box<dyn RunStore>,
        origin: Option<super::Origin>,
    ) -> Result<(), EngineError> {
        let snap = self.snapshot();
        // The start first: a run that has a snapshot has its start. Only
        // it names the origin: the snapshot is the state alone, compared
        // as such by `wfc replay`.
        let start = super::Snapshot {
            origin,
            ..snap.clone()
        };
        store.write_start(&start)?;
        store.write_snapshot(&snap)?;
        let mut log = RunLog::new(store);
        // A fork's carried effect records, before its first step: synced
        // with the last, so a resume of the fork finds them all.
        let carried = std::mem::take(&mut self.effects.carried);
        for (i, record) in carried.iter().enumerate() {
            log.append_effect(record, i + 1 == carried.len())?;
        }
        self.out.log = Some(log);
        Ok(())
    }

    /// Restores the run in `dir`: its last snapshot, then the steps logged
    /// after it (their recorded decisions are re-applied, the agent is not
    /// asked and nothing is logged twice); a torn last log line (a process
    /// killed mid-write) is dropped. The run continues logging to `dir`.
    pub fn resume(
        program: &'p IrProgram,
        store: impl RunStore + 'static,
        config: EngineConfig,
    ) -> Result<Self, EngineError> {
        let mut engine = Engine::inspect(program, &store, config)?;
        engine.out.log = Some(RunLog::new(Box::new(store)));
        Ok(engine)
    }

    /// The run in `dir` as its snapshot and log say it stands, without
    /// continuing it or writing anything (`wfc status`): [`Engine::report`]
    /// tells its status and position. `dir` may be opened to read only
    /// ([`RunDir::open_read_only`](crate::RunDir::open_read_only)).
    pub fn inspect(
        program: &'p IrProgram,
        dir: &dyn RunStore,
        config: EngineConfig,
    ) -> Result<Self, EngineError> {
        let snap = dir.read_snapshot()?;
        // Errors name the file at fault: both are untrusted input.
        let mut engine = Engine::restore(program, &snap, config).map_err(|e| match e {
            EngineError::Snapshot(message) => {
                EngineError::Persist(dir.corrupt(StorePart::Snapshot, None, message))
            }
            other => other,
        })?;
        // A `.dot` run's lifecycle follows every logged step, those before
        // the snapshot too (lifecycle.rs, `follow`).
        let follow = engine.out.lifecycle.is_some();
        let records = dir.read_log_from(if follow { 0 } else { snap.step })?;
        let corrupt = |line: usize, message: String| {
            EngineError::Persist(dir.corrupt(StorePart::Log, Some(line), message))
        };
        engine.out.replaying = true;
        for (line, record) in records {
            if let Some(l) = &mut engine.out.lifecycle {
                l.follow(&record.events);
            }
            if record.step < snap.step {
                continue;
            }
            engine
                .reapply(record, snap.step)
                .map_err(|m| corrupt(line, m))?;
        }
        engine.out.replaying = false;
        // The effect index is rebuilt from the whole log.
        if engine.effects.any {
            for record in dir.effects()? {
                engine.effects.load(record);
            }
            engine.effects.settle(engine.step);
        }
        Ok(engine)
    }

    /// Re-applies one logged step (resume, replay): `Err` says why the
    /// record does not fit the state (`from`: the step the state was
    /// restored at, for the message).
    pub(super) fn reapply(&mut self, record: LogRecord, from: u64) -> Result<(), String> {
        if record.step != self.step {
            return Err(format!(
                "its `step` is {} where {} was expected (the log numbers steps from 0; \
                 the snapshot holds {from} steps)",
                record.step, self.step
            ));
        }
        if self.status.is_final() {
            return Err("it records a step after the run ended".into());
        }
        if matches!(self.status, RunStatus::Suspended { .. }) {
            self.status = RunStatus::Running;
        }
        self.do_step(step::Source::Replay(record.input))
            .map_err(|f| f.message)?;
        self.check_step_budget();
        self.step += 1;
        Ok(())
    }

    /// A problem with the run directory that did not change the run's
    /// outcome (the final snapshot could not be written: the log holds the
    /// end), for the embedder to show as a warning.
    pub fn persist_warning(&self) -> Option<&str> {
        self.persist_warning.as_deref()
    }

    /// Writes the step's log record and, when due, a snapshot.
    pub(super) fn finish_step(&mut self) {
        let done = self.status != RunStatus::Running;
        if done {
            self.stop_clock();
        }
        // Before the step that suspends is logged (ask.rs).
        self.record_questions();
        let Some(log) = &mut self.out.log else { return };
        // The record takes its events' time; whatever is recorded next
        // (a step, a cancellation) reads the clock again.
        let clock = &mut self.out.clock;
        let at = clock.step_ms();
        clock.stale();
        if let Err(e) = log.commit(self.step - 1, &clock.run, at) {
            let reason = format!("could not append to the run log: {e}");
            self.out.log = None;
            self.fail_run(FailureKind::Store, reason);
            return;
        }
        if done || log.cadence.due(self.step, &self.config) {
            // A snapshot's cost, which spaces the next one, counts from
            // here: syncing the log written since the last one is part of
            // it, and so is freeing the snapshot (a long chain's visits).
            let started = Instant::now();
            if let Err(e) = log.store().sync() {
                let reason = format!("could not sync the run log: {e}");
                self.out.log = None;
                if done {
                    // Written, not synced: a killed process loses nothing.
                    self.persist_warning = Some(reason);
                } else {
                    self.fail_run(FailureKind::Store, reason);
                }
                return;
            }
            let snap = self.snapshot();
            let log = self.out.log.as_mut().expect("checked above");
            let result = log.store().write_snapshot(&snap);
            drop(snap);
            log.cadence.written(started);
            if let Err(e) = result {
                self.out.log = None;
                if done {
                    // The log already holds the step that ended the run:
                    // a resume replays it to the same end. Reporting the
                    // run as failed would be untrue.
                    self.persist_warning = Some(format!(
                        "could not write the final snapshot ({e}); the run's log records its end"
                    ));
                } else {
                    self.fail_run(
                        FailureKind::Store,
                        format!("could not write the snapshot: {e}"),
                    );
                }
            }
        }
    }
}
