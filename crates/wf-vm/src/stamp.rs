//! What every event and log record carries besides its own fields: the
//! run's id, the time it happened (RFC 3339, UTC, milliseconds) and, where
//! one applies, how long the thing it ends took (docs/runtime.md,
//! section 7, "Run id, time and duration").

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::event::Event;

/// A new run id: a UUID v7 (its first 48 bits are the creation time in
/// milliseconds, so ids sort by start; the rest is random).
pub fn new_run_id() -> String {
    uuid::Uuid::now_v7().hyphenated().to_string()
}

/// Milliseconds since the Unix epoch, now (0 for a clock before 1970).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// `ms` (since the Unix epoch) as RFC 3339 in UTC with milliseconds:
/// `2026-11-26T04:15:59.123Z`.
pub fn rfc3339(ms: u64) -> String {
    let mut out = String::with_capacity(24);
    rfc3339_into(ms, &mut out);
    out
}

/// [`rfc3339`] written over `out` (no allocation once `out` has room).
fn rfc3339_into(ms: u64, out: &mut String) {
    use std::fmt::Write as _;
    out.clear();
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    write!(
        out,
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
    .expect("writing to a String");
}

/// The RFC 3339 text of the last time formatted: steps run at hundreds of
/// thousands a second, so most share their millisecond with the step
/// before and reuse its text instead of formatting (and allocating) it
/// again.
#[derive(Debug, Default)]
pub(crate) struct TsText {
    ms: Option<u64>,
    text: String,
}

impl TsText {
    /// `ms` as RFC 3339 ([`rfc3339`]).
    pub fn of(&mut self, ms: u64) -> &str {
        if self.ms != Some(ms) {
            rfc3339_into(ms, &mut self.text);
            self.ms = Some(ms);
        }
        &self.text
    }
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The fields added to an event: `run`, `ts` and, when it applies,
/// `duration_ms`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Stamp<'a> {
    /// The run's id.
    pub run: &'a str,
    /// When the event happened (RFC 3339, UTC).
    pub ts: &'a str,
    /// How long what the event ends took, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// An event with its stamp, as sinks that write JSON and the run log
/// serialise it: the event's fields, then `run`, `ts`, `duration_ms`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Stamped<'a> {
    /// The event.
    #[serde(flatten)]
    pub event: &'a Event<'a>,
    /// Its stamp.
    #[serde(flatten)]
    pub stamp: Stamp<'a>,
}

/// The engine's side of stamping: the run id, the time of the current
/// step's events (read once per step, at its first event) and when each
/// open node and call began, by depth.
#[derive(Debug)]
pub(crate) struct StampClock {
    /// The run's id.
    pub run: String,
    /// The active time of the processes that ran the run before this one
    /// (a resumed run's snapshot), in milliseconds.
    pub active_before_ms: u64,
    /// When this process stamped its first event.
    first_ms: Option<u64>,
    /// The current step's time, once read, in milliseconds.
    now: Option<u64>,
    /// Its RFC 3339 text.
    ts: TsText,
    /// When the node open at each depth (1 = index 0) was entered.
    entered: Vec<Option<u64>>,
    /// When the callee at each depth was pushed.
    pushed: Vec<Option<u64>>,
}

impl StampClock {
    /// A clock for the run `run`.
    pub fn new(run: String) -> Self {
        StampClock {
            run,
            active_before_ms: 0,
            first_ms: None,
            now: None,
            ts: TsText::default(),
            entered: Vec::new(),
            pushed: Vec::new(),
        }
    }

    /// A new step: its events read the clock again.
    pub fn new_step(&mut self) {
        self.now = None;
    }

    /// Time passed since the step's time was read (a backoff sleep, the
    /// agent's decision): the next event reads the clock again.
    pub fn stale(&mut self) {
        self.now = None;
    }

    /// The time of the current step's latest events, when it has had any
    /// since the clock was last read: its log record takes the same time
    /// instead of reading the clock again.
    pub fn step_ms(&self) -> Option<u64> {
        self.now
    }

    /// The stamp of `event`, updating the entry times it starts.
    pub fn stamp(&mut self, event: &Event<'_>) -> Stamp<'_> {
        let ms = *self.now.get_or_insert_with(now_ms);
        let first = *self.first_ms.get_or_insert(ms);
        let set = |v: &mut Vec<Option<u64>>, depth: usize| {
            if v.len() < depth {
                v.resize(depth, None);
            }
            v[depth - 1] = Some(ms);
        };
        let since = |v: &[Option<u64>], depth: usize| {
            v.get(depth.wrapping_sub(1))
                .copied()
                .flatten()
                .map(|t| ms.saturating_sub(t))
        };
        let duration_ms = match *event {
            Event::NodeEnter { depth, .. } if depth > 0 => {
                set(&mut self.entered, depth);
                None
            }
            Event::WorkflowPush { depth, .. } if depth > 0 => {
                set(&mut self.pushed, depth);
                None
            }
            Event::NodeExit { depth, .. } => since(&self.entered, depth),
            Event::WorkflowPop { depth, .. } => since(&self.pushed, depth),
            Event::EngineComplete { .. }
            | Event::EngineError { .. }
            | Event::EngineSuspend { .. } => Some(self.active_before_ms + ms.saturating_sub(first)),
            _ => None,
        };
        Stamp {
            run: &self.run,
            ts: self.ts.of(ms),
            duration_ms,
        }
    }
}

/// The fields of an event or record that depend on time, which a replay
/// does not compare (`run` it does).
pub const TIMED_FIELDS: [&str; 2] = ["ts", "duration_ms"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_formats_utc_with_milliseconds() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day of a century leap year), 23:59:59.999.
        assert_eq!(rfc3339(951_868_799_999), "2000-02-29T23:59:59.999Z");
        assert_eq!(rfc3339(1_795_666_559_123), "2026-11-26T04:15:59.123Z");
    }

    #[test]
    fn run_ids_are_uuid_v7_and_differ() {
        let (a, b) = (new_run_id(), new_run_id());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "7", "version nibble of {a}");
    }

    #[test]
    fn a_stamped_event_is_the_event_then_its_stamp() {
        let e = Event::EngineComplete { step: 4 };
        let s = Stamped {
            event: &e,
            stamp: Stamp {
                run: "r",
                ts: "t",
                duration_ms: Some(5),
            },
        };
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"event":"engine:complete","step":4,"run":"r","ts":"t","duration_ms":5}"#
        );
    }
}
