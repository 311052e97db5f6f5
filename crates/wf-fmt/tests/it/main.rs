//! The integration tests of `wf-fmt`, one module per former test file, in
//! one binary: linking a test executable costs more than compiling most
//! of these modules, so each crate links one (`docs/testing.md`).
//!
//! `cargo test -p wf-fmt --test it MODULE::` runs one module's tests.

mod docs;
mod dot_corpus;
mod forced;
mod layout;
mod properties;
mod range;
mod robustness;
