//! A one-shot database (`Database::set_one_shot`, what `wfc check` uses)
//! reports exactly what an editable one does, on every source file of the
//! project's tests and examples, one directory at a time (so that imports
//! resolve among their neighbours), and on the Attractor corpus when it is
//! there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wf_analysis::Database;

use wf_test_support::corpus;

/// Source files under `dir`, by directory.
fn sources(dir: &Path) -> BTreeMap<PathBuf, Vec<PathBuf>> {
    let mut by_dir: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for path in corpus::files_under(dir, &["wf", "dot", "fabro", "json"]) {
        let parent = path.parent().unwrap_or(dir).to_path_buf();
        by_dir.entry(parent).or_default().push(path);
    }
    by_dir
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
    let mut compared = 0;
    for (dir, paths) in sources(root) {
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
