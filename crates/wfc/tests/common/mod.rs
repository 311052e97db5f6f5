//! Helpers shared by the integration tests of `wfc`.

#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};

/// The repository root, where `tests/`, `examples/` and `docs/` live.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Every `.wf` file below `dir`, recursively, skipping `snapshots/`
/// directories, in sorted order.
pub fn wf_files(dir: &Path) -> Vec<PathBuf> {
    files_with_extensions(dir, &["wf"])
}

/// Every file under `dir` (recursively, skipping `snapshots/`) whose
/// extension is one of `extensions`, sorted.
pub fn files_with_extensions(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "snapshots") {
                    walk(&path, extensions, out);
                }
            } else if path
                .extension()
                .is_some_and(|e| extensions.iter().any(|x| e == *x))
            {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, extensions, &mut out);
    out.sort();
    out
}

#[path = "../../../../tests/support/corpus.rs"]
mod corpus;
#[allow(unused_imports)] // each test binary uses its own subset
pub use corpus::shared_corpus;
