//! The tracked queries. Each is a pure function of its inputs; salsa
//! memoizes it and re-runs it only when something it read has changed. The
//! graph is drawn in `docs/architecture.md`.
//!
//! Two habits keep edits local:
//! - Queries that many others depend on return span-free values
//!   ([`workflow_names`], [`import_targets`], [`visible_workflows`],
//!   [`project_workflows`], [`workflow_shape`]), so an edit that only moves
//!   text produces an equal value and salsa stops the invalidation there.
//! - Per-workflow queries are keyed by [`WorkflowId`] (file, name,
//!   occurrence), not by position, so adding a workflow does not disturb the
//!   others.

use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use salsa::Database as Db;
use wf_diagnostics::{Applicability, Diagnostic, Family, FileId, Fix, TextEdit};
use wf_model::Workflow;
use wf_syntax::{Parsed, ast};

use super::formats::{FrontEnd, front_end};
use super::shape::strip_spans;
use super::{Project, SourceFile};
use crate::graph::{self, GraphFacts};
use crate::imports::{self, ImportDecl, PathProblem};
use crate::suggest::SuggestionIndex;
use crate::suppress::{self, Suppression};

/// One workflow of one file: its name and which definition of that name in
/// the file it is (0 for the first; duplicates are reported, but still
/// checked). Stable across edits that do not rename or reorder workflows.
#[salsa::interned(debug)]
pub struct WorkflowId<'db> {
    /// The file that defines it.
    #[returns(copy)]
    pub file: SourceFile,
    /// Its name.
    #[returns(ref)]
    pub name: String,
    /// How many workflows of the same name come before it in the file.
    #[returns(copy)]
    pub occurrence: u32,
}

/// A parsed file.
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse_file(db: &dyn Db, file: SourceFile) -> Parsed {
    wf_syntax::parse(file.text(db), file.id(db))
}

/// What lowering one file yields.
#[derive(Debug, Clone, PartialEq)]
pub struct LoweredFile {
    /// Its workflows, in source order.
    pub workflows: Vec<Arc<Workflow>>,
    /// Position in `workflows` of each (name, occurrence).
    pub positions: BTreeMap<(String, u32), usize>,
    /// Its imports, in source order.
    pub imports: Vec<ImportDecl>,
    /// Lowering diagnostics (duplicate nodes).
    pub diagnostics: Vec<Diagnostic>,
}

/// A file lowered to the model, with its imports.
#[salsa::tracked(returns(ref))]
pub fn lower_file(db: &dyn Db, file: SourceFile) -> Arc<LoweredFile> {
    if let Some(early) = file.early(db) {
        return Arc::clone(early);
    }
    Arc::new(lower_source(db, file))
}

/// What [`lower_file`] gives a file not lowered early.
fn lower_source(db: &dyn Db, file: SourceFile) -> LoweredFile {
    let id = file.id(db);
    if let Some(lowered) = super::formats::lower_text(file.path(db), id, file.text(db)) {
        return lowered;
    }
    let parsed = parse_file(db, file);
    let lowered = crate::lower::lower_parsed(&[(id, parsed)]);
    let imports = parsed
        .file
        .items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Import(import) => Some(ImportDecl {
                path: import.path.value.clone(),
                span: import.path.span.in_file(id),
                alias: import.alias.as_ref().map(|a| a.text.clone()),
            }),
            _ => None,
        })
        .collect();
    let workflows: Vec<_> = lowered
        .program
        .workflows
        .into_iter()
        .map(Arc::new)
        .collect();
    LoweredFile {
        positions: positions(&workflows),
        workflows,
        imports,
        diagnostics: lowered.diagnostics,
    }
}

/// [`LoweredFile::positions`] for a file's workflows.
pub(super) fn positions(workflows: &[Arc<Workflow>]) -> BTreeMap<(String, u32), usize> {
    let mut positions = BTreeMap::new();
    let mut seen: HashMap<&str, u32> = HashMap::default();
    for (i, workflow) in workflows.iter().enumerate() {
        let n = seen.entry(&workflow.name).or_default();
        positions.insert((workflow.name.clone(), *n), i);
        *n += 1;
    }
    positions
}

/// The names of a file's workflows, in order: span-free, so unchanged by
/// edits inside workflow bodies.
#[salsa::tracked(returns(ref))]
pub fn workflow_names(db: &dyn Db, file: SourceFile) -> Vec<String> {
    lower_file(db, file)
        .workflows
        .iter()
        .map(|w| w.name.clone())
        .collect()
}

/// The ids of a file's workflows, in order.
#[salsa::tracked(returns(ref))]
pub fn file_workflows<'db>(db: &'db dyn Db, file: SourceFile) -> Vec<WorkflowId<'db>> {
    let mut seen: HashMap<&str, u32> = HashMap::default();
    workflow_names(db, file)
        .iter()
        .map(|name| {
            let n = seen.entry(name).or_default();
            let id = WorkflowId::new(db, file, name.clone(), *n);
            *n += 1;
            id
        })
        .collect()
}

/// One workflow's model, spans included.
#[salsa::tracked(returns(ref))]
pub fn workflow_model<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Arc<Workflow> {
    let lowered = lower_file(db, id.file(db));
    let at = lowered.positions[&(id.name(db).clone(), id.occurrence(db))];
    lowered.workflows[at].clone()
}

/// One workflow without its spans (see [`super::shape`]), or, in a
/// database that is never edited ([`super::Database::set_one_shot`]), the
/// workflow itself: nothing reads the spans, attributes or doc comments of
/// a shape, so the analyses give the same results from either.
#[salsa::tracked(returns(ref))]
pub fn workflow_shape<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Arc<Workflow> {
    if Project::get(db).one_shot(db) {
        return Arc::clone(workflow_model(db, id));
    }
    Arc::new(strip_spans(workflow_model(db, id)))
}

/// The graph facts of one workflow, from its span-free shape: a
/// whitespace edit does not re-run it. O(nodes + edges).
#[salsa::tracked(returns(ref), no_eq)]
pub fn graph_facts<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Arc<GraphFacts> {
    Arc::new(graph::analyze(workflow_shape(db, id)))
}

/// The per-workflow checks ([`crate::check_workflow`]): turning the
/// memoized facts into diagnostics with spans.
#[salsa::tracked(returns(ref))]
pub fn workflow_diagnostics<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Vec<Diagnostic> {
    crate::check_workflow(workflow_model(db, id), graph_facts(db, id))
}

/// Every file of the project by (normalised) path.
#[salsa::tracked(returns(ref))]
pub fn files_by_path(db: &dyn Db, project: Project) -> HashMap<PathBuf, SourceFile> {
    project
        .files(db)
        .iter()
        .map(|&f| (f.path(db).clone(), f))
        .collect()
}

/// Where one import leads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ImportTarget {
    /// A file of the project.
    File(SourceFile),
    /// A well-formed path inside the root that no project file has (yet):
    /// the loader should try to load it.
    Absent(PathBuf),
    /// A path rejected before looking for a file.
    Invalid(PathProblem),
}

/// The targets of a file's imports, parallel to [`LoweredFile::imports`].
/// Span-free.
#[salsa::tracked(returns(ref))]
pub fn import_targets(db: &dyn Db, project: Project, file: SourceFile) -> Vec<ImportTarget> {
    let by_path = files_by_path(db, project);
    let root = project.root(db);
    lower_file(db, file)
        .imports
        .iter()
        .map(
            |import| match super::formats::resolve_import(file.path(db), &import.path, root) {
                Ok(path) => match by_path.get(&path) {
                    Some(&target) => ImportTarget::File(target),
                    None => ImportTarget::Absent(path),
                },
                Err(problem) => ImportTarget::Invalid(problem),
            },
        )
        .collect()
}

/// The workflow names a `call` in `file` may use: the file's own and those
/// of the files it imports directly; for a Reflex file, every workflow of
/// the project (Reflex's registry is flat, see [`super::formats`]).
#[salsa::tracked(returns(ref))]
pub fn visible_workflows(db: &dyn Db, project: Project, file: SourceFile) -> BTreeSet<String> {
    if front_end(file.path(db)) == FrontEnd::Reflex {
        return published_names(db, project).keys().cloned().collect();
    }
    let mut names: BTreeSet<String> = workflow_names(db, file).iter().cloned().collect();
    for target in import_targets(db, project, file) {
        if let ImportTarget::File(imported) = target {
            names.extend(workflow_names(db, *imported).iter().cloned());
        }
    }
    names
}

/// Every workflow name of the project with its definitions, in file order
/// then source order. Span-free.
#[salsa::tracked(returns(ref))]
pub fn project_workflows(db: &dyn Db, project: Project) -> BTreeMap<String, Vec<SourceFile>> {
    let mut out: BTreeMap<String, Vec<SourceFile>> = BTreeMap::new();
    for &file in project.files(db) {
        for name in workflow_names(db, file) {
            out.entry(name.clone()).or_default().push(file);
        }
    }
    out
}

/// [`project_workflows`] as last published (see [`super::Published`]), or
/// the query itself when nothing is published.
pub fn published_names(db: &dyn Db, project: Project) -> &BTreeMap<String, Vec<SourceFile>> {
    match super::Published::get(db).names(db) {
        Some(names) => names,
        None => project_workflows(db, project),
    }
}

/// WF0107-WF0110 for a file's imports (a pipeline's child pipelines).
#[salsa::tracked(returns(ref))]
pub fn import_diagnostics(db: &dyn Db, project: Project, file: SourceFile) -> Vec<Diagnostic> {
    if front_end(file.path(db)) == FrontEnd::Reflex {
        // Its imports are implied, not written: a call whose file is
        // missing is reported as an unknown workflow instead.
        return Vec::new();
    }
    let decls = &lower_file(db, file).imports;
    let targets = import_targets(db, project, file);
    let failures = project.load_failures(db);
    // A pipeline's imports are its child pipelines.
    let child = front_end(file.path(db)) == FrontEnd::Dot;
    let mut out = Vec::new();
    for (import, target) in decls.iter().zip(targets) {
        match target {
            ImportTarget::File(_) => {}
            ImportTarget::Invalid(problem) => {
                let nouns = if child {
                    &imports::child::CHILD
                } else {
                    &imports::IMPORT
                };
                out.push(imports::path_problem(
                    import,
                    problem,
                    project.root(db),
                    nouns,
                ))
            }
            ImportTarget::Absent(path) if child => {
                let failure = failures
                    .get(path)
                    .cloned()
                    .unwrap_or(imports::LoadFailure::NotFound);
                let shown = super::shown_import(db, file, &import.path);
                out.push(imports::child::load_problem(import, &failure, &shown));
            }
            ImportTarget::Absent(path) => {
                let failure = failures
                    .get(path)
                    .cloned()
                    .unwrap_or(imports::LoadFailure::NotFound);
                let shown = super::shown_import(db, file, &import.path);
                let mut diagnostic = imports::load_problem(import, &failure, &shown);
                if failure == imports::LoadFailure::NotFound {
                    diagnostic = suggest_import(db, project, file, import, diagnostic);
                }
                out.push(diagnostic);
            }
        }
    }
    out
}

/// Adds "did you mean" to a missing import when a project file's path,
/// written relative to the importer, is close to the literal. O(files).
fn suggest_import(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    import: &ImportDecl,
    diagnostic: Diagnostic,
) -> Diagnostic {
    let candidates: Vec<String> = project
        .files(db)
        .iter()
        .filter(|&&f| f != file)
        .map(|f| super::relative_import(file.path(db), f.path(db)))
        .collect();
    let mut index = SuggestionIndex::new(candidates.iter().map(String::as_str));
    match index.suggest(&import.path) {
        Some(suggestion) => diagnostic
            .with_help(format!("did you mean `{suggestion}`?"))
            .with_fix(Fix {
                message: format!("import `{suggestion}`"),
                edits: vec![TextEdit {
                    location: import.span,
                    replacement: format!("\"{suggestion}\""),
                }],
                applicability: Applicability::MaybeIncorrect,
            }),
        None => diagnostic,
    }
}

/// WF0101 (duplicate workflows, against the project) and WF0104 (calls to
/// workflows the file cannot see) for one file.
#[salsa::tracked(returns(ref))]
pub fn name_diagnostics(db: &dyn Db, project: Project, file: SourceFile) -> Vec<Diagnostic> {
    let mut out = super::names::duplicates(db, project, file);
    out.extend(super::names::unknown_calls(db, project, file));
    out
}

/// The `// wfc: allow(…)` comments of a file, and WF0010 for malformed ones.
#[salsa::tracked(returns(ref))]
pub fn file_suppressions(db: &dyn Db, file: SourceFile) -> (Vec<Suppression>, Vec<Diagnostic>) {
    let text = file.text(db);
    match front_end(file.path(db)) {
        FrontEnd::Wf => suppress::collect(file.id(db), text, parse_file(db, file)),
        // The DOT syntax tree is not kept after lowering: parse again, but
        // only a file that names `wfc:` somewhere.
        FrontEnd::Dot if suppress::dot::may_suppress(text) => {
            let parsed = wf_dot::parse(text, file.id(db));
            suppress::dot::collect(file.id(db), text, &parsed)
        }
        // JSON has no comments to hold suppressions.
        FrontEnd::Dot | FrontEnd::Reflex => (Vec::new(), Vec::new()),
    }
}

/// Whether every edit of `fix` replaces an identifier of `file` (whose
/// text is `text`) by another: a rename that is written the same in `.wf`,
/// in DOT and inside a JSON string.
fn renames_identifiers(fix: &Fix, file: FileId, text: &str) -> bool {
    fix.edits.iter().all(|edit| {
        edit.location.file == file
            && text
                .get(edit.location.span.range())
                .is_some_and(wf_dot::ast::is_identifier)
            && wf_dot::ast::is_identifier(&edit.replacement)
    })
}

/// Every diagnostic whose file is `file`, except WF0308 (see
/// [`super::flow::recursion_diagnostics`]), with its suppressions applied;
/// sorted.
#[salsa::tracked(returns(ref))]
pub fn file_diagnostics(db: &dyn Db, project: Project, file: SourceFile) -> Vec<Diagnostic> {
    // Other front ends report their syntax errors from `lower_file`.
    let mut out = match front_end(file.path(db)) {
        FrontEnd::Wf => {
            let parsed = parse_file(db, file);
            let mut out = parsed.diagnostics.clone();
            // Tool commands, on the source text: the model cannot tell an
            // interpolation from an escaped `\$key`.
            let (id, text) = (file.id(db), file.text(db));
            out.extend(crate::attributes::shell::check_file(&parsed.file, id, text));
            out
        }
        FrontEnd::Reflex | FrontEnd::Dot => Vec::new(),
    };
    out.extend(lower_file(db, file).diagnostics.iter().cloned());
    // Everything before this index comes from the file's own front end.
    let front_end_end = out.len();
    out.extend(import_diagnostics(db, project, file).iter().cloned());
    out.extend(name_diagnostics(db, project, file).iter().cloned());
    for &id in file_workflows(db, file) {
        out.extend(workflow_diagnostics(db, id).iter().cloned());
        out.extend(super::flow::workflow_dataflow(db, id).iter().cloned());
    }
    // The files a pipeline names, next to it on disk (read here, not
    // tracked: checked again when the pipeline changes). Only for a project
    // on disk: sources checked in memory (`check_sources`, whose root is
    // relative) are not read from the file system.
    if front_end(file.path(db)) == FrontEnd::Dot && project.root(db).is_absolute() {
        let path = project.root(db).join(file.path(db));
        let dir = path.parent().unwrap_or(Path::new(""));
        for &id in file_workflows(db, file) {
            let mut found = crate::attractor::files::check(workflow_model(db, id), dir);
            found.iter_mut().for_each(crate::attractor::annotate);
            out.extend(found);
        }
    }
    if front_end(file.path(db)) != FrontEnd::Wf {
        // The checks write their fixes in `.wf` syntax: never offer one
        // that would edit another format's text. The front end's own
        // diagnostics speak its format, and so do the Attractor checks
        // (WF08xx, which run on `.dot` only), so their fixes stay; so does
        // a fix that only renames identifiers (a misspelled node or key),
        // which reads the same in every format.
        let (id, text) = (file.id(db), file.text(db));
        for diagnostic in &mut out[front_end_end..] {
            // WF0515 writes its fix in the file's own syntax too.
            if diagnostic.code.family != Family::Attractor
                && !std::ptr::eq(diagnostic.code, &wf_diagnostics::codes::MISSPELT_ATTRIBUTE)
                && diagnostic.fix.as_ref().is_some_and(|fix| {
                    fix.edits.iter().any(|edit| edit.location.file == id)
                        && !renames_identifiers(fix, id, text)
                })
            {
                diagnostic.fix = None;
            }
        }
    }
    let (suppressions, problems) = file_suppressions(db, file);
    out.extend(problems.iter().cloned());
    suppress::apply(&mut out, suppressions);
    crate::sort_diagnostics(&mut out);
    out
}
