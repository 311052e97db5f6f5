//! A branch's own events (`node:enter`, `blackboard:write`, …), kept so
//! the fan-out can put them in the run's event log, each marked with its
//! branch (`ParallelBranchEvent`). Bounded: a branch that loops for a
//! long time keeps its first [`MAX_BRANCH_EVENTS`] events and counts the
//! rest, so one fan-out cannot make a log record of unbounded size.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use crate::event::{Event, EventSink};

/// The most events kept per branch.
pub const MAX_BRANCH_EVENTS: usize = 256;

/// The events of one branch, in order, and how many were left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BranchEvents {
    /// The events, as JSON (the shape of `--events`).
    pub events: Vec<Value>,
    /// Events after the first [`MAX_BRANCH_EVENTS`], not kept.
    pub dropped: u64,
}

/// The sink a branch's engine writes to.
#[derive(Clone, Default)]
pub(crate) struct TraceSink(pub Rc<RefCell<BranchEvents>>);

impl EventSink for TraceSink {
    fn emit(&mut self, event: &Event<'_>) {
        let mut t = self.0.borrow_mut();
        if t.events.len() < MAX_BRANCH_EVENTS {
            let v = serde_json::to_value(event).unwrap_or(Value::Null);
            t.events.push(v);
        } else {
            t.dropped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_branch_keeps_its_first_events_and_counts_the_rest() {
        let mut sink = TraceSink::default();
        for step in 0..(MAX_BRANCH_EVENTS as u64 + 44) {
            sink.emit(&Event::NodeEnter {
                step,
                workflow: "w",
                node: "n",
                depth: 1,
            });
        }
        let t = sink.0.borrow();
        assert_eq!(t.events.len(), MAX_BRANCH_EVENTS);
        assert_eq!(t.events[0]["step"], 0);
        assert_eq!(t.dropped, 44);
    }
}
