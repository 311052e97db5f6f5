//! The lexical path rules of imports and child pipelines, shared by the
//! checker (`wf_analysis::imports`, which reports WF0108 to WF0110) and the
//! runtime (`wf-vm`, which applies them again when a manager node starts
//! its child pipeline, since the IR may come from anywhere).
//!
//! A path is relative to the directory of the file that names it, is
//! normalised lexically (`.` dropped, `a/..` cancelled) and may not leave
//! the project root. Everything here is pure (no file system) and
//! O(length of the path); symbolic links are the loaders' concern.

use std::path::{Component, Path, PathBuf};

/// Why an import path is rejected before looking for the file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathProblem {
    /// The path is absolute (`/x.wf`, `C:\x.wf`).
    Absolute,
    /// Its `..` segments climb above the project root.
    EscapesRoot,
    /// It does not end in `.wf`.
    NotWf,
    /// It is empty.
    Empty,
}

/// Lexically normalises a path: drops `.` components and cancels `name/..`
/// pairs. Leading `..` that cannot be cancelled are kept.
pub fn normalize(path: &Path) -> PathBuf {
    // Most paths are normal already (a directory walk gives such paths);
    // collecting components costs several thousand instructions a path,
    // on the sequential part of loading a project.
    if is_normal(path) {
        return path.to_path_buf();
    }
    normalize_components(path)
}

/// Whether [`normalize`] would return `path` unchanged: no `.` or `..`
/// component, no empty one (`a//b`, a trailing `/`). Unix separators only;
/// elsewhere every path takes the general way.
fn is_normal(path: &Path) -> bool {
    if !cfg!(unix) {
        return false;
    }
    path.as_os_str()
        .as_encoded_bytes()
        .split(|&b| b == b'/')
        .enumerate()
        .all(|(i, part)| (i == 0 || !part.is_empty()) && part != b"." && part != b"..")
}

fn normalize_components(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // `/..` is `/`.
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(component),
            },
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// Whether `path` (normalised) lies inside `root` (normalised). A relative
/// root `""` contains every relative path that does not start with `..`.
pub fn is_inside(path: &Path, root: &Path) -> bool {
    path.starts_with(root)
        && !path
            .strip_prefix(root)
            .is_ok_and(|rest| rest.components().next() == Some(Component::ParentDir))
}

/// The extensions of the files a child pipeline may name.
pub const PIPELINE_EXTENSIONS: [&str; 3] = ["dot", "fabro", "gv"];

/// Resolves the child pipeline `literal` named in the pipeline at
/// `pipeline` against the project `root` (both normalised, in the same
/// space): the import rules' (`wf_analysis::imports::resolve`), with a pipeline extension instead
/// of `.wf`. Leading and trailing spaces are not part of the path (the
/// run time trims them too).
pub fn resolve_child(pipeline: &Path, literal: &str, root: &Path) -> Result<PathBuf, PathProblem> {
    let literal = literal.trim();
    if literal.is_empty() {
        return Err(PathProblem::Empty);
    }
    let written = Path::new(literal);
    if written.is_absolute() || written.has_root() || literal.starts_with('/') {
        return Err(PathProblem::Absolute);
    }
    let dir = pipeline.parent().unwrap_or(Path::new(""));
    let resolved = normalize(&dir.join(written));
    if !is_inside(&resolved, root) {
        return Err(PathProblem::EscapesRoot);
    }
    let extension = written.extension().and_then(|e| e.to_str());
    if !extension.is_some_and(|e| PIPELINE_EXTENSIONS.contains(&e)) {
        return Err(PathProblem::NotWf);
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_paths_are_pipelines_inside_the_root() {
        let root = Path::new("proj");
        assert_eq!(
            resolve_child(Path::new("proj/a/p.dot"), " ../b/c.fabro ", root),
            Ok(PathBuf::from("proj/b/c.fabro"))
        );
        assert_eq!(
            resolve_child(Path::new("proj/p.dot"), "../x.dot", root),
            Err(PathProblem::EscapesRoot)
        );
        assert_eq!(
            resolve_child(Path::new("proj/p.dot"), "/etc/passwd", root),
            Err(PathProblem::Absolute)
        );
        assert_eq!(
            resolve_child(Path::new("proj/p.dot"), "notes.txt", root),
            Err(PathProblem::NotWf)
        );
        assert_eq!(
            resolve_child(Path::new("proj/p.dot"), "  ", root),
            Err(PathProblem::Empty)
        );
    }

    /// The shortcut for paths that are normal already gives what collecting
    /// components gives, on every path built from tricky pieces.
    #[test]
    fn normalize_shortcut_agrees_with_components() {
        let pieces = ["", "/", "a", "b.c", ".", "..", "...", ".x", "x.", "//", "é"];
        let mut paths = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for path in &paths {
                for piece in pieces {
                    next.push(format!("{path}{piece}"));
                    next.push(format!("{path}/{piece}"));
                }
            }
            paths = next;
        }
        for path in paths {
            let path = Path::new(&path);
            assert_eq!(
                normalize(path),
                normalize_components(path),
                "{}",
                path.display()
            );
        }
    }
}
