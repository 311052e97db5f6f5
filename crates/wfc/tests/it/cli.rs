//! CLI snapshot tests: each records the arguments, exit code, stdout and
//! stderr of one `wfc` invocation, run from the repository root so paths in
//! the output are stable. Fixtures live in `tests/cli/`, snapshots in
//! `tests/cli/snapshots/`.

use crate::common;

use common::repo_root;

use std::process::Command;

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

macro_rules! cli_snapshot {
    ($name:literal, $cmd:expr) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(repo_root().join("tests/cli/snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| assert_cmd_snapshot!($name, $cmd));
    }};
}

#[test]
fn check_examples_is_clean() {
    cli_snapshot!("check_examples", wfc(&["check", "examples"]));
}

#[test]
fn check_clean_file() {
    cli_snapshot!("check_clean_file", wfc(&["check", "tests/cli/clean.wf"]));
}

#[test]
fn check_broken_human() {
    cli_snapshot!("check_broken_human", wfc(&["check", "tests/cli/broken.wf"]));
}

/// Human output shows at most `--max-reports-per-file` reports per file,
/// then counts the rest (issue 14, item 14).
#[test]
fn check_broken_human_limited() {
    cli_snapshot!(
        "check_broken_human_limited",
        wfc(&[
            "check",
            "--max-reports-per-file",
            "1",
            "tests/cli/broken.wf"
        ])
    );
}

#[test]
fn check_broken_concise() {
    cli_snapshot!(
        "check_broken_concise",
        wfc(&["check", "--format", "concise", "tests/cli/broken.wf"])
    );
}

#[test]
fn check_broken_json() {
    cli_snapshot!(
        "check_broken_json",
        wfc(&["check", "--format", "json", "tests/cli/broken.wf"])
    );
}

#[test]
fn check_human_forced_color() {
    cli_snapshot!(
        "check_human_forced_color",
        wfc(&["check", "--color", "always", "tests/cli/warning_only.wf"])
    );
}

#[test]
fn no_color_wins_over_auto() {
    let mut cmd = wfc(&["check", "tests/cli/warning_only.wf"]);
    cmd.env("NO_COLOR", "1");
    cli_snapshot!("check_no_color", cmd);
}

#[test]
fn warnings_pass_without_deny() {
    cli_snapshot!(
        "check_warning_only",
        wfc(&["check", "--format", "concise", "tests/cli/warning_only.wf"])
    );
}

#[test]
fn warnings_fail_with_deny() {
    cli_snapshot!(
        "check_warning_only_denied",
        wfc(&[
            "check",
            "--deny-warnings",
            "--format",
            "concise",
            "tests/cli/warning_only.wf"
        ])
    );
}

#[test]
fn check_stdin_with_filename() {
    let source = std::fs::read_to_string(repo_root().join("tests/cli/broken.wf")).unwrap();
    let mut cmd = wfc(&[
        "check",
        "--format",
        "concise",
        "--stdin-filename",
        "pipeline.wf",
        "-",
    ]);
    cli_snapshot!("check_stdin", cmd.pass_stdin(source));
}

#[test]
fn check_stdin_without_filename() {
    let mut cmd = wfc(&["check", "--format", "concise", "-"]);
    cli_snapshot!(
        "check_stdin_unnamed",
        cmd.pass_stdin("workflow W { a -> b -> a }\n")
    );
}

#[test]
fn check_missing_file() {
    cli_snapshot!(
        "check_missing_file",
        wfc(&["check", "tests/cli/does-not-exist.wf"])
    );
}

#[test]
fn check_non_utf8_file() {
    cli_snapshot!(
        "check_non_utf8",
        wfc(&["check", "--format", "concise", "tests/cli/latin1.wf"])
    );
}

#[test]
fn check_directory_without_workflows() {
    cli_snapshot!(
        "check_empty_directory",
        wfc(&["check", "tests/cli/no-workflows"])
    );
}

#[test]
fn check_unknown_format_is_usage_error() {
    cli_snapshot!(
        "check_bad_format",
        wfc(&["check", "--format", "xml", "examples"])
    );
}

#[test]
fn unknown_subcommand_is_usage_error() {
    cli_snapshot!("unknown_subcommand", wfc(&["frobnicate"]));
}

#[test]
fn explain_code() {
    cli_snapshot!("explain_cycle", wfc(&["explain", "WF0201"]));
}

#[test]
fn explain_by_name() {
    cli_snapshot!("explain_by_name", wfc(&["explain", "unknown-workflow"]));
}

#[test]
fn explain_unknown_code() {
    cli_snapshot!("explain_unknown", wfc(&["explain", "WF9999"]));
}

#[test]
fn explain_lists_codes() {
    cli_snapshot!("explain_list", wfc(&["explain"]));
}

#[test]
fn project_file_sets_paths_and_lint_levels() {
    let mut cmd = wfc(&["check", "--format", "concise"]);
    cmd.current_dir(repo_root().join("tests/cli/project/flows"));
    cli_snapshot!("project_without_paths", cmd);
}

#[test]
fn invalid_project_file_is_a_usage_error() {
    let mut cmd = wfc(&["check"]);
    cmd.current_dir(repo_root().join("tests/cli/bad-project"));
    cli_snapshot!("project_invalid", cmd);
}

#[test]
fn output_file_receives_the_report() {
    let dir = repo_root().join("target/cli-test-output");
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.sarif");
    let _ = std::fs::remove_file(&report);
    let output = wfc(&[
        "check",
        "--format",
        "sarif",
        "--output-file",
        report.to_str().unwrap(),
        "tests/cli/broken.wf",
    ])
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "the report went to stdout");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(written["version"], "2.1.0");
    assert!(!written["runs"][0]["results"].as_array().unwrap().is_empty());
}

#[test]
fn output_file_in_a_missing_directory_is_an_io_error() {
    cli_snapshot!(
        "output_file_missing_directory",
        wfc(&[
            "check",
            "--output-file",
            "tests/cli/no-such-dir/report.txt",
            "tests/cli/clean.wf"
        ])
    );
}

#[test]
fn check_reflex_json_human() {
    cli_snapshot!(
        "check_reflex_json_human",
        wfc(&["check", "tests/cli/reflex-broken.json"])
    );
}

#[test]
fn check_reflex_json_concise_has_line_and_column() {
    cli_snapshot!(
        "check_reflex_json_concise",
        wfc(&[
            "check",
            "--format",
            "concise",
            "tests/cli/reflex-broken.json",
            "tests/cli/reflex-malformed.json"
        ])
    );
}

#[test]
fn build_emit_reflex_to_stdout() {
    cli_snapshot!(
        "build_emit_reflex_to_stdout",
        wfc(&["build", "--emit", "reflex", "-o", "-", "examples/hello.wf"])
    );
}

#[test]
fn build_emit_reflex_refuses_guards_reflex_lacks() {
    cli_snapshot!(
        "build_emit_reflex_refuses",
        wfc(&["build", "--emit", "reflex", "-o", "-", "examples/refine.wf"])
    );
}

#[test]
fn check_dot_human() {
    cli_snapshot!(
        "check_dot_human",
        wfc(&["check", "tests/cli/dot-broken.dot"])
    );
}

#[test]
fn check_dot_and_fabro_concise() {
    cli_snapshot!(
        "check_dot_concise",
        wfc(&[
            "check",
            "--format",
            "concise",
            "tests/cli/dot-broken.dot",
            "tests/cli/dot-clean.fabro"
        ])
    );
}

/// A scratch copy of `tests/cli/fix/`, for the tests that let `--fix`
/// write; `wfc` runs in it, so reported paths are the bare file names.
fn fix_scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["fixable.wf", "fixable.dot"] {
        std::fs::copy(
            repo_root().join("tests/cli/fix").join(name),
            dir.path().join(name),
        )
        .unwrap();
    }
    dir
}

fn read(dir: &tempfile::TempDir, name: &str) -> String {
    std::fs::read_to_string(dir.path().join(name)).unwrap()
}

#[test]
fn check_fix_applies_safe_fixes_to_every_file_and_reports_the_rest() {
    let dir = fix_scratch();
    let mut cmd = wfc(&[
        "check",
        "--fix",
        "--format",
        "concise",
        "fixable.wf",
        "fixable.dot",
    ]);
    cmd.current_dir(dir.path());
    cli_snapshot!("check_fix", cmd);
    let original = |name| std::fs::read_to_string(repo_root().join("tests/cli/fix").join(name));
    assert_eq!(
        read(&dir, "fixable.wf"),
        original("fixable.wf")
            .unwrap()
            .replace("\"3\"", "3")
            .replace("\"30s\"", "30s")
    );
    assert_eq!(
        read(&dir, "fixable.dot"),
        original("fixable.dot").unwrap(),
        "a maybe-incorrect fix waits for --unsafe-fixes"
    );
}

#[test]
fn check_unsafe_fixes_also_applies_maybe_incorrect_fixes() {
    let dir = fix_scratch();
    let mut cmd = wfc(&["check", "--unsafe-fixes", "fixable.dot"]);
    cmd.current_dir(dir.path());
    cli_snapshot!("check_unsafe_fixes", cmd);
    assert!(read(&dir, "fixable.dot").contains("timeout=900s,"));
}

#[test]
fn check_fix_refuses_standard_input() {
    let mut cmd = wfc(&["check", "--fix", "-"]);
    cmd.stdin(std::process::Stdio::null());
    cli_snapshot!("check_fix_stdin", cmd);
}

#[test]
fn check_select_and_ignore_codes_names_and_prefixes() {
    cli_snapshot!(
        "check_select_ignore",
        wfc(&[
            "check",
            "--format",
            "concise",
            "--select",
            "WF05,WF06",
            "--ignore",
            "dot-duration-unit",
            "tests/cli/fix/fixable.wf",
            "tests/cli/fix/fixable.dot",
        ])
    );
}

#[test]
fn check_select_unknown_name_suggests_the_code() {
    cli_snapshot!(
        "check_select_unknown",
        wfc(&["check", "--select", "unreachable", "tests/cli/clean.wf"])
    );
}

#[test]
fn project_file_unknown_lint_name_suggests_the_code() {
    let mut cmd = wfc(&["check"]);
    cmd.current_dir(repo_root().join("tests/cli/lint-typo"));
    cli_snapshot!("project_lint_typo", cmd);
}

#[test]
fn check_exact_duplicate_edge_is_a_warning() {
    cli_snapshot!(
        "check_duplicate_edge",
        wfc(&["check", "tests/cli/duplicate-edge.dot"])
    );
}

#[test]
fn check_verifies_ir_files_instead_of_reading_them_as_reflex() {
    cli_snapshot!(
        "check_ir_files",
        wfc(&[
            "check",
            "--format",
            "concise",
            "tests/cli/ir-broken.json",
            "tests/cli/ir-clean.json"
        ])
    );
}

#[test]
fn check_target_reflex_reports_every_inexpressible_guard_without_building() {
    cli_snapshot!(
        "check_target_reflex",
        wfc(&[
            "check",
            "--target",
            "reflex",
            "--format",
            "concise",
            "tests/cli/reflex-guards.wf"
        ])
    );
}

#[test]
fn build_emit_reflex_reports_every_inexpressible_guard() {
    cli_snapshot!(
        "build_emit_reflex_all_guards",
        wfc(&[
            "build",
            "--emit",
            "reflex",
            "--format",
            "concise",
            "-o",
            "-",
            "tests/cli/reflex-guards.wf"
        ])
    );
}

/// Leniencies peers accept and the misspellings of issue 18 are warnings
/// with fixes: the check passes.
#[test]
fn check_dot_leniencies_are_warnings() {
    cli_snapshot!(
        "check_dot_lenient",
        wfc(&["check", "--format", "concise", "tests/cli/dot-lenient.dot"])
    );
}

/// The files a pipeline names are looked for next to it: a missing prompt
/// file is a warning, a missing child pipeline an error (WF0107: the run
/// could not start it), an existing child is checked with its parent, and a
/// prompt that is a sentence starting with `@` is not reported.
#[test]
fn check_dot_missing_files() {
    cli_snapshot!(
        "check_dot_files",
        wfc(&["check", "--format", "concise", "tests/cli/dot-files.dot"])
    );
}
