//! The integration tests of `wf-analysis`, one module per former test file, in
//! one binary: linking a test executable costs more than compiling most
//! of these modules, so each crate links one (`docs/testing.md`).
//!
//! `cargo test -p wf-analysis --test it MODULE::` runs one module's tests.

mod attractor;
mod attractor_corpus;
mod one_shot;
