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
//! Durability: files are added with [`Durability::HIGH`] and a file's text
//! becomes [`Durability::LOW`] on its first edit (the project input stays
//! HIGH). Salsa then validates a memoized query that reads only unedited
//! files in O(1) after an edit, instead of walking its dependencies down to
//! the inputs, so re-checking after an edit costs O(what depends on the
//! edited files) plus a shallow check per query of the project, not a deep
//! walk of the whole project. Salsa does not backdate across a drop in
//! durability, so the first edit of a file re-runs once what depends on it
//! (in a 50 MB project, a few hundred milliseconds);
//! [`Database::open_for_editing`] pays that when a file is opened instead.
//!
//! [`Database`] is the handle the CLI and the language server use:
//! set file texts, let it load imports through a loader callback, read
//! diagnostics. The analysis never reads the file system itself, so every
//! query stays a pure function of the inputs. For concurrent reads (a
//! language server answering hovers while the user types), clone the
//! database: a clone is a cheap snapshot sharing the memoized results;
//! setting an input on the original cancels queries still running on
//! clones (they unwind with [`salsa::Cancelled`]), after which they are
//! retried on a fresh snapshot.

pub mod flow;
pub mod formats;
pub mod ide;
mod names;
pub mod queries;
mod shape;

#[cfg(test)]
mod one_shot_tests;
#[cfg(test)]
mod tests;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use salsa::{Durability, Setter};
use wf_diagnostics::{Diagnostic, FileId, Sources};

use crate::imports::{self, LoadFailure};
use queries::{ImportTarget, LoweredFile};

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
    /// The file already lowered from `text` by [`lower_early`], or `None`
    /// (then [`queries::lower_file`] lowers it). Cleared whenever the text
    /// changes.
    #[default]
    #[returns(ref)]
    pub early: Option<Arc<LoweredFile>>,
}

/// A file lowered before the database exists (see [`lower_early`]).
#[derive(Debug)]
pub struct Early {
    id: FileId,
    /// Where the text it was lowered from is, and its length: the text
    /// then given to the database must be that very string (moved, not
    /// copied), which nothing changed in between.
    text_at: usize,
    text_len: usize,
    lowered: Arc<LoweredFile>,
}

impl Early {
    /// Whether this is `text` lowered as the file `id`.
    fn is_for(&self, id: FileId, text: &str) -> bool {
        self.id == id && self.text_at == text.as_ptr() as usize && self.text_len == text.len()
    }
}

/// Lowers a DOT or Reflex file as the database would give it the id `id`,
/// or `None` for other formats. For a one-shot check that reads files on
/// one thread while others lower what it has read: lowering is most of the
/// cost of loading a project, and would otherwise wait for the last file
/// to be read. [`Database::set_files_early`] keeps the result only if the
/// file does get that id and the text it gets is this string (moved there
/// unchanged), so a wrong guess costs time, not correctness.
/// (`.wf` files are left to the database: their syntax tree is a query of
/// its own, which other queries read.)
pub fn lower_early(path: &Path, id: FileId, text: &str) -> Option<Early> {
    let lowered = formats::lower_text(path, id, text)?;
    Some(Early {
        id,
        text_at: text.as_ptr() as usize,
        text_len: text.len(),
        lowered: Arc::new(lowered),
    })
}

/// The set of files checked together. There is one per database (a
/// singleton: per-workflow queries find it with `Project::get`).
#[salsa::input(singleton, debug)]
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
    /// Whether the project is checked once and never edited (see
    /// [`Database::set_one_shot`]).
    #[default]
    #[returns(copy)]
    pub one_shot: bool,
}

/// Project-wide aggregates of derived values, republished by the
/// [`Database`] after each edit, and only when they change (see
/// [`Database::publish`]). Queries read them here rather than from the
/// project-wide queries they copy, so that a query reading them keeps the
/// high durability of the unedited files it reads otherwise: after an edit,
/// salsa validates it in O(1) instead of walking its dependencies. `None`
/// until the first edit (and again after a file is added): readers then use
/// the queries themselves.
#[salsa::input(singleton, debug)]
pub struct Published {
    /// [`queries::project_workflows`].
    #[returns(ref)]
    pub names: Option<Arc<BTreeMap<String, Vec<SourceFile>>>>,
    /// [`flow::call_requests`], keyed by (file, name, occurrence).
    #[returns(ref)]
    pub requests: Option<Arc<RequestMap>>,
}

/// The keys callers request from each workflow, by (file, name,
/// occurrence): what [`flow::call_requests`] returns (no interned ids, so
/// that it can be published).
pub type RequestMap = HashMap<(SourceFile, String, u32), Vec<String>>;

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
    /// The files whose text has low durability (edited or opened).
    edited: HashSet<PathBuf>,
    /// Files removed with [`Database::remove_file`]: they keep their id
    /// (ids index `files`) but leave the project.
    removed: HashSet<FileId>,
    /// Pipelines loaded only as child pipelines of manager nodes: checked,
    /// but programs of their own, left out of [`Database::program`].
    children: HashSet<FileId>,
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
            by_path: HashMap::default(),
            edited: HashSet::default(),
            removed: HashSet::default(),
            children: HashSet::default(),
        };
        let project = Project::builder(imports::normalize(&root), Vec::new(), BTreeMap::new())
            .durability(Durability::HIGH)
            .new(&db);
        db.project = Some(project);
        let _published = Published::builder(None, None)
            .durability(Durability::HIGH)
            .new(&db);
        db
    }

    /// Declares that this database is checked once and never edited (a
    /// `wfc check` run): the queries then skip work that only pays off
    /// across edits. So far that is the span-free copy of each workflow
    /// ([`queries::workflow_shape`]), which exists so that salsa can see
    /// that an edit that only moved text left the graph alone; a one-shot
    /// check reads the workflow itself. Diagnostics are the same either way.
    pub fn set_one_shot(&mut self) {
        let project = self.project();
        if !project.one_shot(self) {
            project
                .set_one_shot(self)
                .with_durability(Durability::HIGH)
                .to(true);
        }
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
                // Edited files become volatile (see `Durability` above).
                self.edited.insert(path);
                self.replace_text(file, text, Some(Durability::LOW));
                self.publish();
            }
            return file.id(self);
        }
        self.add(path, display.into(), text)
    }

    /// Marks the file at `path` as being edited (what a language server
    /// does when the editor opens it): its text gets low durability, as it
    /// would on its first edit. Salsa does not backdate across a drop in
    /// durability, so this re-runs once what depends on the file; doing it
    /// when the file is opened keeps that cost off the first keystroke.
    /// Does nothing for a file the project does not have, or one already
    /// edited.
    pub fn open_for_editing(&mut self, path: impl AsRef<Path>) {
        let path = imports::normalize(path.as_ref());
        let Some(&file) = self.by_path.get(&path) else {
            return;
        };
        if self.edited.insert(path) {
            let text = file.text(self).clone();
            file.set_text(self)
                .with_durability(Durability::LOW)
                .to(text);
            self.publish();
        }
    }

    /// Sets the text of `file` (with `durability`, else keeping the one it
    /// has), dropping its early lowering (made from the old text), and
    /// returns the old text.
    fn replace_text(
        &mut self,
        file: SourceFile,
        text: String,
        durability: Option<Durability>,
    ) -> String {
        if file.early(self).is_some() {
            let setter = file.set_early(self);
            match durability {
                Some(durability) => setter.with_durability(durability).to(None),
                None => setter.to(None),
            };
        }
        let setter = file.set_text(self);
        match durability {
            Some(durability) => setter.with_durability(durability).to(text),
            None => setter.to(text),
        }
    }

    /// Recomputes the [`Published`] aggregates and sets those that changed.
    /// O(workflows of the project) in validation; the aggregates are
    /// span-free, so they change only when names or return maps do.
    fn publish(&mut self) {
        let project = self.project();
        let published = Published::get(self);
        let names = queries::project_workflows(self, project);
        if published.names(self).as_deref() != Some(names) {
            let names = Arc::new(names.clone());
            published
                .set_names(self)
                .with_durability(Durability::HIGH)
                .to(Some(names));
        }
        let requests = flow::call_requests(self, project);
        if published.requests(self).as_deref() != Some(requests) {
            let requests = Arc::new(requests.clone());
            published
                .set_requests(self)
                .with_durability(Durability::HIGH)
                .to(Some(requests));
        }
    }

    /// Forgets the [`Published`] aggregates (a file was added: readers use
    /// the queries until the next edit republishes them).
    fn unpublish(&mut self) {
        let published = Published::get(self);
        if published.names(self).is_some() {
            published.set_names(self).to(None);
        }
        if published.requests(self).is_some() {
            published.set_requests(self).to(None);
        }
    }

    /// [`Database::set_file`] for many files at once: new files are added
    /// together, with one update of the project's file list instead of one
    /// per file (which, with a new revision each, made adding the files of
    /// a large project quadratic). Returns the ids, in order.
    pub fn set_files<P: AsRef<Path>>(
        &mut self,
        files: impl IntoIterator<Item = (P, String, String)>,
    ) -> Vec<FileId> {
        self.set_files_early(
            files
                .into_iter()
                .map(|(path, display, text)| (path, display, text, None)),
        )
    }

    /// [`Database::set_files`] with files lowered ahead by
    /// [`lower_early`]: a new file that gets the id the early lowering
    /// assumed, and the very text it was lowered from, starts out lowered.
    pub fn set_files_early<P: AsRef<Path>>(
        &mut self,
        files: impl IntoIterator<Item = (P, String, String, Option<Early>)>,
    ) -> Vec<FileId> {
        let mut ids = Vec::new();
        let mut added = false;
        for (path, display, text, early) in files {
            let normalized = imports::normalize(path.as_ref());
            if self.by_path.contains_key(&normalized) {
                // An edit sees every file added before it, as one call at
                // a time would.
                if std::mem::take(&mut added) {
                    self.publish_files();
                }
                ids.push(self.set_file(path, display, text));
                continue;
            }
            let id = FileId(self.files.len() as u32);
            let early = early.filter(|e| e.is_for(id, &text)).map(|e| e.lowered);
            let file = SourceFile::builder(normalized.clone(), display, id, text)
                .early(early)
                .durability(Durability::HIGH)
                .new(self);
            self.files.push(file);
            self.by_path.insert(normalized, file);
            ids.push(id);
            added = true;
        }
        if added {
            self.publish_files();
        }
        ids
    }

    /// Sets the project's file list to the files added so far.
    fn publish_files(&mut self) {
        self.unpublish();
        let mut files = self.files.clone();
        if !self.removed.is_empty() {
            files.retain(|f| !self.removed.contains(&f.id(self)));
        }
        self.project()
            .set_files(self)
            .with_durability(Durability::HIGH)
            .to(files);
    }

    /// Adds a file even when one with the same path exists (which keeps
    /// resolving imports); for [`crate::check_sources`], whose ids must
    /// follow the given [`Sources`].
    fn add(&mut self, path: PathBuf, display: String, text: String) -> FileId {
        let id = FileId(self.files.len() as u32);
        let file = SourceFile::builder(path.clone(), display, id, text)
            .durability(Durability::HIGH)
            .new(self);
        self.files.push(file);
        self.by_path.entry(path).or_insert(file);
        self.publish_files();
        id
    }

    /// Removes the file at `path` from the project (it was deleted on
    /// disk): its importers then report a missing import, and it has no
    /// diagnostics. Its id stays reserved (ids index the files); adding
    /// the path again gives a new id. Returns the old id, or `None` when
    /// the project has no such file.
    pub fn remove_file(&mut self, path: impl AsRef<Path>) -> Option<FileId> {
        let path = imports::normalize(path.as_ref());
        let file = self.by_path.remove(&path)?;
        self.edited.remove(&path);
        let id = file.id(self);
        self.removed.insert(id);
        self.replace_text(file, String::new(), Some(Durability::LOW));
        self.publish_files();
        Some(id)
    }

    /// Whether the file `id` was removed with [`Database::remove_file`].
    pub fn is_removed(&self, id: FileId) -> bool {
        self.removed.contains(&id)
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
        project
            .set_load_failures(self)
            .with_durability(Durability::HIGH)
            .to(failures);
    }

    /// Import targets inside the root that no file of the project has and
    /// that are not known to fail: what a loader should load next. Sorted.
    pub fn unresolved_imports(&self) -> Vec<PathBuf> {
        let project = self.project();
        let failures = project.load_failures(self);
        let mut out = BTreeSet::new();
        self.warm(|db, file| {
            queries::import_targets(db, project, file);
        });
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
                        let id = self.set_file(&path, display, text);
                        if formats::front_end(&path) == formats::FrontEnd::Dot {
                            self.children.insert(id);
                        }
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
        // Every workflow's data flow reads the project-wide `call_requests`,
        // which reads every workflow's calls: computed by the first thread
        // to ask, they would keep the others waiting. Find them in parallel
        // first, so that the aggregate only collects memoized results.
        self.warm(|db, file| {
            for &id in queries::file_workflows(db, file) {
                flow::workflow_calls(db, id);
            }
        });
        self.warm(|db, file| {
            queries::file_diagnostics(db, project, file);
        });
        for &file in &self.files {
            if self.removed.contains(&file.id(self)) {
                continue;
            }
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

    /// The program-wide diagnostics (WF0308, of one file or all), each
    /// file's suppressions applied.
    fn program_diagnostics(&self, only: Option<FileId>) -> Vec<Diagnostic> {
        let mut by_file: BTreeMap<FileId, Vec<Diagnostic>> = BTreeMap::new();
        for d in flow::recursion_diagnostics(self, self.project()) {
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

    /// Runs `query` for every file on all available cores, so that the
    /// sequential pass that follows finds every result memoized. This
    /// thread works on `self` and each other thread on its own clone of the
    /// database (a snapshot sharing the memoized results), each taking the
    /// next file from a shared counter; salsa
    /// makes a thread that needs a query another thread is running wait for
    /// its result, so every query still runs once. With one core (or one
    /// file) it does nothing.
    fn warm(&self, query: impl Fn(&Database, SourceFile) + Sync) {
        if self.files.len() <= 1 {
            // Asking for the core count reads cgroup files: skip it.
            return;
        }
        let threads = wf_threads::cores().min(self.files.len());
        if threads <= 1 {
            return;
        }
        let next = AtomicUsize::new(0);
        let work = |db: &Database| {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&file) = db.files.get(i) else { break };
                query(db, file);
            }
        };
        std::thread::scope(|scope| {
            // This thread is one of the workers: one thread fewer to start.
            let workers: Vec<_> = (1..threads)
                .map(|_| {
                    let db = self.clone();
                    let work = &work;
                    wf_threads::spawn_apart(scope, move || work(&db))
                })
                .collect();
            work(self);
            // Re-raise a worker's own panic payload: an edit cancelling the
            // pass unwinds with salsa's `Cancelled`, which callers (the
            // language server) catch; `scope` alone would turn it into a
            // generic "a scoped thread panicked".
            for worker in workers {
                if let Err(payload) = worker.join() {
                    std::panic::resume_unwind(payload);
                }
            }
        });
    }

    /// The files as [`Sources`] for rendering, with the ids diagnostics use.
    pub fn sources(&self) -> Sources {
        let mut sources = Sources::new();
        for &file in &self.files {
            sources.add(file.display(self).clone(), file.text(self).clone());
        }
        sources
    }

    /// The files as [`Sources`] for rendering `diagnostics`: like
    /// [`Database::sources`], with every file and the same ids, but only the
    /// files a diagnostic points into (its primary location, labels or fix)
    /// carry their text; the others are empty. Renderers read nothing else,
    /// and a clean check of a large project then copies no text at all.
    pub fn sources_for(&self, diagnostics: &[Diagnostic]) -> Sources {
        let wanted = self.files_for(diagnostics);
        let mut sources = Sources::new();
        for (&file, wanted) in self.files.iter().zip(wanted) {
            let text = if wanted {
                file.text(self).clone()
            } else {
                String::new()
            };
            sources.add(file.display(self).clone(), text);
        }
        sources
    }

    /// [`Database::sources_for`] for a caller that is done with the
    /// database (a one-shot `wfc check`): the texts the diagnostics point
    /// into move out of the database instead of being copied, so the files
    /// of the database are empty afterwards. Copying the texts of a project
    /// with diagnostics in most files was a tenth of the check.
    pub fn take_sources_for(&mut self, diagnostics: &[Diagnostic]) -> Sources {
        let wanted = self.files_for(diagnostics);
        let mut sources = Sources::new();
        for (file, wanted) in self.files.clone().into_iter().zip(wanted) {
            let text = if wanted {
                self.replace_text(file, String::new(), None)
            } else {
                String::new()
            };
            sources.add(file.display(self).clone(), text);
        }
        sources
    }

    /// For each file, whether a diagnostic points into it (its primary
    /// location, a label or a fix).
    fn files_for(&self, diagnostics: &[Diagnostic]) -> Vec<bool> {
        let mut wanted = vec![false; self.files.len()];
        let mut want = |location: wf_diagnostics::FileSpan| {
            if let Some(slot) = wanted.get_mut(location.file.0 as usize) {
                *slot = true;
            }
        };
        for d in diagnostics {
            want(d.primary.location);
            d.labels.iter().for_each(|l| want(l.location));
            if let Some(fix) = &d.fix {
                fix.edits.iter().for_each(|e| want(e.location));
            }
        }
        wanted
    }

    /// How many files the project has.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// The whole lowered program (for compiling and running): every
    /// workflow of every file of the project, imported ones included (not
    /// child pipelines), files in path order, then declaration order. Meaningful once
    /// [`Database::diagnostics`] has no errors.
    pub fn program(&self) -> wf_model::Program {
        let mut files = self.files.clone();
        // A child pipeline runs in its own engine, loaded when its manager
        // node starts it: it is not part of this program (and may share
        // its graph name).
        files.retain(|f| !self.children.contains(&f.id(self)));
        files.sort_by(|a, b| a.path(self).cmp(b.path(self)));
        let workflows = files
            .iter()
            .flat_map(|&file| queries::lower_file(self, file).workflows.iter())
            .map(|workflow| (**workflow).clone())
            .collect();
        wf_model::Program { workflows }
    }
}

/// Where an import literal written in `file` leads, as users see paths.
fn shown_import(db: &dyn salsa::Database, file: SourceFile, literal: &str) -> String {
    let display = Path::new(file.display(db));
    let dir = display.parent().unwrap_or(Path::new(""));
    imports::display(&imports::normalize(&dir.join(literal)))
}

/// Checks in-memory sources as one project whose root is their deepest
/// common directory, and builds its program. Imports resolve among the
/// sources only (nothing is read from disk); a missing one is WF0107.
pub(crate) fn analyze_sources(sources: &Sources) -> crate::Analysis {
    let paths: Vec<PathBuf> = sources
        .iter()
        .map(|(_, f)| imports::normalize(Path::new(&f.path)))
        .collect();
    let mut db = Database::new(imports::common_root(paths.iter().map(PathBuf::as_path)));
    for ((id, file), path) in sources.iter().zip(paths) {
        let added = db.add(path, file.path.clone(), file.text.clone());
        debug_assert_eq!(added, id);
    }
    crate::Analysis {
        diagnostics: db.diagnostics(),
        program: db.program(),
    }
}
