//! Formats arbitrary text as `.wf`; the property is in `fmt_common.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use wf_fmt::SourceKind;

#[path = "fmt_common.rs"]
mod fmt_common;

fuzz_target!(|data: &[u8]| fmt_common::check(data, SourceKind::Wf));
