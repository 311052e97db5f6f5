//! The condition language (seed section 10) and durations, as the
//! manager loop reads them from attributes.

use std::time::Duration;

/// Evaluates an Attractor condition (seed section 10) with `lookup`
/// resolving keys (`outcome`, `preferred_label`, `context.x` then `x`):
/// `&&`-joined clauses of `key=value`, `key!=value` or a bare key
/// (true when not empty); a missing key is the empty string. As in edge
/// conditions, `outcome=V` reads a peer's spelling of a status as the
/// status (`outcome=succeeded` is `outcome=success`, [`wf_ir::PEER_STATUSES`]).
pub fn evaluate_condition(condition: &str, lookup: &dyn Fn(&str) -> Option<String>) -> bool {
    let resolve = |key: &str| {
        let key = key.trim();
        lookup(key)
            .or_else(|| key.strip_prefix("context.").and_then(lookup))
            .unwrap_or_default()
    };
    let value = |k: &str, v: &str| {
        let v = v.trim();
        let v = v
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or(v);
        match k.trim() {
            "outcome" => wf_ir::peer_status(v).unwrap_or(v).to_owned(),
            _ => v.to_owned(),
        }
    };
    condition
        .split("&&")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .all(|clause| {
            if let Some((k, v)) = clause.split_once("!=") {
                resolve(k) != value(k, v)
            } else if let Some((k, v)) = clause.split_once('=') {
                resolve(k) == value(k, v)
            } else {
                !resolve(clause).is_empty()
            }
        })
}

/// A duration attribute: integer milliseconds (typed attributes), or text
/// like `250ms`, `45s`, `2m`, `1h`.
pub(super) fn duration(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(ms) = v.parse::<u64>() {
        return Some(Duration::from_millis(ms));
    }
    let split = v.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = v.split_at(split);
    let n: u64 = n.parse().ok()?;
    Some(match unit.trim() {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.checked_mul(60)?),
        "h" => Duration::from_secs(n.checked_mul(3600)?),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_follow_section_10() {
        let ctx = |k: &str| match k {
            "outcome" => Some("success".to_owned()),
            "stack.child.status" => Some("completed".to_owned()),
            "done" => Some("true".to_owned()),
            _ => None,
        };
        assert!(evaluate_condition("outcome=success", &ctx));
        assert!(evaluate_condition(
            "outcome = success && context.done=true",
            &ctx
        ));
        assert!(evaluate_condition(
            "context.stack.child.status=completed",
            &ctx
        ));
        assert!(evaluate_condition("missing!=x && done", &ctx));
        assert!(!evaluate_condition("missing", &ctx));
        assert!(!evaluate_condition("outcome=\"fail\"", &ctx));
        assert!(evaluate_condition("", &ctx));
    }

    /// fabro's `succeeded`/`failed` are the statuses for `outcome` only.
    #[test]
    fn peer_outcome_spellings_are_the_statuses() {
        let ctx = |k: &str| match k {
            "outcome" | "verdict" => Some("success".to_owned()),
            _ => None,
        };
        assert!(evaluate_condition("outcome=succeeded", &ctx));
        assert!(evaluate_condition("outcome=\"succeeded\"", &ctx));
        assert!(evaluate_condition("outcome!=failed", &ctx));
        assert!(!evaluate_condition("outcome=failed", &ctx));
        assert!(!evaluate_condition("verdict=succeeded", &ctx));
    }

    #[test]
    fn durations_parse() {
        assert_eq!(duration("45s"), Some(Duration::from_secs(45)));
        assert_eq!(duration("250"), Some(Duration::from_millis(250)));
        assert_eq!(duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(duration("5 parsecs"), None);
        assert_eq!(
            duration("99999999999999999h"),
            None,
            "overflow is not a duration"
        );
    }
}
