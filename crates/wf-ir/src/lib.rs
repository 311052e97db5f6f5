//! `wf-ir`: the portable intermediate representation of compiled workflows.
//!
//! The compiler lowers a checked [`wf_model::Program`] into an [`IrProgram`]
//! ([`compile`]: interned strings, node and edge tables, guard bytecode),
//! serialises it as a versioned JSON document ([`to_json`]), and verifies
//! any IR file it loads as untrusted input ([`load`]). `wf-vm` executes
//! verified programs. `docs/ir.md` specifies the format;
//! `docs/ir.schema.json` is its JSON Schema ([`schema_json`]).

mod backoff;
mod compile;
mod json;
mod load;
mod types;

pub use compile::{CompileError, backoff_preset, compile, compile_with};
pub use json::{schema_json, to_json};
pub use load::{LoadError, LoadErrorKind, REGEX_SIZE_LIMIT, compile_pattern, load, verify};
pub use types::*;
