//! Re-check latency after a one-line edit, on a large generated project.
//!
//! usage: recheck_latency PROJECT_DIR [EDITS]
//!
//! Loads every `.wf` file under PROJECT_DIR (made by `bench/gen_project.py`
//! with `--files-per-service 60`, see `bench/recheck_latency.sh`) into a
//! [`wf_analysis::Database`]. To get a file of at least 10,000 lines it
//! first merges consecutive service files of `svc_000` into
//! `svc_000/big.wf` (rewriting the imports of the merged files; the project
//! keeps the same text and still checks clean). After a full check it
//! opens it for editing ([`wf_analysis::Database::open_for_editing`]) and
//! makes EDITS (default 60) one-line edits in the middle of `big.wf` and times
//! each re-check, for three kinds of edit and two ways of asking:
//!
//! - `prompt`: the text of a prompt line inside a node body changes (the
//!   workflow's model changes; everything below it moves);
//! - `whitespace`: trailing spaces on that line (only spans move);
//! - `all` asks [`wf_analysis::Database::diagnostics`] (every file, as
//!   `wfc check`), `file` asks `file_diagnostics` of the edited file (what
//!   a language server publishes).
//!
//! Prints the median, 90th percentile and maximum of each in milliseconds,
//! and the median CPU time of the process (all threads) per re-check: on a
//! machine shared with other jobs, wall times include waiting for a core,
//! CPU times do not.

use std::path::{Path, PathBuf};
use std::time::Instant;

use wf_analysis::Database;

/// The allocator `wfc` (and so its language server) uses: the re-check
/// frees and rebuilds the edited file's trees, which the system allocator
/// makes a third of the time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How many lines the edited file has at least.
const BIG_LINES: usize = 10_000;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .expect("usage: recheck_latency PROJECT_DIR [EDITS]"),
    );
    let edits: usize = args
        .next()
        .map_or(60, |n| n.parse().expect("EDITS is a number"));
    let dir = dir.canonicalize().expect("project directory exists");

    let mut files = Vec::new();
    collect(&dir, &mut files);
    files.sort();
    let mut texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable UTF-8 file");
            (p, text)
        })
        .collect();
    let big_path = merge_big_file(&dir, &mut texts);
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    let lines: usize = texts.iter().map(|(_, t)| t.lines().count()).sum();
    let big_text = texts
        .iter()
        .find(|(p, _)| *p == big_path)
        .map(|(_, t)| t.clone())
        .expect("merged file");
    println!(
        "project: {} files, {lines} lines, {:.1} MB; edited file: {} ({} lines, {:.0} KB)",
        texts.len(),
        bytes as f64 / 1e6,
        big_path.strip_prefix(&dir).unwrap_or(&big_path).display(),
        big_text.lines().count(),
        big_text.len() as f64 / 1e3,
    );

    // For scale: parsing and lowering the edited file alone, from scratch.
    let mut parse_times = Vec::new();
    let mut lower_times = Vec::new();
    for _ in 0..20 {
        let start = Instant::now();
        let parsed = wf_syntax::parse(&big_text, wf_diagnostics::FileId(0));
        parse_times.push(start.elapsed().as_secs_f64() * 1e3);
        let start = Instant::now();
        let lowered = wf_analysis::lower::lower_parsed(&[(wf_diagnostics::FileId(0), &parsed)]);
        lower_times.push(start.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(lowered);
    }
    parse_times.sort_by(f64::total_cmp);
    lower_times.sort_by(f64::total_cmp);
    println!(
        "edited file alone: parse {:.2} ms, lower {:.2} ms (medians)",
        parse_times[10], lower_times[10]
    );

    let mut db = Database::new(&dir);
    let start = Instant::now();
    for (path, text) in &texts {
        let shown = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        db.set_file(path, shown, text.clone());
    }
    let initial = db.diagnostics();
    println!(
        "initial check: {:.0} ms, {} diagnostics",
        start.elapsed().as_secs_f64() * 1e3,
        initial.len()
    );
    let big_id = db.file_id(&big_path).expect("loaded");
    // What an editor opening the file does: its text gets low durability,
    // which re-runs once what depends on it (see `open_for_editing`).
    let start = Instant::now();
    db.open_for_editing(&big_path);
    db.diagnostics();
    println!(
        "open for editing: {:.0} ms",
        start.elapsed().as_secs_f64() * 1e3
    );

    // A prompt line near the middle of the file.
    let lines_of: Vec<&str> = big_text.split_inclusive('\n').collect();
    let middle = lines_of.len() / 2;
    let at = (middle..lines_of.len())
        .find(|&i| lines_of[i].contains("Summarise what changed"))
        .expect("a prompt line below the middle");
    let edit = |i: usize, kind: &str| -> String {
        let mut out = String::with_capacity(big_text.len() + 16);
        for (n, line) in lines_of.iter().enumerate() {
            if n != at {
                out.push_str(line);
                continue;
            }
            let body = line.trim_end_matches('\n');
            match kind {
                "prompt" => out.push_str(&format!("{body} (revision {i})\n")),
                _ => out.push_str(&format!("{body}{}\n", " ".repeat(1 + i % 2))),
            }
        }
        out
    };

    println!(
        "{:<11} {:<5} {:>6} {:>10} {:>10} {:>10} {:>10}",
        "edit", "ask", "edits", "median_ms", "p90_ms", "max_ms", "cpu_ms"
    );
    for kind in ["prompt", "whitespace"] {
        for ask in ["all", "file"] {
            // Texts are prepared before timing: only the re-check counts.
            let variants: Vec<String> = (0..edits).map(|i| edit(i, kind)).collect();
            let mut times = Vec::with_capacity(edits);
            let mut cpu_times = Vec::with_capacity(edits);
            for text in variants {
                let cpu_start = process_cpu_ms();
                let start = Instant::now();
                db.set_file(&big_path, "", text);
                let found = if ask == "all" {
                    db.diagnostics().len()
                } else {
                    db.file_diagnostics(big_id).len()
                };
                times.push(start.elapsed().as_secs_f64() * 1e3);
                cpu_times.push(process_cpu_ms() - cpu_start);
                std::hint::black_box(found);
            }
            times.sort_by(f64::total_cmp);
            cpu_times.sort_by(f64::total_cmp);
            let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
            println!(
                "{kind:<11} {ask:<5} {edits:>6} {:>10.2} {:>10.2} {:>10.2} {:>10.2}",
                pct(0.5),
                pct(0.9),
                times[times.len() - 1],
                cpu_times[cpu_times.len() / 2]
            );
        }
    }
    // The incremental result equals a fresh check of the same texts.
    let mut fresh = Database::new(&dir);
    for (path, text) in &texts {
        let text = if *path == big_path {
            db.sources().get(big_id).text.clone()
        } else {
            text.clone()
        };
        let shown = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        fresh.set_file(path, shown, text);
    }
    assert_eq!(
        fresh.diagnostics(),
        db.diagnostics(),
        "incremental result differs"
    );
}

/// CPU time of the whole process so far (every thread), in milliseconds.
fn process_cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0;
    assert!(ok, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "wf") && !path.ends_with("big.wf") {
            out.push(path);
        }
    }
}

/// Merges consecutive files of `svc_000` into `svc_000/big.wf` until it
/// has [`BIG_LINES`] lines, and rewrites `import "flow_N.wf"` of merged
/// files: dropped inside the big file, pointed at it elsewhere.
fn merge_big_file(dir: &Path, texts: &mut Vec<(PathBuf, String)>) -> PathBuf {
    let svc = dir.join("svc_000");
    let mut merged: Vec<String> = Vec::new(); // file names
    let mut big = String::new();
    let mut count = 0;
    for (path, text) in texts.iter() {
        if path.parent() != Some(svc.as_path()) || count >= BIG_LINES {
            continue;
        }
        merged.push(path.file_name().unwrap().to_string_lossy().into_owned());
        big.push_str(text);
        if !big.ends_with('\n') {
            big.push('\n');
        }
        count = big.lines().count();
    }
    assert!(
        count >= BIG_LINES,
        "svc_000 has only {count} lines: generate with --files-per-service 60"
    );
    let is_merged = |line: &str| {
        line.starts_with("import \"")
            && merged
                .iter()
                .any(|m| line.starts_with(&format!("import \"{m}\"")))
    };
    let big: String = big
        .split_inclusive('\n')
        .map(|line| {
            if is_merged(line) {
                format!("// (merged) {line}")
            } else {
                line.to_string()
            }
        })
        .collect();
    texts.retain(|(p, _)| {
        !(p.parent() == Some(svc.as_path())
            && merged.contains(&p.file_name().unwrap().to_string_lossy().into_owned()))
    });
    for (_, text) in texts.iter_mut() {
        if text.lines().any(is_merged) {
            *text = text
                .split_inclusive('\n')
                .map(|line| {
                    if is_merged(line) {
                        line.replacen(&line[8..line[8..].find('"').unwrap() + 8], "big.wf", 1)
                    } else {
                        line.to_string()
                    }
                })
                .collect();
        }
    }
    let path = svc.join("big.wf");
    texts.push((path.clone(), big));
    texts.sort();
    path
}
