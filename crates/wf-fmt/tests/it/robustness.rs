//! Mutated inputs never make the formatter panic or hang, and whatever it
//! formats (forced or not) passes its own verification and is stable.
//!
//! Every test file and example is mutated by a seeded generator
//! (deletions, duplications, spliced fragments such as unclosed brackets,
//! `"""`, `/*` and comments). `WFC_FMT_MUTATIONS=N` sets the mutations per
//! file (default 20).

use std::path::{Path, PathBuf};

use wf_fmt::{FormatError, Options, format, format_forced};

fn wf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            wf_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "wf") {
            out.push(path);
        }
    }
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "\"",
    "\"\"\"",
    "/*",
    "*/",
    "// c\n",
    "/// d\n",
    "\n\n",
    "->",
    " when ",
    "=",
    ",",
    ";",
    "step x",
    "`k`",
    "\\u{",
    "\r\n",
    "\t",
    " a -> b ",
    "{ x = 1 }",
];

fn char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut out = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let at = char_boundary(&out, rng.below(out.len() + 1));
        match rng.below(3) {
            0 => {
                let end = char_boundary(&out, (at + rng.below(40)).min(out.len()));
                out.replace_range(at..end, "");
            }
            1 => {
                let end = char_boundary(&out, (at + rng.below(60)).min(out.len()));
                let copy = out[at..end].to_string();
                let to = char_boundary(&out, rng.below(out.len() + 1));
                out.insert_str(to, &copy);
            }
            _ => out.insert_str(at, FRAGMENTS[rng.below(FRAGMENTS.len())]),
        }
    }
    out
}

#[test]
fn mutated_inputs_are_handled_safely() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    wf_files(&root.join("tests"), &mut files);
    wf_files(&root.join("examples"), &mut files);
    files.sort();
    let per_file: usize = std::env::var("WFC_FMT_MUTATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let options = Options::default();
    let mut rng = Rng(0x5eed_f00d);
    let mut failures = Vec::new();
    let (mut clean, mut forced, mut refused) = (0, 0, 0);
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        for _ in 0..per_file {
            let input = mutate(&text, &mut rng);
            match format(&input, &options) {
                Ok(once) => {
                    clean += 1;
                    if format(&once, &options).ok().as_ref() != Some(&once) {
                        failures.push(format!("{}: not idempotent on\n{input}", path.display()));
                    }
                }
                // A file that parses must always be formatted.
                Err(err @ FormatError::Unsafe(_)) => {
                    failures.push(format!("{}: {err} on\n{input}", path.display()));
                }
                Err(FormatError::Syntax(_)) => match format_forced(&input, &options) {
                    Ok(_) => forced += 1,
                    Err(_) => refused += 1,
                },
            }
        }
    }
    eprintln!("formatted {clean}, forced {forced}, refused when forced {refused}");
    assert!(clean > 0 && forced > 0, "clean {clean}, forced {forced}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
