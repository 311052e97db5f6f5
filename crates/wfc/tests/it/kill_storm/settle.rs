//! Settling an `at_most_once` effect a kill interrupted, as an operator
//! would: by looking at the world (the ledger) once nothing of the killed
//! process still runs.

use std::path::Path;
use std::time::{Duration, Instant};

use super::harness::ledger;

/// Waits until no tool a killed process left running (each runs in a
/// process group of its own, which the kill of `wfc` spares) still runs:
/// until no process has `ledger_file` in its environment. Only then does
/// the ledger say whether an effect happened.
fn wait_for_orphans(ledger_file: &Path) {
    let needle = format!("WFC_TEST_LEDGER={}\0", ledger_file.display());
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        let running = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            })
            .any(|e| {
                std::fs::read(e.path().join("environ"))
                    .is_ok_and(|env| env.windows(needle.len()).any(|w| w == needle.as_bytes()))
            });
        if !running {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("tools of a killed process still run after 20 s");
}

/// The node an unsettled `at_most_once` effect suspended the run at.
pub(super) fn unsettled(stderr: &str) -> Option<String> {
    let at = stderr.find("is at_most_once and was started")?;
    let head = &stderr[..at];
    let node = head.rsplit_once("node `")?.1;
    Some(node.split('`').next()?.to_owned())
}

/// How the operator settles `node`: its effect happened when the ledger
/// has it (after its command, if it still runs, has had time to write),
/// and then its outputs are what the command prints.
pub(super) fn settle_flags(node: &str, ledger_file: &Path) -> Vec<String> {
    wait_for_orphans(ledger_file);
    if ledger(ledger_file).contains_key(node) {
        let outputs = serde_json::json!({
            format!("{node}.stdout"): format!("{node}\n"),
            format!("{node}.exit_code"): 0,
            format!("{node}.stderr"): "",
        });
        vec![
            "--assume-done".into(),
            node.into(),
            "--outputs".into(),
            outputs.to_string(),
        ]
    } else {
        vec!["--rerun".into(), node.into()]
    }
}
