//! Finding the events of a log record as the engine wrote them (their
//! bytes, for an `--events` file identical to the live stream), and
//! putting back the run id and time they share with their record.

/// Appends `event` (one element of a record's `events`) as the engine's
/// sinks received it: `{…own fields…,"run":R,"ts":T[,"duration_ms":D]}`.
/// In the log, an event written since records carry the run id leaves it
/// out, and its time unless it differs from the record's, so its text
/// ends with its own fields, then `,"ts":"…"` when it has its own time
/// and `,"duration_ms":N` when it has one (`RunLog::commit`): those two
/// are recognised from the end, where no field of the event itself can
/// look like them (inside a string a `"` is escaped). `run` and `ts`:
/// the record's, as JSON strings; an event that has a `run` already (a
/// log of an older wfc) or a record without one (older still: nothing
/// had a run id) is copied as it is.
pub(super) fn expand_event(event: &[u8], run: Option<&[u8]>, ts: &[u8], out: &mut Vec<u8>) {
    let (Some(run), Some((&b'}', body))) = (run, event.split_last()) else {
        out.extend_from_slice(event);
        return;
    };
    let (body, duration) = split_number(body, b",\"duration_ms\":");
    let (body, own_ts) = split_string(body, b",\"ts\":");
    let stamped = body
        .strip_suffix(run)
        .is_some_and(|b| b.ends_with(b",\"run\":"));
    if stamped {
        out.extend_from_slice(event);
        return;
    }
    out.extend_from_slice(body);
    out.extend_from_slice(b",\"run\":");
    out.extend_from_slice(run);
    out.extend_from_slice(b",\"ts\":");
    out.extend_from_slice(own_ts.unwrap_or(ts));
    out.extend_from_slice(duration);
    out.push(b'}');
}

/// `text` without a last member `key` + digits, and that member (empty
/// when there is none).
fn split_number<'a>(text: &'a [u8], key: &[u8]) -> (&'a [u8], &'a [u8]) {
    let digits = text.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let at = text.len() - digits;
    match text[..at].strip_suffix(key) {
        Some(rest) if digits > 0 => (rest, &text[rest.len()..]),
        _ => (text, &[]),
    }
}

/// `text` without a last member `key` + a string without escapes, and
/// that string (quoted).
fn split_string<'a>(text: &'a [u8], key: &[u8]) -> (&'a [u8], Option<&'a [u8]>) {
    let Some((&b'"', inner)) = text.split_last() else {
        return (text, None);
    };
    let Some(open) = inner.iter().rposition(|&b| b == b'"') else {
        return (text, None);
    };
    if inner[open + 1..].contains(&b'\\') {
        return (text, None);
    }
    match text[..open].strip_suffix(key) {
        Some(rest) => (rest, Some(&text[open..])),
        None => (text, None),
    }
}

/// The byte ranges of the elements of the `events` array of a log record
/// (one line of valid JSON: its records were parsed before).
pub(super) fn event_spans(line: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let (mut depth, mut i) = (0usize, 0usize);
    // The last string read at depth 1 (a key, when a `:` follows).
    let mut last_string = (0, 0);
    let mut in_events = false;
    let mut element: Option<usize> = None;
    while i < line.len() {
        let b = line[i];
        if in_events && depth == 2 && element.is_none() && !b.is_ascii_whitespace() {
            if b == b']' {
                in_events = false;
            } else if b != b',' {
                element = Some(i);
            }
        }
        match b {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < line.len() && line[i] != b'"' {
                    i += if line[i] == b'\\' { 2 } else { 1 };
                }
                if depth == 1 {
                    last_string = (start, i.min(line.len()));
                }
            }
            b':' if depth == 1 => {
                in_events = &line[last_string.0..last_string.1] == b"events";
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == 2 && in_events {
                    if let Some(s) = element.take() {
                        spans.push((s, trim_end(line, s, i)));
                    }
                    in_events = false;
                }
                depth = depth.saturating_sub(1);
            }
            b',' if depth == 2 && in_events => {
                if let Some(s) = element.take() {
                    spans.push((s, trim_end(line, s, i)));
                }
            }
            _ => {}
        }
        i += 1;
    }
    spans
}

/// The end of `line[start..end]` without trailing whitespace.
fn trim_end(line: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && line[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::{event_spans, expand_event};

    /// The run id and time go back in before a duration; an event's own
    /// time is kept; fields of the event that look like a stamp from the
    /// inside of a string or an object are not taken for one; events
    /// already stamped, and records without a run id, are copied.
    #[test]
    fn expanded_events_get_the_record_stamp_where_they_have_none() {
        let run: &[u8] = br#""r-1""#;
        let ts: &[u8] = br#""2026-11-26T00:00:00.000Z""#;
        let cases: [(&[u8], &[u8]); 7] = [
            (
                br#"{"event":"a","step":1}"#,
                br#"{"event":"a","step":1,"run":"r-1","ts":"2026-11-26T00:00:00.000Z"}"#,
            ),
            (
                br#"{"event":"a","duration_ms":12}"#,
                br#"{"event":"a","run":"r-1","ts":"2026-11-26T00:00:00.000Z","duration_ms":12}"#,
            ),
            (
                br#"{"event":"a","ts":"2026-11-26T00:00:09.000Z","duration_ms":0}"#,
                br#"{"event":"a","run":"r-1","ts":"2026-11-26T00:00:09.000Z","duration_ms":0}"#,
            ),
            (
                br#"{"event":"a","reason":"x\",\"ts\":\"y"}"#,
                br#"{"event":"a","reason":"x\",\"ts\":\"y","run":"r-1","ts":"2026-11-26T00:00:00.000Z"}"#,
            ),
            (
                br#"{"event":"a","data":{"duration_ms":3}}"#,
                br#"{"event":"a","data":{"duration_ms":3},"run":"r-1","ts":"2026-11-26T00:00:00.000Z"}"#,
            ),
            (
                br#"{"event":"a","reason":"duration_ms\":4"}"#,
                br#"{"event":"a","reason":"duration_ms\":4","run":"r-1","ts":"2026-11-26T00:00:00.000Z"}"#,
            ),
            (
                br#"{"event":"a","run":"r-1","ts":"2026-11-26T00:00:09.000Z","duration_ms":5}"#,
                br#"{"event":"a","run":"r-1","ts":"2026-11-26T00:00:09.000Z","duration_ms":5}"#,
            ),
        ];
        for (event, expected) in cases {
            let mut out = Vec::new();
            expand_event(event, Some(run), ts, &mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                String::from_utf8(expected.to_vec()).unwrap()
            );
        }
        let mut out = Vec::new();
        expand_event(br#"{"event":"a"}"#, None, ts, &mut out);
        assert_eq!(out, br#"{"event":"a"}"#);
    }

    /// Only the top-level `events` member counts: not a key of that name
    /// in a written value, nor brackets and escaped quotes in strings.
    #[test]
    fn event_spans_find_the_top_level_events_only() {
        let line = br#"{"step":1,"input":"decision","decision":{"writes":[{"key":"events","value":"],\"events\":[x"}]},"events":[{"event":"a","v":[1,{"events":[2]}]} , "s]\"" ,{"event":"b"}]}"#;
        let spans: Vec<&str> = event_spans(line)
            .into_iter()
            .map(|(s, e)| std::str::from_utf8(&line[s..e]).unwrap())
            .collect();
        assert_eq!(
            spans,
            [
                r#"{"event":"a","v":[1,{"events":[2]}]}"#,
                r#""s]\"""#,
                r#"{"event":"b"}"#
            ]
        );
        assert!(event_spans(br#"{"step":0,"input":"engine","events":[]}"#).is_empty());
    }
}
