//! Checks arbitrary text as an Attractor `.dot` pipeline and renders the
//! report in every format, with and without colour: lexing, parsing,
//! lowering, every check and the drawing of human reports (ours, with
//! ariadne as the fallback) must never panic or hang on any input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wf_diagnostics::Sources;
use wf_render::{self as render, Format, RenderOptions};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut sources = Sources::new();
    sources.add("fuzz.dot", text.into_owned());
    let diagnostics = wf_analysis::check_sources(&sources);
    for format in [
        Format::Human,
        Format::Concise,
        Format::Json,
        Format::Github,
        Format::Sarif,
    ] {
        for color in [false, true] {
            let _ = render::render(&diagnostics, &sources, format, &RenderOptions { color });
        }
    }
});
