//! The worker threads of a `.wf` fan-out: one forked agent and tool
//! runner per worker, branches taken in edge order, results kept in edge
//! order whatever order they finish in.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use wf_ir::NodeIdx;

use crate::agent::{DecisionAgent, ToolRunner};

/// One worker's own agent and tool runner.
pub(super) type Worker = (
    Box<dyn DecisionAgent + Send>,
    Option<Box<dyn ToolRunner + Send>>,
);

/// `width` workers, when the agent (if the branches `ask` it) and the
/// tool runner (if any) fork. Branches that never ask the agent (tools
/// alone) get the `auto` agent, which they do not consult.
pub(super) fn forks(
    agent: &dyn DecisionAgent,
    ask: bool,
    tools: Option<&dyn ToolRunner>,
    width: usize,
) -> Option<Vec<Worker>> {
    (0..width)
        .map(|_| {
            let tools = match tools {
                None => None,
                Some(t) => Some(t.fork()?),
            };
            let agent = match ask {
                true => agent.fork()?,
                false => Box::new(crate::agents::AutoAgent::new()),
            };
            Some((agent, tools))
        })
        .collect()
}

/// Runs `work` on every target (with its index), one thread per worker,
/// targets taken in order, results in target order: each thread first
/// turns its worker into its own state with `setup` (which may hold what
/// cannot cross threads). Once `stop` says so for a finished branch,
/// targets not yet started get `skipped(index, why)` instead. `reach`
/// (what each branch can reach) orders their scripted answers. A worker
/// thread that panicked leaves `None`. Both fan-outs use it: the `.wf`
/// engine's and the Attractor `parallel` handler's.
pub(crate) fn run<W: Send, S, R: Send>(
    workers: Vec<W>,
    targets: &[NodeIdx],
    reach: crate::agents::order::Reach,
    setup: impl Fn(W) -> S + Sync,
    stop: impl Fn(&R) -> Option<String> + Sync,
    skipped: impl Fn(usize, &str) -> R + Sync,
    work: impl Fn(&mut S, usize, NodeIdx) -> R + Sync,
) -> Vec<Option<R>> {
    let next = AtomicUsize::new(0);
    let stopped: Mutex<Option<String>> = Mutex::new(None);
    let slots: Mutex<Vec<Option<R>>> = Mutex::new((0..targets.len()).map(|_| None).collect());
    // Scripted answers go to the branches in edge order (agents/order.rs).
    let turns = crate::agents::order::Turns::new(reach);
    std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .into_iter()
            .map(|worker| {
                let (next, stopped, slots, setup, stop, skipped, work, turns) = (
                    &next, &stopped, &slots, &setup, &stop, &skipped, &work, &turns,
                );
                scope.spawn(move || {
                    let mut worker = setup(worker);
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(&target) = targets.get(i) else { break };
                        let _turn = turns.enter(i);
                        let why = stopped
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .clone();
                        let r = match why {
                            Some(why) => skipped(i, &why),
                            None => {
                                let r = work(&mut worker, i, target);
                                if let Some(why) = stop(&r) {
                                    stopped
                                        .lock()
                                        .unwrap_or_else(PoisonError::into_inner)
                                        .get_or_insert(why);
                                }
                                r
                            }
                        };
                        slots.lock().unwrap_or_else(PoisonError::into_inner)[i] = Some(r);
                    }
                })
            })
            .collect();
        for h in handles {
            // A panicking branch leaves its slot empty.
            let _ = h.join();
        }
    });
    slots.into_inner().unwrap_or_else(PoisonError::into_inner)
}
