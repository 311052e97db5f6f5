//! Analysis of workflow programs: lowering `.wf` syntax to the
//! format-neutral [`wf_model`], and the checks that run over the model.
//!
//! The pipeline is incremental: [`db::Database`] holds the files of a
//! project and computes everything as salsa queries (parse → lower → names
//! and imports → per-workflow graph facts → checks → diagnostics), so an
//! edit re-runs only what depends on it (see `docs/architecture.md`).
//! [`check_sources`] wraps it for one-shot checks. A `call` sees the
//! workflows of its own file and of the files that file imports
//! ([`imports`]); workflow names are unique across the project.
//!
//! Checks register in two places: [`check_workflow`] for checks of one
//! workflow alone (memoized per workflow), and, for checks that look across
//! calls, [`check_program_wide`] (a program without a database) plus a
//! per-workflow query over span-free summaries of the callees in
//! `db::flow` (the database never builds the whole program).

pub mod attractor;
pub mod attributes;
pub mod dataflow;
pub mod db;
pub mod graph;
pub mod guards;
pub mod imports;
pub mod lower;
pub mod names;
pub mod project;
pub mod suggest;
pub mod suppress;
mod text;

#[cfg(test)]
mod test_support;

use wf_diagnostics::{Diagnostic, FileId, Sources};
use wf_model::{Program, Workflow};
use wf_syntax::Parsed;

pub use db::Database;
use graph::GraphFacts;

/// The outcome of checking a set of files.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The lowered program.
    pub program: Program,
    /// Every diagnostic (syntax, names, graph), sorted by [`sort_diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
}

/// Checks parsed files together as one program: their parse diagnostics,
/// then lowering and every check, sorted deterministically. Without paths,
/// imports cannot be resolved: all workflows form one namespace (see
/// [`check_program`]). [`check_sources`] and [`Database`] resolve imports.
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

/// Checks in-memory sources as one project through a [`Database`]: imports
/// resolve among the sources (nothing is read from disk; a missing one is
/// WF0107), the root is the sources' deepest common directory, and
/// suppression comments apply. Returns the sorted diagnostics, whose file
/// ids are those of `sources`.
pub fn check_sources(sources: &Sources) -> Vec<Diagnostic> {
    db::check_sources(sources)
}

/// Runs every model-level check on a lowered program, whatever format it
/// came from, treating it as one namespace (no imports). Unsorted. The
/// database runs the same checks per workflow ([`check_workflow`] and
/// `db::flow`), with import-aware names checks and call resolution.
pub fn check_program(program: &Program) -> Vec<Diagnostic> {
    let mut out = names::duplicate_workflows(program);
    out.extend(names::unknown_workflows(program));
    out.extend(check_program_wide(program));
    for workflow in &program.workflows {
        out.extend(check_workflow(workflow, &graph::analyze(workflow)));
    }
    out
}

/// Every check of one workflow alone, given its graph facts (computed by
/// the caller so that the database can memoize them apart from spans).
/// Register per-workflow checks here.
pub fn check_workflow(workflow: &Workflow, facts: &GraphFacts) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = names::unknown_entry(workflow).into_iter().collect();
    out.extend(names::undeclared_nodes(workflow));
    out.extend(names::reserved_names(workflow));
    out.extend(graph::check_workflow_with(workflow, facts));
    out.extend(dataflow::check_workflow(workflow));
    out.extend(attributes::check_workflow(workflow));
    out.extend(guards::check_workflow(workflow, &facts.adjacency));
    attractor::check_workflow(workflow, facts, &mut out);
    out
}

/// The checks across calls (data flow between a caller and its callees,
/// recursion) over a whole program treated as one namespace. A check added
/// here must also be added to the database's per-workflow queries
/// (`db::flow`), which run it from span-free callee summaries; prefer
/// [`check_workflow`] for checks of one workflow alone.
pub fn check_program_wide(program: &Program) -> Vec<Diagnostic> {
    dataflow::check_program(program)
}

/// Applies the `// wfc: allow(...)` comments of every file (see
/// [`suppress`]), adds the diagnostics for malformed ones and re-sorts.
pub fn apply_suppressions(
    sources: &Sources,
    files: &[(FileId, &Parsed)],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut all = Vec::new();
    for (file, parsed) in files {
        let text = &sources.get(*file).text;
        let (suppressions, problems) = suppress::collect(*file, text, parsed);
        all.extend(suppressions);
        diagnostics.extend(problems);
    }
    suppress::apply(diagnostics, &all);
    sort_diagnostics(diagnostics);
}

/// Sorts diagnostics by file, start offset and code. The sort is stable, so
/// diagnostics that tie keep the order they were produced in (syntax first).
pub fn sort_diagnostics(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        let (la, lb) = (a.primary.location, b.primary.location);
        (la.file, la.span.start, a.code.code).cmp(&(lb.file, lb.span.start, b.code.code))
    });
}
