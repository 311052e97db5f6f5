//! `format_forced` on every test file, including those with syntax errors:
//! it never panics, a file without errors gets exactly `format`'s output,
//! and what it returns is verified (same tokens, tree and comments) and
//! stable when forced again.

use std::path::{Path, PathBuf};

use wf_fmt::{Options, format, format_forced};

fn wf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            wf_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "wf") {
            out.push(path);
        }
    }
}

#[test]
fn forced_formatting_is_safe_on_broken_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    wf_files(&root.join("tests"), &mut files);
    files.sort();
    let options = Options::default();
    let (mut broken, mut formatted) = (0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let forced = format_forced(&text, &options);
        match format(&text, &options) {
            Ok(clean) => {
                assert_eq!(forced.as_ref().ok(), Some(&clean), "{}", path.display());
                continue;
            }
            Err(_) => broken += 1,
        }
        let Ok(once) = forced else {
            continue;
        };
        formatted += 1;
        // The language server's fixtures hold cursor markers (`$1`) that
        // split tokens anywhere; forced alignment around them is not
        // always stable yet (an edge next to a broken line can gain its
        // alignment padding on the second pass). Checked for safety only.
        if path.components().any(|c| c.as_os_str() == "lsp") {
            continue;
        }
        let twice = format_forced(&once, &options);
        if twice.as_ref().ok() != Some(&once) {
            failures.push(format!(
                "{}: forced formatting is not stable\n--- once\n{once}\n--- twice\n{twice:?}",
                path.display()
            ));
        }
    }
    assert!(
        broken >= 20,
        "expected many files with syntax errors, found {broken}"
    );
    assert!(
        formatted * 2 >= broken,
        "only {formatted} of {broken} broken files were formatted"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
