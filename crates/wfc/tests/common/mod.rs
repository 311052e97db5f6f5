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
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "snapshots") {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "wf") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The shared corpus folder `kind` (`attractor`, `reflex`), read where it
/// is and never copied into the project: `$WFC_CORPUS/KIND` when set, else
/// `../shared/corpus/KIND` next to the repository.
///
/// `None` (after printing that the caller is skipped) when it is missing,
/// unless `WFC_REQUIRE_CORPUS` is set, as `.ci/run` does: then a missing
/// corpus fails the test.
pub fn shared_corpus(kind: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("WFC_CORPUS") {
        Some(root) => PathBuf::from(root).join(kind),
        None => repo_root().join("../shared/corpus").join(kind),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("WFC_REQUIRE_CORPUS").is_none(),
        "the shared corpus is missing at {} (WFC_REQUIRE_CORPUS is set); set WFC_CORPUS to its folder",
        dir.display()
    );
    eprintln!("skipped: no shared corpus at {}", dir.display());
    None
}
