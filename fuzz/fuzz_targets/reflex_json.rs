//! Fuzzes the Reflex JSON front end and emitter: reading any text, and
//! checking it through the whole analysis, must terminate without
//! panicking; a document that reads without diagnostics must come back
//! unchanged (spans aside) from `emit` and a second reading.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wf_diagnostics::{FileId, Sources};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = wf_reflex::parse(&text, FileId(0));
    for workflow in &parsed.workflows {
        if let Ok(doc) = wf_reflex::emit(workflow) {
            let again = wf_reflex::parse(&doc.to_pretty_string(), FileId(0));
            assert!(
                again.diagnostics.iter().all(|d| d.code.code != "WF0701"),
                "emitted JSON does not parse: {:?}",
                again.diagnostics
            );
            if parsed.diagnostics.is_empty() {
                assert!(again.diagnostics.is_empty(), "{:?}", again.diagnostics);
                assert_eq!(
                    wf_analysis::db::strip_spans(&again.workflows[0]),
                    wf_analysis::db::strip_spans(workflow)
                );
            }
        }
    }
    let mut sources = Sources::new();
    sources.add("fuzz.json", text.into_owned());
    let _ = wf_analysis::check_sources(&sources);
});
