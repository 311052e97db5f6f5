//! Compensations of the effects completed in a fan-out's branches, `.wf`
//! and Attractor (docs/runtime.md, "Compensation across parallel
//! branches").
//!
//! A branch engine records its completed effects (its folder's
//! `effects.jsonl` in a durable run, its memory otherwise), each stamped
//! with the time it completed. When the fan-out ends or suspends, its join
//! hands the effects that name a compensation to the engine that ran the
//! fan-out: one `done` line each, in order of completion across the
//! branches, written before the fan-out's step record (to the run log, or
//! to the parent branch's folder for a nested fan-out). From then on they
//! are that engine's effects: a later failure, cancellation or budget
//! compensates them with its own, most recent first.
//!
//! Each handed-over effect has an `id` that stays the same however often
//! it is handed over (a kill before the step record, a fan-out suspended
//! and asked again): the branch-qualified node and the how-manieth
//! completion of a node of that name in the branch
//! (`fan#1/left/reserve@1`). Its `compensated` line names that id, so a
//! resume runs only the compensations not recorded.
//!
//! An Attractor `parallel` node fans out in its handler, which the engine
//! asks as any agent: the engine gives it a [`FanEffects`] in the decision
//! context (beside the keys, engine/fan_keys.rs), the handler leaves one
//! [`BranchEffects`] per branch there, and the engine hands them over
//! when the handler returns ([`Engine::hand_over`]).

use std::collections::{HashMap, VecDeque};

use serde_json::{Map, Value};

use super::fan_branch::Run;
use super::{Engine, StepInput};
use crate::agent::BlackboardView;
use crate::attractor::parallel::journal::Journal;
use crate::effects::{Completed, DoneExtra, EffectRecord, is_done, writes_of};

/// A blackboard with keys laid over it: what a compensation of a branch's
/// effect sees (the branch's writes and the effect's own, over the run's).
pub(super) struct Overlay<'a> {
    base: &'a dyn BlackboardView,
    top: Option<&'a Map<String, Value>>,
}

impl<'a> Overlay<'a> {
    /// `top` over `base` (`None`: `base` as it is).
    pub(super) fn new(base: &'a dyn BlackboardView, top: Option<&'a Map<String, Value>>) -> Self {
        Overlay { base, top }
    }
}

impl BlackboardView for Overlay<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        (self.top.and_then(|t| t.get(key))).or_else(|| self.base.get(key))
    }

    fn keys(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .top
            .into_iter()
            .flat_map(|t| t.keys())
            .map(|k| k.as_str())
            .collect();
        for k in self.base.keys() {
            if !self.top.is_some_and(|t| t.contains_key(k)) {
                out.push(k);
            }
        }
        out
    }

    fn local(&self) -> Vec<(&str, &Value)> {
        let mut out: Vec<(&str, &Value)> = (self.base.local().into_iter())
            .filter(|(k, _)| !self.top.is_some_and(|t| t.contains_key(*k)))
            .collect();
        out.extend(
            self.top
                .into_iter()
                .flat_map(|t| t.iter())
                .map(|(k, v)| (k.as_str(), v)),
        );
        out
    }
}

/// A branch's effect, as its join hands it over.
struct Handed {
    id: String,
    workflow: String,
    node: String,
    compensate: String,
    input: StepInput,
    ts: Option<String>,
    scope: Map<String, Value>,
}

/// What a branch recorded of one completed effect that names a
/// compensation: its own (`id` `None`) or one a fan-out nested in it
/// handed over.
struct Own {
    id: Option<String>,
    workflow: String,
    node: String,
    compensate: String,
    input: StepInput,
    ts: Option<String>,
    /// The effect's writes (its own), or the scope it was handed with.
    scope: Map<String, Value>,
}

/// The effects that name a compensation in the branch folder `dir`'s
/// records, in the order recorded.
fn from_folder(dir: &std::path::Path) -> Vec<Own> {
    let mut out: Vec<Own> = Vec::new();
    for record in super::fan_durable::read(dir) {
        let EffectRecord::Done {
            workflow,
            node,
            compensate: Some(compensate),
            input,
            id,
            ts,
            scope,
            ..
        } = record
        else {
            continue;
        };
        if !is_done(&input) {
            continue;
        }
        // A nested join's lines written again after a kill: one effect.
        if id.is_some() && out.iter().any(|o| o.id == id) {
            continue;
        }
        let scope = scope.map_or_else(|| writes_of(&input), |s| *s);
        out.push(Own {
            id,
            workflow,
            node,
            compensate,
            input: *input,
            ts,
            scope,
        });
    }
    out
}

/// The same from a branch engine's memory (a run without a directory).
fn from_memory(completed: &[Completed]) -> Vec<Own> {
    (completed.iter())
        .filter_map(|c| {
            Some(Own {
                id: c.id.clone(),
                workflow: c.workflow.clone(),
                node: c.node.clone(),
                compensate: c.compensate.clone(),
                input: (**c.input.as_ref()?).clone(),
                ts: c.ts.clone(),
                scope: c.scope.as_deref().cloned().unwrap_or_default(),
            })
        })
        .collect()
}

/// A branch's effects as its join hands them over: named by their
/// branch-qualified node (`prefix`: `fan#1/left/`), each with its id, and
/// seeing the branch's writes (`updates`) under its own scope.
fn handed(own: Vec<Own>, prefix: &str, updates: &Map<String, Value>) -> VecDeque<Handed> {
    // By node name alone: the qualified name does not say the workflow
    // (a branch calling two workflows that each have a node `x` gets
    // `x@1` and `x@2`).
    let mut seen: HashMap<String, u32> = HashMap::new();
    (own.into_iter())
        .map(|o| {
            let (id, node) = match o.id {
                // Handed over by a fan-out nested in the branch: named
                // already.
                Some(id) => (id, o.node),
                None => {
                    let n = seen.entry(o.node.clone()).or_default();
                    *n += 1;
                    (
                        format!("{prefix}{}@{n}", o.node),
                        format!("{prefix}{}", o.node),
                    )
                }
            };
            let mut scope = updates.clone();
            scope.extend(o.scope);
            Handed {
                id,
                workflow: o.workflow,
                node,
                compensate: o.compensate,
                input: o.input,
                ts: o.ts,
                scope,
            }
        })
        .collect()
}

/// Merges the branches' lists (each in its order of completion) by the
/// time each effect completed; a tie goes to the branch first in edge
/// order, and an effect without a time (recorded by an older wfc) comes
/// before those with one.
fn by_completion(mut lists: Vec<VecDeque<Handed>>) -> Vec<Handed> {
    let mut out = Vec::new();
    loop {
        let next = (lists.iter().enumerate())
            .filter_map(|(i, l)| Some((l.front()?.ts.as_deref().unwrap_or(""), i)))
            .min()
            .map(|(_, i)| i);
        match next.and_then(|i| lists[i].pop_front()) {
            Some(h) => out.push(h),
            None => return out,
        }
    }
}

/// One branch's effects to compensate, as its fan-out's join hands them
/// over: made by the Attractor `parallel` handler for each of its
/// branches ([`FanEffects`]), by the `.wf` fan-out for its own.
pub(crate) struct BranchEffects(VecDeque<Handed>);

impl BranchEffects {
    /// The effects of the branch whose question scope is `prefix`
    /// (`fan#1/left/`): read from its folder `dir` in a durable run, else
    /// taken from its engine's memory (`compensable`); each sees the
    /// branch's writes (`updates`) under its own.
    pub(crate) fn of(
        dir: Option<&std::path::Path>,
        compensable: &[Completed],
        prefix: &str,
        updates: &Map<String, Value>,
    ) -> Self {
        let own = match dir {
            Some(dir) => from_folder(dir),
            None => from_memory(compensable),
        };
        BranchEffects(handed(own, prefix, updates))
    }
}

/// Where an Attractor `parallel` handler leaves its branches' effects, in
/// edge order, for the engine that asked it to hand over when the handler
/// returns (as it joins their keys: engine/fan_keys.rs). A mutex: the
/// decision context is shared with branch threads.
pub(crate) type FanEffects = std::sync::Mutex<Vec<BranchEffects>>;

impl Engine<'_> {
    /// At the end of a fan-out (or its suspension): the effects its
    /// branches completed that name a compensation become this engine's.
    /// `scope` is the fan-out's question scope (`fan#1/`).
    pub(super) fn join_compensations(
        &mut self,
        journal: &Journal,
        runs: &[(Run, Option<u64>)],
        scope: &str,
    ) {
        if !self.effects.any {
            return;
        }
        let lists = (runs.iter().enumerate())
            .map(|(i, (run, _))| {
                let prefix = format!("{scope}{}/", run.result.id);
                let dir = journal.branch_dir(i);
                let updates = &run.result.context_updates;
                BranchEffects::of(dir.as_deref(), &run.compensable, &prefix, updates)
            })
            .collect();
        self.hand_over(lists);
    }

    /// The branches' effects (`lists`, in edge order) become this
    /// engine's, recorded at this step in order of completion (in the run
    /// log before the step's record, or in this branch's folder). Effects
    /// handed over before (same id) are not again.
    pub(super) fn hand_over(&mut self, lists: Vec<BranchEffects>) {
        if !self.effects.any {
            return;
        }
        let lists = lists.into_iter().map(|l| l.0).collect();
        for h in by_completion(lists) {
            if self.effects.completed_ids.contains(&h.id) {
                continue;
            }
            let scope = Some(Box::new(h.scope));
            let record = EffectRecord::Done {
                step: self.step,
                workflow: h.workflow.clone(),
                node: h.node.clone(),
                key: None,
                compensate: Some(h.compensate.clone()),
                input: Box::new(h.input.clone()),
                id: Some(h.id.clone()),
                ts: h.ts.clone(),
                scope: scope.clone(),
            };
            if let Some((e, _)) = self.write_effect_record(&record, false) {
                self.persist_warning = Some(format!(
                    "could not record the effect of `{}` of a parallel branch, to compensate if the run fails: {e}",
                    h.node
                ));
            }
            let extra = DoneExtra {
                compensate: Some(h.compensate),
                id: Some(h.id),
                ts: h.ts,
                scope,
            };
            (self.effects).add_done(self.step, h.workflow, h.node, None, extra, h.input);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Handed, by_completion};
    use std::collections::VecDeque;

    fn h(id: &str, ts: Option<&str>) -> Handed {
        Handed {
            id: id.into(),
            workflow: "W".into(),
            node: id.into(),
            compensate: "undo".into(),
            input: crate::engine::StepInput::Engine,
            ts: ts.map(str::to_owned),
            scope: Default::default(),
        }
    }

    /// Across branches, effects are ordered by the time they completed
    /// (a tie: edge order); within a branch, its own order holds even
    /// when a clock went back.
    #[test]
    fn branch_effects_merge_by_completion_time() {
        let a: VecDeque<_> = [
            h("a1", Some("2026-01-01T00:00:00.300Z")),
            h("a2", Some("2026-01-01T00:00:00.100Z")),
        ]
        .into();
        let b: VecDeque<_> = [
            h("b1", Some("2026-01-01T00:00:00.200Z")),
            h("b2", Some("2026-01-01T00:00:00.300Z")),
        ]
        .into();
        let c: VecDeque<_> = [h("c1", None)].into();
        let ids: Vec<String> = by_completion(vec![a, b, c])
            .into_iter()
            .map(|h| h.id)
            .collect();
        assert_eq!(ids, ["c1", "b1", "a1", "a2", "b2"]);
    }
}
