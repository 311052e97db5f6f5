//! The `names` family (WF01xx): duplicate definitions, references to
//! things that do not exist, and reserved names.
//!
//! The checks here work on one workflow of the model, except duplicate
//! nodes, which lowering must detect because it keeps only the first
//! definition (it calls [`duplicate_node`]). Duplicate workflows (WF0101)
//! and unknown callees (WF0104) depend on imports: the database checks
//! them per file (`db::names`).

mod duplicates;
mod references;
mod reserved;

pub use duplicates::duplicate_node;
pub use references::{undeclared_nodes, unknown_entry};
pub use reserved::{is_reserved, reserved_names};

#[cfg(test)]
mod tests;
