//! `wf-ir`: the portable intermediate representation of compiled workflows.
//!
//! An [`IrProgram`] holds interned strings, node and edge tables and guard
//! bytecode. This crate serialises it as a versioned JSON document
//! ([`to_json`]) and verifies any IR file it loads as untrusted input
//! ([`load`]). `wf-compile` lowers a checked model into it; `wf-vm`
//! executes verified programs. Nothing here depends on a front end, so an
//! embedder that runs compiled workflows links no parser or checker.
//! `docs/ir.md` specifies the format; `docs/ir.schema.json` is its JSON
//! Schema ([`schema_json`]).

mod backoff;
mod json;
mod load;
mod status;
mod types;

pub use backoff::backoff_preset;
pub use json::{schema_json, to_json};
pub use load::{LoadError, LoadErrorKind, REGEX_SIZE_LIMIT, compile_pattern, load, verify};
pub use status::{PEER_STATUSES, peer_status};
pub use types::*;
