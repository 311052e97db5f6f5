//! The whole analysis (not only the parser) must survive broken input:
//! every test file and example, mutated in many small ways, is checked, and
//! nothing may panic. Mutations are deterministic (a seeded generator), so a
//! failure names the file and the seed that reproduce it.

use crate::common;

use common::{repo_root, wf_files};

use std::panic::{AssertUnwindSafe, catch_unwind};

use wf_diagnostics::Sources;

/// Mutations per file; `WFC_MUTATIONS=N` runs a longer campaign locally.
fn mutations() -> u64 {
    std::env::var("WFC_MUTATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(12)
}

/// Fragments spliced into files: tokens and partial constructs that tend to
/// derail parsers and checks.
const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "->",
    "<-",
    "\"",
    "\"\"\"",
    "/*",
    "///",
    "when",
    "==",
    "&&",
    "||",
    "!",
    "call x = ",
    "workflow ",
    "step ",
    "exit ",
    "human h ",
    "reads ",
    "writes ",
    "needs k: int",
    "gives g: string",
    "entry = ",
    "`",
    "$",
    "${",
    "\\u{",
    "15min",
    "1e999",
    ".",
    ",",
    ";",
    "?",
    ":",
    "import \"",
    "outcome",
    "exists(",
    "matches \"(\"",
    "\n",
    "\u{feff}",
    "é",
    "_x",
    "internal.k",
];

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Nearest char boundary at or below `i`.
fn boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut out = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let len = out.len();
        let a = boundary(&out, rng.below(len + 1));
        let b = boundary(&out, a + rng.below(40));
        match rng.below(4) {
            0 => out.replace_range(a..b, ""),
            1 => {
                let copy = out[a..b].to_string();
                out.insert_str(a, &copy);
            }
            2 => out.insert_str(a, FRAGMENTS[rng.below(FRAGMENTS.len())]),
            _ => {
                out.replace_range(a..b, FRAGMENTS[rng.below(FRAGMENTS.len())]);
            }
        }
    }
    out
}

#[test]
fn mutated_files_never_panic_the_analysis() {
    let root = repo_root();
    let mut files = wf_files(&root.join("tests/check"));
    files.extend(wf_files(&root.join("examples")));
    files.sort();
    assert!(files.len() > 50);
    // The panic hook would print every caught panic; keep the output to
    // the failures we report.
    let quiet = wf_test_support::panics::QuietPanics::on_this_thread();
    let mut failures = Vec::new();
    let mutations = mutations();
    for (index, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap();
        for round in 0..mutations {
            let seed = (index as u64) << 16 | round;
            let mutated = mutate(&text, &mut Rng(seed));
            let result = catch_unwind(AssertUnwindSafe(|| {
                let mut sources = Sources::new();
                sources.add("mutated.wf", mutated.clone());
                wf_analysis::check_sources(&sources)
            }));
            if result.is_err() {
                failures.push(format!("{} (seed {seed})", path.display()));
            }
        }
    }
    drop(quiet);
    assert!(
        failures.is_empty(),
        "the analysis panicked on mutated inputs:\n{}",
        failures.join("\n")
    );
}

/// Issue 14, item 14: a 360 KB file of one line full of errors made human
/// output quadratic (23 GB resident, killed). Its report is now bounded:
/// a window of the line per report, and at most
/// `MAX_HUMAN_REPORTS_PER_FILE` reports per file, then a count. Asserts
/// bytes of output, not time; `wfc run` renders the same way on stderr.
#[test]
fn one_long_line_full_of_errors_renders_in_bounded_output() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("wfc-robustness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hostile.wf");
    std::fs::write(&file, format!("workflow W {{ {}}}", "@ ".repeat(180_000))).unwrap();
    for command in ["check", "run"] {
        let out = std::process::Command::new(insta_cmd::get_cargo_bin("wfc"))
            .args([command, file.to_str().unwrap()])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let report = if command == "check" {
            &out.stdout
        } else {
            &out.stderr
        };
        let text = String::from_utf8_lossy(report);
        assert!(
            report.len() < 100_000,
            "{command}: {} bytes of output",
            report.len()
        );
        assert!(
            text.contains("note: 179900 more diagnostics in"),
            "{command}: {}",
            &text[text.len().saturating_sub(2000)..]
        );
        assert!(
            text.lines().all(|l| l.len() < 1_000),
            "{command}: a long line"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
