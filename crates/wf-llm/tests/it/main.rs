//! wf-llm's integration tests: every provider against a fake server on
//! loopback (no network).

mod calls;
mod config;
mod fake;
mod structured;
