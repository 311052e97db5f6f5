//! `wfc build`: CLI snapshots (arguments, exit code, stdout, stderr, run
//! from the repository root; snapshots in `tests/cli/snapshots/`, named
//! `build_*`), and every example compiled, loaded back and verified.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::repo_root;
use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};

/// `wfc` with a clean, deterministic environment.
fn wfc(args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(repo_root())
        .args(args)
        .env_remove("NO_COLOR")
        .env("RUST_BACKTRACE", "0");
    cmd
}

fn run(args: &[&str]) -> Output {
    wfc(args).output().expect("wfc runs")
}

macro_rules! cli_snapshot {
    ($name:literal, $cmd:expr) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(repo_root().join("tests/cli/snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| assert_cmd_snapshot!($name, $cmd));
    }};
}

/// The golden IR of DESIGN's production example (and the file it imports).
#[test]
fn build_release_to_stdout() {
    cli_snapshot!(
        "build_release_stdout",
        wfc(&["build", "examples/release.wf", "-o", "-"])
    );
}

#[test]
fn build_refuses_errors_and_writes_nothing() {
    let never = "target/wfc-build-never.json";
    let _ = std::fs::remove_file(repo_root().join(never));
    cli_snapshot!(
        "build_broken_concise",
        wfc(&[
            "build",
            "--format",
            "concise",
            "tests/cli/broken.wf",
            "-o",
            never
        ])
    );
    assert!(!repo_root().join(never).exists(), "nothing is written");
}

#[test]
fn build_reports_in_json() {
    cli_snapshot!(
        "build_broken_json",
        wfc(&[
            "build",
            "--format",
            "json",
            "tests/cli/broken.wf",
            "-o",
            "-"
        ])
    );
}

#[test]
fn build_shows_warnings_and_goes_on() {
    cli_snapshot!(
        "build_warning_only",
        wfc(&[
            "build",
            "--color",
            "never",
            "tests/cli/warning_only.wf",
            "-o",
            "-"
        ])
    );
}

#[test]
fn build_needs_an_output() {
    cli_snapshot!("build_missing_output", wfc(&["build", "examples/hello.wf"]));
}

#[test]
fn build_of_a_missing_file() {
    cli_snapshot!(
        "build_missing_file",
        wfc(&["build", "tests/cli/nope.wf", "-o", "-"])
    );
}

#[test]
fn build_writes_the_file_atomically() {
    let dir = std::env::temp_dir().join(format!("wfc-build-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("release.ir.json");
    std::fs::write(&out, "old").unwrap();
    let to_file = run(&["build", "examples/release.wf", "-o", out.to_str().unwrap()]);
    assert!(to_file.status.success(), "{to_file:?}");
    assert!(to_file.stdout.is_empty());
    let stderr = String::from_utf8(to_file.stderr).unwrap();
    assert!(
        stderr.starts_with("built 2 workflows from 2 files into `"),
        "{stderr}"
    );
    let to_stdout = run(&["build", "examples/release.wf", "-o", "-"]);
    assert_eq!(std::fs::read(&out).unwrap(), to_stdout.stdout);
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind");

    let missing_dir = dir.join("no/such/dir/out.json");
    let failed = run(&[
        "build",
        "examples/hello.wf",
        "-o",
        missing_dir.to_str().unwrap(),
    ]);
    assert_eq!(failed.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&failed.stderr).contains("cannot write"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every example compiles, its IR loads and verifies, and building twice
/// gives the same bytes; so does the whole directory at once.
#[test]
fn every_example_compiles_loads_and_is_deterministic() {
    let examples = repo_root().join("examples");
    let mut files: Vec<String> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wf"))
        .map(|p| format!("examples/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    files.push("examples".into());
    for file in &files {
        let first = run(&["build", file, "-o", "-"]);
        assert!(
            first.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&first.stderr)
        );
        let text = String::from_utf8(first.stdout).unwrap();
        let program = wf_ir::load(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(!program.workflows.is_empty(), "{file}");
        assert_eq!(
            wf_ir::to_json(&program),
            text,
            "{file}: load and write round-trip"
        );
        let second = run(&["build", file, "-o", "-"]);
        assert_eq!(second.stdout, text.as_bytes(), "{file}: same bytes twice");
    }
}

/// The order of the files on the command line does not change the output:
/// workflows come in path order.
#[test]
fn file_order_does_not_matter() {
    let a = run(&[
        "build",
        "examples/hello.wf",
        "examples/refine.wf",
        "-o",
        "-",
    ]);
    let b = run(&[
        "build",
        "examples/refine.wf",
        "examples/hello.wf",
        "-o",
        "-",
    ]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    assert!(Path::new(&repo_root()).join("examples/hello.wf").exists());
}

/// The Reflex fixtures of the shared corpus (read where they are; skipped
/// when the corpus is absent) compile, load, and keep their edge ids.
#[test]
fn reflex_corpus_builds_with_its_edge_ids() {
    let Some(corpus) = common::shared_corpus("reflex") else {
        return;
    };
    let mut built = 0;
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".json") || name == "workflow-schema.json" {
            continue;
        }
        let out = run(&["build", path.to_str().unwrap(), "-o", "-"]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let program = wf_ir::load(&String::from_utf8(out.stdout).unwrap()).unwrap();
        let source: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let ids: Vec<&str> = source["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap())
            .collect();
        let own = &program.workflows[program
            .workflow_by_name(source["id"].as_str().unwrap())
            .unwrap()
            .0 as usize];
        for id in ids {
            assert!(
                own.edges.iter().any(|e| program.str(e.id) == id),
                "{name}: {id}"
            );
        }
        built += 1;
    }
    assert!(built >= 3, "the corpus has three fixtures");
}
