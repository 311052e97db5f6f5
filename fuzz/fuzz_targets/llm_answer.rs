//! Fuzzes how wf-llm reads a provider's answer: the first byte picks the
//! API, the rest is the body, read as a whole JSON answer, as a stream of
//! server-sent events (whole, and line by line as the client reads it),
//! and as an answer text whose final JSON object routes the stage. None
//! may panic; a stream's text is the concatenation of its deltas.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wf_llm::Api;
use wf_llm::stream::{Accumulator, Decoder};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let api = Api::ALL[usize::from(pick) % Api::ALL.len()].1;
    let text = String::from_utf8_lossy(body);
    if let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) {
        let _ = wf_llm::provider::parse(api, &doc);
        let _ = wf_llm::provider::error_message(&doc);
    }
    let whole = wf_llm::stream::parse(api, &text);
    // As the client reads it: line by line, the deltas gathered.
    let mut decoder = Decoder::default();
    let mut acc = Accumulator::new(api);
    let mut deltas = String::new();
    let mut failed = false;
    for line in text.split('\n') {
        if let Some(event) = decoder.line(line) {
            match acc.feed(&event) {
                Ok(d) => deltas.push_str(&d),
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
    }
    if !failed {
        if let Some(event) = decoder.flush() {
            failed = acc.feed(&event).map(|d| deltas.push_str(&d)).is_err();
        }
    }
    if !failed {
        if let Ok(answer) = acc.finish() {
            assert_eq!(answer.text, deltas);
            assert_eq!(whole.map(|r| r.text).ok(), Some(deltas));
        }
    }
    let labels = vec!["Approve".to_string(), "Rework".to_string()];
    let _ = wf_llm::route::parse_answer(&text, &labels);
});
