//! Helpers every part of a step uses: failing the run, the failure trace,
//! write events, names, and the retry backoff.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use wf_ir::{NodeIdx, WorkflowIdx};

use super::Engine;
use crate::agent::{Outcome, Status};
use crate::event::{Event, WriteRef};
use crate::failure::FailureKind;
use crate::report::{FailureRecord, RunStatus};

impl<'p> Engine<'p> {
    /// Ends the run as failed: records the failure, emits `engine:error`.
    pub(crate) fn fail_run(&mut self, kind: FailureKind, reason: String) {
        let f = self.frames.last().expect("the root frame is never popped");
        let (wf, node) = (f.workflow, f.node);
        self.record_failure(wf, node, kind, reason.clone());
        self.end_failed(reason);
    }

    /// Ends the run as failed without a new trace entry: for a node
    /// failure the trace already holds (one entry per failure). The run's
    /// kind of failure is that entry's, the trace's last.
    pub(crate) fn end_failed(&mut self, reason: String) {
        let reason = crate::bound::clip(&reason, 2 * self.config.sizes.max_text_bytes);
        let f = self.frames.last().expect("the root frame is never popped");
        let (wf, node) = (f.workflow, f.node);
        if self.out.on() {
            let ev = Event::EngineError {
                step: self.step,
                workflow: self.wf_name(wf),
                node: self.node_name(wf, node),
                kind: self.last_failure_kind(),
                reason: &reason,
            };
            self.out.emit(&ev);
        }
        self.status = RunStatus::Failed { reason };
    }

    /// Adds a failure to the trace. Texts from agents were cut to
    /// `max_text_bytes` already (see `screen.rs`); a reason the engine
    /// composes around one is cut at twice that, as a last bound.
    /// A full trace (`max_failures`) drops the oldest quarter of its
    /// latest part at once (so the cost per failure stays constant) and
    /// counts them in one entry after the oldest half.
    pub(crate) fn record_failure(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
        kind: FailureKind,
        reason: String,
    ) {
        let time_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        if let Some(l) = &mut self.out.lifecycle {
            l.last_failure = Some(reason.clone());
        }
        let max = self.config.sizes.max_failures.max(4);
        if self.failures.len() >= max {
            let head = max / 2;
            let omitted = omitted_count(&self.failures[head]);
            // Without a marker yet, the entry at `head` is the first dropped.
            let from = if omitted.is_some() { head + 1 } else { head };
            // Two at least: without a marker, the marker takes a place too.
            let to = (from + (max - head) / 4)
                .max(from + 2)
                .min(self.failures.len());
            let dropped = (to - from) as u64;
            let (last, last_time) = (self.failures[to - 1].step, self.failures[to - 1].time_ms);
            self.failures.drain(from..to);
            let count = omitted.unwrap_or(0) + dropped;
            let marker = FailureRecord {
                workflow: String::new(),
                node: String::new(),
                kind: FailureKind::Limit,
                reason: format!(
                    "{count} {OMITTED} (the trace keeps the oldest {head} and the latest failures)"
                ),
                step: last,
                time_ms: last_time,
            };
            if omitted.is_some() {
                self.failures[head] = marker;
            } else {
                self.failures.insert(head, marker);
            }
        }
        self.failures.push(FailureRecord {
            workflow: self.wf_name(wf).to_owned(),
            node: self.node_name(wf, node).to_owned(),
            kind,
            reason: crate::bound::clip(&reason, 2 * self.config.sizes.max_text_bytes),
            step: self.step,
            time_ms,
        });
    }

    /// The kind of the latest failure (a failed run's: the failure that
    /// ended it is always recorded last).
    pub(crate) fn last_failure_kind(&self) -> FailureKind {
        self.failures.last().map(|f| f.kind).unwrap_or_default()
    }

    /// Emits `node:exit` for `node` of `wf` at call depth `depth`.
    pub(crate) fn emit_exit(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
        depth: usize,
        status: Status,
    ) {
        if self.out.on() {
            let ev = Event::NodeExit {
                step: self.step,
                workflow: self.wf_name(wf),
                node: self.node_name(wf, node),
                depth,
                status,
            };
            self.out.emit(&ev);
        }
    }

    /// Emits `blackboard:write` for the entries of frame `depth` (1-based)
    /// from index `first`, attributed to `node`.
    pub(crate) fn emit_writes(&mut self, depth: usize, first: usize, node: NodeIdx) {
        if !self.out.on() {
            return;
        }
        let frame = &self.frames[depth - 1];
        if first >= frame.entries.len() {
            return;
        }
        let refs: Vec<WriteRef<'_>> = frame.entries[first..]
            .iter()
            .map(|e| WriteRef {
                key: self.keys.name(e.key),
                value: &e.value,
            })
            .collect();
        let wf = frame.workflow;
        let ev = Event::BlackboardWrite {
            step: self.step,
            workflow: self.program.str(self.program.workflows[wf.0 as usize].name),
            node: self.node_name(wf, node),
            depth,
            writes: &refs,
        };
        self.out.emit(&ev);
    }

    /// A workflow's name (borrowed from the program, not from `self`).
    pub(crate) fn wf_name(&self, wf: WorkflowIdx) -> &'p str {
        let p: &'p wf_ir::IrProgram = self.program;
        p.str(p.workflows[wf.0 as usize].name)
    }

    /// A node's id (borrowed from the program, not from `self`).
    pub(crate) fn node_name(&self, wf: WorkflowIdx, node: NodeIdx) -> &'p str {
        let p: &'p wf_ir::IrProgram = self.program;
        p.str(p.workflows[wf.0 as usize].nodes[node.0 as usize].id)
    }
}

/// What the failure trace's marker entry says after its count.
const OMITTED: &str = "more failures omitted here";

/// The count of a marker entry (see [`Engine::record_failure`]); `None`
/// for an ordinary failure. Read back from the text, so a restored trace
/// keeps counting.
fn omitted_count(r: &FailureRecord) -> Option<u64> {
    if !r.workflow.is_empty() || !r.node.is_empty() {
        return None;
    }
    let (count, rest) = r.reason.split_once(' ')?;
    rest.starts_with(OMITTED).then(|| count.parse().ok())?
}

/// A failed outcome with this reason.
pub(crate) fn failed(reason: String) -> Outcome {
    Outcome::failed(reason)
}

/// The default backoff when a node sets `retries` but no `backoff`.
pub(crate) const DEFAULT_BACKOFF: (u64, f64, u64) = (200, 2.0, 60_000);

/// The delay before attempt `attempt + 1` (Attractor seed 3.6); jitter is
/// deterministic in `seed` so a replayed run computes the same delay.
pub(crate) fn backoff_delay(b: Option<&wf_ir::Backoff>, attempt: u32, seed: u64) -> Duration {
    let (initial, factor, max, jitter) = match b {
        Some(b) => (b.initial_delay_ms, b.factor, b.max_delay_ms, b.jitter),
        None => (
            DEFAULT_BACKOFF.0,
            DEFAULT_BACKOFF.1,
            DEFAULT_BACKOFF.2,
            false,
        ),
    };
    let exp = attempt.saturating_sub(1).min(64) as i32;
    let mut d = (initial as f64 * factor.max(1.0).powi(exp)).min(max as f64);
    if jitter {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        d *= 0.5 + (z >> 11) as f64 / (1u64 << 53) as f64;
    }
    Duration::from_millis(d.max(0.0) as u64)
}
