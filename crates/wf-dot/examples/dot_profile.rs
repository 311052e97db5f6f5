//! A driver for profilers: reads `.dot` files, then parses and lowers each
//! of them `N` times, allocating with mimalloc like `wfc`:
//! `valgrind --tool=callgrind --toggle-collect='dot_profile::run'
//! target/release/examples/dot_profile 1 FILE…` (counting only the front
//! end, not reading the files),
//! or `perf stat -e page-faults …` (build with
//! `cargo build --release -p wf-dot --example dot_profile`).

use wf_diagnostics::FileId;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    let texts: Vec<String> = args
        .map(|path| String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned())
        .collect();
    let mut diagnostics = 0;
    for _ in 0..rounds {
        for text in &texts {
            diagnostics += run(text);
        }
    }
    println!(
        "{} files, {rounds} rounds, {diagnostics} diagnostics",
        texts.len()
    );
}

/// One file through the front end; never inlined, so a profiler can count
/// just this.
#[inline(never)]
fn run(text: &str) -> usize {
    wf_dot::parse_and_lower(text, FileId(0)).diagnostics.len()
}
