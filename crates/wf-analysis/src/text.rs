//! Small helpers for writing diagnostic messages, and for writing values
//! back as `.wf` source text in messages and fixes.

/// Joins `items` with `, `, showing at most `max` of them and summarising
/// the rest as `and N more`, so messages stay one readable line however
/// large the input.
pub fn join_truncated<I, S>(items: I, max: usize) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out = String::new();
    let mut shown = 0;
    let mut hidden = 0;
    for item in items {
        if shown < max {
            if shown > 0 {
                out.push_str(", ");
            }
            out.push_str(item.as_ref());
            shown += 1;
        } else {
            hidden += 1;
        }
    }
    if hidden > 0 {
        out.push_str(&format!(" and {hidden} more"));
    }
    out
}

/// `name` in backticks, for messages.
pub fn code(name: &str) -> String {
    format!("`{name}`")
}

/// `s` as a `.wf` string literal, with the escapes the lexer understands
/// (`$` too, so the text is never read as an interpolation).
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '$' => out.push_str("\\$"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Milliseconds per duration unit, largest first.
const DURATION_UNITS: &[(&str, u64)] = &[
    ("d", 86_400_000),
    ("h", 3_600_000),
    ("m", 60_000),
    ("s", 1_000),
];

/// A duration as a `.wf` literal in the largest unit that divides it
/// exactly (`5400000` ms is `90m`; `0` is `0ms`).
pub fn duration_literal(ms: u64) -> String {
    for &(unit, size) in DURATION_UNITS {
        if ms != 0 && ms.is_multiple_of(size) {
            return format!("{}{unit}", ms / size);
        }
    }
    format!("{ms}ms")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_with_count() {
        assert_eq!(join_truncated(["a", "b"], 5), "a, b");
        assert_eq!(join_truncated(["a", "b", "c", "d"], 2), "a, b and 2 more");
        assert_eq!(join_truncated(Vec::<String>::new(), 2), "");
    }

    #[test]
    fn literals_round_trip_through_the_lexer_rules() {
        assert_eq!(string_literal("a\"b\\c$d\n"), r#""a\"b\\c\$d\n""#);
        assert_eq!(duration_literal(5_400_000), "90m");
        assert_eq!(duration_literal(86_400_000), "1d");
        assert_eq!(duration_literal(1_500), "1500ms");
        assert_eq!(duration_literal(0), "0ms");
    }
}
