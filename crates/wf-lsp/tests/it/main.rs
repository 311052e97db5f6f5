//! The integration tests of `wf-lsp`, one module per former test file, in
//! one binary: linking a test executable costs more than compiling most
//! of these modules, so each crate links one (`docs/testing.md`).
//!
//! `cargo test -p wf-lsp --test it MODULE::` runs one module's tests.

use wf_test_support::lsp as common;

mod diagnostics;
mod features;
mod robustness;
