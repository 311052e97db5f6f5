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
use crate::agent::{Decision, Outcome};
use crate::attractor::parallel::journal::Journal;
use std::collections::HashMap;

use crate::effects::{BranchHistory, EffectRecord, PendingEffect, Resolution};
use wf_ir::{NodeIdx, WorkflowIdx};

impl Engine<'_> {
    /// Indexes what an earlier run of this branch left of its
    /// `at_most_once` nodes (its folder's records, in order). A branch
    /// restored where it waited for an answer has taken its steps before
    /// that: their records are not executions still to come.
    pub(super) fn load_branch_history(&mut self, records: &[EffectRecord]) {
        self.effects.branch_history = history(records, self.step);
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
        if self.effects.resolution.iter().any(|r| r.node() == n) {
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
        let settled = (self.effects.resolution.iter()).position(|r| r.node() == key.1);
        match settled.map(|i| self.effects.resolution.remove(i)) {
            Some(Resolution::AssumeDone { writes, .. }) => Some(self.assumed_done(wf, node, writes)),
            Some(Resolution::Rerun { .. }) => None,
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

    /// The root engine's settlements of nodes in the branches of the
    /// fan-out whose questions have `scope` (`fan#1/`): taken from the
    /// engine, and each recorded as done in the run log, so that a kill
    /// during this step does not ask again (the branch's folder says how
    /// it was settled). The fan-out's nodes left unsettled are no longer
    /// pending either: their branches find them again and wait.
    pub(super) fn take_branch_settlement(&mut self, scope: &str) -> Vec<Resolution> {
        let mut out = Vec::new();
        let pending = std::mem::take(&mut self.effects.pending);
        for p in pending {
            if !p.node.starts_with(scope) {
                self.effects.pending.push(p);
                continue;
            }
            let settled = (self.effects.resolution.iter()).position(|r| r.node() == p.node);
            if let Some(i) = settled {
                let r = self.effects.resolution.remove(i);
                self.record_settlement(p, &r);
                out.push(r);
            }
        }
        out
    }

    /// Records in the run log that the branch node `p` was settled by `r`.
    fn record_settlement(&mut self, p: PendingEffect, r: &Resolution) {
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
            id: None,
            ts: None,
            scope: None,
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
    }

    /// Suspends the fan-out whose branches wait on the unsettled
    /// `at_most_once` nodes `unsettled` (all asked at once): each is
    /// recorded in the run log as one of the run's unsettled nodes (a
    /// `started` record for the step that asks the parallel node again),
    /// and the journal is noted for that step. Returns the suspension's
    /// reason.
    pub(super) fn fan_suspend_effect(
        &mut self,
        journal: &Journal,
        unsettled: &[PendingEffect],
    ) -> String {
        let after = self.step + 1;
        let mut reason = match unsettled {
            [p] => format!(
                "node `{q}` (workflow `{}`) is at_most_once and was started in a parallel branch but not recorded as finished: its effect may or may not have happened; resume with `--assume-done {q}` if it happened, `--rerun {q}` to run it again",
                p.workflow,
                q = p.node
            ),
            _ => {
                let names: Vec<String> = (unsettled.iter())
                    .map(|p| format!("node `{}` (workflow `{}`)", p.node, p.workflow))
                    .collect();
                format!(
                    "{} at_most_once nodes were started in parallel branches but not recorded as finished: {}; their effects may or may not have happened; resume with `--assume-done NODE` for each that happened and `--rerun NODE` for each that did not (several in one command)",
                    unsettled.len(),
                    names.join(", ")
                )
            }
        };
        self.effects.pending.clear();
        for p in unsettled {
            let record = EffectRecord::Started {
                step: after,
                workflow: p.workflow.clone(),
                node: p.node.clone(),
            };
            if let Some(log) = &mut self.out.log
                && let Err(e) = log.append_effect(&record, true)
            {
                reason.push_str(&format!(
                    " (`{}` could not be recorded in the run log ({e}): the resumed run finds it again)",
                    p.node
                ));
            }
            self.effects.pending.push(PendingEffect {
                step: after,
                ..p.clone()
            });
        }
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

/// The executions of each `at_most_once` node `records` hold, from step
/// `from` on, in order (see [`Engine::load_branch_history`]).
fn history(records: &[EffectRecord], from: u64) -> HashMap<(String, String), BranchHistory> {
    let mut out: HashMap<(String, String), BranchHistory> = HashMap::new();
    for r in records {
        match r {
            EffectRecord::Started {
                step,
                workflow,
                node,
            } if *step >= from => {
                let h = out.entry((workflow.clone(), node.clone())).or_default();
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
            } if *step >= from => {
                let key = (workflow.clone(), node.clone());
                if let Some(h) = out.get_mut(&key)
                    && let Some(last @ None) = h.back_mut()
                {
                    *last = Some((*step, (**input).clone()));
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::history;
    use crate::effects::EffectRecord;
    use crate::effects::tests::{done, started};

    fn of(records: &[EffectRecord], from: u64, node: &str) -> Vec<Option<u64>> {
        let h = history(records, from);
        let k = ("W".to_owned(), node.to_owned());
        h.get(&k)
            .map(|h| h.iter().map(|e| e.as_ref().map(|d| d.0)).collect())
            .unwrap_or_default()
    }

    /// Executions in order: done ones with their step, an unfinished one
    /// as `None`; a `--rerun` (a start after an unfinished one) leaves the
    /// new execution only; a `done` without its start (a keyed effect of
    /// another kind of node) is no execution of an `at_most_once` node.
    #[test]
    fn executions_in_order_and_a_rerun_replaces_the_unfinished_one() {
        let records = [
            started(0, "a"),
            done(0, "a"),
            done(1, "k"),
            started(2, "a"),
            started(3, "b"),
            started(3, "b"),
            done(3, "b"),
            started(4, "c"),
            started(5, "c"),
        ];
        assert_eq!(of(&records, 0, "a"), [Some(0), None]);
        assert_eq!(of(&records, 0, "b"), [Some(3)]);
        assert_eq!(of(&records, 0, "c"), [None]);
        assert_eq!(of(&records, 0, "k"), []);
        // Restored at step 2: the first execution of `a` is behind it.
        assert_eq!(of(&records, 2, "a"), [None]);
    }
}
