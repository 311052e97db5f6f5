//! Feeds arbitrary bytes to the `.wf` parser: it must never panic or hang.
//! Non-UTF-8 input is converted lossily, as the CLI does.

#![no_main]

use libfuzzer_sys::fuzz_target;
use wf_diagnostics::FileId;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = wf_syntax::parse(&text, FileId(0));
    // Walking the result must be safe too (the tree depth is bounded).
    let _ = wf_syntax::dump::sexpr(&parsed.file, true);
});
