//! `effect = "at_most_once"` in a `.wf` parallel branch (docs/runtime.md,
//! "Effects that happen once in parallel branches").
//!
//! A branch engine of a durable run writes its `at_most_once` node's
//! `started` record to the branch's own folder (`effects.jsonl`, synced
//! before the effect runs) and its `done` record after, as the root engine
//! writes them to the run log. A branch killed half-way runs again from its
//! first node; there, an `at_most_once` execution the earlier run finished
//! is reused (never run again), and one it started but did not finish
//! makes the branch wait instead of running it: the fan-out suspends the
//! run naming the node by its branch-qualified name (`fan#1/a/charge`),
//! recorded in the run log as the root's own unsettled node is. `wfc run
//! --resume DIR --assume-done fan#1/a/charge` (or `--rerun`) settles it:
//! the root engine hands the settlement to that branch.

use super::{Engine, StepInput};
use crate::agent::{Decision, Outcome, Write};
use crate::attractor::parallel::journal::Journal;
use crate::effects::{EffectRecord, PendingEffect, Resolution};
use wf_ir::{NodeIdx, WorkflowIdx};

impl Engine<'_> {
    /// Indexes what an earlier run of this branch left of its
    /// `at_most_once` nodes (its folder's records, in order). A branch
    /// restored where it waited for an answer has taken its steps before
    /// that: their records are not executions still to come.
    pub(super) fn load_branch_history(&mut self, records: &[EffectRecord]) {
        for r in records {
            let step = match r {
                EffectRecord::Started { step, .. }
                | EffectRecord::Done { step, .. }
                | EffectRecord::Compensated { step, .. } => *step,
            };
            if step < self.step {
                continue;
            }
            match r {
                EffectRecord::Started { workflow, node, .. } => {
                    let h = (self.effects.branch_history)
                        .entry((workflow.clone(), node.clone()))
                        .or_default();
                    // A start after an unfinished one: the user had it run
                    // again (`--rerun`), so the first is settled.
                    if matches!(h.back(), Some(None)) {
                        h.pop_back();
                    }
                    h.push_back(None);
                }
                EffectRecord::Done {
                    step,
                    workflow,
                    node,
                    input,
                    ..
                } => {
                    let key = (workflow.clone(), node.clone());
                    if let Some(h) = self.effects.branch_history.get_mut(&key)
                        && let Some(last @ None) = h.back_mut()
                    {
                        *last = Some((*step, (**input).clone()));
                    }
                }
                EffectRecord::Compensated { .. } => {}
            }
        }
    }

    /// Before a branch engine's step at `node`: what the branch waits on
    /// when the node is an `at_most_once` execution an earlier run of the
    /// branch started and did not finish, and the user has not settled it.
    pub(super) fn branch_effect_wait(
        &self,
        wf: WorkflowIdx,
        node: NodeIdx,
    ) -> Option<PendingEffect> {
        if self.effects.branch_history.is_empty() {
            return None;
        }
        let (w, n) = (self.wf_name(wf), self.node_name(wf, node));
        let h = self
            .effects
            .branch_history
            .get(&(w.to_owned(), n.to_owned()))?;
        if !matches!(h.front(), Some(None)) {
            return None;
        }
        if self
            .effects
            .resolution
            .as_ref()
            .is_some_and(|r| r.node() == n)
        {
            return None;
        }
        Some(PendingEffect {
            step: self.step,
            workflow: w.to_owned(),
            node: format!("{}{n}", self.config.question_scope),
        })
    }

    /// At a branch engine's `at_most_once` node (before its `started`
    /// record): the input that replaces running it, from what an earlier
    /// run of the branch left. A finished execution is reused; an
    /// unfinished one the user settled as done succeeds with the given
    /// writes (recorded as done); `--rerun`, or nothing left from before:
    /// `None`, it runs.
    pub(super) fn branch_effect_before(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
    ) -> Option<StepInput> {
        let key = (
            self.wf_name(wf).to_owned(),
            self.node_name(wf, node).to_owned(),
        );
        let earlier = self.effects.branch_history.get_mut(&key)?.pop_front()?;
        if let Some((of_step, produced)) = earlier {
            return Some(StepInput::Reused {
                key: None,
                of_step,
                produced: Box::new(produced),
            });
        }
        let settled = (self.effects.resolution.as_ref()).filter(|r| r.node() == key.1);
        match settled.cloned() {
            Some(Resolution::AssumeDone { writes, .. }) => {
                self.effects.resolution = None;
                let outcome = Outcome {
                    writes: (writes.into_iter())
                        .map(|(key, value)| Write { key, value })
                        .collect(),
                    notes: Some("assumed done by the user (--assume-done)".into()),
                    ..Outcome::success()
                };
                let input = self.outcome_input(wf, node, outcome);
                self.effect_after(wf, node, &input);
                Some(input)
            }
            Some(Resolution::Rerun { .. }) => {
                self.effects.resolution = None;
                None
            }
            // The branch waits before its step (`branch_effect_wait`);
            // never run again unsettled.
            None => Some(self.failed_input(
                wf,
                node,
                format!(
                    "the at_most_once node `{}` was started by an earlier run of its branch and not recorded as finished: it is not run again",
                    key.1
                ),
            )),
        }
    }

    /// The root engine's settlement of a node in a branch of the fan-out
    /// whose questions have `scope` (`fan#1/`): taken from the engine, and
    /// recorded as done in the run log, so that a kill during this step
    /// does not ask again (the branch's folder says how it was settled).
    pub(super) fn take_branch_settlement(&mut self, scope: &str) -> Option<Resolution> {
        let p = self.effects.pending.as_ref()?;
        let r = self.effects.resolution.as_ref()?;
        if !p.node.starts_with(scope) || r.node() != p.node {
            return None;
        }
        let (p, r) = (
            self.effects.pending.take()?,
            self.effects.resolution.take()?,
        );
        let how = match &r {
            Resolution::AssumeDone { .. } => "assumed done by the user (--assume-done)",
            Resolution::Rerun { .. } => "run again at the user's word (--rerun)",
        };
        let record = EffectRecord::Done {
            step: self.step,
            workflow: p.workflow,
            node: p.node.clone(),
            key: None,
            compensate: None,
            input: Box::new(StepInput::Decision {
                decision: Decision::Advance(Outcome {
                    notes: Some(how.into()),
                    ..Outcome::success()
                }),
                failure: None,
            }),
        };
        if let Some(log) = &mut self.out.log
            && let Err(e) = log.append_effect(&record, true)
        {
            self.persist_warning = Some(format!(
                "could not record the settlement of `{}` in the run log ({e}): if this step is cut off, the run asks again",
                p.node
            ));
        }
        Some(r)
    }

    /// Suspends the fan-out a branch of which waits on the unsettled
    /// `at_most_once` node `unsettled[0]` (others wait their turn): it is
    /// recorded in the run log as the run's unsettled node (a `started`
    /// record for the step that asks the parallel node again), and the
    /// journal is noted for that step. Returns the suspension's reason.
    pub(super) fn fan_suspend_effect(
        &mut self,
        journal: &Journal,
        unsettled: &[PendingEffect],
    ) -> String {
        let p = &unsettled[0];
        let after = self.step + 1;
        let q = &p.node;
        let mut reason = format!(
            "node `{q}` (workflow `{}`) is at_most_once and was started in a parallel branch but not recorded as finished: its effect may or may not have happened; resume with `--assume-done {q}` if it happened, `--rerun {q}` to run it again",
            p.workflow
        );
        if let [_, more @ ..] = unsettled
            && !more.is_empty()
        {
            let names: Vec<String> = more.iter().map(|m| format!("`{}`", m.node)).collect();
            reason.push_str(&format!(
                " ({} asked next: {})",
                if more.len() == 1 {
                    "another is"
                } else {
                    "others are"
                },
                names.join(", ")
            ));
        }
        let record = EffectRecord::Started {
            step: after,
            workflow: p.workflow.clone(),
            node: q.clone(),
        };
        if let Some(log) = &mut self.out.log
            && let Err(e) = log.append_effect(&record, true)
        {
            reason.push_str(&format!(
                " (it could not be recorded in the run log ({e}): the resumed run finds it again)"
            ));
        }
        self.effects.pending = Some(PendingEffect {
            step: after,
            ..p.clone()
        });
        if let Err(e) = journal.suspend(after) {
            reason.push_str(&format!(
                " (the finished branches could not be noted ({e}): a resumed run runs them again)"
            ));
        }
        reason
    }
}

impl Resolution {
    /// The same settlement, naming `node` (a branch-qualified name made
    /// the branch's own).
    pub(crate) fn renamed(&self, node: &str) -> Resolution {
        match self {
            Resolution::AssumeDone { writes, .. } => Resolution::AssumeDone {
                node: node.to_owned(),
                writes: writes.clone(),
            },
            Resolution::Rerun { .. } => Resolution::Rerun {
                node: node.to_owned(),
            },
        }
    }
}
