//! The integration tests of `wf-syntax`, one module per former test file, in
//! one binary: linking a test executable costs more than compiling most
//! of these modules, so each crate links one (`docs/testing.md`).
//!
//! `cargo test -p wf-syntax --test it MODULE::` runs one module's tests.

mod common;

mod parse;
mod recovery;
mod robustness;
