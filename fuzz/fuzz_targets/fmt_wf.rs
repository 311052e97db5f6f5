//! Formats arbitrary text as `.wf`: it must never panic or hang; when
//! it formats, the output formats to itself (idempotence; verification has
//! already checked that it reparses to the same program), forced
//! formatting never fails on what it produced, and range formatting of a
//! range taken from the input gives edits inside the text that keep it
//! formattable to the same result.

#![no_main]

use libfuzzer_sys::fuzz_target;
use wf_fmt::{FormatError, Options, SourceKind};

const KIND: SourceKind = SourceKind::Wf;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let options = Options::default();
    // Forced formatting must not panic, whatever the input.
    let _ = wf_fmt::format_source_forced(&text, KIND, &options);
    let formatted = match wf_fmt::format_source(&text, KIND, &options) {
        Ok(formatted) => formatted,
        Err(FormatError::Syntax(_)) => return,
        Err(FormatError::Unsafe(why)) => panic!("unsafe format: {why}"),
    };
    let again = wf_fmt::format_source(&formatted, KIND, &options).expect("formatted text formats");
    assert_eq!(again, formatted, "not idempotent");
    // A range from the first bytes of the input.
    let len = text.len();
    let a = data.first().map_or(0, |&b| b as usize * len / 255);
    let b = data.get(1).map_or(len, |&b| b as usize * len / 255);
    let (a, b) = (a.min(b), a.max(b));
    let edits = wf_fmt::format_range(&text, KIND, a..b, &options).expect("it formats whole");
    let mut out = text.to_string();
    for edit in edits.iter().rev() {
        assert!(edit.range.start <= edit.range.end && edit.range.end <= out.len());
        out.replace_range(edit.range.clone(), &edit.new_text);
    }
    let whole = wf_fmt::format_source(&out, KIND, &options).expect("the result formats");
    assert_eq!(
        whole, formatted,
        "range formatting changed the whole format"
    );
});
