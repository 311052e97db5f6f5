//! The server's state: the analysis database of the workspace, the open
//! documents, and what was last published.
//!
//! Every workspace folder is loaded: its project root is the root of the
//! nearest `wf.toml` above it (or the folder itself), and the files `wfc
//! check` reads for that root are read at start by the same loader
//! (`wf-project`: `.gitignore`, hidden folders, Reflex JSON), so that
//! references, renames and the diagnostics of importers cover the whole
//! project and match the command line's; imports of open files are loaded
//! from disk like `wfc check` does. Open documents override the disk text.
//! Files changed on disk while closed come in through
//! [`Workspace::disk_changed`] (see `watch.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::{self as lsp, Uri};
use wf_analysis::Database;
use wf_analysis::imports;
use wf_analysis::project::{self, ProjectConfig};
use wf_diagnostics::FileId;

use crate::convert::{self, FileMap};

/// Stop loading a workspace after this many files (a misconfigured root
/// such as a home directory must not stall the editor).
const MAX_SCANNED_FILES: usize = 5_000;

/// An open document.
#[derive(Debug, Clone)]
pub struct OpenDoc {
    /// The URI the client uses for it.
    pub uri: Uri,
    /// The client's version.
    pub version: i32,
    /// The current text.
    pub text: String,
}

/// One workspace folder and the project it belongs to.
#[derive(Debug, Clone)]
pub struct Folder {
    /// The folder the client named.
    pub folder: PathBuf,
    /// Its project root (the `wf.toml`'s root, else the folder).
    pub root: PathBuf,
    /// The project file's settings, when there is one.
    pub config: Option<ProjectConfig>,
}

/// The workspace state.
pub struct Workspace {
    /// The database (the original: snapshots are clones of it).
    pub db: Database,
    /// The workspace folders, in the order the client gave them.
    pub folders: Vec<Folder>,
    /// Open documents by path.
    pub open: HashMap<PathBuf, OpenDoc>,
    /// The diagnostics last published, by URI.
    pub published: HashMap<Uri, Vec<lsp::Diagnostic>>,
    /// The document version the last publish of an open file named.
    pub published_versions: HashMap<Uri, i32>,
}

/// A read-only view for one request: a database snapshot and the URIs of
/// its files.
#[derive(Clone)]
pub struct Snapshot {
    /// The database snapshot.
    pub db: Database,
    /// The project settings of each folder: (project root, settings).
    pub configs: Vec<(PathBuf, ProjectConfig)>,
    /// URIs of the open documents, by path (others are derived).
    pub uris: HashMap<PathBuf, Uri>,
}

impl Snapshot {
    /// The URI of a file of the database.
    pub fn uri(&self, id: FileId) -> Option<Uri> {
        let path = self.db.file_path(id)?;
        self.uris
            .get(&path)
            .cloned()
            .or_else(|| Uri::from_file_path(&path))
    }

    /// The file of a URI.
    pub fn file(&self, uri: &Uri) -> Option<FileId> {
        self.db.file_id(uri.to_file_path()?)
    }

    /// The settings that apply to a file: those of the innermost project
    /// root holding it.
    pub fn config(&self, id: FileId) -> Option<&ProjectConfig> {
        let path = self.db.file_path(id)?;
        self.configs
            .iter()
            .filter(|(root, _)| path.starts_with(root))
            .max_by_key(|(root, _)| root.components().count())
            .map(|(_, config)| config)
    }

    /// Every file's URI, text and line index.
    pub fn file_map(&self) -> FileMap {
        let mut map = FileMap::default();
        for id in self.db.file_ids() {
            if let (Some(uri), Some(text)) = (self.uri(id), self.db.file_text(id)) {
                map.insert(id, uri, text);
            }
        }
        map
    }

    /// WF0011 for the IR files of the database the IR loader refuses, as
    /// `wfc check` reports them (only `.json` files are read for it).
    fn ir_findings(&self) -> Vec<wf_diagnostics::Diagnostic> {
        let json = |path: &Path| {
            wf_model::SourceFormat::of_path(path) == Some(wf_model::SourceFormat::ReflexJson)
        };
        self.db
            .file_ids()
            .into_iter()
            .filter_map(|id| {
                let path = self.db.file_path(id).filter(|p| json(p))?;
                let text = self.db.file_text(id)?;
                wf_project::verify_ir(id, &path.to_string_lossy(), &text)
            })
            .collect()
    }

    /// Every file's diagnostics (lint levels of its `wf.toml` applied), as
    /// published: one entry per file, empty for a clean one.
    pub fn all_diagnostics(&self) -> Vec<(Uri, Vec<lsp::Diagnostic>)> {
        let mut by_file: HashMap<FileId, Vec<wf_diagnostics::Diagnostic>> = HashMap::new();
        for d in self.db.diagnostics().into_iter().chain(self.ir_findings()) {
            by_file.entry(d.primary.location.file).or_default().push(d);
        }
        let files = self.file_map();
        self.db
            .file_ids()
            .into_iter()
            .filter_map(|id| {
                let mut diagnostics = by_file.remove(&id).unwrap_or_default();
                if let Some(config) = self.config(id) {
                    project::apply_lint_levels(&mut diagnostics, config);
                }
                let converted = diagnostics
                    .iter()
                    .map(|d| convert::to_lsp(d, &files))
                    .collect();
                Some((self.uri(id)?, converted))
            })
            .collect()
    }
}

impl Workspace {
    /// The workspace of the given folders (none: the current directory).
    /// Returns the problems with `wf.toml` files, for the client's log.
    pub fn new(folders: Vec<PathBuf>) -> (Self, Vec<String>) {
        let mut folders = folders;
        if folders.is_empty() {
            folders.push(std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")));
        }
        let mut problems = Vec::new();
        let folders: Vec<Folder> = folders
            .into_iter()
            .map(|folder| {
                let config = wf_project::find_project(&folder)
                    .map_err(|err| problems.push(err.to_string()))
                    .ok()
                    .flatten();
                let root = config
                    .as_ref()
                    .map_or_else(|| folder.clone(), |c| c.root.clone());
                let root = imports::normalize(&root);
                Folder {
                    folder,
                    root,
                    config,
                }
            })
            .collect();
        let probes: Vec<PathBuf> = folders.iter().map(|f| f.root.join("_")).collect();
        let root = imports::common_root(probes.iter().map(PathBuf::as_path));
        // The database's root holds every project root (each import is
        // still loaded only from inside a project root).
        let mut workspace = Workspace {
            db: Database::new(&root),
            folders,
            open: HashMap::new(),
            published: HashMap::new(),
            published_versions: HashMap::new(),
        };
        // What `wfc check` reads for each project root.
        let mut found = Vec::new();
        let mut left = MAX_SCANNED_FILES;
        for folder in &workspace.folders {
            let tree = wf_project::read_tree(&folder.root, left);
            left -= tree.files.len().min(left);
            problems.extend(tree.errors.into_iter().map(|err| err.0));
            if tree.truncated {
                problems.push(format!(
                    "wfc lsp: stopped loading `{}` after {MAX_SCANNED_FILES} files; open a narrower folder or add a wf.toml",
                    folder.root.display()
                ));
            }
            found.extend(tree.files);
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found.dedup_by(|a, b| a.0 == b.0);
        let files: Vec<(PathBuf, String, String)> = found
            .into_iter()
            .map(|(path, text)| {
                let display = workspace.display(&path);
                (path, display, text)
            })
            .collect();
        workspace.db.set_files(files);
        workspace.load_imports();
        (workspace, problems)
    }

    /// The folders' paths.
    pub fn folder_paths(&self) -> Vec<PathBuf> {
        self.folders.iter().map(|f| f.folder.clone()).collect()
    }

    /// How diagnostics name a file: relative to the root of its project.
    pub fn display(&self, path: &Path) -> String {
        let relative = self
            .folders
            .iter()
            .filter_map(|f| path.strip_prefix(&f.root).ok())
            .min_by_key(|p| p.components().count());
        imports::display(relative.unwrap_or(path))
    }

    /// Opens (or re-opens) a document.
    pub fn open(&mut self, uri: Uri, version: i32, text: String) {
        let Some(path) = uri.to_file_path().map(|p| imports::normalize(&p)) else {
            return;
        };
        let display = self.display(&path);
        self.db.set_file(&path, display, text.clone());
        self.db.open_for_editing(&path);
        self.open.insert(path, OpenDoc { uri, version, text });
        self.load_imports();
    }

    /// Applies a change to an open document.
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: &[lsp::TextDocumentContentChangeEvent],
    ) {
        let Some(path) = uri.to_file_path().map(|p| imports::normalize(&p)) else {
            return;
        };
        let Some(doc) = self.open.get_mut(&path) else {
            return;
        };
        for change in changes {
            convert::apply_change(&mut doc.text, change);
        }
        doc.version = version;
        let text = doc.text.clone();
        let display = self.display(&path);
        self.db.set_file(&path, display, text);
        self.load_imports();
    }

    /// Closes a document: the file goes back to its text on disk, or
    /// leaves the project when it is not on disk.
    pub fn close(&mut self, uri: &Uri) {
        let Some(path) = uri.to_file_path().map(|p| imports::normalize(&p)) else {
            return;
        };
        if self.open.remove(&path).is_none() {
            return;
        }
        if let Some(text) = crate::watch::read_source(&path) {
            let display = self.display(&path);
            self.db.set_file(&path, display, text);
        } else if !path.exists() {
            self.db.remove_file(&path);
            self.load_imports();
        }
    }

    /// A snapshot for a request.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            db: self.db.clone(),
            configs: self
                .folders
                .iter()
                .filter_map(|f| Some((f.root.clone(), f.config.clone()?)))
                .collect(),
            uris: self
                .open
                .iter()
                .map(|(path, doc)| (path.clone(), doc.uri.clone()))
                .collect(),
        }
    }

    /// The version of an open document.
    pub fn version(&self, uri: &Uri) -> Option<i32> {
        let path = imports::normalize(&uri.to_file_path()?);
        self.open.get(&path).map(|doc| doc.version)
    }

    /// Whether `path` is inside one of the project roots.
    pub fn contains(&self, path: &Path) -> bool {
        self.folders.iter().any(|f| path.starts_with(&f.root))
    }

    /// Loads imported files from disk (inside a project root only).
    pub fn load_imports(&mut self) {
        let roots: Vec<PathBuf> = self
            .folders
            .iter()
            .map(|f| f.root.canonicalize().unwrap_or_else(|_| f.root.clone()))
            .collect();
        let shown: Vec<PathBuf> = self.folders.iter().map(|f| f.root.clone()).collect();
        let roots: Vec<&Path> = roots.iter().map(PathBuf::as_path).collect();
        self.db.load_imports(|path| {
            let relative = shown.iter().find_map(|root| path.strip_prefix(root).ok());
            let display = imports::display(relative.unwrap_or(path));
            let text = wf_project::read_import(path, &roots, &display)?;
            Ok((display, text))
        });
    }
}

#[cfg(test)]
mod tests {
    use wf_analysis::Database;
    use wf_analysis::db::ide::{Cancelled, catch_cancellation};

    /// An edit on the original cancels reads still running on a snapshot:
    /// they unwind with [`Cancelled`] (the server answers "content
    /// modified"), the edit waits for the snapshot to be dropped, and a
    /// fresh snapshot sees the new text.
    #[test]
    fn an_edit_cancels_reads_on_snapshots() {
        let mut db = Database::new("/p");
        let id = db.set_file("/p/a.wf", "a.wf", "workflow A {\n  start -> done\n}\n");
        let snapshot = db.clone();
        let reader = std::thread::spawn(move || {
            loop {
                let read = catch_cancellation(std::panic::AssertUnwindSafe(|| {
                    snapshot.file_diagnostics(id).len()
                }));
                if read == Err(Cancelled) {
                    return true; // dropping the snapshot lets the edit land
                }
                std::thread::yield_now();
            }
        });
        // Blocks until the reader has been cancelled and dropped its clone.
        db.set_file(
            "/p/a.wf",
            "a.wf",
            "workflow A {\n  step x { reads k }\n  start -> x -> done\n}\n",
        );
        assert!(reader.join().unwrap());
        let fresh = db.clone();
        assert_eq!(fresh.file_diagnostics(id)[0].code.code, "WF0301");
    }

    /// Files on disk are decoded as `wfc check` decodes them: a leading
    /// byte-order mark is dropped, so offsets (and the columns of the
    /// first line) agree with the command line's.
    #[test]
    fn a_byte_order_mark_is_dropped_as_the_command_line_drops_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let text = "\u{feff}workflow A {\n  start -> done\n}\n";
        std::fs::write(root.join("a.wf"), text).unwrap();
        let (workspace, problems) = super::Workspace::new(vec![root.clone()]);
        assert!(problems.is_empty(), "{problems:?}");
        let id = workspace.db.file_id(root.join("a.wf")).unwrap();
        assert_eq!(workspace.db.file_text(id).unwrap(), &text[3..]);
    }
}
