//! The questions a fan-out's waiting branches wait on (docs/runtime.md,
//! "Gates in parallel branches"): a branch's own gate's, or those of the
//! fan-outs and child pipelines nested in it, which their handlers left
//! in the shared list (`Kit::waiting`) while the branch ran.

use super::Kit;
use super::concurrent::Ran;
use crate::question::PendingQuestion;

/// How many questions the shared list holds before the branches run.
pub(super) fn mark(kit: &Kit) -> usize {
    kit.waiting.as_ref().map_or(0, |w| w.borrow().len())
}

/// The questions the waiting branches of `runs` wait on, in edge order:
/// takes those the nested handlers left in the list since `before` (the
/// fan-out puts them back with its own, in that order); a question left
/// by a branch that did not wait is dropped.
pub(super) fn collect(kit: &Kit, before: usize, runs: &[Ran]) -> Vec<PendingQuestion> {
    let nested: Vec<PendingQuestion> = match &kit.waiting {
        Some(w) => {
            let mut w = w.borrow_mut();
            let from = before.min(w.len());
            w.drain(from..).collect()
        }
        None => Vec::new(),
    };
    let mut out = Vec::new();
    for r in runs {
        let Some(w) = &r.waiting else { continue };
        let scope = format!("{}{}/", kit.scope, r.result.id);
        let below: Vec<_> = nested
            .iter()
            .filter(|q| q.id.starts_with(&scope))
            .cloned()
            .collect();
        if below.is_empty() {
            out.push(w.question.clone());
        } else {
            out.extend(below);
        }
    }
    out
}
