//! Helpers shared by the integration tests of `wfc`.

#![allow(dead_code)] // each test module uses its own subset

pub mod dot;

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
    corpus::files_under(dir, extensions)
        .into_iter()
        .filter(|path| {
            !path
                .strip_prefix(dir)
                .is_ok_and(|p| p.components().any(|c| c.as_os_str() == "snapshots"))
        })
        .collect()
}

use wf_test_support::corpus;
#[allow(unused_imports)] // each test module uses its own subset
pub use corpus::shared_corpus;
