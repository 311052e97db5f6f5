//! The integration tests of `wf-reflex`, one module per former test file, in
//! one binary: linking a test executable costs more than compiling most
//! of these modules, so each crate links one (`docs/testing.md`).
//!
//! `cargo test -p wf-reflex --test it MODULE::` runs one module's tests.

mod analysis;
mod check_files;
mod roundtrip;
