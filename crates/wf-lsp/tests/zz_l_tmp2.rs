#![allow(dead_code)]
const SEED_TEXT: &str = "import \"lib.wf\"

/// Ships a ticket.
workflow Ship {
  needs ticket: string
  step plan \"Plan it\" { reads ticket  writes plan: string  timeout = 15m }
  call review = Review { decision <- verdict }
  start -> plan -> review -> done
  review -> done when outcome == success && decision == \"yes\"
}
";

const LIB: &str = "workflow Review {\n  needs plan: string\n  gives verdict: string\n  step judge { reads plan  writes verdict: string }\n  start -> judge -> done\n}\n";

/// Snippets pasted at random places: fragments of real syntax, and bytes
/// that are not (multi-byte and astral characters included).
const PASTES: &[&str] = &[
    "step x { writes y: int }\n",
    " -> ",
    "when outcome == ",
    "call c = Review\n",
    "{",
    "}",
    "\"",
    "/// doc\n",
    "é𝄞",
    "reads ",
    "workflow",
    "\n",
    "needs a: string\n",
    "`key`",
];

/// Edits per run unless `WFC_LSP_EDITS` says otherwise.
const DEFAULT_EDITS: usize = 300;

fn edit_count() -> usize {
    std::env::var("WFC_LSP_EDITS")
        .ok()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(DEFAULT_EDITS)
}

/// Texts of other files to paste slices of: the library, and the
/// repository's examples when they are there.
fn other_files() -> Vec<String> {
    let mut texts = vec![LIB.to_string()];
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    if let Ok(entries) = std::fs::read_dir(examples) {
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            if path.extension().is_some_and(|e| e == "wf")
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                texts.push(text);
            }
        }
    }
    texts
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound.max(1) as u64) as usize
    }
}

/// The (line, UTF-16 column) of a char-boundary byte offset.
fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].encode_utf16().count() as u32)
}

fn boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

const DOT_SEED: &str = "digraph Ship {
  graph [goal=\"Ship the ticket\"]
  start [shape=Mdiamond]
  plan [label=\"Plan\", prompt=\"Plan $goal\"]
  gate [shape=diamond]
  exit [shape=Msquare]
  start -> plan -> gate
  gate -> exit [condition=\"outcome=success\"]
  gate -> plan [condition=\"outcome=fail\", label=\"again\"]
}
";

/// DOT fragments pasted at random places.
const DOT_PASTES: &[&str] = &[
    "a -> b\n",
    " -> ",
    "[shape=hexagon]",
    "[condition=\"outcome=sucess\"]",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "=",
    ";",
    "subgraph cluster_x { x }\n",
    "é𝄞",
    "/* c */",
    "timeout=900",
];

/// Up to 40 Attractor pipelines of the shared corpus, read where they are
/// (none when the corpus is missing).
fn corpus_pipelines() -> Vec<String> {
    let corpus =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/attractor");
    let mut found = Vec::new();
    let mut stack = vec![corpus];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "dot") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
        .iter()
        .take(40)
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

/// A small deterministic generator (xorshift), so failures reproduce.
#[test]
fn incremental_equals_fresh_for_dot() {
    let mut others = corpus_pipelines();
    others.push(DOT_SEED.to_string());
    let root = std::path::PathBuf::from("/tmp/zzl");
    let mut inc = wf_analysis::Database::new(&root);
    let path = root.join("pipeline.dot");
    inc.set_file(&path, "pipeline.dot", DOT_SEED);
    inc.open_for_editing(&path);
    let mut text = DOT_SEED.to_string();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for edit in 0..5000 {
        let start = boundary(&text, rng.next(text.len() + 1));
        let end = boundary(&text, (start + rng.next(12)).min(text.len()));
        let pasted;
        let insert = match rng.next(6) {
            0 | 1 => "",
            2 => {
                let other = &others[rng.next(others.len())];
                let from = boundary(other, rng.next(other.len() + 1));
                let to = boundary(other, (from + rng.next(400)).min(other.len()));
                pasted = other[from..to].to_string();
                pasted.as_str()
            }
            _ => DOT_PASTES[rng.next(DOT_PASTES.len())],
        };
        text.replace_range(start..end, insert);
        let _ = boundary(&text, rng.next(text.len() + 1));
        let id = inc.set_file(&path, "pipeline.dot", text.clone());
        if edit % 25 != 0 && text.len() < 50_000 { continue; }
        let got: Vec<String> = inc.diagnostics().iter().map(|d| format!("{} {} {:?}", d.code.code, d.message, d.primary.location.span)).collect();
        let mut fresh = wf_analysis::Database::new(&root);
        fresh.set_file(&path, "pipeline.dot", text.clone());
        let want: Vec<String> = fresh.diagnostics().iter().map(|d| format!("{} {} {:?}", d.code.code, d.message, d.primary.location.span)).collect();
        let _ = id;
        if got != want {
            let first = got.iter().zip(&want).position(|(a, b)| a != b);
            std::fs::write("/tmp/zzl_text.dot", &text).unwrap();
            panic!("edit {edit}: len {} incremental {} fresh {} first diff {first:?}: {:?} vs {:?}", text.len(), got.len(), want.len(), first.and_then(|i| got.get(i)), first.and_then(|i| want.get(i)));
        }
    }
}
