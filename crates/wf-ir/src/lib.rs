//! `wf-ir`: the portable intermediate representation of compiled workflows.
//!
//! The compiler lowers a checked [`wf_model::Program`] into an [`IrProgram`]
//! (interned strings, node and edge tables, guard bytecode), serialises it as
//! a versioned JSON document, and verifies any IR file it loads as untrusted
//! input. `wf-vm` executes verified programs.

mod types;

pub use types::*;
