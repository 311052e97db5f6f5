//! The order in which the concurrent branches of fan-outs take a
//! `script:` agent's answers: edge order, whatever the timing
//! (docs/agents.md, "Parallel branches").
//!
//! A script's forks share its queues, so two branches reaching nodes that
//! take answers from one queue would otherwise take them in the order they
//! get there. Instead, a branch takes a queued answer only once every
//! branch before it in its fan-out (and, for a branch of a nested
//! fan-out, every branch before each of its enclosing branches) has
//! finished: the answers go where a run of the branches one after another,
//! in edge order, would put them. Each fan-out that runs branches on
//! worker threads numbers them ([`Turns`]); each worker thread knows the
//! chain of branches it runs in ([`Turn`]).

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// One concurrent fan-out: which of its branches have finished.
#[derive(Debug)]
struct FanOut {
    done: Mutex<Vec<bool>>,
    changed: Condvar,
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
    /// A fan-out of `branches` branches, none finished.
    pub(crate) fn new(branches: usize) -> Self {
        Turns {
            fan: Arc::new(FanOut {
                done: Mutex::new(vec![false; branches]),
                changed: Condvar::new(),
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

/// Waits until the branches before the ones this thread runs in have
/// finished, at every level (nothing to wait for outside a concurrent
/// fan-out). It cannot deadlock: a branch waits only for branches before
/// it, which were started before it, and the first unfinished one waits
/// for nobody.
pub(crate) fn wait_for_earlier_branches() {
    let chain = CHAIN.with(|c| c.borrow().clone());
    for (fan, index) in chain {
        let mut done = fan.done.lock().unwrap_or_else(PoisonError::into_inner);
        while done.iter().take(index).any(|d| !d) {
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

    /// Branch 1 asks first, branch 0 later: branch 1 still goes second,
    /// and so does branch 1 of a fan-out nested in branch 0 wait for
    /// nothing outside its own fan-out.
    #[test]
    fn a_branch_waits_for_the_ones_before_it() {
        let turns = Turns::new(2);
        let order = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            s.spawn(|| {
                let _turn = turns.enter(1);
                wait_for_earlier_branches();
                order.lock().unwrap().push("b");
            });
            s.spawn(|| {
                let _turn = turns.enter(0);
                std::thread::sleep(Duration::from_millis(100));
                // A nested fan-out in branch 0: its branch 1 waits for its
                // branch 0 only.
                let inner = Turns::new(2);
                std::thread::scope(|s| {
                    s.spawn(|| {
                        let _turn = inner.enter(1);
                        wait_for_earlier_branches();
                        order.lock().unwrap().push("a.y");
                    });
                    s.spawn(|| {
                        let _turn = inner.enter(0);
                        std::thread::sleep(Duration::from_millis(50));
                        wait_for_earlier_branches();
                        order.lock().unwrap().push("a.x");
                    });
                });
                order.lock().unwrap().push("a");
            });
        });
        assert_eq!(*order.lock().unwrap(), ["a.x", "a.y", "a", "b"]);
        // Outside any fan-out, nothing to wait for.
        wait_for_earlier_branches();
    }

    /// A branch that panics counts as finished: the ones after it go on.
    #[test]
    fn a_panicking_branch_is_finished() {
        let turns = Turns::new(2);
        std::thread::scope(|s| {
            let first = s.spawn(|| {
                let _turn = turns.enter(0);
                panic!("a bug in a branch");
            });
            assert!(first.join().is_err());
            s.spawn(|| {
                let _turn = turns.enter(1);
                wait_for_earlier_branches();
            });
        });
    }
}
