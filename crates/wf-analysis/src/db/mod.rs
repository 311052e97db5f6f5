//! The incremental analysis database, on salsa 0.28.
//!
//! Inputs are the texts of files ([`SourceFile`]) and the project
//! ([`Project`]: its root, its files, and what the loader could not load).
//! Everything else is a tracked query (see [`queries`] and
//! `docs/architecture.md`), so after an edit only the queries that read
//! something that changed run again: editing one file re-parses and
//! re-lowers that file only, and an edit that merely moves text (whitespace,
//! comments) does not re-run any workflow's graph analysis.
//!
//! [`Database`] is the handle the CLI and, later, the language server use:
//! set file texts, let it load imports through a loader callback, read
//! diagnostics. The analysis never reads the file system itself, so every
//! query stays a pure function of the inputs. For concurrent reads (a
//! language server answering hovers while the user types), clone the
//! database: a clone is a cheap snapshot sharing the memoized results;
//! setting an input on the original cancels queries still running on
//! clones (they unwind with [`salsa::Cancelled`]), after which they are
//! retried on a fresh snapshot.

mod names;
pub mod queries;
mod shape;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use salsa::Setter;
use wf_diagnostics::{Diagnostic, FileId, Sources};

use crate::imports::{self, LoadFailure};
use queries::ImportTarget;

pub use names::relative_import;
pub use shape::strip_spans;

/// One source file: the input everything else is derived from.
#[salsa::input(debug)]
pub struct SourceFile {
    /// The path that identifies the file (normalised; imports resolve
    /// against it).
    #[returns(ref)]
    pub path: PathBuf,
    /// The path as shown to users.
    #[returns(ref)]
    pub display: String,
    /// Its id in diagnostics and in [`Database::sources`].
    #[returns(copy)]
    pub id: FileId,
    /// The text.
    #[returns(ref)]
    pub text: String,
}

/// The set of files checked together.
#[salsa::input(debug)]
pub struct Project {
    /// The root imports may not leave (same space as the file paths).
    #[returns(ref)]
    pub root: PathBuf,
    /// Every file, in [`FileId`] order.
    #[returns(ref)]
    pub files: Vec<SourceFile>,
    /// Import targets the loader could not load, and why.
    #[returns(ref)]
    pub load_failures: BTreeMap<PathBuf, LoadFailure>,
}

/// An event callback, for tracing which queries run (see [`salsa::Event`]).
pub type EventCallback = Box<dyn Fn(salsa::Event) + Send + Sync + 'static>;

/// The analysis database: a project's files and every memoized query.
#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    project: Option<Project>,
    files: Vec<SourceFile>,
    by_path: HashMap<PathBuf, SourceFile>,
}

#[salsa::db]
impl salsa::Database for Database {}

impl Database {
    /// An empty project whose imports may not leave `root`. Paths given to
    /// [`Database::set_file`] must be in the same space as the root: both
    /// absolute, or both relative to the same directory.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self::build(root.into(), None)
    }

    /// Like [`Database::new`], calling `callback` on every salsa event (for
    /// tests and tracing: [`salsa::EventKind::WillExecute`] says a query runs).
    pub fn with_event_callback(root: impl Into<PathBuf>, callback: EventCallback) -> Self {
        Self::build(root.into(), Some(callback))
    }

    fn build(root: PathBuf, callback: Option<EventCallback>) -> Self {
        let mut db = Database {
            storage: salsa::Storage::new(callback),
            project: None,
            files: Vec::new(),
            by_path: HashMap::new(),
        };
        let project = Project::new(&db, imports::normalize(&root), Vec::new(), BTreeMap::new());
        db.project = Some(project);
        db
    }

    fn project(&self) -> Project {
        self.project.expect("set in `build`")
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        self.project().root(self)
    }

    /// Adds a file, or replaces the text of the file with this path, and
    /// returns its id. `display` is how diagnostics name it (kept from the
    /// first call). Setting the same text again changes nothing.
    pub fn set_file(
        &mut self,
        path: impl AsRef<Path>,
        display: impl Into<String>,
        text: impl Into<String>,
    ) -> FileId {
        let path = imports::normalize(path.as_ref());
        let text = text.into();
        if let Some(&file) = self.by_path.get(&path) {
            if *file.text(self) != text {
                file.set_text(self).to(text);
            }
            return file.id(self);
        }
        self.add(path, display.into(), text)
    }

    /// Adds a file even when one with the same path exists (which keeps
    /// resolving imports); for [`crate::check_sources`], whose ids must
    /// follow the given [`Sources`].
    fn add(&mut self, path: PathBuf, display: String, text: String) -> FileId {
        let id = FileId(self.files.len() as u32);
        let file = SourceFile::new(self, path.clone(), display, id, text);
        self.files.push(file);
        self.by_path.entry(path).or_insert(file);
        let files = self.files.clone();
        self.project().set_files(self).to(files);
        id
    }

    /// The id of the file with this path, if the project has it.
    pub fn file_id(&self, path: impl AsRef<Path>) -> Option<FileId> {
        let path = imports::normalize(path.as_ref());
        self.by_path.get(&path).map(|f| f.id(self))
    }

    /// Records that the import target `path` cannot be loaded; its importers
    /// report why.
    pub fn set_load_failure(&mut self, path: impl AsRef<Path>, failure: LoadFailure) {
        let project = self.project();
        let mut failures = project.load_failures(self).clone();
        failures.insert(imports::normalize(path.as_ref()), failure);
        project.set_load_failures(self).to(failures);
    }

    /// Import targets inside the root that no file of the project has and
    /// that are not known to fail: what a loader should load next. Sorted.
    pub fn unresolved_imports(&self) -> Vec<PathBuf> {
        let project = self.project();
        let failures = project.load_failures(self);
        let mut out = BTreeSet::new();
        for &file in &self.files {
            for target in queries::import_targets(self, project, file) {
                if let ImportTarget::Absent(path) = target
                    && !failures.contains_key(path)
                {
                    out.insert(path.clone());
                }
            }
        }
        out.into_iter().collect()
    }

    /// Loads every imported file, transitively: asks `loader` for each path
    /// in [`Database::unresolved_imports`] until none is left. The loader
    /// returns the display path and text, or why it cannot. Terminates:
    /// every round adds a file or a failure for each path it asks about.
    pub fn load_imports(
        &mut self,
        mut loader: impl FnMut(&Path) -> Result<(String, String), LoadFailure>,
    ) {
        loop {
            let wanted = self.unresolved_imports();
            if wanted.is_empty() {
                return;
            }
            for path in wanted {
                match loader(&path) {
                    Ok((display, text)) => {
                        self.set_file(&path, display, text);
                    }
                    Err(failure) => self.set_load_failure(&path, failure),
                }
            }
        }
    }

    /// Every diagnostic of the project, suppressions applied, sorted by file,
    /// position and code.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let project = self.project();
        let mut out: Vec<Diagnostic> = Vec::new();
        for &file in &self.files {
            out.extend(
                queries::file_diagnostics(self, project, file)
                    .iter()
                    .cloned(),
            );
        }
        out.extend(self.program_diagnostics(None));
        crate::sort_diagnostics(&mut out);
        out
    }

    /// The diagnostics of one file (what a language server publishes for
    /// it), sorted.
    pub fn file_diagnostics(&self, id: FileId) -> Vec<Diagnostic> {
        let Some(&file) = self.files.get(id.0 as usize) else {
            return Vec::new();
        };
        let mut out = queries::file_diagnostics(self, self.project(), file).clone();
        out.extend(self.program_diagnostics(Some(id)));
        crate::sort_diagnostics(&mut out);
        out
    }

    /// The program-wide diagnostics (of one file, or all), each file's
    /// suppressions applied.
    fn program_diagnostics(&self, only: Option<FileId>) -> Vec<Diagnostic> {
        let mut by_file: BTreeMap<FileId, Vec<Diagnostic>> = BTreeMap::new();
        for d in queries::program_diagnostics(self, self.project()) {
            let file = d.primary.location.file;
            if only.is_none_or(|o| o == file) {
                by_file.entry(file).or_default().push(d.clone());
            }
        }
        let mut out = Vec::new();
        for (id, mut diagnostics) in by_file {
            if let Some(&file) = self.files.get(id.0 as usize) {
                crate::suppress::apply(&mut diagnostics, &queries::file_suppressions(self, file).0);
            }
            out.extend(diagnostics);
        }
        out
    }

    /// The files as [`Sources`] for rendering, with the ids diagnostics use.
    pub fn sources(&self) -> Sources {
        let mut sources = Sources::new();
        for &file in &self.files {
            sources.add(file.display(self).clone(), file.text(self).clone());
        }
        sources
    }

    /// How many files the project has.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }
}

/// Where an import literal written in `file` leads, as users see paths.
fn shown_import(db: &dyn salsa::Database, file: SourceFile, literal: &str) -> String {
    let display = Path::new(file.display(db));
    let dir = display.parent().unwrap_or(Path::new(""));
    imports::display(&imports::normalize(&dir.join(literal)))
}

/// Checks in-memory sources as one project whose root is their deepest
/// common directory. Imports resolve among the sources only (nothing is
/// read from disk); a missing one is WF0107.
pub(crate) fn check_sources(sources: &Sources) -> Vec<Diagnostic> {
    let paths: Vec<PathBuf> = sources
        .iter()
        .map(|(_, f)| imports::normalize(Path::new(&f.path)))
        .collect();
    let mut db = Database::new(imports::common_root(paths.iter().map(PathBuf::as_path)));
    for ((id, file), path) in sources.iter().zip(paths) {
        let added = db.add(path, file.path.clone(), file.text.clone());
        debug_assert_eq!(added, id);
    }
    db.diagnostics()
}
