//! `.dot` formatter throughput on the shared Attractor corpus.
//!
//! `cargo bench -p wf-fmt --bench format_dot` reads every pipeline
//! (`.dot`, `.fabro`, `.gv`) of `../shared/corpus/attractor/` (or of
//! `$WFC_CORPUS/attractor`) in place and reports MB/s over their total size
//! for:
//!
//! - `parse`: `wf_dot::parse` of every file, for comparison;
//! - `format`: `wf_fmt::format_source` of every file as it is (parse,
//!   layout and the verification that re-parses the output; the few files
//!   with syntax errors are refused after their parse);
//! - `format_formatted`: the same on the formatted files (what `wfc fmt
//!   --check` does on a formatted project).
//!
//! Without the corpus it reports nothing. Like `wfc`, it allocates with
//! mimalloc.

use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wf_diagnostics::FileId;
use wf_fmt::{Options, SourceKind};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn corpus() -> Vec<String> {
    let dir = std::env::var_os("WFC_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/attractor"),
        |root| PathBuf::from(root).join("attractor"),
    );
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if SourceKind::from_path(&path) == Some(SourceKind::Dot) {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&dir, &mut paths);
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    if files.is_empty() {
        eprintln!("skipped: no Attractor corpus");
        return;
    }
    let options = Options::default();
    let bytes: usize = files.iter().map(String::len).sum();
    let formatted: Vec<String> = files
        .iter()
        .map(|f| wf_fmt::format_source(f, SourceKind::Dot, &options).unwrap_or_else(|_| f.clone()))
        .collect();
    let mut group = c.benchmark_group("fmt_dot_corpus");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("parse", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|f| wf_dot::parse(f, FileId(0)).comments.len())
                .sum::<usize>()
        })
    });
    group.bench_function("format", |b| {
        b.iter(|| {
            files
                .iter()
                .filter(|f| wf_fmt::format_source(f, SourceKind::Dot, &options).is_ok())
                .count()
        })
    });
    let formatted_bytes: usize = formatted.iter().map(String::len).sum();
    group.throughput(Throughput::Bytes(formatted_bytes as u64));
    group.bench_function("format_formatted", |b| {
        b.iter(|| {
            formatted
                .iter()
                .filter(|f| wf_fmt::format_source(f, SourceKind::Dot, &options).is_ok())
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
