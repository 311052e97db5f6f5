//! Fuzzes the run-directory loader that `--resume`, `wfc replay` and
//! `wfc status` share: a run directory is untrusted input (it may be torn
//! by a crash or edited by hand), so any bytes in `program.json`,
//! `snapshot.json`, `log.jsonl` and `start.json` must give an error, never
//! a panic. The input is the four files, separated by 0xFF bytes (which
//! UTF-8 text never contains).
//!
//! Seeds: the files of real run directories joined the same way, e.g. from
//! `wfc run examples/hello.wf --run-dir d`.
#![no_main]

use std::sync::atomic::{AtomicU64, Ordering};

use libfuzzer_sys::fuzz_target;
use wf_vm::{Engine, EngineConfig, RunDir};

static RUN: AtomicU64 = AtomicU64::new(0);

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0xFF);
    let files = ["program.json", "snapshot.json", "log.jsonl", "start.json"];
    let dir = std::env::temp_dir().join(format!(
        "wfc-fuzz-run-dir-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    for name in files {
        if let Some(bytes) = parts.next() {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    if let Ok(run) = RunDir::open_read_only(&dir)
        && let Ok(program) = run.program()
    {
        let _ = Engine::inspect(&program, &run, EngineConfig::default()).map(|e| e.steps());
        let _ = Engine::replay(&program, &run);
    }
    let _ = std::fs::remove_dir_all(&dir);
});
