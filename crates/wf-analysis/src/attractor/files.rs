//! WF0815: the `@file` prompts a `.dot` pipeline names that do not exist,
//! resolved against the pipeline's directory as the engines resolve them.
//! The database runs it for pipelines checked from a file. Child
//! pipelines are not checked here: they load like imports, and a missing
//! one is WF0107 (`imports::child`), reported once.

use std::path::Path;

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{Attribute, Value, Workflow};

/// Every missing file `workflow` names, relative to `dir`.
pub fn check(workflow: &Workflow, dir: &Path) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let blocks =
        std::iter::once(&workflow.attributes).chain(workflow.nodes.iter().map(|n| &n.attributes));
    for attributes in blocks {
        for attribute in attributes {
            if let Some((path, what)) = named_file(attribute)
                && !dir.join(path).exists()
            {
                out.push(missing(attribute, path, what, dir));
            }
        }
    }
    out
}

/// The path an attribute names, and what the file is for.
fn named_file(attribute: &Attribute) -> Option<(&str, &'static str)> {
    let Value::String(text) = &attribute.value else {
        return None;
    };
    if !matches!(attribute.key.as_str(), "prompt" | "goal") {
        return None;
    }
    let path = text.trim().strip_prefix('@')?;
    // One path, not a sentence that happens to start with `@`.
    (!path.is_empty() && !path.contains(char::is_whitespace)).then_some((path, "the prompt file"))
}

fn missing(attribute: &Attribute, path: &str, what: &str, dir: &Path) -> Diagnostic {
    Diagnostic::new(
        &codes::ATTRACTOR_MISSING_FILE,
        format!("{what} `{path}` does not exist"),
        attribute.value_span,
    )
    .with_primary_label(format!("no such file in `{}`", shown(dir)))
    .with_help("paths are relative to the pipeline's directory; name a file that exists")
}

fn shown(dir: &Path) -> String {
    let text = dir.display().to_string();
    if text.is_empty() { ".".into() } else { text }
}
