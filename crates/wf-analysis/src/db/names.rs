//! The import-aware names checks of one file: WF0101 duplicate workflows
//! (names are unique across the project) and WF0104 calls to workflows the
//! file cannot see (its own and its direct imports').

use std::path::{Component, Path, PathBuf};

use salsa::Database as Db;
use wf_diagnostics::{Applicability, Diagnostic, FileId, Fix, Span, codes};

use super::formats::FrontEnd;
use super::queries::{
    LoweredFile, WorkflowId, file_workflows, lower_file, visible_workflows, workflow_model,
};
use super::{Project, SourceFile};
use crate::imports;
use crate::suggest::{SuggestionIndex, name_source_text};
use crate::text::join_truncated;

/// How many visible workflows a WF0104 message lists before `and N more`.
const MAX_LISTED_WORKFLOWS: usize = 8;

/// WF0101 for every workflow of `file` whose name an earlier definition (in
/// an earlier file, or earlier in this one) already uses. Reads other files'
/// spans only when there is a duplicate.
pub fn duplicates(db: &dyn Db, project: Project, file: SourceFile) -> Vec<Diagnostic> {
    let all = super::queries::published_names(db, project);
    let is_dot = |f: SourceFile| super::formats::front_end(f.path(db)) == FrontEnd::Dot;
    let mut out = Vec::new();
    for &id in file_workflows(db, file) {
        let name = id.name(db);
        if name.is_empty() {
            // A workflow whose name failed to parse: already a syntax error.
            continue;
        }
        // An Attractor pipeline is a program of its own: nothing calls it and
        // it calls nothing, so its graph name only has to be unique in its
        // file, and it never clashes with other files' workflows.
        let definers: Vec<SourceFile> = if is_dot(file) {
            vec![file]
        } else {
            all[name].iter().copied().filter(|&f| !is_dot(f)).collect()
        };
        // Definitions of `name` in files before this one, plus the earlier
        // ones in this file.
        let before = definers.iter().take_while(|&&f| f != file).count() as u32;
        if before + id.occurrence(db) == 0 {
            continue;
        }
        let first_file = definers[0];
        let first = WorkflowId::new(db, first_file, name.clone(), 0);
        let here = workflow_model(db, id).name_span;
        let original = workflow_model(db, first).name_span;
        out.push(
            Diagnostic::new(
                &codes::DUPLICATE_WORKFLOW,
                format!("workflow `{name}` is defined more than once"),
                here,
            )
            .with_primary_label(format!("`{name}` redefined here"))
            .with_label(original, "first defined here")
            .with_help("rename one of them: workflow names must be unique across all files checked together"),
        );
    }
    out
}

/// WF0104 for every `call` in `file` whose callee is not visible from it.
/// When another file of the project defines the callee, the diagnostic says
/// so and offers to add the import.
pub fn unknown_calls(db: &dyn Db, project: Project, file: SourceFile) -> Vec<Diagnostic> {
    let visible = visible_workflows(db, project, file);
    let lowered = lower_file(db, file);
    let mut index: Option<SuggestionIndex<'_>> = None;
    let mut out = Vec::new();
    for workflow in &lowered.workflows {
        for node in &workflow.nodes {
            let Some(call) = &node.call else { continue };
            if visible.contains(&call.workflow) {
                continue;
            }
            let callee = &call.workflow;
            if let Some(definer) = super::queries::published_names(db, project)
                .get(callee)
                .and_then(|files| files.first())
            {
                let relative = relative_import(file.path(db), definer.path(db));
                out.push(
                    Diagnostic::new(
                        &codes::UNKNOWN_WORKFLOW,
                        format!(
                            "workflow `{callee}` is defined in `{}`, which this file does not import",
                            definer.display(db)
                        ),
                        call.workflow_span,
                    )
                    .with_primary_label(format!("`{callee}` is not visible here"))
                    .with_help(format!(
                        "add `import \"{relative}\"`: a call sees the workflows of its own file and of the files it imports"
                    ))
                    .with_fix(add_import_fix(lowered, file.id(db), &relative)),
                );
                continue;
            }
            if visible.contains("") {
                // A workflow here lost its name to a syntax error: it may be
                // the callee, so an "unknown workflow" would be a guess.
                continue;
            }
            let listed = join_truncated(visible.iter(), MAX_LISTED_WORKFLOWS);
            let diagnostic = Diagnostic::new(
                &codes::UNKNOWN_WORKFLOW,
                format!("unknown workflow `{callee}` (known workflows: {listed})"),
                call.workflow_span,
            )
            .with_primary_label(format!("no workflow named `{callee}`"));
            let index = index
                .get_or_insert_with(|| SuggestionIndex::new(visible.iter().map(String::as_str)));
            out.push(match index.suggest(callee) {
                Some(suggestion) => diagnostic
                    .with_help(format!("did you mean `{suggestion}`?"))
                    .with_fix(Fix::replace(
                        format!("replace with `{suggestion}`"),
                        call.workflow_span,
                        name_source_text(suggestion),
                        Applicability::MaybeIncorrect,
                    )),
                None if super::formats::front_end(file.path(db)) == FrontEnd::Reflex => {
                    diagnostic.with_help(format!(
                        "define the workflow in `{callee}.json` beside this file, or check the file that defines it together with this one"
                    ))
                }
                None => diagnostic.with_help(format!(
                    "define `workflow {} {{ … }}` in this file or in a file it imports, and import that file",
                    name_source_text(callee)
                )),
            });
        }
    }
    out
}

/// Inserts `import "path"` after the file's last import, or at its start.
fn add_import_fix(lowered: &LoweredFile, file: FileId, path: &str) -> Fix {
    let (at, replacement) = match lowered.imports.last() {
        Some(last) => (last.span.span.end, format!("\nimport \"{path}\"")),
        None => (0, format!("import \"{path}\"\n\n")),
    };
    Fix::replace(
        format!("import `{path}`"),
        Span::new(at as usize, at as usize).in_file(file),
        replacement,
        Applicability::MachineApplicable,
    )
}

/// The import path that leads from the file at `from` to the file at `to`
/// (both normalised, in the same space), with `/` separators.
pub fn relative_import(from: &Path, to: &Path) -> String {
    let dir = from.parent().unwrap_or(Path::new(""));
    let common = dir
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in dir.components().skip(common) {
        out.push(Component::ParentDir);
    }
    for part in to.components().skip(common) {
        out.push(part);
    }
    imports::display(&out)
}
