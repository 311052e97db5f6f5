//! How many threads a parallel pass may use, asked once per process.

use std::sync::OnceLock;

/// The number of cores this process may run on (at least 1).
///
/// Cached: [`std::thread::available_parallelism`] reads the process's
/// cgroup files on each call (about ten system calls), and a check asks for
/// every parallel pass (reading, lowering, checking, rendering). Lives in
/// the lowest crate so that every layer shares the one answer.
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES
        .get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}
