//! Fuzzes the `wf.toml` loader: any text gives a config or a located error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = wf_analysis::project::parse(std::path::Path::new("wf.toml"), &text);
});
