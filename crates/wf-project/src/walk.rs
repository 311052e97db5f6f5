//! Expanding paths into files: directories are walked (the rules of the
//! crate's documentation), and the files found are handed to other
//! threads as they are found.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::InputError;

/// The files `paths` stand for, in order, each with what `keep` made of it;
/// files named on the command line are kept as they are, with
/// `T::default()`. Walk problems go to `errors`.
///
/// In a directory, only the files `candidate` accepts are passed to
/// `keep`, which runs on other threads and drops the files it returns
/// `None` for. `keep` also gets the position the file will have in the
/// result if no candidate before it is dropped (in practice its position:
/// only a `.json` file that is not a Reflex workflow is dropped).
pub(crate) fn expand<T: Send + Default>(
    paths: &[PathBuf],
    errors: &mut Vec<InputError>,
    candidate: impl Fn(&Path) -> bool,
    keep: impl Fn(usize, &Path) -> Option<T> + Sync,
) -> Vec<(PathBuf, T)> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let (found, walk_errors, _) = walk(path, files.len(), usize::MAX, &candidate, &keep);
            errors.extend(
                walk_errors
                    .into_iter()
                    .map(|err| InputError(format!("cannot walk `{}`: {err}", path.display()))),
            );
            if found.is_empty() {
                errors.push(InputError(format!(
                    "no workflow files (*.wf, Reflex *.json) found in directory `{}`",
                    path.display()
                )));
            }
            files.extend(found);
        } else if path.exists() {
            files.push((path.clone(), T::default()));
        } else {
            errors.push(InputError(format!(
                "`{}`: no such file or directory",
                path.display()
            )));
        }
    }
    files
}

/// The files under the directory `root` that `candidate` accepts and
/// `keep` keeps, sorted by path (the order of a depth-first walk taking
/// each directory's entries by name), the walk's errors, sorted, and
/// whether the walk stopped at `limit` candidates.
///
/// This thread walks, in that order (`ignore`'s sequential walker,
/// honouring `.gitignore`), numbering the candidates from `first`; the
/// other cores run `keep` on them as they are found, and this thread joins
/// them when the walk ends. Walking in order is what lets `keep` know each
/// file's final position (a check lowers a file while others are still
/// being read, and the lowering needs the file's id).
pub(crate) fn walk<T: Send>(
    root: &Path,
    first: usize,
    limit: usize,
    candidate: &impl Fn(&Path) -> bool,
    keep: &(impl Fn(usize, &Path) -> Option<T> + Sync),
) -> (Vec<(PathBuf, T)>, Vec<String>, bool) {
    let (sender, receiver) = std::sync::mpsc::channel::<(usize, PathBuf)>();
    let receiver = Mutex::new(receiver);
    let take = || {
        let mut kept = Vec::new();
        loop {
            // The guard is dropped before `keep` runs: the others can take
            // the next file meanwhile.
            let next = lock(&receiver).recv();
            let Ok((position, path)) = next else { break };
            if let Some(value) = keep(position, &path) {
                kept.push((position, path, value));
            }
        }
        kept
    };
    let mut errors = Vec::new();
    let mut truncated = false;
    let mut found = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..wf_threads::cores())
            .map(|_| wf_threads::spawn_apart(scope, take))
            .collect();
        let mut next = first;
        for entry in walker(root).build() {
            match entry {
                Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                    let path = entry.into_path();
                    if candidate(&path) {
                        if next - first == limit {
                            truncated = true;
                            break;
                        }
                        // The receiver lives until the scope ends.
                        let _ = sender.send((next, path));
                        next += 1;
                    }
                }
                Ok(_) => {}
                Err(err) => errors.push(err.to_string()),
            }
        }
        drop(sender);
        let mut found = take();
        for helper in helpers {
            match helper.join() {
                Ok(kept) => found.extend(kept),
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        found
    });
    found.sort_unstable_by_key(|&(position, ..)| position);
    errors.sort();
    let found = found
        .into_iter()
        .map(|(_, path, value)| (path, value))
        .collect();
    (found, errors, truncated)
}

/// The walk of `root`: `ignore`'s defaults, spelled out because they are
/// the project's file rules (the crate's documentation): hidden files and
/// folders skipped; `.gitignore`, `.git/info/exclude` and the global git
/// excludes honoured inside a git repository only, as git does; `.ignore`
/// files honoured everywhere; ignore files of the folders above `root`
/// apply too; symbolic links not followed.
fn walker(root: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .require_git(true)
        .ignore(true)
        .parents(true)
        .follow_links(false)
        .sort_by_file_name(Ord::cmp);
    builder
}

/// Whether a walk of the directory `root` reaches `path` (hidden files and
/// folders and ignored ones are not reached; the extension and the text
/// are not looked at). Each directory on the way is listed one level deep
/// with the walk's rules, which is what the whole walk would do there,
/// without walking the rest of the tree.
pub(crate) fn reaches(root: &Path, path: &Path) -> bool {
    let Ok(relative) = path.strip_prefix(root) else {
        return false;
    };
    let mut dir = root.to_path_buf();
    for part in relative.components() {
        let child = dir.join(part);
        let listed = walker(&dir)
            .max_depth(Some(1))
            .build()
            .flatten()
            .any(|entry| entry.depth() == 1 && entry.path() == child);
        if !listed {
            return false;
        }
        dir = child;
    }
    true
}

/// The value behind a mutex, even if a thread panicked holding it (the
/// panic is raised again when the walk joins it).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
