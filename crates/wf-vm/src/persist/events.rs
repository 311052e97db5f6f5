//! Finding the events of a log record as the engine wrote them (their
//! bytes, for an `--events` file identical to the live stream).

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
    use super::event_spans;

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
