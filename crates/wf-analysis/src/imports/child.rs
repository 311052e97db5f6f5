//! Child pipelines: the `.dot` file a `stack.manager_loop` node supervises
//! (`stack.child_dotfile`, fabro's `stack.child_workflow`; the node's
//! attribute, else the graph's).
//!
//! They follow the rules of imports, with the same codes: the path is
//! relative to the directory of the pipeline that names it, may not be
//! absolute or leave the project root (WF0108), and the file must exist
//! (WF0107). It must name a pipeline, `.dot`, `.fabro` or `.gv` (WF0110):
//! nothing else is ever read, so a path such as `/etc/passwd` or
//! `notes.txt` never reaches a parser that would quote its lines. The
//! loader reads child pipelines like imports, so `wfc check` (and the
//! language server) check them; `wfc run` applies the same rules again
//! when a manager node starts its child (the IR may come from elsewhere).

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{Value, Workflow};

use super::{ImportDecl, LoadFailure, PathNouns, display};
// The rule itself lives below the analysis: `wfc run` applies it again
// when a manager node starts its child.
pub use wf_paths::{PIPELINE_EXTENSIONS, resolve_child as resolve};

/// The attributes naming a manager node's child pipeline, in the order
/// they are read.
pub const CHILD_ATTRIBUTES: [&str; 2] = ["stack.child_dotfile", "stack.child_workflow"];

/// The child pipelines the manager nodes of `workflow` name, as imports:
/// one per distinct attribute (a graph attribute shared by several
/// managers is one), pointing at the attribute's value.
pub fn child_imports(workflow: &Workflow) -> Vec<ImportDecl> {
    let text = |attributes: &[wf_model::Attribute]| {
        CHILD_ATTRIBUTES.iter().find_map(|key| {
            attributes
                .iter()
                .find(|a| a.key == *key)
                .and_then(|a| match &a.value {
                    Value::String(s) | Value::Ref(s) if !s.trim().is_empty() => {
                        Some((s.trim().to_owned(), a.value_span))
                    }
                    _ => None,
                })
        })
    };
    let mut out: Vec<ImportDecl> = Vec::new();
    for node in &workflow.nodes {
        let is_entry = match &workflow.entry {
            Some((name, _)) => *name == node.name,
            None => node.name == "start",
        };
        if wf_dot::node_handler(node, is_entry) != "stack.manager_loop" {
            continue;
        }
        let Some((path, span)) = text(&node.attributes).or_else(|| text(&workflow.attributes))
        else {
            continue;
        };
        if !out.iter().any(|i| i.span == span) {
            out.push(ImportDecl {
                path,
                span,
                alias: None,
            });
        }
    }
    out
}

/// The nouns of child pipeline paths, for [`super::path_problem`]
/// (WF0110 for a file that is not a pipeline).
pub static CHILD: PathNouns = PathNouns {
    path: "child pipeline path",
    base: "this pipeline",
    target: "the child pipeline",
    wrong_kind: &codes::CHILD_NOT_PIPELINE,
    kind: "a `.dot` pipeline",
    kind_label: "a manager node supervises a `.dot` (or `.fabro`, `.gv`) pipeline",
    kind_help: "name the child pipeline's `.dot` file, relative to this pipeline",
};

/// WF0107 (or WF0108 for a symbolic link leaving the root) for a child
/// pipeline that could not be loaded; `shown` is where the path leads.
pub fn load_problem(child: &ImportDecl, failure: &LoadFailure, shown: &str) -> Diagnostic {
    let path = &child.path;
    match failure {
        LoadFailure::NotFound => Diagnostic::new(
            &codes::UNRESOLVED_IMPORT,
            format!("child pipeline `{path}` not found"),
            child.span,
        )
        .with_primary_label(format!("no file at `{shown}`"))
        .with_help("child pipeline paths are relative to the directory of the pipeline that names them"),
        LoadFailure::Directory => Diagnostic::new(
            &codes::UNRESOLVED_IMPORT,
            format!("child pipeline path `{path}` names a directory"),
            child.span,
        )
        .with_primary_label(format!("`{shown}` is a directory"))
        .with_help("name the child pipeline's `.dot` file"),
        LoadFailure::Unreadable(reason) => Diagnostic::new(
            &codes::UNRESOLVED_IMPORT,
            format!("child pipeline `{path}` cannot be read"),
            child.span,
        )
        .with_primary_label(format!("cannot read `{shown}`"))
        .with_note(reason.clone()),
        LoadFailure::OutsideRoot(target) => Diagnostic::new(
            &codes::IMPORT_OUTSIDE_ROOT,
            format!("child pipeline path `{path}` leaves the project root through a symbolic link"),
            child.span,
        )
        .with_primary_label(format!("`{shown}` links outside the project"))
        .with_note(format!("the link resolves to `{}`", display(target)))
        .with_help("copy the pipeline into the project, or move `wf.toml` up to a directory that contains the target"),
    }
}

#[cfg(test)]
mod extension_table_tests {
    /// `wf-paths` keeps its own list of pipeline extensions (the runtime
    /// links it without the model); it must be exactly the DOT rows of the
    /// one extension table.
    #[test]
    fn pipeline_extensions_are_the_dot_rows_of_the_extension_table() {
        let dot: Vec<&str> = wf_model::EXTENSIONS
            .iter()
            .filter(|e| e.format == wf_model::SourceFormat::Dot)
            .map(|e| e.extension)
            .collect();
        assert_eq!(dot, super::PIPELINE_EXTENSIONS);
    }
}
