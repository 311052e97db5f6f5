//! Analysis of workflow programs: lowering `.wf` syntax to the
//! format-neutral [`wf_model`], and the checks that run over the model.
//!
//! The pipeline is incremental: [`db::Database`] holds the files of a
//! project and computes everything as salsa queries (parse → lower → names
//! and imports → per-workflow graph facts → checks → diagnostics), so an
//! edit re-runs only what depends on it (see `docs/architecture.md`).
//! [`check_sources`] and [`analyze_sources`] wrap it for one-shot checks of
//! in-memory files. A `call` sees the workflows of its own file and of the
//! files that file imports ([`imports`]); workflow names are unique across
//! the project. There is no other pipeline: every caller (CLI, language
//! server, tests) checks through the database.
//!
//! Checks register in two places: [`check_workflow`] for checks of one
//! workflow alone (memoized per workflow), and, for checks that look across
//! calls, a per-workflow query over span-free summaries of the callees in
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

/// The outcome of checking a set of in-memory files ([`analyze_sources`]).
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The program, as [`Database::program`] builds it: files in path
    /// order, child pipelines left out.
    pub program: Program,
    /// Every diagnostic, sorted as [`Database::diagnostics`] sorts them.
    pub diagnostics: Vec<Diagnostic>,
}

/// Checks in-memory sources as one project through a [`Database`]: imports
/// resolve among the sources (nothing is read from disk; a missing one is
/// WF0107), the root is the sources' deepest common directory, and
/// suppression comments apply. Returns the sorted diagnostics, whose file
/// ids are those of `sources`.
pub fn check_sources(sources: &Sources) -> Vec<Diagnostic> {
    db::analyze_sources(sources).diagnostics
}

/// [`check_sources`], also returning the checked program (for callers that
/// go on to compile or run it).
pub fn analyze_sources(sources: &Sources) -> Analysis {
    db::analyze_sources(sources)
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
