//! Feeds arbitrary bytes to the DOT front end (lexer, parser and lowering
//! to the model): it must never panic or hang. Non-UTF-8 input is converted
//! lossily, as the CLI does.

#![no_main]

use libfuzzer_sys::fuzz_target;
use wf_diagnostics::FileId;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lowered = wf_dot::parse_and_lower(&text, FileId(0));
    // Every span must stay inside the text.
    for d in &lowered.diagnostics {
        assert!(d.primary.location.span.end as usize <= text.len());
    }
});
