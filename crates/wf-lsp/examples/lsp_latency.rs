//! Language server latency: from `didChange` of a one-character edit to the
//! `publishDiagnostics` it causes, on a generated project.
//!
//! usage: lsp_latency PROJECT_DIR [EDITS]
//!
//! PROJECT_DIR is made by `bench/lsp_latency.sh` (50 files, one of them
//! `big.wf` of about 10,000 lines). The server runs in-process on a tokio
//! runtime and is driven over in-memory pipes with framed JSON-RPC, as an
//! editor drives `wfc lsp` over stdio, initialized with `{"debounceMs": 0}`:
//! the debounce is excluded by switching it off, so each figure is the
//! whole path (decode the notification, apply the edit to the database,
//! re-check, convert and send every changed file's diagnostics).
//!
//! Each edit is one character typed into a `reads` key in the middle of
//! `big.wf` (the key becomes unknown: a diagnostic appears), then the next
//! edit deletes it (the diagnostic is cleared), so every edit publishes.
//! Prints the median, 90th and 99th percentiles and the maximum in ms.

use wf_test_support::lsp as common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

/// The allocator `wfc lsp` runs with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BIG: &str = "svc_000/big.wf";

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().expect("usage: lsp_latency PROJECT_DIR [EDITS]"));
    let edits: usize = args
        .next()
        .map_or(200, |n| n.parse().expect("EDITS is a number"));
    let mut paths = Vec::new();
    collect(&dir, &dir, &mut paths);
    paths.sort();
    let texts: Vec<(String, String)> = paths
        .iter()
        .map(|rel| {
            let text = std::fs::read_to_string(dir.join(rel)).expect("readable file");
            (rel.clone(), text)
        })
        .collect();
    let files: Vec<(&str, &str)> = texts
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let big = texts
        .iter()
        .find(|(p, _)| p == BIG)
        .map(|(_, t)| t.clone())
        .unwrap_or_else(|| panic!("{BIG} missing: generate with bench/lsp_latency.sh"));
    let sources = texts.iter().filter(|(p, _)| p.ends_with(".wf")).count();
    println!(
        "workspace: {sources} .wf files, {} lines; edited file: {BIG} ({} lines, {:.0} KB)",
        texts.iter().map(|(_, t)| t.lines().count()).sum::<usize>(),
        big.lines().count(),
        big.len() as f64 / 1e3
    );

    let started = Instant::now();
    let mut s = common::Session::start_with(&files, json!({"debounceMs": 0})).await;
    s.open(BIG, &big).await;
    let (line, column) = edit_point(&big);
    let mut times = Vec::with_capacity(edits);
    // Two unmeasured edits first: the server publishes only diagnostics
    // that changed, so a clean file's first check sends nothing; the first
    // typed character waits for it.
    for i in 0..edits + 2 {
        let version = i as i32 + 2;
        let typed = i % 2 == 0;
        let t = Instant::now();
        if typed {
            s.edit(BIG, version, (line, column), (line, column), "x")
                .await;
        } else {
            s.edit(BIG, version, (line, column), (line, column + 1), "")
                .await;
        }
        let diagnostics = s.diagnostics(BIG).await;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let count = diagnostics.as_array().map_or(0, Vec::len);
        assert_eq!(
            count > 0,
            typed,
            "edit {i}: unexpected diagnostics {diagnostics}"
        );
        if i == 1 {
            println!(
                "initialize + open + first check + two edits: {:.0} ms",
                started.elapsed().as_secs_f64() * 1e3
            );
        } else if i >= 2 {
            times.push(ms);
        }
    }
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() as f64 * p).ceil() as usize).clamp(1, times.len()) - 1];
    println!(
        "didChange -> publishDiagnostics over {edits} one-character edits (debounce 0): \
         median {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        pct(0.5),
        pct(0.9),
        pct(0.99),
        times[times.len() - 1]
    );
    s.shutdown().await;
}

/// The end of a `reads KEY` line near the middle of the file, as (line,
/// UTF-16 column): typing there makes the key unknown.
fn edit_point(text: &str) -> (u32, u32) {
    let lines: Vec<&str> = text.lines().collect();
    let middle = lines.len() / 2;
    let is_target = |l: &str| {
        let t = l.trim();
        t.strip_prefix("reads ")
            .is_some_and(|k| !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_'))
    };
    let at = (middle..lines.len())
        .chain(0..middle)
        .find(|&i| is_target(lines[i]))
        .expect("a `reads KEY` line in the edited file");
    (at as u32, lines[at].encode_utf16().count() as u32)
}

/// The project's files (sources and `wf.toml`), relative to `root`.
fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir)
        .expect("readable project directory")
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "wf" || e == "toml") {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            out.push(rel.to_string_lossy().into_owned());
        }
    }
}
