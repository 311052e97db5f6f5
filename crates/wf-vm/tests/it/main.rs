//! The integration tests of `wf-vm`, one module per former test file, in
//! one binary: linking a test executable costs more than compiling most
//! of these modules, so each crate links one (`docs/testing.md`).
//!
//! `cargo test -p wf-vm --test it MODULE::` runs one module's tests.

use wf_test_support::vm as common;

mod edge_selection;
mod elsewhere;
mod engine;
mod limits;
mod persist;
mod reflex_conformance;
mod store;
mod wf_source;
