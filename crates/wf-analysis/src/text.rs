//! Small helpers for writing diagnostic messages.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_with_count() {
        assert_eq!(join_truncated(["a", "b"], 5), "a, b");
        assert_eq!(join_truncated(["a", "b", "c", "d"], 2), "a, b and 2 more");
        assert_eq!(join_truncated(Vec::<String>::new(), 2), "");
    }
}
