//! Reading durations out of strings, so that `timeout = "1h30m"` can be
//! reported with the fix `90m` (written by
//! [`crate::text::duration_literal`]).

/// Milliseconds per unit of a `.wf` duration literal.
const UNITS: &[(&str, u64)] = &[
    ("d", 86_400_000),
    ("h", 3_600_000),
    ("m", 60_000),
    ("s", 1_000),
    ("ms", 1),
];

/// The value of `text` when it is exactly a `.wf` duration literal (digits,
/// `_` after the first, one unit: `15m`, `1_500ms`), in milliseconds.
pub fn literal(text: &str) -> Option<u64> {
    let digits_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '_'))
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(digits_end);
    if !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let size = UNITS.iter().find(|(u, _)| *u == unit)?.1;
    let n: u64 = digits.replace('_', "").parse().ok()?;
    n.checked_mul(size)
}

/// A duration read from text more loosely than the literal syntax.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Loose {
    /// A whole number of milliseconds.
    Millis(u64),
    /// A negative duration (`"-5m"`).
    Negative,
    /// A duration that is not a whole number of milliseconds, or too long.
    Unrepresentable,
}

/// Milliseconds per unit word, in the spellings people write in strings.
fn unit_size(word: &str) -> Option<f64> {
    Some(match word {
        "ms" | "msec" | "msecs" | "millisecond" | "milliseconds" => 1.0,
        "s" | "sec" | "secs" | "second" | "seconds" => 1e3,
        "m" | "min" | "mins" | "minute" | "minutes" => 6e4,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3.6e6,
        "d" | "day" | "days" => 8.64e7,
        "w" | "week" | "weeks" => 6.048e8,
        _ => return None,
    })
}

/// Reads text that looks like a duration: one or more `number unit` parts,
/// optionally separated by spaces or commas, with fractions and unit words
/// (`"1h30m"`, `"1.5h"`, `"15 minutes"`, `"2h, 15m"`, `"-5m"`). `None` when
/// the text is not of that shape (a bare number has no unit, so it is not).
pub fn loose(text: &str) -> Option<Loose> {
    let lower = text.trim().to_ascii_lowercase();
    let (negative, mut rest) = match lower.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, lower.strip_prefix('+').unwrap_or(&lower)),
    };
    let mut total = 0.0f64;
    let mut parts = 0;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() {
            break;
        }
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..number_end].replace('_', "").parse().ok()?;
        rest = rest[number_end..].trim_start();
        let unit_end = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        total += number * unit_size(&rest[..unit_end])?;
        rest = &rest[unit_end..];
        parts += 1;
    }
    if parts == 0 {
        return None;
    }
    Some(if negative && total > 0.0 {
        Loose::Negative
    } else if total.fract() != 0.0 || total >= u64::MAX as f64 {
        Loose::Unrepresentable
    } else {
        Loose::Millis(total as u64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_exact() {
        assert_eq!(literal("15m"), Some(900_000));
        assert_eq!(literal("1_500ms"), Some(1_500));
        assert_eq!(literal("15 m"), None);
        assert_eq!(literal("1.5h"), None);
        assert_eq!(literal("_5s"), None);
        assert_eq!(literal("15"), None);
        assert_eq!(literal("99999999999999999d"), None);
    }

    #[test]
    fn loose_durations() {
        assert_eq!(loose("1h30m"), Some(Loose::Millis(5_400_000)));
        assert_eq!(loose("1.5h"), Some(Loose::Millis(5_400_000)));
        assert_eq!(loose(" 15 Minutes "), Some(Loose::Millis(900_000)));
        assert_eq!(loose("2h, 15m"), Some(Loose::Millis(8_100_000)));
        assert_eq!(loose("-5m"), Some(Loose::Negative));
        assert_eq!(loose("0.5ms"), Some(Loose::Unrepresentable));
        assert_eq!(loose("0s"), Some(Loose::Millis(0)));
        assert_eq!(loose("15"), None);
        assert_eq!(loose("soon"), None);
        assert_eq!(loose(""), None);
        assert_eq!(loose("5 parsecs"), None);
    }
}
