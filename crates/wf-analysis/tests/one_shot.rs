//! A one-shot database (`Database::set_one_shot`, what `wfc check` uses)
//! reports exactly what an editable one does, on every source file of the
//! project's tests and examples, one directory at a time (so that imports
//! resolve among their neighbours), and on the Attractor corpus when it is
//! there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wf_analysis::Database;

#[path = "../../../tests/support/corpus.rs"]
mod corpus;

/// Source files under `dir`, by directory.
fn sources(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<PathBuf>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("wf" | "dot" | "fabro" | "json")
        ) {
            out.entry(dir.to_path_buf()).or_default().push(path);
        }
    }
}

fn diagnostics(dir: &Path, files: &[(PathBuf, String)], one_shot: bool) -> String {
    let mut db = Database::new(dir);
    if one_shot {
        db.set_one_shot();
    }
    db.set_files(
        files
            .iter()
            .map(|(path, text)| (path.clone(), path.display().to_string(), text.clone())),
    );
    format!("{:#?}", db.diagnostics())
}

fn compare(root: &Path) -> usize {
    let mut dirs = BTreeMap::new();
    sources(root, &mut dirs);
    let mut compared = 0;
    for (dir, mut paths) in dirs {
        paths.sort();
        let files: Vec<(PathBuf, String)> = paths
            .into_iter()
            .filter_map(|p| Some((p.clone(), std::fs::read_to_string(&p).ok()?)))
            .collect();
        assert_eq!(
            diagnostics(&dir, &files, true),
            diagnostics(&dir, &files, false),
            "{}",
            dir.display()
        );
        compared += files.len();
    }
    compared
}

#[test]
fn one_shot_reports_what_an_editable_database_reports() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let compared = compare(&workspace.join("tests")) + compare(&workspace.join("examples"));
    assert!(compared > 200, "only {compared} files compared");
}

#[test]
fn one_shot_reports_what_an_editable_database_reports_on_the_corpus() {
    if let Some(dir) = corpus::shared_corpus("attractor") {
        assert!(compare(&dir) > 250);
    }
}
