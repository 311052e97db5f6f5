//! The threads of parallel passes: how many, and where they start.
//!
//! Its own crate rather than part of `wf-diagnostics`, the base every crate
//! (the runtime too) depends on: only the analysis, the renderers and the
//! CLI run parallel passes, and only they need `libc` for this.

use std::sync::OnceLock;
use std::thread::{Scope, ScopedJoinHandle};

/// The number of cores this process may run on (at least 1).
///
/// Cached: [`std::thread::available_parallelism`] reads the process's
/// cgroup files on each call (about ten system calls), and a check asks for
/// every parallel pass (reading, lowering, checking, rendering), which
/// share the one answer.
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES
        .get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

/// Spawns a worker of a parallel pass on `scope`, making sure it starts on
/// another core than this thread's.
///
/// Linux queues a new thread on its parent's core, and on some machines
/// (small virtual machines in particular) leaves it there for milliseconds
/// while the other cores idle: the worker then waits for the parent to
/// block, which in a pass the parent takes part in is the end of the pass.
/// Here the parent yields once, so that the worker runs at once, and the
/// worker, finding itself on its parent's core, moves to another one (by
/// narrowing its CPU mask for a moment) before it starts working.
pub fn spawn_apart<'scope, T: Send + 'scope>(
    scope: &'scope Scope<'scope, '_>,
    work: impl FnOnce() -> T + Send + 'scope,
) -> ScopedJoinHandle<'scope, T> {
    let parent = placement::current_cpu();
    let handle = scope.spawn(move || {
        if let Some(parent) = parent {
            placement::leave_cpu(parent);
        }
        work()
    });
    if parent.is_some() {
        std::thread::yield_now();
    }
    handle
}

#[cfg(target_os = "linux")]
mod placement {
    /// The core this thread runs on.
    pub(super) fn current_cpu() -> Option<usize> {
        // SAFETY: no arguments, no memory touched.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok()
    }

    /// Moves this thread off `cpu` if it is on it and may run elsewhere,
    /// then lets it run anywhere it could before.
    pub(super) fn leave_cpu(cpu: usize) {
        if current_cpu() != Some(cpu) {
            return;
        }
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `cpu_set_t` is plain data (all zeroes is an empty set);
        // the calls read and write only the sets passed, of `size` bytes,
        // and `cpu` is checked against the set's capacity.
        unsafe {
            let mut allowed: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut allowed) != 0 {
                return;
            }
            if cpu >= 8 * size {
                return;
            }
            let mut elsewhere = allowed;
            libc::CPU_CLR(cpu, &mut elsewhere);
            if libc::CPU_COUNT(&elsewhere) == 0 {
                return;
            }
            // Narrowing the mask moves the thread now; widening it again
            // leaves it where it is.
            if libc::sched_setaffinity(0, size, &elsewhere) == 0 {
                libc::sched_setaffinity(0, size, &allowed);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod placement {
    pub(super) fn current_cpu() -> Option<usize> {
        None
    }

    pub(super) fn leave_cpu(_cpu: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_started_apart_run_and_return() {
        let items: Vec<usize> = (0..100).collect();
        let total: usize = std::thread::scope(|scope| {
            let handles: Vec<_> = items
                .chunks(10)
                .map(|chunk| spawn_apart(scope, move || chunk.iter().sum::<usize>()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(total, 4950);
    }

    /// Leaving a core narrows the CPU mask only for a moment: a worker
    /// may run anywhere afterwards, as before.
    #[cfg(target_os = "linux")]
    #[test]
    fn leaving_a_core_keeps_the_cpu_mask() {
        fn mask() -> Vec<usize> {
            let size = std::mem::size_of::<libc::cpu_set_t>();
            // SAFETY: as in `placement::leave_cpu`.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                assert_eq!(libc::sched_getaffinity(0, size, &mut set), 0);
                (0..8 * size)
                    .filter(|&c| libc::CPU_ISSET(c, &set))
                    .collect()
            }
        }
        std::thread::spawn(|| {
            let before = mask();
            let here = placement::current_cpu().expect("sched_getcpu works on Linux");
            placement::leave_cpu(here);
            assert_eq!(mask(), before);
        })
        .join()
        .unwrap();
    }
}
