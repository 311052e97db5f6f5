//! Source formats: which front end reads a file, chosen by its extension,
//! and what the non-`.wf` front ends give the queries.
//!
//! `.wf` files go through `wf-syntax` and `crate::lower` (see
//! [`super::queries::lower_file`]); `.json` files are Reflex workflow
//! documents read by `wf-reflex`; `.dot` and `.fabro` files are Attractor
//! pipelines read by `wf-dot`. A new front end adds a [`FrontEnd`]
//! variant, a branch in [`front_end`] and a `lower_…` function here, and
//! the queries dispatch on it the same way.
//!
//! Reflex files have no `import` items. Reflex engines register workflows
//! in one flat registry, so a Reflex file's `invokes` may name any workflow
//! of the project (see [`super::queries::visible_workflows`]), and each
//! invoked workflow the file does not define implies the file
//! `<workflowId>.json` beside it, which the loader reads like an import
//! (the layout of the Reflex fixtures), so that checking one file finds
//! the workflows it invokes. An implied file that does not exist is not
//! reported: the call is then WF0104, unknown workflow.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wf_diagnostics::FileId;
use wf_model::SourceFormat;

use super::queries::{LoweredFile, positions};
use crate::imports::{self, ImportDecl, PathProblem};

/// The front end that reads a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontEnd {
    /// The `.wf` language (also the default for unknown extensions, so that
    /// standard input and extension-less files read as `.wf`).
    Wf,
    /// Reflex workflow JSON (`.json`).
    Reflex,
    /// Attractor DOT pipelines (`.dot`, `.gv`, and `.fabro`, the same dialect).
    Dot,
}

/// The front end for the file at `path`, by its extension (the table is
/// [`wf_model::EXTENSIONS`]).
pub fn front_end(path: &Path) -> FrontEnd {
    match SourceFormat::of_path(path) {
        Some(SourceFormat::ReflexJson) => FrontEnd::Reflex,
        Some(SourceFormat::Dot) => FrontEnd::Dot,
        Some(SourceFormat::Wf) | None => FrontEnd::Wf,
    }
}

/// A file of a format lowered from its text alone (DOT and Reflex), the
/// front end chosen by `path`; `None` for `.wf`, whose lowering reads the
/// `parse_file` query.
pub fn lower_text(path: &Path, file: FileId, text: &str) -> Option<LoweredFile> {
    match front_end(path) {
        FrontEnd::Dot => Some(lower_dot(file, text)),
        FrontEnd::Reflex => Some(lower_reflex(file, text)),
        FrontEnd::Wf => None,
    }
}

/// A DOT file lowered by `wf-dot`: its pipeline (one workflow) and the
/// syntax and lowering diagnostics. Its imports are the child pipelines of
/// its manager nodes (see [`imports::child`]).
pub fn lower_dot(file: FileId, text: &str) -> LoweredFile {
    let mut lowered = wf_dot::parse_and_lower(text, file);
    // The front end reports two Attractor lint rules itself
    // (`condition_syntax`, `stylesheet_syntax`): name the rule on them too.
    lowered
        .diagnostics
        .iter_mut()
        .for_each(crate::attractor::annotate);
    let workflows: Vec<_> = lowered
        .program
        .workflows
        .into_iter()
        .map(Arc::new)
        .collect();
    // A manager node's child pipeline is loaded and checked like an import.
    let imports = workflows
        .iter()
        .flat_map(|w| imports::child::child_imports(w))
        .collect();
    LoweredFile {
        positions: positions(&workflows),
        workflows,
        imports,
        diagnostics: lowered.diagnostics,
    }
}

/// A Reflex file lowered: its workflow, the implied imports of the
/// workflows it invokes, and the JSON and schema diagnostics. A wfc IR
/// file (`"format": "wfc-ir"`, written by `wfc build`) is not Reflex and
/// lowers to nothing here: `wfc check` verifies it with `wf-ir`'s loader
/// (WF0011).
pub fn lower_reflex(file: FileId, text: &str) -> LoweredFile {
    if text.contains("wfc-ir") && wf_reflex::is_ir_file(text) {
        return LoweredFile {
            positions: positions(&[]),
            workflows: Vec::new(),
            imports: Vec::new(),
            diagnostics: Vec::new(),
        };
    }
    let parsed = wf_reflex::parse(text, file);
    let mut imports: Vec<ImportDecl> = Vec::new();
    for workflow in &parsed.workflows {
        for call in workflow.nodes.iter().filter_map(|n| n.call.as_ref()) {
            let defined_here = parsed.workflows.iter().any(|w| w.name == call.workflow);
            let path = format!("{}.json", call.workflow);
            if !defined_here
                && is_file_name(&call.workflow)
                && !imports.iter().any(|i| i.path == path)
            {
                imports.push(ImportDecl {
                    path,
                    span: call.workflow_span,
                    alias: None,
                });
            }
        }
    }
    let workflows: Vec<_> = parsed.workflows.into_iter().map(Arc::new).collect();
    LoweredFile {
        positions: positions(&workflows),
        workflows,
        imports,
        diagnostics: parsed.diagnostics,
    }
}

/// Whether a workflow id can name a file beside the invoking one (no
/// separators, not `.` or `..`): other ids imply no file.
fn is_file_name(id: &str) -> bool {
    !id.is_empty() && id != "." && id != ".." && !id.contains(['/', '\\', ':', '\0'])
}

/// Resolves an import of the file at `importer`: `.wf` imports by the
/// language's rules ([`imports::resolve`]); a pipeline's child pipelines
/// by the same rules ([`imports::child::resolve`]); a Reflex file's implied
/// `<workflowId>.json` beside it.
pub fn resolve_import(importer: &Path, literal: &str, root: &Path) -> Result<PathBuf, PathProblem> {
    match front_end(importer) {
        FrontEnd::Wf => imports::resolve(importer, literal, root),
        FrontEnd::Dot => imports::child::resolve(importer, literal, root),
        FrontEnd::Reflex => {
            let dir = importer.parent().unwrap_or(Path::new(""));
            let resolved = imports::normalize(&dir.join(literal));
            if imports::is_inside(&resolved, root) {
                Ok(resolved)
            } else {
                Err(PathProblem::EscapesRoot)
            }
        }
    }
}
