use super::Refusal::*;
use super::Slot::*;
use super::*;

/// The slots of `script`, where each `@` is an interpolation.
fn at(script: &str) -> Vec<Slot> {
    let mut pieces = Vec::new();
    for (i, text) in script.split('@').enumerate() {
        if i > 0 {
            pieces.push(Piece::Key);
        }
        pieces.push(Piece::Text(text));
    }
    slots(pieces)
}

#[test]
fn quotes_choose_the_reference() {
    assert_eq!(at("echo @ x=@"), [Word, Word]);
    assert_eq!(
        at("echo \"a @\" '@' \"it's @\""),
        [Expanding, SingleQuoted, Expanding]
    );
    assert_eq!(at("echo \\\"@\""), [Word]);
    assert_eq!(at("echo '\\' @"), [Word]);
}

#[test]
fn here_documents_expand_unless_their_delimiter_is_quoted() {
    // The first construct: a here-document body.
    assert_eq!(
        at("cat <<EOT\n@ it's \"@\"\nEOT\necho @"),
        [Expanding, Expanding, Word]
    );
    assert_eq!(at("cat <<-EOT\n\t@\n\tEOT\necho @"), [Expanding, Word]);
    for quoted in ["'EOT'", "\"EOT\"", "\\EOT", "E'O'T"] {
        let script = format!("cat << {quoted} >f; echo @\n@\nEOT\necho @");
        assert_eq!(
            at(&script),
            [Word, Refused(QuotedHereDoc), Word],
            "{quoted}"
        );
    }
    // A line that only looks like the delimiter because of a key does not end it.
    assert_eq!(at("cat <<E\nE@\n@\nE\n@"), [Expanding, Expanding, Word]);
    // Two bodies in a row, and a body inside `$(…)`.
    assert_eq!(
        at("cat <<A <<'B'\n@\nA\n@\nB\n@"),
        [Expanding, Refused(QuotedHereDoc), Word]
    );
    assert_eq!(at("x=\"$(cat <<A\n@\nA\n)\" @"), [Expanding, Word]);
    assert_eq!(at("cat <<@\nx\n"), [Refused(HereDocDelimiter)]);
    assert_eq!(at("cat <<<@ <<<'@'"), [Word, SingleQuoted]);
}

#[test]
fn comments_and_their_apostrophes() {
    // The second construct: an apostrophe inside a comment.
    assert_eq!(
        at("# don't\necho @ # @\necho a#b @"),
        [Word, Refused(Comment), Word]
    );
    assert_eq!(at("echo @#x @"), [Word, Word]);
}

#[test]
fn command_substitution_starts_quoting_afresh() {
    // The third construct: single quotes nested in "$(…)".
    assert_eq!(at("echo \"$(printf '%s' @) @\""), [Word, Expanding]);
    assert_eq!(at("echo \"$(echo \"@\")\" @"), [Expanding, Word]);
    assert_eq!(
        at("x=$(case a in a) echo @;; (b) echo;; esac) @"),
        [Word, Word]
    );
}

#[test]
fn evaluated_and_untracked_contexts_are_refused() {
    assert_eq!(at("echo $((@ + 1)) @"), [Refused(Evaluated), Word]);
    assert_eq!(
        at("((n = @)); [[ @ -gt 1 ]] && echo @"),
        [Refused(Evaluated), Refused(Evaluated), Word]
    );
    assert_eq!(
        at("echo `echo @` \"`@`\" @"),
        [Refused(Backquote), Refused(Backquote), Word]
    );
    assert_eq!(
        at("echo ${x:-@} $'@' @"),
        [Refused(Untracked), Refused(Untracked), Word]
    );
    assert_eq!(
        at("echo \\@ \"\\@\" $@ \\\\@"),
        [Refused(Escaped), Refused(Escaped), Refused(Escaped), Word]
    );
}

#[test]
fn references_are_balanced() {
    assert_eq!(Word.reference("V").unwrap(), "\"${V}\"");
    assert_eq!(Expanding.reference("V").unwrap(), "${V}");
    assert_eq!(SingleQuoted.reference("V").unwrap(), "'\"${V}\"'");
    assert_eq!(Refused(Comment).reference("V"), Err(Comment));
}

proptest::proptest! {
    /// Any text, however broken, gets exactly one slot per interpolation
    /// (the runtime relies on it) and never panics.
    #[test]
    fn one_slot_per_key(script in "[a-z@ \t\n'\"\\\\`$(){}#<>;|&\\-\\[\\]*]{0,80}") {
        proptest::prop_assert_eq!(at(&script).len(), script.matches('@').count());
    }
}
