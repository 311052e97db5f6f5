//! The project loader: which files make a project and how they are read,
//! shared by `wfc` (`check`, `build`, `run`, `fmt`, `graph`) and the
//! language server, so that the editor and the command line see the same
//! files and report the same diagnostics.
//!
//! The rules (documented for users in `docs/configuration.md`, "Which
//! files a project holds"):
//!
//! - A project is the directory of the nearest `wf.toml` ([`find_project`];
//!   its `[project] root` may move the root).
//! - A directory is walked recursively. Which extensions it collects, and
//!   in which format each is read, is [`wf_model::EXTENSIONS`]: `.wf`,
//!   `.dot` and `.fabro` always; `.json` only when it is a Reflex workflow
//!   (IR files and other JSON are skipped); `.gv` never (read when named).
//! - The walk skips hidden files and folders (names starting with `.`)
//!   and what `.gitignore` files ignore, as git does: only inside a git
//!   repository, with the repository's `.git/info/exclude` and the user's
//!   global excludes; `.ignore` files apply everywhere.
//! - A file named explicitly (on the command line, by an import, or opened
//!   in the editor) is read whatever its extension and wherever it is.
//! - Files are read as UTF-8, a leading byte-order mark dropped.
//! - An IR file (`"format": "wfc-ir"`) that is read is verified with the
//!   loader `wfc run` uses, and reported as WF0011 when refused
//!   ([`verify_ir`]).

mod ir;
mod read;
mod walk;

pub use ir::{verify_ir, verify_ir_files};
pub use read::{
    EarlyLowered, InputError, Tree, collect_paths, decode, io_reason, load_database, read_files,
    read_import, read_paths, read_stdin, read_tree, walk_collects,
};

use std::path::Path;

use wf_analysis::project::{self, ConfigError, ProjectConfig};

/// The project of the directory `start`: the `wf.toml` in it or in its
/// nearest ancestor that has one, loaded; `None` when there is none.
pub fn find_project(start: &Path) -> Result<Option<ProjectConfig>, ConfigError> {
    match project::discover(start) {
        Some(path) => project::load(&path).map(Some),
        None => Ok(None),
    }
}
