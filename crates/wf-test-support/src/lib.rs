//! Helpers shared by the integration tests of the wfc crates (each crate's
//! one `tests/it/` binary), their benchmarks and examples: a dev-dependency
//! only, never a normal one.
//!
//! - [`corpus`]: finding the shared corpus, read in place.
//! - [`lsp`] (feature `lsp`): the language server in-process and a client.
//! - [`vm`] (feature `vm`): IR programs built by hand, engine runs.

pub mod corpus;
#[cfg(feature = "lsp")]
pub mod lsp;
#[cfg(feature = "vm")]
pub mod vm;
