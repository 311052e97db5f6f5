//! Path rules of imports, without any file system.

use std::path::{Path, PathBuf};

use super::*;

fn p(s: &str) -> PathBuf {
    PathBuf::from(s)
}

#[test]
fn normalize_drops_dots_and_cancels_parents() {
    assert_eq!(normalize(Path::new("./a/./b/../c.wf")), p("a/c.wf"));
    assert_eq!(normalize(Path::new("a/../../x.wf")), p("../x.wf"));
    assert_eq!(normalize(Path::new("/a/../../x.wf")), p("/x.wf"));
    assert_eq!(normalize(Path::new("./x.wf")), p("x.wf"));
}

#[test]
fn resolves_relative_to_the_importing_file() {
    let root = p("proj");
    assert_eq!(
        resolve(Path::new("proj/app/main.wf"), "lib/review.wf", &root),
        Ok(p("proj/app/lib/review.wf"))
    );
    assert_eq!(
        resolve(Path::new("proj/app/main.wf"), "../shared/n.wf", &root),
        Ok(p("proj/shared/n.wf"))
    );
    assert_eq!(
        resolve(Path::new("proj/main.wf"), "./a/../b.wf", &root),
        Ok(p("proj/b.wf"))
    );
}

#[test]
fn rejects_paths_leaving_the_root() {
    let root = p("proj");
    assert_eq!(
        resolve(Path::new("proj/main.wf"), "../other/x.wf", &root),
        Err(PathProblem::EscapesRoot)
    );
    assert_eq!(
        resolve(Path::new("proj/a/main.wf"), "../../x.wf", &root),
        Err(PathProblem::EscapesRoot)
    );
    // A relative root of "" (the current directory) still has an outside.
    assert_eq!(
        resolve(Path::new("main.wf"), "../x.wf", Path::new("")),
        Err(PathProblem::EscapesRoot)
    );
    assert_eq!(
        resolve(Path::new("proj/main.wf"), "/etc/x.wf", &root),
        Err(PathProblem::Absolute)
    );
    // Absolute roots work the same way.
    assert_eq!(
        resolve(Path::new("/w/p/main.wf"), "../q/x.wf", Path::new("/w/p")),
        Err(PathProblem::EscapesRoot)
    );
    assert_eq!(
        resolve(Path::new("/w/p/a/main.wf"), "../x.wf", Path::new("/w/p")),
        Ok(p("/w/p/x.wf"))
    );
}

#[test]
fn rejects_non_wf_and_empty_paths() {
    let root = p("");
    assert_eq!(
        resolve(Path::new("main.wf"), "lib/review", &root),
        Err(PathProblem::NotWf)
    );
    assert_eq!(
        resolve(Path::new("main.wf"), "lib/review.yaml", &root),
        Err(PathProblem::NotWf)
    );
    assert_eq!(
        resolve(Path::new("main.wf"), "", &root),
        Err(PathProblem::Empty)
    );
}

#[test]
fn common_root_of_files() {
    let files = [p("a/b/x.wf"), p("a/b/c/y.wf"), p("a/d/z.wf")];
    assert_eq!(common_root(files.iter().map(PathBuf::as_path)), p("a"));
    assert_eq!(common_root([Path::new("x.wf")]), p(""));
    assert_eq!(
        common_root([Path::new("a/x.wf"), Path::new("b/y.wf")]),
        p("")
    );
}

#[test]
fn inside_is_component_wise() {
    assert!(is_inside(Path::new("proj/x.wf"), Path::new("proj")));
    assert!(!is_inside(Path::new("project/x.wf"), Path::new("proj")));
    assert!(is_inside(Path::new("x.wf"), Path::new("")));
    assert!(!is_inside(Path::new("../x.wf"), Path::new("")));
}
