//! The outcome statuses, as values and as sets (bit masks).

use wf_model::NodeKind;

/// The status names, in the order of their bits in a `Mask`.
pub const STATUS_NAMES: [&str; 5] = ["success", "partial_success", "retry", "fail", "skipped"];

/// A set of statuses: bit `i` stands for `STATUS_NAMES[i]`.
pub type Mask = u8;

/// Every status.
pub const ALL: Mask = 0b1_1111;

/// The index of `retry`.
pub const RETRY: u8 = 2;

/// The bit of one status.
pub fn bit(status: u8) -> Mask {
    1 << status
}

/// The index of a status name, exactly as written.
pub fn status_index(name: &str) -> Option<u8> {
    STATUS_NAMES
        .iter()
        .position(|s| *s == name)
        .map(|i| i as u8)
}

/// The status names of a mask, in status order.
pub fn names(mask: Mask) -> impl Iterator<Item = &'static str> {
    (0..STATUS_NAMES.len())
        .filter(move |i| mask & (1 << i) != 0)
        .map(|i| STATUS_NAMES[i])
}

/// `` `a`, `b` and `c` `` (or `` `a` or `b` `` with `conjunction = "or"`).
pub fn list(mask: Mask, conjunction: &str) -> String {
    let quoted: Vec<String> = names(mask).map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {conjunction} {last}", init.join(", ")),
    }
}

/// Words people write for a status that are too far from its name for the
/// edit-distance suggestion (`failed` is two edits from `fail`).
const ALIASES: &[(&str, &str)] = &[
    ("ok", "success"),
    ("succeeded", "success"),
    ("successful", "success"),
    ("passed", "success"),
    ("pass", "success"),
    ("done", "success"),
    ("partial", "partial_success"),
    ("partialsuccess", "partial_success"),
    ("partial-success", "partial_success"),
    ("retrying", "retry"),
    ("retried", "retry"),
    ("failed", "fail"),
    ("failure", "fail"),
    ("failing", "fail"),
    ("error", "fail"),
    ("skip", "skipped"),
];

/// The status a misspelled or paraphrased one was probably meant to be.
pub fn suggest(word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    if let Some(i) = status_index(&lower) {
        return Some(STATUS_NAMES[i as usize]);
    }
    if let Some((_, status)) = ALIASES.iter().find(|(alias, _)| *alias == lower) {
        return Some(status);
    }
    crate::suggest::best_match(word, STATUS_NAMES)
}

/// The statuses a node of this kind is expected to hand to edge
/// selection, or `None` when its outgoing edges are not selected by
/// outcome at all.
///
/// Every handler of the Attractor seed ends a node with `success` or
/// `fail` (a `human` fails when the person skips the question, a `tool`
/// when its command does), except `branch`, which does no work and always
/// succeeds. `partial_success` and `skipped` are reported only by agents
/// that choose to, so a fan-out that covers `success` and `fail` counts as
/// complete: the coverage check warns only about statuses that certainly
/// occur. A `retry` status never reaches edge selection: the engine re-runs
/// the node under its retry policy, and when the retries are exhausted the
/// outcome becomes `fail` (or `partial_success` with `allow_partial`). A
/// `parallel` node takes all its outgoing edges at once (they are branches,
/// not choices) and an `exit` has none.
pub fn possible_statuses(kind: NodeKind) -> Option<Mask> {
    let success = bit(0);
    let fail = bit(3);
    match kind {
        NodeKind::Step | NodeKind::Call | NodeKind::Tool | NodeKind::Human | NodeKind::Join => {
            Some(success | fail)
        }
        NodeKind::Branch => Some(success),
        NodeKind::Parallel | NodeKind::Exit => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_cover_typos_case_and_paraphrases() {
        assert_eq!(suggest("sucess"), Some("success"));
        assert_eq!(suggest("Success"), Some("success"));
        assert_eq!(suggest("FAIL"), Some("fail"));
        assert_eq!(suggest("failed"), Some("fail"));
        assert_eq!(suggest("partial"), Some("partial_success"));
        assert_eq!(suggest("skiped"), Some("skipped"));
        assert_eq!(suggest("banana"), None);
    }

    #[test]
    fn expected_statuses_are_success_and_fail() {
        assert_eq!(STATUS_NAMES[0], "success");
        assert_eq!(STATUS_NAMES[3], "fail");
        assert_eq!(possible_statuses(NodeKind::Step), Some(bit(0) | bit(3)));
        assert_eq!(possible_statuses(NodeKind::Branch), Some(bit(0)));
        assert_eq!(possible_statuses(NodeKind::Parallel), None);
    }

    #[test]
    fn lists_read_naturally() {
        assert_eq!(list(bit(0), "and"), "`success`");
        assert_eq!(list(bit(0) | bit(3), "or"), "`success` or `fail`");
        assert_eq!(
            list(bit(1) | bit(3) | bit(4), "and"),
            "`partial_success`, `fail` and `skipped`"
        );
    }
}
