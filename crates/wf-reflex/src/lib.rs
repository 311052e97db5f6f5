//! Reflex workflow JSON, the portable format of the Reflex design (seed
//! `000_…`, sections 2.1-2.8), as a `wfc` source format and output format.
//!
//! - [`parse`] reads one Reflex workflow document into the format-neutral
//!   [`wf_model::Workflow`] (with [`SourceFormat::ReflexJson`]), so every
//!   check of the analysis applies; malformed JSON and schema violations
//!   become diagnostics pointing into the JSON text.
//! - [`emit`] writes a model workflow back as a Reflex document that
//!   validates against the Reflex workflow schema.
//!
//! The mapping in both directions is documented in `docs/reflex.md`. This
//! crate sits below the analysis: it depends on the model and the
//! diagnostics only.
//!
//! [`SourceFormat::ReflexJson`]: wf_model::SourceFormat::ReflexJson

mod conventions;
mod emit;
mod guards;
pub mod json;
mod lower;
mod ordered;
mod print;
mod schema;

use wf_diagnostics::{Diagnostic, FileId, Label, codes};
use wf_model::Workflow;

pub use emit::{EmitError, emit, guard_problems};
pub use ordered::OrderedJson;

/// What reading one Reflex document yields.
#[derive(Debug, Clone, PartialEq)]
pub struct ReflexParsed {
    /// The workflow (none when the text is not JSON, or not an object).
    pub workflows: Vec<Workflow>,
    /// Syntax and schema diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads one Reflex workflow document. Never panics; nesting deeper than
/// [`json::MAX_DEPTH`] is an error.
pub fn parse(text: &str, file: FileId) -> ReflexParsed {
    match json::parse(text) {
        Ok(doc) => {
            let (workflow, diagnostics) = lower::lower_document(&doc, file);
            ReflexParsed {
                workflows: workflow.into_iter().collect(),
                diagnostics,
            }
        }
        Err(err) => {
            let mut diagnostic =
                Diagnostic::new(&codes::INVALID_JSON, err.message, err.span.in_file(file))
                    .with_primary_label(err.label);
            if let Some((span, label)) = err.opened {
                diagnostic
                    .labels
                    .push(Label::new(span.in_file(file), label));
            }
            ReflexParsed {
                workflows: Vec::new(),
                diagnostics: vec![diagnostic],
            }
        }
    }
}

/// Whether a JSON text is a wfc IR file (written by `wfc build`): an
/// object whose top-level `format` member is the string `"wfc-ir"`. Such a
/// file is not a Reflex workflow: `wfc check` verifies it with the IR
/// loader instead.
pub fn is_ir_file(text: &str) -> bool {
    match json::parse(text) {
        Ok(json::Json {
            kind: json::JsonKind::Object(members),
            ..
        }) => members.iter().any(|m| {
            m.key == "format" && matches!(&m.value.kind, json::JsonKind::String(f) if f == "wfc-ir")
        }),
        _ => false,
    }
}

/// Whether a JSON text looks like a Reflex workflow: an object with
/// `entry` and `nodes` members at its top level. Directory walks use this
/// to skip other JSON files (package manifests, IR files, …). Malformed
/// JSON does not look like a workflow.
pub fn looks_like_reflex(text: &str) -> bool {
    match json::parse(text) {
        Ok(json::Json {
            kind: json::JsonKind::Object(members),
            ..
        }) => members.iter().any(|m| m.key == "entry") && members.iter().any(|m| m.key == "nodes"),
        _ => false,
    }
}
