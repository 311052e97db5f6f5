//! Starting elsewhere than at the entry: a run from any node
//! ([`Engine::start_from`], `wfc run --from`) and a new run forked from a
//! recorded step of an old one ([`Engine::fork`], `wfc run --fork`).

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use wf_ir::{IrProgram, NodeIdx};

use super::replay::event_difference;
use super::{Divergence, Engine, EngineError};
use crate::config::EngineConfig;
use crate::event::CollectSink;
use crate::persist::{PersistError, RunDir};

/// Where a run started when not at its workflow's entry with an empty
/// state: recorded in its `start.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// `wfc run --from NODE`: at a node of the root workflow, with only the
    /// inputs it was given.
    From {
        /// The node's id.
        node: String,
    },
    /// `wfc run --fork DIR --at STEP`: in the state another run had after
    /// `step` steps.
    Fork {
        /// The source run directory, as given (made absolute when it could
        /// be).
        dir: String,
        /// The source's step count the state was rebuilt at.
        step: u64,
    },
}

/// Why a run could not be forked.
#[derive(Debug)]
pub enum ForkError {
    /// The source cannot be read, or its start does not fit its program.
    Engine(EngineError),
    /// No state of the source is recorded at that step.
    OutOfRange {
        /// The step asked for.
        at: u64,
        /// The first step the source's log can rebuild (its start).
        first: u64,
        /// The last step a fork can start at: the source's step count, or
        /// one less when its last step ended it.
        last: u64,
    },
    /// The source had ended (completed or failed) by that step: nothing
    /// is left to run.
    Ended {
        /// The step asked for.
        at: u64,
        /// `completed` or `failed`.
        status: &'static str,
        /// The first step the source's log can rebuild.
        first: u64,
    },
    /// The source's log does not replay against its program up to the
    /// step: it is corrupt (or was written by another engine).
    Diverged(Divergence),
}

impl std::fmt::Display for ForkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ForkError::Engine(e) => write!(f, "{e}"),
            ForkError::OutOfRange { at, .. } => write!(f, "the run records no step {at}"),
            ForkError::Ended { at, status, .. } => {
                write!(
                    f,
                    "the run had {status} after {at} steps: nothing is left to run"
                )
            }
            ForkError::Diverged(d) => {
                let line = d
                    .line
                    .map(|l| format!(" (log.jsonl line {l})"))
                    .unwrap_or_default();
                write!(
                    f,
                    "its log does not replay: at step {}{line} it diverges: {}",
                    // From 1, as `wfc replay` says it.
                    d.step + 1,
                    d.what
                )
            }
        }
    }
}

impl std::error::Error for ForkError {}

impl From<EngineError> for ForkError {
    fn from(e: EngineError) -> Self {
        ForkError::Engine(e)
    }
}

impl From<PersistError> for ForkError {
    fn from(e: PersistError) -> Self {
        ForkError::Engine(EngineError::Persist(e))
    }
}

impl<'p> Engine<'p> {
    /// Makes the run start at `node` of its root workflow instead of the
    /// entry (`wfc run --from`). Call it first, before
    /// [`Engine::set_input`] (inputs are attributed to the start node) and
    /// [`Engine::persist_to`]. What the run must be given to start there is
    /// [`crate::required::required_from`]'s to say.
    pub fn start_from(&mut self, node: &str) -> Result<NodeIdx, EngineError> {
        if self.started || self.step > 0 || !self.frames[0].entries.is_empty() {
            return Err(EngineError::Program(
                "the start node is chosen before inputs are set and the run starts".into(),
            ));
        }
        let wf = &self.program.workflows[self.root.0 as usize];
        let found = wf.nodes.iter().position(|n| self.program.str(n.id) == node);
        let Some(i) = found else {
            return Err(EngineError::Program(format!(
                "workflow `{}` has no node `{node}`",
                self.wf_name(self.root)
            )));
        };
        self.frames[0].node = NodeIdx(i as u32);
        Ok(NodeIdx(i as u32))
    }

    /// [`Engine::persist_to`] for a run that started elsewhere: its
    /// `start.json` records `origin` (`wfc status` shows it).
    pub fn persist_from(&mut self, dir: RunDir, origin: Origin) -> Result<(), EngineError> {
        self.persist_with_origin(Box::new(dir), Some(origin))
    }

    /// A new engine in the state the run in `source` had after `at` steps,
    /// rebuilt from the run's log (the single source of truth; never from
    /// a snapshot, which may be newer): `start.json` is restored and the
    /// logged steps before `at` are applied again, each checked to emit the
    /// events the log recorded, as `wfc replay` does. Nothing is asked,
    /// run, slept or written; `source` may be opened read-only
    /// ([`RunDir::open_read_only`]), even while its run goes on. The engine
    /// has no sink and no run directory: give it a new one with
    /// [`Engine::persist_from`].
    pub fn fork(
        program: &'p IrProgram,
        source: &RunDir,
        at: u64,
        config: EngineConfig,
    ) -> Result<Self, ForkError> {
        let start = source.read_start()?.ok_or_else(|| PersistError::Corrupt {
            path: source.path().join("start.json"),
            line: None,
            message: "it is missing: the run was started by a wfc without replay, \
                      and cannot be forked"
                .into(),
        })?;
        let records = source.read_log()?;
        let first = start.step;
        if at < first {
            let last = records.last().map_or(first, |(_, r)| r.step + 1).max(first);
            return Err(ForkError::OutOfRange { at, first, last });
        }
        let mut engine = Engine::restore(program, &start, config).map_err(|e| match e {
            EngineError::Snapshot(message) => EngineError::Persist(PersistError::Corrupt {
                path: source.path().join("start.json"),
                line: None,
                message,
            }),
            other => other,
        })?;
        // Replayed steps are not slept (backoff) and emit into a buffer
        // only, to be compared with the log.
        let sleeper = std::mem::replace(&mut engine.sleeper, Box::new(|_| {}));
        let events = Rc::new(RefCell::new(Vec::new()));
        engine.out.sink = Some(Box::new(CollectSink(events.clone())));
        for (line, mut record) in records.into_iter().take_while(|(_, r)| r.step < at) {
            let step = record.step;
            let recorded = std::mem::take(&mut record.events);
            if let Err(message) = engine.reapply(record, first) {
                return Err(ForkError::Diverged(Divergence {
                    step,
                    line: Some(line),
                    what: format!("the recorded step does not fit the replayed run: {message}"),
                    recorded: None,
                    replayed: None,
                }));
            }
            let produced = std::mem::take(&mut *events.borrow_mut());
            if let Some(d) = event_difference(step, line, &recorded, &produced) {
                return Err(ForkError::Diverged(d));
            }
        }
        engine.out.sink = None;
        engine.sleeper = sleeper;
        engine.carry_effects(source, at)?;
        if engine.step != at {
            // Past the log's end: the whole log was replayed, so the last
            // step a fork can start at is known.
            let ended = u64::from(engine.status.is_final());
            return Err(ForkError::OutOfRange {
                at,
                first,
                last: engine.step.saturating_sub(ended).max(first),
            });
        }
        if engine.status.is_final() {
            let status = engine.status.name();
            return Err(ForkError::Ended { at, status, first });
        }
        Ok(engine)
    }

    /// A fork is the same program in the state its source had at step
    /// `at`, and the world its source acted on: the effects its source
    /// recorded before `at` are the fork's too, so a keyed effect the
    /// source completed is reused, not run again. They are indexed now
    /// and written to the fork's log when it gets one
    /// ([`Engine::persist_from`]), so a resumed fork rebuilds them too.
    /// Their compensations stay the source's (a failed fork does not undo
    /// what its source did, which the source may undo itself: an effect
    /// is undone once), so the carried records name none.
    fn carry_effects(&mut self, source: &RunDir, at: u64) -> Result<(), PersistError> {
        if !self.effects.any {
            return Ok(());
        }
        use crate::effects::EffectRecord;
        use crate::store::RunStore;
        let carried: Vec<EffectRecord> = source
            .effects()?
            .into_iter()
            .filter_map(|r| match r {
                EffectRecord::Done {
                    step,
                    workflow,
                    node,
                    key,
                    input,
                    ..
                } if step < at => Some(EffectRecord::Done {
                    step,
                    workflow,
                    node,
                    key,
                    compensate: None,
                    id: None,
                    ts: None,
                    scope: None,
                    input,
                }),
                // A start is settled by its step, which the fork has; a
                // compensation is the source's.
                _ => None,
            })
            .collect();
        for record in &carried {
            self.effects.load(record.clone());
        }
        // Every carried step was committed: none is this step's, none is
        // pending.
        self.effects.last_done = None;
        self.effects.last_started.clear();
        self.effects.carried = carried;
        Ok(())
    }
}
