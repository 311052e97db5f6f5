//! Import resolution: `import "path.wf" [as name]`.
//!
//! Rules (see `docs/architecture.md`):
//!
//! - The path is relative to the directory of the importing file and is
//!   normalised lexically (`.` dropped, `a/..` cancelled).
//! - It must name a `.wf` file (WF0109) that exists (WF0107).
//! - It may not leave the project root (WF0108): absolute paths and `..`
//!   segments that climb above the root are rejected here, lexically; a
//!   symbolic link whose target is outside the root is rejected by the
//!   loader, which canonicalises paths (the analysis never touches the file
//!   system, so it stays a pure function of its inputs).
//! - Cycles are fine: imports are declarations, not execution.
//! - A `call` sees the workflows of its own file and of the files that file
//!   imports **directly** (not transitively); workflow names are unique
//!   across the whole project (WF0101).
//!
//! Everything here is pure and O(length of the path).

pub mod child;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use wf_diagnostics::{Code, Diagnostic, FileSpan, codes};
// The lexical path rules, shared with the runtime (child pipelines).
pub use wf_paths::{PathProblem, is_inside, normalize};

/// An `import` item of one file, as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImportDecl {
    /// The path literal's value.
    pub path: String,
    /// Where the path literal is written (quotes included).
    pub span: FileSpan,
    /// `as name`, when given.
    pub alias: Option<String>,
}

/// Why a well-formed import path could not be loaded; supplied by the loader
/// (the CLI or the language server), which reads the file system.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LoadFailure {
    /// Nothing exists at the path.
    NotFound,
    /// The path names a directory.
    Directory,
    /// A symbolic link along the path resolves to this target, outside the
    /// project root.
    OutsideRoot(PathBuf),
    /// The file exists but cannot be read (permissions, not UTF-8, …).
    Unreadable(String),
}

/// Resolves an import literal written in the file at `importer` against the
/// project `root`. Both must be in the same space (both absolute, or both
/// relative to the same directory) and normalised.
pub fn resolve(importer: &Path, literal: &str, root: &Path) -> Result<PathBuf, PathProblem> {
    if literal.is_empty() {
        return Err(PathProblem::Empty);
    }
    let written = Path::new(literal);
    // `has_root` also catches `\x.wf` on Windows, which `is_absolute` misses.
    if written.is_absolute() || written.has_root() || literal.starts_with('/') {
        return Err(PathProblem::Absolute);
    }
    let dir = importer.parent().unwrap_or(Path::new(""));
    let resolved = normalize(&dir.join(written));
    if !is_inside(&resolved, root) {
        return Err(PathProblem::EscapesRoot);
    }
    if wf_model::SourceFormat::of_path(written) != Some(wf_model::SourceFormat::Wf) {
        return Err(PathProblem::NotWf);
    }
    Ok(resolved)
}

/// The deepest directory containing every path's parent: the default project
/// root when no `wf.toml` says otherwise. `""` for relative paths with
/// nothing in common.
pub fn common_root<'a>(paths: impl IntoIterator<Item = &'a Path>) -> PathBuf {
    let mut common: Option<PathBuf> = None;
    for path in paths {
        let dir = normalize(path.parent().unwrap_or(Path::new("")));
        common = Some(match common {
            None => dir,
            Some(prev) => prev
                .components()
                .zip(dir.components())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common.unwrap_or_default()
}

/// Shows a path with `/` separators on every platform, so diagnostics and
/// snapshots read the same everywhere.
pub fn display(path: &Path) -> String {
    let text = path.display().to_string();
    if std::path::MAIN_SEPARATOR == '\\' {
        text.replace('\\', "/")
    } else {
        text
    }
}

/// How the diagnostics about a path name what it leads to: imports and
/// child pipelines follow the same rules with the same codes, except the
/// one for a file of the wrong kind.
pub struct PathNouns {
    /// The path itself: "import path".
    pub path: &'static str,
    /// What the path is relative to: "this file".
    pub base: &'static str,
    /// What to move into the project: "the file".
    pub target: &'static str,
    /// The code for a path naming the wrong kind of file (WF0109).
    pub wrong_kind: &'static Code,
    /// The kind of file it must name: "a `.wf` file".
    pub kind: &'static str,
    /// The label and help of a wrong kind.
    pub kind_label: &'static str,
    /// The help of a wrong kind.
    pub kind_help: &'static str,
}

/// The nouns of `import` paths.
pub static IMPORT: PathNouns = PathNouns {
    path: "import path",
    base: "this file",
    target: "the file",
    wrong_kind: &codes::IMPORT_NOT_WF,
    kind: "a `.wf` file",
    kind_label: "imports must name a `.wf` file",
    kind_help: "import the `.wf` file that defines the workflows you call",
};

/// WF0108, or `nouns.wrong_kind` (WF0109 for imports), for a path rejected
/// by [`resolve`] or [`child::resolve`].
pub fn path_problem(
    import: &ImportDecl,
    problem: &PathProblem,
    root: &Path,
    nouns: &PathNouns,
) -> Diagnostic {
    let path = &import.path;
    let noun = nouns.path;
    let root_shown = match display(root) {
        r if r.is_empty() => ".".to_string(),
        r => r,
    };
    match problem {
        PathProblem::Absolute => Diagnostic::new(
            &codes::IMPORT_OUTSIDE_ROOT,
            format!("{noun} `{path}` is absolute"),
            import.span,
        )
        .with_primary_label("absolute paths are not allowed")
        .with_help(format!(
            "write the path relative to the directory of {}",
            nouns.base
        )),
        PathProblem::EscapesRoot => Diagnostic::new(
            &codes::IMPORT_OUTSIDE_ROOT,
            format!("{noun} `{path}` leaves the project root"),
            import.span,
        )
        .with_primary_label("`..` climbs above the project root")
        .with_note(format!("the project root is `{root_shown}`"))
        .with_help(format!(
            "move {} into the project, or put `wf.toml` in a directory that contains both files",
            nouns.target
        )),
        PathProblem::NotWf => Diagnostic::new(
            nouns.wrong_kind,
            format!("{noun} `{path}` does not name {}", nouns.kind),
            import.span,
        )
        .with_primary_label(nouns.kind_label)
        .with_help(nouns.kind_help),
        PathProblem::Empty => {
            Diagnostic::new(nouns.wrong_kind, format!("{noun} is empty"), import.span)
                .with_primary_label("no file named")
                .with_help(format!(
                    "write the path of {}, relative to {}",
                    nouns.kind, nouns.base
                ))
        }
    }
}

/// WF0107 (or WF0108 for a symbolic link leaving the root) for an import
/// whose target could not be loaded; `shown` is the resolved path as users
/// see it.
pub fn load_problem(import: &ImportDecl, failure: &LoadFailure, shown: &str) -> Diagnostic {
    let path = &import.path;
    match failure {
        LoadFailure::NotFound => Diagnostic::new(
            &codes::UNRESOLVED_IMPORT,
            format!("imported file `{path}` not found"),
            import.span,
        )
        .with_primary_label(format!("no file at `{shown}`"))
        .with_help("import paths are relative to the directory of the importing file"),
        LoadFailure::Directory => Diagnostic::new(
            &codes::UNRESOLVED_IMPORT,
            format!("import path `{path}` names a directory"),
            import.span,
        )
        .with_primary_label(format!("`{shown}` is a directory"))
        .with_help("import each `.wf` file you need; a directory cannot be imported"),
        LoadFailure::Unreadable(reason) => Diagnostic::new(
            &codes::UNRESOLVED_IMPORT,
            format!("imported file `{path}` cannot be read"),
            import.span,
        )
        .with_primary_label(format!("cannot read `{shown}`"))
        .with_note(reason.clone()),
        LoadFailure::OutsideRoot(target) => Diagnostic::new(
            &codes::IMPORT_OUTSIDE_ROOT,
            format!("import path `{path}` leaves the project root through a symbolic link"),
            import.span,
        )
        .with_primary_label(format!("`{shown}` links outside the project"))
        .with_note(format!("the link resolves to `{}`", display(target)))
        .with_help("copy the file into the project, or move `wf.toml` up to a directory that contains the target"),
    }
}
