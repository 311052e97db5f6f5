//! The property both formatter targets check (`fmt_wf`, `fmt_dot`; each
//! includes this file with `#[path]`): formatting arbitrary text must never
//! panic or hang; when it formats, the output formats to itself
//! (idempotence; verification has already checked that it reparses to the
//! same program), forced formatting never fails on what it produced, and
//! range formatting of a range taken from the input gives edits inside the
//! text that keep it formattable to the same result.

use wf_fmt::{FormatError, Options, SourceKind};

/// Checks the property on `data` read as `kind`.
pub fn check(data: &[u8], kind: SourceKind) {
    let text = String::from_utf8_lossy(data);
    let options = Options::default();
    // Forced formatting must not panic, whatever the input.
    let _ = wf_fmt::format_source_forced(&text, kind, &options);
    let formatted = match wf_fmt::format_source(&text, kind, &options) {
        Ok(formatted) => formatted,
        Err(FormatError::Syntax(_)) => return,
        Err(FormatError::Unsafe(why)) => panic!("unsafe format: {why}"),
    };
    let again = wf_fmt::format_source(&formatted, kind, &options).expect("formatted text formats");
    assert_eq!(again, formatted, "not idempotent");
    // A range from the first bytes of the input.
    let len = text.len();
    let a = data.first().map_or(0, |&b| b as usize * len / 255);
    let b = data.get(1).map_or(len, |&b| b as usize * len / 255);
    let (a, b) = (a.min(b), a.max(b));
    let edits = wf_fmt::format_range(&text, kind, a..b, &options).expect("it formats whole");
    let mut out = text.to_string();
    for edit in edits.iter().rev() {
        assert!(edit.range.start <= edit.range.end && edit.range.end <= out.len());
        out.replace_range(edit.range.clone(), &edit.new_text);
    }
    let whole = wf_fmt::format_source(&out, kind, &options).expect("the result formats");
    assert_eq!(
        whole, formatted,
        "range formatting changed the whole format"
    );
}
