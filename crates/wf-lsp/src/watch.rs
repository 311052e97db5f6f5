//! Files changed on disk while not open in the editor
//! (`workspace/didChangeWatchedFiles`): created and changed source files
//! are read again, deleted ones leave the project, and a changed `wf.toml`,
//! `.gitignore` or `.ignore` reloads the workspace (they decide which
//! files it holds). Importers are re-checked by the publish that follows,
//! since the database re-derives whatever read a changed file.

use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::{
    DidChangeWatchedFilesRegistrationOptions, FileChangeType, FileEvent, FileSystemWatcher,
    GlobPattern, Registration,
};
use wf_analysis::imports;

use crate::workspace::Workspace;

/// The registration id of the file watchers.
const WATCH_ID: &str = "wfc-watched-files";

/// The files whose change reloads the workspace: the project file and the
/// ignore files the loader honours.
const RELOADING: [&str; 3] = ["wf.toml", ".gitignore", ".ignore"];

/// The dynamic registration asking the client to watch the workspace's
/// source files (every extension of [`wf_model::EXTENSIONS`]) and the
/// files that decide what the project holds.
pub fn registration() -> Registration {
    let extensions: Vec<&str> = wf_model::EXTENSIONS.iter().map(|e| e.extension).collect();
    let sources = format!("**/*.{{{}}}", extensions.join(","));
    let watchers = std::iter::once(sources)
        .chain(RELOADING.iter().map(|name| format!("**/{name}")))
        .map(|glob| FileSystemWatcher {
            glob_pattern: GlobPattern::String(glob),
            kind: None,
        })
        .collect();
    let options = DidChangeWatchedFilesRegistrationOptions { watchers };
    Registration {
        id: WATCH_ID.to_string(),
        method: "workspace/didChangeWatchedFiles".to_string(),
        register_options: serde_json::to_value(options).ok(),
    }
}

impl Workspace {
    /// Applies changes on disk. Returns `true` when a `wf.toml` or an
    /// ignore file changed: the caller then loads the workspace again.
    pub fn disk_changed(&mut self, changes: &[FileEvent]) -> bool {
        let mut reload = false;
        for change in changes {
            let Some(path) = change.uri.to_file_path().map(|p| imports::normalize(&p)) else {
                continue;
            };
            if path
                .file_name()
                .is_some_and(|n| RELOADING.iter().any(|r| n == *r))
            {
                reload = true;
                continue;
            }
            // The editor's text wins over the disk's while a file is open.
            if self.open.contains_key(&path) || !self.contains(&path) {
                continue;
            }
            if change.typ == FileChangeType::DELETED {
                self.db.remove_file(&path);
            } else if self.wanted(&path)
                && let Some(text) = read_source(&path)
            {
                let display = self.display(&path);
                self.db.set_file(&path, display, text);
            }
        }
        self.load_imports();
        reload
    }

    /// Whether a file on disk belongs in the project: one the project
    /// already has, one a walk of a project root collects (as `wfc check`
    /// would: not hidden or ignored, a Reflex `.json` only), or one an
    /// import names (a `.gv` pipeline is loaded only then).
    fn wanted(&self, path: &Path) -> bool {
        if self.db.file_id(path).is_some()
            || self
                .folders
                .iter()
                .any(|f| wf_project::walk_collects(&f.root, path))
        {
            return true;
        }
        self.missing_imports().iter().any(|p| p == path)
    }

    /// The paths imports name that the project does not have.
    fn missing_imports(&self) -> Vec<PathBuf> {
        let root = self.db.root().to_path_buf();
        let mut out = Vec::new();
        for id in self.db.file_ids() {
            let Some(from) = self.db.file_path(id) else {
                continue;
            };
            for import in self.db.file_imports(id) {
                if import.target.is_none()
                    && let Ok(path) =
                        wf_analysis::db::formats::resolve_import(&from, &import.literal, &root)
                {
                    out.push(path);
                }
            }
        }
        out
    }
}

/// A source file's text, decoded as the loader decodes it (a byte-order
/// mark dropped); `None` when it cannot be read or is not UTF-8.
pub(crate) fn read_source(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    wf_project::decode(&path.display().to_string(), bytes).ok()
}
