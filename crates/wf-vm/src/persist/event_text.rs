//! Each event's JSON written once, for a sink that writes JSON lines
//! (`--events`) and for the run log both: the log takes the event's own
//! fields ([`record::event_body`]) and its record carries the run id and
//! the time they share; the sink takes the whole stamped event.

use super::RunLog;
use super::record::{self, RunJson};
use crate::event::{Event, EventSink};
use crate::stamp::Stamp;

/// The buffer an event's JSON is written into, reused from event to event.
#[derive(Debug, Default)]
pub(crate) struct EventText {
    buf: Vec<u8>,
    run: RunJson,
}

impl EventText {
    /// Sends `event`, stamped with `stamp`, to `sink` and `log` (either
    /// may be absent), serialising it at most once.
    pub fn send(
        &mut self,
        event: &Event<'_>,
        stamp: &Stamp<'_>,
        sink: Option<&mut (dyn EventSink + '_)>,
        log: Option<&mut RunLog>,
    ) {
        let json_sink = sink.as_ref().is_some_and(|s| s.wants_json());
        if !json_sink && log.is_none() {
            if let Some(s) = sink {
                s.emit_stamped(event, stamp);
            }
            return;
        }
        self.buf.clear();
        let body = if json_sink {
            record::write_stamped(&mut self.buf, event, stamp, &mut self.run)
        } else {
            record::event_body(&mut self.buf, event);
            self.buf.len()
        };
        if let Some(s) = sink {
            if json_sink {
                s.emit_json(event, stamp, &self.buf);
            } else {
                s.emit_stamped(event, stamp);
            }
        }
        if let Some(l) = log {
            l.add_event(&self.buf[..body], stamp);
        }
    }
}
