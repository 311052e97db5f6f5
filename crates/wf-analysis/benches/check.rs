//! Throughput of parsing and of the full check on a generated project.
//!
//! `cargo bench -p wf-analysis --bench check` generates a 5 MB project with
//! `bench/gen_project.py` (many files of realistic size with imports between
//! them; needs `python3`) into `target/bench-project-5mb`, or checks the
//! directory named by `WFC_BENCH_PROJECT` instead, and reports MB/s:
//!
//! - `parse`: `wf_syntax::parse` of every file (lexing, parsing, recovery);
//! - `check`: a fresh [`wf_analysis::Database`] with every file, and all its
//!   diagnostics: parsing, lowering, imports, names, graph, data flow,
//!   guards, attributes (what `wfc check` does, without reading the disk
//!   or rendering).
//!
//! Like `wfc`, the benchmark allocates with mimalloc. Under
//! `cargo test --benches` (no `--bench` flag) criterion runs each benchmark
//! once; the project is then 0.1 MB, so that stays fast in a debug
//! build.

use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wf_diagnostics::FileId;

/// The allocator `wfc` uses (see `crates/wfc/src/main.rs`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The project's files: absolute path and text, sorted by path.
fn project() -> Vec<(PathBuf, String)> {
    let dir = match std::env::var_os("WFC_BENCH_PROJECT") {
        Some(dir) => PathBuf::from(dir),
        None => generate(),
    };
    let mut files = Vec::new();
    collect(&dir, &mut files);
    files.sort();
    assert!(!files.is_empty(), "no .wf files in {}", dir.display());
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("readable UTF-8 file");
            (path, text)
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "wf") {
            out.push(path);
        }
    }
}

/// Generates the project (once; kept under `target/`).
fn generate() -> PathBuf {
    let measuring = std::env::args().any(|a| a == "--bench");
    let (mb, name) = if measuring {
        ("5", "bench-project-5mb")
    } else {
        ("0.1", "bench-project-smoke")
    };
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = workspace.join("target").join(name);
    if !dir.join("wf.toml").exists() {
        let status = std::process::Command::new("python3")
            .arg(workspace.join("bench/gen_project.py"))
            .arg(&dir)
            .args(["--mb", mb])
            .stdout(std::process::Stdio::null())
            .status()
            .expect("python3 runs bench/gen_project.py");
        assert!(status.success(), "bench/gen_project.py failed");
    }
    dir.canonicalize().expect("generated project")
}

fn benches(c: &mut Criterion) {
    let files = project();
    let bytes: usize = files.iter().map(|(_, text)| text.len()).sum();
    let root = files[0].0.ancestors().last().expect("a root").to_path_buf();
    let mut group = c.benchmark_group(format!("project_{}_files", files.len()));
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);

    group.bench_function("parse", |b| {
        b.iter(|| {
            for (i, (_, text)) in files.iter().enumerate() {
                std::hint::black_box(wf_syntax::parse(text, FileId(i as u32)));
            }
        });
    });

    group.bench_function("check", |b| {
        b.iter(|| {
            let mut db = wf_analysis::Database::new(&root);
            for (path, text) in &files {
                db.set_file(path, path.display().to_string(), text.clone());
            }
            let diagnostics = db.diagnostics();
            assert!(diagnostics.is_empty(), "{:?}", diagnostics.first());
            // Dropping the database is part of a check's cost.
            drop(db);
        });
    });
    group.finish();
}

criterion_group!(check, benches);
criterion_main!(check);
