//! Files changed on disk while not open in the editor
//! (`workspace/didChangeWatchedFiles`): created and changed source files
//! are read again, deleted ones leave the project, and a changed `wf.toml`
//! reloads the workspace. Importers are re-checked by the publish that
//! follows, since the database re-derives whatever read a changed file.

use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::{
    DidChangeWatchedFilesRegistrationOptions, FileChangeType, FileEvent, FileSystemWatcher,
    GlobPattern, Registration,
};
use wf_analysis::imports;

use crate::workspace::{SOURCE_EXTENSIONS, Workspace};

/// The registration id of the file watchers.
const WATCH_ID: &str = "wfc-watched-files";

/// The dynamic registration asking the client to watch the workspace's
/// source files and project files.
pub fn registration() -> Registration {
    let watchers = ["**/*.{wf,dot,fabro,gv,json}", "**/wf.toml"]
        .into_iter()
        .map(|glob| FileSystemWatcher {
            glob_pattern: GlobPattern::String(glob.to_string()),
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
    /// Applies changes on disk. Returns `true` when a `wf.toml` changed:
    /// the caller then loads the workspace again.
    pub fn disk_changed(&mut self, changes: &[FileEvent]) -> bool {
        let mut reload = false;
        for change in changes {
            let Some(path) = change.uri.to_file_path().map(|p| imports::normalize(&p)) else {
                continue;
            };
            if path.file_name().is_some_and(|n| n == "wf.toml") {
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
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                let display = self.display(&path);
                self.db.set_file(&path, display, text);
            }
        }
        self.load_imports();
        reload
    }

    /// Whether a file on disk belongs in the project: a source file the
    /// scan collects, a file the project already has, or one an import
    /// names (a Reflex `.json` or a `.gv` pipeline is loaded only then).
    fn wanted(&self, path: &Path) -> bool {
        if path
            .extension()
            .is_some_and(|e| SOURCE_EXTENSIONS.iter().any(|s| e == *s))
            || self.db.file_id(path).is_some()
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
