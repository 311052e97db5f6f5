//! Throughput of the DOT front end (parse and lower) on real pipelines.
//!
//! `cargo bench -p wf-dot --bench front_end` reads the shared Attractor
//! corpus where it is (`../shared/corpus/attractor/`, or the directory in
//! `$WFC_CORPUS/attractor`) and measures `wf_dot::parse_and_lower` of:
//!
//! - `kitchen-sink`: `2389-research+tracker/examples/kitchen-sink.dot`
//!   (1,524 lines), one file;
//! - `corpus`: every corpus file (276 files, 1.6 MB), one after the other.
//!
//! Without the corpus it prints that it is skipped. Like `wfc`, it
//! allocates with mimalloc.

use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wf_diagnostics::FileId;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn corpus_dir() -> PathBuf {
    match std::env::var_os("WFC_CORPUS") {
        Some(dir) => PathBuf::from(dir).join("attractor"),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/attractor"),
    }
}

fn collect(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "dot" || e == "fabro" || e == "gv")
        {
            let bytes = std::fs::read(&path).unwrap_or_default();
            out.push(String::from_utf8_lossy(&bytes).into_owned());
        }
    }
}

fn bench(c: &mut Criterion) {
    let dir = corpus_dir();
    let kitchen = dir.join("2389-research+tracker/examples/kitchen-sink.dot");
    let Ok(kitchen) = std::fs::read_to_string(&kitchen) else {
        eprintln!("skipped: no Attractor corpus at {}", dir.display());
        return;
    };
    let mut files = Vec::new();
    collect(&dir, &mut files);
    let total: usize = files.iter().map(String::len).sum();

    let mut group = c.benchmark_group("dot");
    group.throughput(Throughput::Bytes(kitchen.len() as u64));
    group.bench_function("kitchen-sink", |b| {
        b.iter(|| wf_dot::parse_and_lower(&kitchen, FileId(0)))
    });
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("corpus", |b| {
        b.iter(|| {
            for text in &files {
                std::hint::black_box(wf_dot::parse_and_lower(text, FileId(0)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
