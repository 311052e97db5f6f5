//! Turning `wfc run FILE` into a verified IR program and a root workflow.

use std::io::IsTerminal;
use std::path::Path;

use wf_diagnostics::Severity;
use wf_ir::{IrProgram, WorkflowIdx};
use wf_render::{self as render, Format, RenderOptions};

use crate::inputs;

/// Why the program could not be loaded; the message is printed as is.
pub struct LoadFailure(pub String);

/// A loaded program and the workflows declared in the file given (the
/// candidates for the default workflow), in declaration order.
pub struct Loaded {
    /// The verified program.
    pub program: IrProgram,
    /// The file's own workflows, by index in `program`.
    pub own: Vec<WorkflowIdx>,
    /// The source format, which picks the default agent.
    pub format: SourceFormat,
}

/// What kind of file `wfc run` was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    /// IR written by `wfc build`.
    Ir,
    /// Reflex workflow JSON.
    Reflex,
    /// `.wf`, or another source (Attractor `.dot` pipelines).
    Source,
}

/// Reads `path`: IR JSON (`"format": "wfc-ir"`) is loaded and verified;
/// anything else (`.wf`, and the other source formats the analysis reads)
/// is checked like `wfc check` does — diagnostics are printed to stderr and
/// errors refuse the run — then compiled.
pub fn load(path: &Path) -> Result<Loaded, LoadFailure> {
    let bytes = std::fs::read(path).map_err(|e| {
        LoadFailure(format!(
            "error: cannot read `{}`: {}",
            path.display(),
            inputs::io_reason(&e)
        ))
    })?;
    if is_ir(&bytes) {
        let text = String::from_utf8_lossy(&bytes);
        let program = wf_ir::load(&text).map_err(|e| {
            LoadFailure(format!(
                "error: `{}` is not a valid IR file: {e}",
                path.display()
            ))
        })?;
        let own = (0..program.workflows.len() as u32)
            .map(WorkflowIdx)
            .collect();
        return Ok(Loaded {
            program,
            own,
            format: SourceFormat::Ir,
        });
    }
    // The analysis reads any `.json` that is not IR as Reflex.
    let format = match wf_model::SourceFormat::of_path(path) {
        Some(wf_model::SourceFormat::ReflexJson) => SourceFormat::Reflex,
        _ => SourceFormat::Source,
    };
    let mut loaded = compile_source(path)?;
    loaded.format = format;
    Ok(loaded)
}

/// Whether the file is IR JSON: a JSON object whose `format` is `wfc-ir`.
fn is_ir(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        format: Option<String>,
    }
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    first == Some(&b'{')
        && serde_json::from_slice::<Probe>(bytes)
            .ok()
            .and_then(|p| p.format)
            .is_some_and(|f| f == wf_ir::FORMAT)
}

/// Checks and compiles a source file (and its imports), as a member of
/// the project (`wf.toml`) found from its folder, as `wfc check` does: the
/// project's root confines its imports and its `[lints]` levels apply.
fn compile_source(path: &Path) -> Result<Loaded, LoadFailure> {
    let project = crate::check::load_project(Some(&path.to_path_buf())).map_err(|mut e| {
        e.path = crate::check::relative_to_cwd(&e.path);
        LoadFailure(format!("error: {e}"))
    })?;
    let mut sources = wf_diagnostics::Sources::new();
    let mut errors = Vec::new();
    inputs::read_files(&[path.to_path_buf()], &mut sources, &mut errors);
    if let Some(e) = errors.into_iter().next() {
        return Err(LoadFailure(format!("error: {}", e.0)));
    }
    let root = project.as_ref().map(|p| p.root.as_path());
    let db = inputs::load_database(sources, inputs::EarlyLowered::default(), root);
    let mut diagnostics = db.diagnostics();
    if let Some(project) = &project {
        wf_analysis::project::apply_lint_levels(&mut diagnostics, project);
    }
    if !diagnostics.is_empty() {
        let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            && std::io::stderr().is_terminal();
        let shown = render::render(
            &diagnostics,
            &db.sources(),
            Format::Human,
            &RenderOptions { color },
        );
        eprint!("{shown}");
    }
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if errors > 0 {
        return Err(LoadFailure(format!(
            "error: `{}` has {errors} error{}; fix {} and run again (`wfc check {}` lists {})",
            path.display(),
            if errors == 1 { "" } else { "s" },
            if errors == 1 { "it" } else { "them" },
            path.display(),
            if errors == 1 { "it" } else { "them" },
        )));
    }
    let model = db.program();
    // The file given was the database's first; its imports come after.
    let file = wf_diagnostics::FileId(0);
    let program = wf_compile::compile_with(&model, &db.sources())
        .map_err(|e| LoadFailure(format!("error: cannot compile `{}`: {e}", path.display())))?;
    let own = model
        .workflows
        .iter()
        .enumerate()
        .filter(|(_, w)| w.file == file)
        .map(|(i, _)| WorkflowIdx(i as u32))
        .collect();
    Ok(Loaded {
        program,
        own,
        format: SourceFormat::Source,
    })
}

/// The workflow to run: `--workflow NAME`; else the only one of the file's
/// workflows that no other workflow calls; else the file's first. The
/// second value says why, for a note when the choice was not obvious.
pub fn choose_workflow(
    loaded: &Loaded,
    name: Option<&str>,
) -> Result<(WorkflowIdx, Option<String>), String> {
    let program = &loaded.program;
    if let Some(name) = name {
        return program
            .workflow_by_name(name)
            .map(|w| (w, None))
            .ok_or_else(|| {
                let names: Vec<&str> = program
                    .workflows
                    .iter()
                    .map(|w| program.str(w.name))
                    .collect();
                format!(
                    "no workflow `{name}` in the program (it has: {})",
                    names.join(", ")
                )
            });
    }
    let Some(&first) = loaded.own.first() else {
        return Err("the file declares no workflow".into());
    };
    if loaded.own.len() == 1 {
        return Ok((first, None));
    }
    let called = |target: WorkflowIdx| {
        program.workflows.iter().enumerate().any(|(i, w)| {
            i as u32 != target.0
                && w.nodes
                    .iter()
                    .any(|n| n.call.as_ref().is_some_and(|c| c.workflow == target))
        })
    };
    let roots: Vec<WorkflowIdx> = loaded.own.iter().copied().filter(|&w| !called(w)).collect();
    let chosen = match roots.as_slice() {
        [only] => *only,
        _ => first,
    };
    Ok((
        chosen,
        Some(format!(
            "running `{}`, one of {} workflows (choose another with --workflow)",
            program.str(program.workflows[chosen.0 as usize].name),
            loaded.own.len()
        )),
    ))
}
