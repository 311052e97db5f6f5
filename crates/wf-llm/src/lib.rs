//! LLM backends for `wfc run --agent llm` (docs/llm.md).
//!
//! The crate knows nothing of workflows: it turns a prompt into a model's
//! answer over one of four wire APIs ([`Api`]), with the keys, base URLs,
//! timeouts, retries and concurrency cap that [`config`] resolves, and it
//! accounts tokens and cost ([`price`]). The run-time glue (which node
//! calls which model, routing from the answer) lives in `wfc`.
//!
//! HTTP is blocking ([`ureq`] over rustls): the engine decides one node at
//! a time on its own thread, so an async runtime would only add weight.

pub mod catalog;
pub mod cli;
#[cfg(feature = "http")]
pub mod client;
pub mod config;
pub mod price;
pub mod provider;
pub mod route;
pub mod stream;
pub mod structured;

#[cfg(feature = "http")]
pub use client::{Backend, Chunk, Error, ErrorKind};
pub use config::{LlmConfig, ProviderSettings};
pub use provider::{Api, Request, Response, Role, Turn, Usage};

/// Replaces every occurrence of `secret` in `text` (a key must never reach
/// an error message, a file or a log line).
pub fn redact(text: &str, secret: &str) -> String {
    if secret.len() < 4 {
        return text.to_string();
    }
    text.replace(secret, "[redacted]")
}
