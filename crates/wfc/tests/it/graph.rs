//! `wfc graph`: CLI snapshots of the DOT and Mermaid pictures (fixtures in
//! `tests/graph/`, snapshots in `tests/graph/snapshots/`), the refusal of a
//! file that does not parse, and the message when Graphviz is missing.

use crate::common;

use common::repo_root;

use std::process::Command;

use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};

/// `wfc graph …` run from the repository root.
fn wfc(args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(repo_root())
        .arg("graph")
        .args(args)
        .env_remove("NO_COLOR")
        .env("RUST_BACKTRACE", "0");
    cmd
}

macro_rules! graph_snapshot {
    ($name:literal, $cmd:expr) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(repo_root().join("tests/graph/snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| assert_cmd_snapshot!($name, $cmd));
    }};
}

#[test]
fn dot_of_calls_and_guards() {
    graph_snapshot!("calls_dot", wfc(&["tests/graph/calls.wf"]));
}

#[test]
fn mermaid_of_calls_and_guards() {
    graph_snapshot!(
        "calls_mermaid",
        wfc(&["tests/graph/calls.wf", "--format", "mermaid"])
    );
}

#[test]
fn one_workflow_only() {
    graph_snapshot!(
        "calls_one_workflow",
        wfc(&[
            "tests/graph/calls.wf",
            "--workflow",
            "Review",
            "--format",
            "mermaid"
        ])
    );
}

#[test]
fn unknown_workflow_is_a_usage_error() {
    graph_snapshot!(
        "calls_unknown_workflow",
        wfc(&["tests/graph/calls.wf", "--workflow", "Nope"])
    );
}

#[test]
fn call_into_an_imported_file_is_a_stub() {
    graph_snapshot!("imports_dot", wfc(&["tests/graph/imports.wf"]));
}

#[test]
fn example_release_mermaid() {
    graph_snapshot!(
        "release_mermaid",
        wfc(&["examples/release.wf", "--format", "mermaid"])
    );
}

#[test]
fn attractor_dot_input() {
    graph_snapshot!("attractor_dot", wfc(&["tests/cli/dot-clean.fabro"]));
}

#[test]
fn reflex_json_input() {
    let Some(corpus) = common::shared_corpus("reflex") else {
        return;
    };
    let corpus = corpus.join("greeting.json");
    let output = wfc(&[corpus.to_str().unwrap(), "--format", "mermaid"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("flowchart TD\n  subgraph w0["), "{text}");
    assert!(text.contains("class w0_n0 entry"), "{text}");
}

#[test]
fn syntax_error_is_refused() {
    graph_snapshot!("broken", wfc(&["tests/graph/broken.wf"]));
}

#[test]
fn other_errors_are_drawn_with_a_warning() {
    graph_snapshot!("cycle", wfc(&["tests/graph/cycle.wf"]));
}

#[test]
fn svg_without_graphviz_says_how_to_install_it() {
    let mut cmd = wfc(&["tests/graph/calls.wf", "--format", "svg"]);
    cmd.env("PATH", "");
    graph_snapshot!("svg_without_dot", cmd);
}

#[test]
fn svg_with_graphviz() {
    let has_dot = Command::new("dot").arg("-V").output().is_ok();
    if !has_dot {
        eprintln!("skipped: Graphviz `dot` is not on the PATH");
        return;
    }
    let output = wfc(&["tests/graph/calls.wf", "--format", "svg"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let svg = String::from_utf8(output.stdout).unwrap();
    assert!(svg.contains("<svg"), "{svg}");
    assert!(svg.contains("Review it"), "{svg}");
}

#[test]
fn output_file_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("calls.mmd");
    let status = wfc(&[
        "tests/graph/calls.wf",
        "--format",
        "mermaid",
        "--output",
        out.to_str().unwrap(),
    ])
    .status()
    .unwrap();
    assert!(status.success());
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.starts_with("flowchart TD\n"), "{written}");
    // Nothing but the picture is left in the directory.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn output_is_deterministic() {
    let run = || wfc(&["tests/graph/calls.wf"]).output().unwrap().stdout;
    assert_eq!(run(), run());
}
