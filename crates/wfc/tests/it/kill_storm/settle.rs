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

/// The nodes unsettled `at_most_once` effects suspended the run at: one,
/// or several (branches of a fan-out cut off by one kill), named in the
/// suspension's reason as ``node `NAME` of workflow`` or ``node `NAME`
/// (workflow``.
pub(super) fn unsettled(said: &str) -> Vec<String> {
    let Some(line) = said
        .lines()
        .find(|l| l.contains("at_most_once") && l.contains("not recorded as finished"))
    else {
        return Vec::new();
    };
    let mut nodes = Vec::new();
    for (i, _) in line.match_indices("node `") {
        let rest = &line[i + "node `".len()..];
        let Some((name, after)) = rest.split_once('`') else {
            continue;
        };
        if (after.starts_with(" of workflow") || after.starts_with(" (workflow"))
            && !nodes.iter().any(|n| n == name)
        {
            nodes.push(name.to_owned());
        }
    }
    nodes
}

/// How the operator settles `nodes`: a node's effect happened when the
/// ledger has it (after its command, if it still runs, has had time to
/// write), and then its outputs are what the command prints. A node of a
/// parallel branch (`fan#1/once_a1/once_a1`) is its last segment in the
/// ledger and its outputs.
pub(super) fn settle_flags(nodes: &[String], ledger_file: &Path) -> Vec<String> {
    wait_for_orphans(ledger_file);
    let ledger = ledger(ledger_file);
    let mut flags = Vec::new();
    for node in nodes {
        let own = node.rsplit('/').next().unwrap_or(node);
        if ledger.contains_key(own) {
            let outputs = serde_json::json!({
                format!("{own}.stdout"): format!("{own}\n"),
                format!("{own}.exit_code"): 0,
                format!("{own}.stderr"): "",
            });
            flags.extend([
                "--assume-done".into(),
                node.clone(),
                "--outputs".into(),
                outputs.to_string(),
            ]);
        } else {
            flags.extend(["--rerun".into(), node.clone()]);
        }
    }
    flags
}
