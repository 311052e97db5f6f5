//! Helpers shared by the integration tests of the wfc crates (each crate's
//! one `tests/it/` binary), their benchmarks and examples: a dev-dependency
//! only, never a normal one.
//!
//! - [`corpus`]: finding the shared corpus, read in place.
//! - [`panics`]: caught panics kept quiet on one thread only.
//! - `lsp` (feature `lsp`): the language server in-process and a client.
//! - `vm` (feature `vm`): IR programs built by hand, engine runs.

pub mod corpus;
#[cfg(feature = "lsp")]
pub mod lsp;
pub mod panics;
#[cfg(feature = "vm")]
pub mod vm;
