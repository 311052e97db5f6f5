//! Read-only lookups for editor features (the language server): a file's
//! lowered workflows and imports, where a workflow is declared, and the
//! files of the project. Every method reads memoized queries, so it is
//! cheap on a snapshot (a clone of the [`Database`]) and unwinds with
//! [`salsa::Cancelled`] when an edit lands on the original.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wf_diagnostics::{FileId, FileSpan};
use wf_model::Workflow;

use super::queries::{self, ImportTarget};
use super::{Database, SourceFile};
use crate::imports;

/// One import of a file, as an editor shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportInfo {
    /// The path literal's value.
    pub literal: String,
    /// Where the literal is written (quotes included).
    pub span: FileSpan,
    /// The imported file, when the project has it.
    pub target: Option<FileId>,
}

impl Database {
    fn source(&self, id: FileId) -> Option<SourceFile> {
        self.files.get(id.0 as usize).copied()
    }

    /// The ids of every file, in id order (removed files left out).
    pub fn file_ids(&self) -> Vec<FileId> {
        self.files
            .iter()
            .map(|f| f.id(self))
            .filter(|id| !self.is_removed(*id))
            .collect()
    }

    /// The (normalised) path of a file.
    pub fn file_path(&self, id: FileId) -> Option<PathBuf> {
        self.source(id).map(|f| f.path(self).clone())
    }

    /// How diagnostics name a file.
    pub fn file_display(&self, id: FileId) -> Option<String> {
        self.source(id).map(|f| f.display(self).clone())
    }

    /// The current text of a file.
    pub fn file_text(&self, id: FileId) -> Option<String> {
        self.source(id).map(|f| f.text(self).clone())
    }

    /// The workflows a file declares, lowered (best effort for a file with
    /// syntax errors: what parsed), in source order.
    pub fn file_workflows(&self, id: FileId) -> Vec<Arc<Workflow>> {
        self.source(id)
            .map(|f| queries::lower_file(self, f).workflows.clone())
            .unwrap_or_default()
    }

    /// The imports of a file with the files they resolve to.
    pub fn file_imports(&self, id: FileId) -> Vec<ImportInfo> {
        let Some(file) = self.source(id) else {
            return Vec::new();
        };
        let lowered = queries::lower_file(self, file);
        let targets = queries::import_targets(self, self.project(), file);
        lowered
            .imports
            .iter()
            .enumerate()
            .map(|(i, decl)| ImportInfo {
                literal: decl.path.clone(),
                span: decl.span,
                target: match targets.get(i) {
                    Some(ImportTarget::File(target)) => Some(target.id(self)),
                    _ => None,
                },
            })
            .collect()
    }

    /// The files that import `id` directly.
    pub fn importers(&self, id: FileId) -> Vec<FileId> {
        self.file_ids()
            .into_iter()
            .filter(|&other| {
                self.file_imports(other)
                    .iter()
                    .any(|import| import.target == Some(id))
            })
            .collect()
    }

    /// Every declaration of the workflow `name` visible from file `from`:
    /// its own file's first, then those of the files it imports, then any
    /// other file's (so that a missing import still finds something).
    pub fn workflow_declarations(&self, from: FileId, name: &str) -> Vec<Arc<Workflow>> {
        let imported: Vec<FileId> = self
            .file_imports(from)
            .iter()
            .filter_map(|import| import.target)
            .collect();
        let mut order: Vec<FileId> = vec![from];
        order.extend(imported.iter().copied().filter(|&f| f != from));
        order.extend(
            self.file_ids()
                .into_iter()
                .filter(|f| *f != from && !imported.contains(f)),
        );
        order
            .into_iter()
            .flat_map(|file| self.file_workflows(file))
            .filter(|workflow| workflow.name == name)
            .collect()
    }

    /// The id of the file an import literal written in the file at `from`
    /// would load, when the project has it.
    pub fn resolve_import(&self, from: &Path, literal: &str) -> Option<FileId> {
        let dir = from.parent().unwrap_or(Path::new(""));
        self.file_id(imports::normalize(&dir.join(literal)))
    }
}

/// A read on a snapshot was cancelled by an edit of the original database:
/// the result would be stale, so the caller drops it (a language server
/// answers "content modified") or retries on a fresh snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// Runs `read` (which reads a database snapshot), turning salsa's
/// cancellation unwinding into [`Cancelled`]; any other panic propagates.
pub fn catch_cancellation<T>(
    read: impl FnOnce() -> T + std::panic::UnwindSafe,
) -> Result<T, Cancelled> {
    salsa::Cancelled::catch(read).map_err(|_| Cancelled)
}

#[cfg(test)]
mod tests {
    use super::Database;

    /// A removed file leaves the project: its importers report the missing
    /// import, it has no diagnostics, and adding it again resolves it.
    #[test]
    fn a_removed_file_leaves_the_project() {
        let mut db = Database::new("/p");
        let lib = "workflow Review {\n  gives v: string\n  step j { writes v: string }\n  start -> j -> done\n}\n";
        db.set_file("/p/lib.wf", "lib.wf", lib);
        let main = db.set_file(
            "/p/main.wf",
            "main.wf",
            "import \"lib.wf\"\nworkflow W {\n  call r = Review\n  start -> r -> done\n}\n",
        );
        assert!(db.diagnostics().is_empty());
        let removed = db.remove_file("/p/lib.wf").expect("the project has it");
        assert!(db.is_removed(removed));
        assert_eq!(db.file_ids(), vec![main]);
        assert_eq!(db.file_id("/p/lib.wf"), None);
        let codes: Vec<&str> = db.diagnostics().iter().map(|d| d.code.code).collect();
        assert!(codes.contains(&"WF0104"), "{codes:?}");
        assert!(
            db.diagnostics()
                .iter()
                .all(|d| d.primary.location.file == main)
        );
        assert_eq!(db.remove_file("/p/lib.wf"), None);
        db.set_file("/p/lib.wf", "lib.wf", lib);
        assert!(db.diagnostics().is_empty());
    }
}
