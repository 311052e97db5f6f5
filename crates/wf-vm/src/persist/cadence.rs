//! When a durable run writes its next snapshot (docs/runtime.md, "Snapshot
//! cadence"): after `snapshot_interval` of running or `snapshot_log_bytes`
//! of log since the last one, but never before the run has spent
//! [`SPACING`] times as long as the last snapshot took. A snapshot's cost
//! grows with the state (the visit counts of a long chain, the
//! blackboard), so a fixed step cadence made the cost per step grow with
//! the run's length; spacing snapshots by their own cost keeps their share
//! of the run's time under `1 / (SPACING + 1)` whatever the state's size.

use std::time::{Duration, Instant};

use crate::config::EngineConfig;

/// The least running time between two snapshots, as a multiple of the
/// time the last one took. At 4, a long chain's snapshots (its visit
/// counts: 49 MB at 1,000,000 steps) took a fifth of the run, and the
/// cost per step rose by that fifth from 20,000 to 1,000,000 steps
/// (docs/performance.md, "Durable runs", third round); at 9 they take at
/// most a tenth, and a resume re-applies at most 9 snapshots' time of
/// log.
pub(crate) const SPACING: u32 = 9;

/// Steps between two readings of the clock for the time trigger.
const CLOCK_EVERY: u64 = 64;

/// The state of the snapshot cadence of one running engine.
#[derive(Debug)]
pub(crate) struct Cadence {
    last_at: Instant,
    last_cost: Duration,
    bytes_since: u64,
    steps_since: u64,
}

impl Cadence {
    pub fn new() -> Self {
        Cadence {
            last_at: Instant::now(),
            last_cost: Duration::ZERO,
            bytes_since: 0,
            steps_since: 0,
        }
    }

    /// A record of `bytes` was appended.
    #[inline]
    pub fn logged(&mut self, bytes: u64) {
        self.bytes_since += bytes;
        self.steps_since += 1;
    }

    /// Whether a snapshot is due after step `step` (the count of steps
    /// taken).
    #[inline]
    pub fn due(&self, step: u64, config: &EngineConfig) -> bool {
        let every = config.snapshot_every;
        if every > 0 && step.is_multiple_of(every) {
            return true;
        }
        let bytes_due =
            config.snapshot_log_bytes > 0 && self.bytes_since >= config.snapshot_log_bytes;
        let time_check =
            !config.snapshot_interval.is_zero() && self.steps_since.is_multiple_of(CLOCK_EVERY);
        if !bytes_due && !time_check {
            return false;
        }
        let since = self.last_at.elapsed();
        (bytes_due || since >= config.snapshot_interval) && since >= self.last_cost * SPACING
    }

    /// A snapshot begun at `started` was written just now.
    pub fn written(&mut self, started: Instant) {
        let now = Instant::now();
        self.last_cost = now - started;
        self.last_at = now;
        self.bytes_since = 0;
        self.steps_since = 0;
    }
}
