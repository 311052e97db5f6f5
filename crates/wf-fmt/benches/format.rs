//! Formatter throughput on one large generated file.
//!
//! `cargo bench -p wf-fmt --bench format` generates a workflow with
//! `bench/gen_large.py 100000` (about 6 MB; needs `python3`) into
//! `target/bench-fmt-large.wf`, or formats the file named by
//! `WFC_BENCH_FMT_FILE` instead, and reports MB/s for:
//!
//! - `parse`: `wf_syntax::parse` alone, for comparison;
//! - `format`: `wf_fmt::format` of the file as generated (parse, layout,
//!   and the verification that re-parses the output and compares tokens,
//!   trees and comments);
//! - `format_formatted`: the same on its formatted text (what `wfc fmt
//!   --check` does on a formatted project).
//!
//! Like `wfc`, the benchmark allocates with mimalloc. Under `cargo test
//! --benches` criterion runs each benchmark once on a 1,000-edge file.

use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wf_diagnostics::FileId;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn input() -> String {
    let path = match std::env::var_os("WFC_BENCH_FMT_FILE") {
        Some(path) => PathBuf::from(path),
        None => generate(),
    };
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Generates the file (once per size; kept under `target/`).
fn generate() -> PathBuf {
    let measuring = std::env::args().any(|a| a == "--bench");
    let edges = if measuring { 100_000 } else { 1_000 };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let path = target.join(format!("bench-fmt-large-{edges}.wf"));
    if !path.exists() {
        let out = std::process::Command::new("python3")
            .arg(root.join("bench/gen_large.py"))
            .arg(edges.to_string())
            .output()
            .expect("python3 runs bench/gen_large.py");
        assert!(out.status.success(), "gen_large.py failed");
        std::fs::create_dir_all(&target).expect("target directory");
        std::fs::write(&path, out.stdout).expect("writable target directory");
    }
    path
}

fn bench(c: &mut Criterion) {
    let text = input();
    let options = wf_fmt::Options::default();
    let formatted = wf_fmt::format(&text, &options).expect("the generated file formats");
    let mut group = c.benchmark_group("fmt");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse", |b| b.iter(|| wf_syntax::parse(&text, FileId(0))));
    group.bench_function("format", |b| b.iter(|| wf_fmt::format(&text, &options)));
    group.throughput(Throughput::Bytes(formatted.len() as u64));
    group.bench_function("format_formatted", |b| {
        b.iter(|| wf_fmt::format(&formatted, &options))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
