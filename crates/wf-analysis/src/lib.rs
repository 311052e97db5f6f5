//! Analysis of workflow programs: lowering `.wf` syntax to the
//! format-neutral [`wf_model`], and the checks that run over the model.
//!
//! The pipeline is a chain of pure functions so each step can later become
//! a salsa query: [`wf_syntax::parse`] → [`lower::lower_files`] →
//! [`check_program`] (the [`names`] and [`graph`] families). All files given
//! together form one program: a `call` in one file finds a workflow defined
//! in another. Imports are not resolved yet.

pub mod graph;
pub mod lower;
pub mod names;
pub mod suggest;
mod text;

#[cfg(test)]
mod test_support;

use wf_diagnostics::{Diagnostic, FileId, Sources};
use wf_model::Program;
use wf_syntax::Parsed;

/// The outcome of checking a set of files.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The lowered program.
    pub program: Program,
    /// Every diagnostic (syntax, names, graph), sorted by [`sort_diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
}

/// Checks parsed files together as one program: their parse diagnostics,
/// then lowering and every check, sorted deterministically.
pub fn check_files(files: &[(FileId, &Parsed)]) -> Analysis {
    let mut diagnostics: Vec<Diagnostic> = files
        .iter()
        .flat_map(|(_, parsed)| parsed.diagnostics.iter().cloned())
        .collect();
    let lowered = lower::lower_parsed(files);
    diagnostics.extend(lowered.diagnostics);
    diagnostics.extend(check_program(&lowered.program));
    sort_diagnostics(&mut diagnostics);
    Analysis {
        program: lowered.program,
        diagnostics,
    }
}

/// Parses every file of `sources` as `.wf` and checks them together (see
/// [`check_files`]); returns the sorted diagnostics.
pub fn check_sources(sources: &Sources) -> Vec<Diagnostic> {
    let parsed: Vec<(FileId, Parsed)> = sources
        .iter()
        .map(|(id, file)| (id, wf_syntax::parse(&file.text, id)))
        .collect();
    let refs: Vec<(FileId, &Parsed)> = parsed.iter().map(|(id, p)| (*id, p)).collect();
    check_files(&refs).diagnostics
}

/// Runs every model-level check (names, then graph per workflow) on a
/// lowered program, whatever format it came from. Unsorted.
pub fn check_program(program: &Program) -> Vec<Diagnostic> {
    let mut out = names::check_names(program);
    for workflow in &program.workflows {
        out.extend(graph::check_workflow(workflow));
    }
    out
}

/// Sorts diagnostics by file, start offset and code. The sort is stable, so
/// diagnostics that tie keep the order they were produced in (syntax first).
pub fn sort_diagnostics(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        let (la, lb) = (a.primary.location, b.primary.location);
        (la.file, la.span.start, a.code.code).cmp(&(lb.file, lb.span.start, b.code.code))
    });
}
