//! Writing a step's log record cheaply (docs/performance.md, "Durable
//! runs"): the parts every record repeats (the run id, the time) are
//! encoded once and copied, and a stamped event is the event's own JSON
//! with its stamp appended by hand: serde's `flatten` of [`Stamped`]
//! goes through a map serializer and cost more than the rest of the
//! event. The events every step emits (`node:enter`, `node:exit`,
//! `edge:traverse`) and a decision with nothing but a status are written
//! by hand too: serde_json escapes each key and value byte by byte, which
//! was most of a record's cost. The bytes are those serde writes (tested
//! below), so a log and an `--events` file hold the same text.
//!
//! Inside a log record an event leaves out the `run` and the `ts` it
//! shares with its record (docs/runtime.md, "How the log carries run ids
//! and times"): [`event_body`] is the event without them, and a reader
//! puts them back ([`super::LogRecord::inherit_stamps`],
//! `events::expand_event`).
//!
//! [`Stamped`]: crate::stamp::Stamped

use serde_json::Value;

use crate::agent::{Decision, Outcome};
use crate::engine::StepInput;
use crate::event::Event;
use crate::stamp::{Stamp, TsText};

/// The run id as a JSON string, encoded once per run.
#[derive(Debug, Default)]
pub(crate) struct RunJson {
    run: String,
    json: Vec<u8>,
}

impl RunJson {
    /// `run` as a JSON string (quoted and escaped).
    pub fn of(&mut self, run: &str) -> &[u8] {
        if self.run != run || self.json.is_empty() {
            self.run.clear();
            self.run.push_str(run);
            self.json.clear();
            serde_json::to_writer(&mut self.json, run).expect("strings serialise");
        }
        &self.json
    }
}

/// The reused parts of a record: the run id's JSON and the record time's
/// text.
#[derive(Debug, Default)]
pub(super) struct Parts {
    pub run: RunJson,
    pub ts: TsText,
}

/// Appends `event` stamped with `stamp` to `out`: `{…event…,"run":…,
/// "ts":…[,"duration_ms":…]}`. Returns the length of its body within
/// `out` (the event's own fields, without the stamp and the closing
/// brace: what a log record holds of it).
pub(crate) fn write_stamped(
    out: &mut Vec<u8>,
    event: &Event<'_>,
    stamp: &Stamp<'_>,
    run: &mut RunJson,
) -> usize {
    let start = out.len();
    event_body(out, event);
    let body = out.len() - start;
    out.extend_from_slice(b",\"run\":");
    out.extend_from_slice(run.of(stamp.run));
    out.extend_from_slice(b",\"ts\":");
    push_str(out, stamp.ts);
    if let Some(d) = stamp.duration_ms {
        out.extend_from_slice(b",\"duration_ms\":");
        push_u64(out, d);
    }
    out.push(b'}');
    body
}

/// Appends `event`'s own fields as serde writes them, without the
/// closing brace.
pub(super) fn event_body(out: &mut Vec<u8>, event: &Event<'_>) {
    write_event(out, event);
    // An event is an object with at least its `event` tag: `{"event":…}`.
    debug_assert_eq!(out.last(), Some(&b'}'));
    out.pop();
}

/// Appends the members every hand-written event starts with: `head` (the
/// opening brace, the `event` tag and the `step` key), the step, and the
/// workflow.
#[inline]
fn open_event(out: &mut Vec<u8>, head: &[u8], step: u64, workflow: &str) {
    out.extend_from_slice(head);
    push_u64(out, step);
    out.extend_from_slice(br#","workflow":"#);
    push_str(out, workflow);
}

/// [`open_event`], then the `node` and `depth` members that the events
/// about one node share.
#[inline]
fn open_node_event(
    out: &mut Vec<u8>,
    head: &[u8],
    (step, workflow): (u64, &str),
    (node, depth): (&str, usize),
) {
    open_event(out, head, step, workflow);
    out.extend_from_slice(br#","node":"#);
    push_str(out, node);
    out.extend_from_slice(br#","depth":"#);
    push_u64(out, depth as u64);
}

/// Appends `event` as serde writes it. The variants are destructured
/// field by field: a field added to one of them does not compile here
/// until it is written too.
fn write_event(out: &mut Vec<u8>, event: &Event<'_>) {
    match *event {
        Event::NodeEnter {
            step,
            workflow,
            node,
            depth,
        } => {
            let head = br#"{"event":"node:enter","step":"#;
            open_node_event(out, head, (step, workflow), (node, depth));
            out.push(b'}');
        }
        Event::NodeExit {
            step,
            workflow,
            node,
            depth,
            status,
        } => {
            let head = br#"{"event":"node:exit","step":"#;
            open_node_event(out, head, (step, workflow), (node, depth));
            out.extend_from_slice(br#","status":""#);
            out.extend_from_slice(status.as_str().as_bytes());
            out.extend_from_slice(br#""}"#);
        }
        Event::EdgeTraverse {
            step,
            workflow,
            edge,
            from,
            to,
            depth,
        } => {
            open_event(out, br#"{"event":"edge:traverse","step":"#, step, workflow);
            out.extend_from_slice(br#","edge":"#);
            push_str(out, edge);
            out.extend_from_slice(br#","from":"#);
            push_str(out, from);
            out.extend_from_slice(br#","to":"#);
            push_str(out, to);
            out.extend_from_slice(br#","depth":"#);
            push_u64(out, depth as u64);
            out.push(b'}');
        }
        Event::BlackboardWrite {
            step,
            workflow,
            node,
            depth,
            writes,
        } => {
            let head = br#"{"event":"blackboard:write","step":"#;
            open_node_event(out, head, (step, workflow), (node, depth));
            out.extend_from_slice(br#","writes":"#);
            push_writes(out, writes.iter().map(|w| (w.key, w.value)));
            out.push(b'}');
        }
        _ => serde_json::to_writer(&mut *out, event).expect("events serialise"),
    }
}

/// Appends `input` as serde writes it (`{"input":…}`): by hand for a
/// decision that is a bare status, the usual one.
pub(super) fn write_input(out: &mut Vec<u8>, input: &StepInput) {
    if let StepInput::Decision {
        decision: Decision::Advance(outcome),
        failure: None,
    } = input
    {
        let Outcome {
            status,
            writes,
            edge,
            preferred_label,
            suggested_next,
            notes,
            failure_reason,
            events,
            jump,
        } = outcome;
        if edge.is_none()
            && preferred_label.is_none()
            && suggested_next.is_empty()
            && notes.is_none()
            && failure_reason.is_none()
            && events.is_empty()
            && jump.is_none()
        {
            out.extend_from_slice(
                br#"{"input":"decision","decision":{"type":"advance","status":""#,
            );
            out.extend_from_slice(status.as_str().as_bytes());
            out.push(b'"');
            if !writes.is_empty() {
                out.extend_from_slice(br#","writes":"#);
                push_writes(out, writes.iter().map(|w| (w.key.as_str(), &w.value)));
            }
            out.extend_from_slice(b"}}");
            return;
        }
    }
    serde_json::to_writer(&mut *out, input).expect("inputs serialise");
}

/// Appends blackboard writes as serde writes them:
/// `[{"key":…,"value":…},…]`.
fn push_writes<'v>(out: &mut Vec<u8>, writes: impl Iterator<Item = (&'v str, &'v Value)>) {
    out.push(b'[');
    for (i, (key, value)) in writes.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"key":"#);
        push_str(out, key);
        out.extend_from_slice(br#","value":"#);
        match value {
            Value::String(s) => push_str(out, s),
            other => serde_json::to_writer(&mut *out, other).expect("values serialise"),
        }
        out.push(b'}');
    }
    out.push(b']');
}

/// Appends `s` as a JSON string: copied when nothing in it needs an
/// escape (serde_json escapes `"`, `\` and control characters only).
pub(super) fn push_str(out: &mut Vec<u8>, s: &str) {
    if !needs_escape(s.as_bytes()) {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        serde_json::to_writer(&mut *out, s).expect("strings serialise");
    }
}

/// Whether `bytes` hold a byte JSON escapes (a control character, `"`
/// or `\`), eight bytes at a time: byte by byte, this check was the
/// largest cost of a record.
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES * 0x80;
    // Whether some byte of `x` is below `n` (n <= 128): exact as a yes
    // or no (bytes of 0x80 and above are never flagged).
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH != 0;
    let zero = |x: u64| below(x, 1);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        if below(x, 0x20)
            || zero(x ^ (ONES * u64::from(b'"')))
            || zero(x ^ (ONES * u64::from(b'\\')))
        {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// Appends `n` in decimal.
pub(super) fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Status;
    use crate::event::WriteRef;
    use crate::stamp::Stamped;
    use serde_json::json;

    /// The hand-written stamp gives serde's bytes, for events with and
    /// without a duration, a run id that needs escaping, and a change of
    /// run id between two events.
    #[test]
    fn stamped_events_are_the_bytes_serde_writes() {
        let values = [
            json!({"a": [1, "x\"y"]}),
            json!("plain"),
            json!("esc\"aped\n\u{1}"),
            json!(null),
            json!(-3),
            json!(2.5),
            json!(true),
        ];
        let writes: Vec<WriteRef<'_>> = values
            .iter()
            .enumerate()
            .map(|(i, value)| WriteRef {
                key: ["k", "k\"2", "k.3", "", "k5", "k6", "k7"][i],
                value,
            })
            .collect();
        let mut events = vec![
            Event::NodeEnter {
                step: 3,
                workflow: "w",
                node: "n\u{e9}",
                depth: 1,
            },
            Event::NodeEnter {
                step: 0,
                workflow: "w\"\\\u{1f}\n",
                node: "",
                depth: usize::MAX,
            },
            Event::EdgeTraverse {
                step: 7,
                workflow: "w",
                edge: "a->b#2",
                from: "a\"",
                to: "b\u{7f}\u{2028}",
                depth: 12,
            },
            Event::BlackboardWrite {
                step: 18_446_744_073_709_551_615,
                workflow: "w",
                node: "n",
                depth: 2,
                writes: &writes,
            },
            Event::EngineComplete { step: 0 },
        ];
        for status in [
            Status::Success,
            Status::PartialSuccess,
            Status::Retry,
            Status::Fail,
            Status::Skipped,
        ] {
            events.push(Event::NodeExit {
                step: 3,
                workflow: "w",
                node: "n\t",
                depth: 1,
                status,
            });
        }
        let mut run = RunJson::default();
        for (id, duration_ms) in [
            ("r-1", None),
            ("r\"\\2\u{1}", Some(0)),
            ("r-1", Some(u64::MAX)),
        ] {
            for event in &events {
                let stamp = Stamp {
                    run: id,
                    ts: "2026-11-26T04:15:59.123Z",
                    duration_ms,
                };
                let mut out = b"prefix".to_vec();
                let body = write_stamped(&mut out, event, &stamp, &mut run);
                let expected = serde_json::to_vec(&Stamped { event, stamp }).unwrap();
                let own = serde_json::to_vec(event).unwrap();
                assert_eq!(out[6..6 + body], own[..own.len() - 1]);
                assert_eq!(
                    String::from_utf8(out[6..].to_vec()).unwrap(),
                    String::from_utf8(expected).unwrap()
                );
            }
        }
    }

    /// Inputs, bare decisions or not, are the bytes serde writes, and
    /// read back as they were.
    #[test]
    fn inputs_are_the_bytes_serde_writes() {
        use crate::agent::{Decision, Outcome, Write};
        use crate::engine::StepInput;
        use crate::failure::FailureKind;
        let advance = |o: Outcome| StepInput::Decision {
            decision: Decision::Advance(o),
            failure: None,
        };
        let mut inputs = vec![
            StepInput::Engine,
            StepInput::Decision {
                decision: Decision::Advance(Outcome::success()),
                failure: Some(FailureKind::Limit),
            },
            StepInput::Decision {
                decision: Decision::Complete { writes: vec![] },
                failure: None,
            },
            StepInput::Tool {
                outcome: Outcome::failed("exit 1"),
                refused: false,
            },
            advance(Outcome::failed("no \"luck\"")),
            advance(Outcome {
                writes: vec![Write {
                    key: "k".into(),
                    value: json!([1]),
                }],
                ..Outcome::success()
            }),
            advance(Outcome {
                writes: vec![
                    Write {
                        key: "a\"b".into(),
                        value: json!("x\ny"),
                    },
                    Write {
                        key: "c".into(),
                        value: json!({"d": [null, 1.5, false]}),
                    },
                    Write {
                        key: "e".into(),
                        value: json!("plain"),
                    },
                ],
                status: Status::PartialSuccess,
                ..Outcome::success()
            }),
            advance(Outcome {
                writes: vec![Write {
                    key: "k".into(),
                    value: json!(7),
                }],
                edge: Some("a->b".into()),
                ..Outcome::success()
            }),
            advance(Outcome {
                edge: Some("a->b".into()),
                ..Outcome::success()
            }),
            advance(Outcome {
                jump: Some("j".into()),
                ..Outcome::success()
            }),
        ];
        for status in [
            Status::Success,
            Status::PartialSuccess,
            Status::Retry,
            Status::Fail,
            Status::Skipped,
        ] {
            inputs.push(advance(Outcome {
                status,
                ..Outcome::success()
            }));
        }
        for input in inputs {
            let mut out = Vec::new();
            write_input(&mut out, &input);
            let text = String::from_utf8(out).unwrap();
            assert_eq!(text, serde_json::to_string(&input).unwrap());
            assert_eq!(serde_json::from_str::<StepInput>(&text).unwrap(), input);
        }
        let mut out = Vec::new();
        write_input(&mut out, &advance(Outcome::success()));
        assert_eq!(
            out,
            br#"{"input":"decision","decision":{"type":"advance","status":"success"}}"#
        );
    }

    /// The eight-at-a-time check agrees with the byte-by-byte one for
    /// every byte at every place of strings of 0 to 20 bytes, among
    /// plain letters and among bytes that could carry into it.
    #[test]
    fn needs_escape_finds_every_escaped_byte() {
        let slow = |b: &[u8]| b.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\');
        for len in 0..=20 {
            for at in 0..len {
                for byte in 0..=255u8 {
                    for fill in [b'a', 0x80 | byte, byte.wrapping_add(1), 0xff] {
                        let mut s = vec![fill; len];
                        s[at] = byte;
                        assert_eq!(needs_escape(&s), slow(&s), "{s:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0, 7, 9, 10, 99, 1_234_567_890, u64::MAX] {
            let mut out = b"x".to_vec();
            push_u64(&mut out, n);
            assert_eq!(out, format!("x{n}").into_bytes());
        }
    }
}
