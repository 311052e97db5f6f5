//! Tool call hooks (seed 9.7): `tool_hooks.pre` / `tool_hooks.post` run
//! around the commands of `tool` nodes (docs/llm.md, "Tool hooks").

use std::path::Path;
use std::process::Command;

use insta_cmd::get_cargo_bin;
use serde_json::Value;

use crate::common::dot::scratch;

/// The hook: records its environment and stdin, one JSON line per run.
const LOG_HOOK: &str = r#"{ printf '%s %s %s %s\n' "$WFC_HOOK" "$WFC_TOOL_NAME" "$WFC_TOOL_STATUS" "$WFC_TOOL_EXIT_CODE"; cat; echo; } >> hooks.log"#;

#[test]
fn hooks_run_around_tool_nodes_and_a_failing_pre_hook_skips_the_call() {
    let dir = scratch("tool-hooks");
    let dot = format!(
        "digraph h {{\n  graph [tool_hooks.pre={q}, tool_hooks.post={q}]\n  start [shape=Mdiamond]\n  first [shape=parallelogram, tool_command=\"echo ran > first.txt\"]\n  second [shape=parallelogram, tool_command=\"touch second.txt\", tool_hooks.pre=\"echo not allowed >&2; exit 3\"]\n  done [shape=Msquare]\n  start -> first -> second -> done\n}}\n",
        q = serde_json::to_string(LOG_HOOK).unwrap()
    );
    std::fs::write(dir.join("h.dot"), dot).unwrap();
    let out = Command::new(get_cargo_bin("wfc"))
        .current_dir(&dir)
        .args([
            "run",
            "h.dot",
            "--allow-tools",
            "--format",
            "json",
            "--progress",
            "never",
        ])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["status"], "failed", "{s}");
    assert_eq!(s["failures"][0]["node"], "second", "{s}");
    let reason = s["failures"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains(
            "tool_hooks.pre exited with status 3: not allowed: the tool call was skipped"
        ),
        "{reason}"
    );
    assert!(dir.join("first.txt").exists());
    assert!(
        !Path::new(&dir.join("second.txt")).exists(),
        "the skipped call ran"
    );
    let log = std::fs::read_to_string(dir.join("hooks.log")).unwrap();
    let lines: Vec<&str> = log.lines().filter(|l| !l.is_empty()).collect();
    // pre and post around `first`; `second`'s own pre-hook logs nothing.
    assert_eq!(lines.len(), 4, "{log}");
    assert_eq!(lines[0].trim_end(), "pre first");
    let pre: Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(pre["hook"], "pre");
    assert_eq!(pre["tool"], "first");
    assert_eq!(pre["command"], "echo ran > first.txt");
    assert_eq!(lines[2], "post first success 0");
    let post: Value = serde_json::from_str(lines[3]).unwrap();
    assert_eq!(
        (&post["status"], &post["exit_code"]),
        (&Value::from("success"), &Value::from(0))
    );
}
