//! The integration tests of `wf-dot`, one module per former test file, in
//! one binary: linking a test executable costs more than compiling most
//! of these modules, so each crate links one (`docs/testing.md`).
//!
//! `cargo test -p wf-dot --test it MODULE::` runs one module's tests.

mod common;

mod corpus;
mod explanations;
mod lexer_reference;
mod lower;
mod parse;
mod robustness;
mod stylesheet;
