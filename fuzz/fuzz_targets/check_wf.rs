//! Fuzzes the whole analysis: parse, lower, resolve and every check must
//! terminate without panicking on any input, however broken.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wf_diagnostics::Sources;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut sources = Sources::new();
    sources.add("fuzz.wf", text.into_owned());
    let _ = wf_analysis::check_sources(&sources);
});
