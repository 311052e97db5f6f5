//! Idempotence keys across a fan-out's branches, `.wf` and Attractor
//! (docs/runtime.md, "Keys across parallel branches").
//!
//! The branches of one fan-out share a registry of keys ([`SharedKeys`]),
//! seeded with the keys the run completed before the fan-out and those the
//! branches' own folders recorded in an earlier run (a kill). A branch
//! about to run a keyed node claims its key: a key already done is reused;
//! a key a sibling is running right now makes the branch wait until the
//! sibling ends (then it reuses the sibling's result, or, when the sibling
//! did not complete the effect, claims it and runs). At the join, the keys
//! the branches completed become the parent's, recorded as `done` lines of
//! its log (or its branch folder) before the fan-out's step record, so that
//! a kill after the join loses none.
//!
//! An Attractor `parallel` node fans out in its handler
//! (attractor/parallel.rs), which the engine asks as it asks any agent:
//! the engine makes the registry before asking and passes it in the
//! decision context ([`crate::agent::DecisionContext`]), the handler seeds
//! it with its journal's branch folders and hands it to its branch
//! engines, and the engine joins the keys when the handler returns.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use wf_ir::{NodeIdx, Opcode, WorkflowIdx};

use super::{Engine, StepInput};
use crate::attractor::parallel::journal::Journal;
use crate::effects::EffectRecord;

/// A key's state in the registry.
#[derive(Debug)]
enum Entry {
    /// A branch runs the keyed node now.
    Running,
    /// The effect completed.
    Done(Box<Done>),
}

/// A completed effect in the registry.
#[derive(Debug, Clone)]
pub(crate) struct Done {
    /// The step it was recorded at, in the numbering of the engine that
    /// ran it (a branch's steps are its own).
    pub(crate) step: u64,
    /// The workflow and node that ran it.
    pub(crate) workflow: String,
    pub(crate) node: String,
    /// What it produced.
    pub(crate) input: StepInput,
}

/// The keys of one fan-out's branches.
#[derive(Debug, Default)]
pub(crate) struct SharedKeys {
    keys: Mutex<HashMap<String, Entry>>,
    changed: Condvar,
}

/// What a claim of a key gives.
pub(crate) enum Claim {
    /// The effect completed already: reuse it.
    Done(Box<Done>),
    /// The caller runs it; the guard ends the claim.
    Mine(ClaimGuard),
}

/// A branch's claim of a key while its node runs. Dropped without
/// [`ClaimGuard::done`] (the node did not complete the effect, or its
/// thread unwound), it frees the key for a waiting sibling.
#[derive(Debug)]
pub(crate) struct ClaimGuard {
    keys: Arc<SharedKeys>,
    key: String,
    armed: bool,
}

impl ClaimGuard {
    /// The effect completed: waiting siblings reuse it.
    pub(crate) fn done(mut self, done: Done) {
        self.armed = false;
        let mut keys = self.keys.lock();
        keys.insert(std::mem::take(&mut self.key), Entry::Done(Box::new(done)));
        drop(keys);
        self.keys.changed.notify_all();
    }
}

impl Drop for ClaimGuard {
    fn drop(&mut self) {
        if self.armed {
            let mut keys = self.keys.lock();
            if matches!(keys.get(&self.key), Some(Entry::Running)) {
                keys.remove(&self.key);
            }
            drop(keys);
            self.keys.changed.notify_all();
        }
    }
}

impl SharedKeys {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.keys.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a completed effect, unless the key is known.
    pub(crate) fn insert_done(&self, key: &str, done: Done) {
        self.lock()
            .entry(key.to_owned())
            .or_insert_with(|| Entry::Done(Box::new(done)));
    }

    /// Claims `key`: its completed effect, or the right to run it, after
    /// waiting while a sibling runs it.
    pub(crate) fn claim(self: &Arc<Self>, key: &str) -> Claim {
        let mut keys = self.lock();
        loop {
            match keys.get(key) {
                Some(Entry::Done(done)) => return Claim::Done(done.clone()),
                Some(Entry::Running) => {
                    keys = (self.changed.wait(keys)).unwrap_or_else(PoisonError::into_inner);
                }
                None => {
                    keys.insert(key.to_owned(), Entry::Running);
                    return Claim::Mine(ClaimGuard {
                        keys: Arc::clone(self),
                        key: key.to_owned(),
                        armed: true,
                    });
                }
            }
        }
    }

    /// The completed effects, by key.
    fn done(&self) -> Vec<(String, Done)> {
        let keys = self.lock();
        let mut out: Vec<_> = keys
            .iter()
            .filter_map(|(k, e)| match e {
                Entry::Done(done) => Some((k.clone(), (**done).clone())),
                Entry::Running => None,
            })
            .collect();
        // A stable order for the log.
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

impl SharedKeys {
    /// Adds the keys the folders of the `branches` branches journaled in
    /// `journal` recorded in an earlier run (a kill), so a branch run
    /// again does not run a key its sibling completed before the kill.
    pub(crate) fn seed_branches(&self, journal: &Journal, branches: usize) {
        for i in 0..branches {
            if let Some(dir) = journal.branch_dir(i) {
                for (k, done) in super::fan_durable::keyed(&dir) {
                    self.insert_done(&k, done);
                }
            }
        }
    }
}

impl Engine<'_> {
    /// The registry of keys for the branches of the fan-out journaled in
    /// `journal` with `branches` branches: this engine's keys, those of
    /// the fan-out this engine is a branch of, and those the branches'
    /// folders recorded in an earlier run. `None` when no node has an
    /// effect attribute.
    pub(super) fn fan_keys(&self, journal: &Journal, branches: usize) -> Option<Arc<SharedKeys>> {
        let keys = self.own_keys()?;
        keys.seed_branches(journal, branches);
        Some(keys)
    }

    /// The registry of keys for the branches of the Attractor `parallel`
    /// node `node`, which its handler seeds with its journal's folders
    /// ([`SharedKeys::seed_branches`]) and hands to its branch engines
    /// (`Inherited::with_keys`); `None` at any other node, or when no node
    /// has an effect attribute.
    pub(super) fn attractor_fan_keys(
        &self,
        wf: WorkflowIdx,
        node: NodeIdx,
    ) -> Option<Arc<SharedKeys>> {
        let w = &self.program.workflows[wf.0 as usize];
        let attractor = w.dialect == wf_ir::Dialect::Attractor;
        (attractor && w.nodes[node.0 as usize].op == Opcode::Parallel)
            .then(|| self.own_keys())
            .flatten()
    }

    /// A registry holding this engine's keys and those of the fan-out
    /// this engine is a branch of; `None` when no node has an effect
    /// attribute.
    fn own_keys(&self) -> Option<Arc<SharedKeys>> {
        if !self.effects.any {
            return None;
        }
        let keys = Arc::new(SharedKeys::default());
        for (k, (step, input)) in &self.effects.by_key {
            // Already this engine's: the join skips it, so no node needed.
            let done = Done {
                step: *step,
                workflow: String::new(),
                node: String::new(),
                input: input.clone(),
            };
            keys.insert_done(k, done);
        }
        if let Some(outer) = &self.effects.shared {
            for (k, done) in outer.done() {
                keys.insert_done(&k, done);
            }
        }
        Some(keys)
    }

    /// At the end of a fan-out: the keys its branches completed become
    /// this engine's, recorded at this step (in the run log before the
    /// step's record, or in this branch's folder) and published to the
    /// fan-out this engine is a branch of.
    pub(super) fn join_keys(&mut self, keys: Option<Arc<SharedKeys>>) {
        let Some(keys) = keys else { return };
        for (key, done) in keys.done() {
            if self.effects.by_key.contains_key(&key) {
                continue;
            }
            let record = EffectRecord::Done {
                step: self.step,
                workflow: done.workflow.clone(),
                node: done.node.clone(),
                key: Some(key.clone()),
                // Compensations are handed over on lines of their own
                // (engine/fan_saga.rs).
                compensate: None,
                id: None,
                ts: None,
                scope: None,
                input: Box::new(done.input.clone()),
            };
            if let Some((e, _)) = self.write_effect_record(&record, false) {
                self.persist_warning = Some(format!(
                    "could not record the effect with key `{key}` of a parallel branch: {e}"
                ));
            }
            if let Some(outer) = &self.effects.shared {
                let at = Done {
                    step: self.step,
                    ..done.clone()
                };
                outer.insert_done(&key, at);
            }
            self.effects.by_key.insert(key, (self.step, done.input));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::{Claim, Done, SharedKeys};
    use crate::agent::Outcome;
    use crate::engine::StepInput;

    fn done(step: u64) -> Done {
        Done {
            step,
            workflow: "W".into(),
            node: "n".into(),
            input: StepInput::Tool {
                outcome: Outcome::success(),
                refused: false,
            },
        }
    }

    /// A sibling claiming a key another runs waits for it: it reuses the
    /// completed effect, or, when the runner did not complete it (its
    /// guard dropped: a failure, an unwound thread), runs it itself.
    #[test]
    fn a_sibling_waits_for_the_runner_then_reuses_or_runs() {
        let keys = Arc::new(SharedKeys::default());
        let Claim::Mine(guard) = keys.claim("k") else {
            panic!("a new key is the caller's to run")
        };
        let waiter = {
            let keys = Arc::clone(&keys);
            std::thread::spawn(move || matches!(keys.claim("k"), Claim::Done(d) if d.step == 4))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "the sibling waits while `k` runs");
        guard.done(done(4));
        assert!(waiter.join().unwrap(), "then reuses it");

        let Claim::Mine(guard) = keys.claim("f") else {
            panic!("a new key is the caller's to run")
        };
        let waiter = {
            let keys = Arc::clone(&keys);
            std::thread::spawn(move || matches!(keys.claim("f"), Claim::Mine(_)))
        };
        std::thread::sleep(Duration::from_millis(50));
        drop(guard);
        assert!(waiter.join().unwrap(), "a failed run frees the key");
    }
}
