//! Finding the shared corpus, for the tests of every crate (the rule lives
//! in one place).

use std::path::{Path, PathBuf};

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
        // Every crate's manifest, this one's too, is two levels below the
        // repository root.
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus")
            .join(kind),
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

/// Every file below `dir` whose extension is one of `extensions`, sorted
/// (for tests that run over a corpus or the project's own sources).
pub fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, extensions, out);
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
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
