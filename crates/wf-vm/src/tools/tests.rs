use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::fixture::{Board, all_edges, context, program};
use super::*;
use crate::agent::Status;

fn run_with(runner: &mut ProcessToolRunner, command: &str, timeout: Duration) -> Outcome {
    run_command(runner, &ShellCommand::plain(command), timeout)
}

pub(crate) fn run_command(
    runner: &mut ProcessToolRunner,
    command: &ShellCommand,
    timeout: Duration,
) -> Outcome {
    let program = program();
    let board = Board(Vec::new());
    let valid = all_edges(&program, 0);
    let cx = context(&program, 0, &board, &valid);
    runner.run(&cx, command, timeout)
}

fn run(command: &str) -> Outcome {
    run_with(
        &mut ProcessToolRunner::new(std::env::temp_dir()),
        command,
        Duration::from_secs(10),
    )
}

fn write<'a>(outcome: &'a Outcome, key: &str) -> &'a Value {
    &outcome
        .writes
        .iter()
        .find(|w| w.key == key)
        .unwrap_or_else(|| panic!("no write {key} in {outcome:?}"))
        .value
}

#[test]
fn success_captures_both_streams_and_the_exit_code() {
    let o = run("echo out; echo err >&2");
    assert_eq!(o.status, Status::Success);
    assert_eq!(o.failure_reason, None);
    assert_eq!(write(&o, "run.stdout"), &json!("out\n"));
    assert_eq!(write(&o, "run.stderr"), &json!("err\n"));
    assert_eq!(write(&o, "run.exit_code"), &json!(0));
}

#[test]
fn non_zero_exit_fails_with_the_status_and_last_stderr_line() {
    let o = run("echo first >&2; echo 'no such thing' >&2; exit 3");
    assert_eq!(o.status, Status::Fail);
    assert_eq!(
        o.failure_reason.as_deref(),
        Some("command exited with status 3: no such thing")
    );
    assert_eq!(write(&o, "run.exit_code"), &json!(3));
}

#[test]
fn spec_env_and_context_variables_reach_the_command() {
    let o = run("echo \"$GREETING $COUNT $WFC_NODE $WFC_WORKFLOW $WFC_STEP $WFC_ATTEMPT\"");
    assert_eq!(write(&o, "run.stdout"), &json!("hi 3 run Demo 7 1\n"));
}

#[test]
fn interpolated_values_arrive_in_variables_that_env_cannot_replace() {
    let command = ShellCommand {
        script: "printf '%s|' \"${WFC_VALUE_1}\" \"$GREETING\"".into(),
        vars: vec![
            ("WFC_VALUE_1".into(), "$(echo hi) 'x'".into()),
            ("GREETING".into(), "from the value".into()),
        ],
    };
    let o = run_command(
        &mut ProcessToolRunner::new(std::env::temp_dir()),
        &command,
        Duration::from_secs(10),
    );
    assert_eq!(
        write(&o, "run.stdout"),
        &json!("$(echo hi) 'x'|from the value|")
    );
}

#[test]
fn values_too_large_to_start_the_command_say_so() {
    // Linux caps one environment string at 128 KiB.
    let command = ShellCommand {
        script: "true".into(),
        vars: vec![("WFC_VALUE_1".into(), "x".repeat(200_000))],
    };
    let o = run_command(
        &mut ProcessToolRunner::new(std::env::temp_dir()),
        &command,
        Duration::from_secs(10),
    );
    if cfg!(target_os = "linux") {
        assert_eq!(o.status, Status::Fail);
        let reason = o.failure_reason.unwrap();
        assert!(
            reason.contains("200000 bytes in all, are too large to pass to a command"),
            "{reason}"
        );
    }
}

#[test]
fn runs_in_the_working_directory() {
    let dir = std::env::temp_dir().canonicalize().unwrap();
    let o = run("pwd -P");
    assert_eq!(
        write(&o, "run.stdout"),
        &json!(format!("{}\n", dir.display()))
    );
}

#[test]
fn timeout_kills_the_whole_group_and_fails() {
    let marker = std::env::temp_dir().join(format!("wfc-tool-timeout-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    let started = Instant::now();
    // The grandchild would create the marker after 2 s if it survived.
    let command = format!(
        "echo partial; (sleep 2; touch '{}') & sleep 30",
        marker.display()
    );
    let o = run_with(
        &mut ProcessToolRunner::new(std::env::temp_dir()),
        &command,
        Duration::from_millis(300),
    );
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert_eq!(o.status, Status::Fail);
    assert_eq!(
        o.failure_reason.as_deref(),
        Some("command timed out after 300ms and was killed")
    );
    assert_eq!(write(&o, "run.stdout"), &json!("partial\n"));
    assert_eq!(write(&o, "run.exit_code"), &Value::Null);
    std::thread::sleep(Duration::from_millis(2500));
    assert!(!marker.exists(), "a grandchild survived the timeout");
}

#[test]
fn huge_output_is_bounded_with_a_marker() {
    let mut runner = ProcessToolRunner::new(std::env::temp_dir()).with_max_output_bytes(1000);
    // 20 MB on stdout: the command must not block on a full pipe.
    let o = run_with(
        &mut runner,
        "head -c 20000000 /dev/zero | tr '\\0' x; echo done >&2",
        Duration::from_secs(20),
    );
    assert_eq!(o.status, Status::Success, "{o:?}");
    let out = write(&o, "run.stdout").as_str().unwrap();
    assert_eq!(
        out,
        format!(
            "{}\n[wfc: output truncated: 1000 of 20000000 bytes kept]",
            "x".repeat(1000)
        )
    );
    assert_eq!(write(&o, "run.stderr"), &json!("done\n"));
}

#[test]
fn truncation_never_splits_a_character() {
    let mut runner = ProcessToolRunner::new(std::env::temp_dir()).with_max_output_bytes(3);
    // "é" is two bytes: the cut after byte 3 falls inside the second one.
    let o = run_with(&mut runner, "printf 'ééé'", Duration::from_secs(10));
    assert_eq!(
        write(&o, "run.stdout"),
        &json!("é\n[wfc: output truncated: 3 of 6 bytes kept]")
    );
}

#[test]
fn a_leftover_process_holding_the_pipe_does_not_hang_the_run() {
    let started = Instant::now();
    // setsid puts the sleeper outside the group, so only the grace period
    // can save the run; without setsid the group kill ends it.
    let o =
        run("if command -v setsid >/dev/null; then setsid sleep 30 & else sleep 30 & fi; echo bye");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(o.status, Status::Success);
    assert!(
        write(&o, "run.stdout")
            .as_str()
            .unwrap()
            .starts_with("bye\n"),
        "{o:?}"
    );
}

#[test]
fn killed_by_a_signal_is_a_failure() {
    let o = run("kill -TERM $$");
    assert_eq!(o.status, Status::Fail);
    assert_eq!(
        o.failure_reason.as_deref(),
        Some("command was killed by signal 15")
    );
}

#[test]
fn a_missing_working_directory_is_a_start_failure() {
    let mut runner = ProcessToolRunner::new("/nonexistent/wfc/dir");
    let o = run_with(&mut runner, "true", Duration::from_secs(5));
    assert_eq!(o.status, Status::Fail);
    let reason = o.failure_reason.unwrap();
    assert!(
        reason.starts_with("could not start the command in /nonexistent/wfc/dir: "),
        "{reason}"
    );
    assert!(o.writes.is_empty());
}

#[test]
fn durations_read_well() {
    assert_eq!(human_duration(Duration::from_millis(250)), "250ms");
    assert_eq!(human_duration(Duration::from_millis(1500)), "1.5s");
    assert_eq!(human_duration(Duration::from_secs(15)), "15s");
    assert_eq!(human_duration(Duration::from_secs(125)), "2m 5s");
    assert_eq!(human_duration(Duration::from_secs(120)), "2m");
}

#[test]
fn an_enormous_timeout_does_not_overflow_the_clock() {
    let o = run_with(
        &mut ProcessToolRunner::new(std::env::temp_dir()),
        "true",
        Duration::from_millis(u64::MAX),
    );
    assert_eq!(o.status, Status::Success);
}
