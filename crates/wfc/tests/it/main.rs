//! The integration tests of `wfc`, one module per former test file, in
//! one binary: linking a test executable costs more than compiling most
//! of these modules, so each crate links one (`docs/testing.md`).
//!
//! `cargo test -p wfc --test it MODULE::` runs one module's tests.

mod common;

mod answer;
mod attractor_corpus;
mod attractor_handlers;
mod attractor_parity;
mod build;
mod cancel;
mod check_files;
mod cli;
mod cli_agents;
mod docs_examples;
mod effects;
mod explanations;
mod fmt;
mod graph;
mod human_fast;
mod kill_storm;
mod llm_budget;
mod llm_run;
mod llm_structured;
mod lsp;
mod lsp_fixtures;
mod replay_sweep;
mod robustness;
mod run;
mod run_crash;
mod run_dot;
mod run_dot_corpus;
mod run_elsewhere;
mod run_parallel;
mod saga;
mod script_resume;
mod tool_hooks;
