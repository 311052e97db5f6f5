//! The order in which the concurrent branches of fan-outs take a
//! `script:` agent's answers: edge order, whatever the timing
//! (docs/agents.md, "Parallel branches").
//!
//! A script's forks share its queues, so two branches reaching nodes that
//! take answers from one queue would otherwise take them in the order they
//! get there. Instead, a branch about to take a queued answer at node `n`
//! first waits for the branches before it in its fan-out that can reach a
//! node `n` (and, for a branch of a nested fan-out, for those before each
//! of its enclosing branches) to finish: a node's answers go where a run
//! of the branches one after another, in edge order, would put them, and
//! branches that cannot share a queue never wait for each other. Each
//! fan-out that runs branches on worker threads numbers them ([`Turns`],
//! with what each can reach, [`reach`]); each worker thread knows the
//! chain of branches it runs in ([`Turn`]).

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use wf_ir::{IrProgram, NodeIdx, WorkflowIdx};

/// What each branch of a fan-out can reach, by node id: the nodes from
/// its first one to the fan-out's fan-in (or further when there is none),
/// and every node of the workflows they call. `None`: anything (a child
/// pipeline, whose nodes are in another program).
pub(crate) type Reach = Vec<Option<HashSet<String>>>;

/// [`Reach`] for the branches from `targets` of the fan-out node
/// `fan_out` of workflow `wf`. An over-approximation (a path the guards
/// never take, nodes past a nested fan-in) only makes a branch wait for
/// one that will not take its answers.
pub(crate) fn reach(
    program: &IrProgram,
    wf: WorkflowIdx,
    fan_out: NodeIdx,
    targets: &[NodeIdx],
) -> Reach {
    let fan_in = crate::attractor::parallel::branch::static_fan_in(program, wf, targets);
    let w = &program.workflows[wf.0 as usize];
    targets
        .iter()
        .map(|&start| {
            let mut ids = HashSet::new();
            let mut seen = vec![false; w.nodes.len()];
            let mut stack = vec![start];
            let mut callees = Vec::new();
            while let Some(n) = stack.pop() {
                if n == fan_out
                    || Some(n) == fan_in
                    || std::mem::replace(&mut seen[n.0 as usize], true)
                {
                    continue;
                }
                let node = &w.nodes[n.0 as usize];
                if node.handler.map(|h| program.str(h)) == Some("stack.manager_loop") {
                    return None;
                }
                ids.insert(program.str(node.id).to_owned());
                callees.extend(node.call.as_ref().map(|c| c.workflow));
                stack.extend(w.outgoing(n).iter().map(|e| e.to));
            }
            let mut called = HashSet::new();
            while let Some(c) = callees.pop() {
                if !called.insert(c) {
                    continue;
                }
                for node in &program.workflows[c.0 as usize].nodes {
                    ids.insert(program.str(node.id).to_owned());
                    callees.extend(node.call.as_ref().map(|c| c.workflow));
                }
            }
            Some(ids)
        })
        .collect()
}

/// One concurrent fan-out: which of its branches have finished, and what
/// each can reach.
#[derive(Debug)]
struct FanOut {
    done: Mutex<Vec<bool>>,
    changed: Condvar,
    reach: Reach,
}

/// The branches this thread runs in, outermost first: each fan-out and
/// the branch's index in it.
type Chain = Vec<(Arc<FanOut>, usize)>;

thread_local! {
    static CHAIN: RefCell<Chain> = const { RefCell::new(Vec::new()) };
}

/// The branches of one concurrent fan-out, made on the thread that runs
/// it, before its workers start.
pub(crate) struct Turns {
    fan: Arc<FanOut>,
    /// The branches the fan-out itself runs in.
    outer: Chain,
}

impl Turns {
    /// A fan-out of branches that can reach `reach`, none finished.
    pub(crate) fn new(reach: Reach) -> Self {
        Turns {
            fan: Arc::new(FanOut {
                done: Mutex::new(vec![false; reach.len()]),
                changed: Condvar::new(),
                reach,
            }),
            outer: CHAIN.with(|c| c.borrow().clone()),
        }
    }

    /// Branch `index` runs on this (worker) thread until the turn drops,
    /// which marks it finished, also when the branch panics.
    pub(crate) fn enter(&self, index: usize) -> Turn<'_> {
        let mut chain = self.outer.clone();
        chain.push((Arc::clone(&self.fan), index));
        let before = CHAIN.with(|c| c.replace(chain));
        Turn {
            turns: self,
            index,
            before,
        }
    }
}

/// A branch running on this thread ([`Turns::enter`]).
pub(crate) struct Turn<'t> {
    turns: &'t Turns,
    index: usize,
    before: Chain,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        CHAIN.with(|c| *c.borrow_mut() = std::mem::take(&mut self.before));
        let fan = &self.turns.fan;
        let mut done = fan.done.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(d) = done.get_mut(self.index) {
            *d = true;
        }
        fan.changed.notify_all();
    }
}

/// Waits until the branches before the ones this thread runs in that can
/// reach a node `node` have finished, at every level (nothing to wait for
/// outside a concurrent fan-out). It cannot deadlock: a branch waits only
/// for branches before it, which were started before it, and the first
/// unfinished one waits for nobody.
pub(crate) fn wait_for_earlier_branches(node: &str) {
    let chain = CHAIN.with(|c| c.borrow().clone());
    for (fan, index) in chain {
        let may_take = |k: usize| {
            fan.reach
                .get(k)
                .is_none_or(|r| r.as_ref().is_none_or(|ids| ids.contains(node)))
        };
        let mut done = fan.done.lock().unwrap_or_else(PoisonError::into_inner);
        while (0..index).any(|k| !done[k] && may_take(k)) {
            done = fan
                .changed
                .wait(done)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Branches that can all reach `check` (and, with `other`, the first
    /// branch reaching `other` too).
    fn all(n: usize, other: bool) -> Reach {
        let ids = |i: usize| {
            let mut s: HashSet<String> = HashSet::from(["check".to_owned()]);
            if other && i == 0 {
                s.insert("other".to_owned());
            }
            Some(s)
        };
        (0..n).map(ids).collect()
    }

    /// Branch 1 asks first, branch 0 later: branch 1 still goes second,
    /// and so does branch 1 of a fan-out nested in branch 0 wait for
    /// nothing outside its own fan-out.
    #[test]
    fn a_branch_waits_for_the_ones_before_it() {
        let turns = Turns::new(all(2, false));
        let order = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            s.spawn(|| {
                let _turn = turns.enter(1);
                wait_for_earlier_branches("check");
                order.lock().unwrap().push("b");
            });
            s.spawn(|| {
                let _turn = turns.enter(0);
                std::thread::sleep(Duration::from_millis(100));
                // A nested fan-out in branch 0: its branch 1 waits for its
                // branch 0 only.
                let inner = Turns::new(all(2, false));
                std::thread::scope(|s| {
                    s.spawn(|| {
                        let _turn = inner.enter(1);
                        wait_for_earlier_branches("check");
                        order.lock().unwrap().push("a.y");
                    });
                    s.spawn(|| {
                        let _turn = inner.enter(0);
                        std::thread::sleep(Duration::from_millis(50));
                        wait_for_earlier_branches("check");
                        order.lock().unwrap().push("a.x");
                    });
                });
                order.lock().unwrap().push("a");
            });
        });
        assert_eq!(*order.lock().unwrap(), ["a.x", "a.y", "a", "b"]);
        // A node the branches before cannot reach: no waiting (branch 0
        // never finishes here; a wait would time out, not hang the test).
        let turns: &'static Turns = Box::leak(Box::new(Turns::new(all(2, true))));
        let _first = turns.enter(0);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _turn = turns.enter(1);
            wait_for_earlier_branches("prep_b");
            let _ = tx.send(());
        });
        assert!(rx.recv_timeout(Duration::from_secs(10)).is_ok());
        // Outside any fan-out, nothing to wait for.
        wait_for_earlier_branches("check");
    }

    /// A branch that panics counts as finished: the ones after it go on.
    #[test]
    fn a_panicking_branch_is_finished() {
        let turns = Turns::new(all(2, false));
        std::thread::scope(|s| {
            let first = s.spawn(|| {
                let _turn = turns.enter(0);
                panic!("a bug in a branch");
            });
            assert!(first.join().is_err());
            s.spawn(|| {
                let _turn = turns.enter(1);
                wait_for_earlier_branches("check");
            });
        });
    }
}
