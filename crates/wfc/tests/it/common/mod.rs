//! Helpers shared by the integration tests of `wfc`.

#![allow(dead_code)] // each test module uses its own subset

pub mod dot;
pub mod ledger;
#[cfg(unix)]
pub mod process;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// The repository root, where `tests/`, `examples/` and `docs/` live.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The JSON report or summary `wfc … --format json` printed; a failure
/// shows what it printed instead, on both streams.
pub fn summary(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}); stdout: {}; stderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Every `.wf` file below `dir`, recursively, skipping `snapshots/`
/// directories, in sorted order.
pub fn wf_files(dir: &Path) -> Vec<PathBuf> {
    files_with_extensions(dir, &["wf"])
}

/// Every file under `dir` (recursively, skipping `snapshots/`) whose
/// extension is one of `extensions`, sorted.
pub fn files_with_extensions(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    corpus::files_under(dir, extensions)
        .into_iter()
        .filter(|path| {
            !path
                .strip_prefix(dir)
                .is_ok_and(|p| p.components().any(|c| c.as_os_str() == "snapshots"))
        })
        .collect()
}

#[allow(unused_imports)] // each test module uses its own subset
pub use corpus::shared_corpus;
use wf_test_support::corpus;

/// Snapshot filters for what changes every run: the run id, the time and
/// the duration each event and log record carries (docs/runtime.md,
/// section 7). The fields stay in the snapshot, their values do not.
pub fn redact_stamps(settings: &mut insta::Settings) {
    settings.add_filter(r#""run":"[0-9a-f-]{36}""#, r#""run":"[RUN]""#);
    settings.add_filter(r#""ts":"[0-9T:.Z-]+""#, r#""ts":"[TS]""#);
    settings.add_filter(r#""duration_ms":\d+"#, r#""duration_ms":"[MS]""#);
    // `wfc status`'s run id.
    settings.add_filter(r#""run_id": "[0-9a-f-]{36}""#, r#""run_id": "[RUN]""#);
    settings.add_filter(r"(?m)^run: [0-9a-f-]{36}$", "run: [RUN]");
}

/// JSON lines (an `--events` file, a log) without what differs between two
/// runs of one workflow: each object's `run`, `ts` and `duration_ms`
/// (docs/runtime.md, section 7). Lines that are not JSON objects are kept.
pub fn unstamped(lines: &str) -> String {
    lines
        .lines()
        .map(
            |line| match serde_json::from_str::<serde_json::Value>(line) {
                Ok(serde_json::Value::Object(mut o)) => {
                    for f in ["run", "ts", "duration_ms"] {
                        o.remove(f);
                    }
                    serde_json::Value::Object(o).to_string() + "\n"
                }
                _ => format!("{line}\n"),
            },
        )
        .collect()
}
