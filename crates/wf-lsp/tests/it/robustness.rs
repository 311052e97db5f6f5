//! Random edits through `didChange`, each followed by a hover, a
//! completion and the code actions of a line: the server must answer every
//! request (a result or "content modified", never an internal error), and
//! after every edit its published diagnostics must come to equal what the
//! database `wfc check` uses says of the same text. One run edits a `.wf`
//! file, another an Attractor `.dot` pipeline.
//!
//! Edits are deletions, insertions of syntax fragments and pastes of
//! slices of other files (the imported library and the repository's
//! examples; for `.dot`, pipelines of the shared corpus when it is there).
//! `WFC_LSP_EDITS` sets the number of edits (default [`DEFAULT_EDITS`],
//! quick in a debug build); issue 6 asks for 5,000:
//! `WFC_LSP_EDITS=5000 cargo test --release -p wf-lsp --test it robustness::`.

use crate::common;
use wf_test_support::corpus;

use std::time::{Duration, Instant};

use common::Session;
use serde_json::{Value, json};

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
    let Some(corpus) = corpus::shared_corpus("attractor") else {
        return Vec::new();
    };
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

/// One random-edit run.
struct Run {
    /// Files of the workspace; the first is edited.
    files: Vec<(&'static str, &'static str)>,
    pastes: &'static [&'static str],
    others: Vec<String>,
    seed: u64,
}

/// The (code, first message line) of each diagnostic `wfc check`'s
/// database reports for the edited file with `text`.
fn expected(s: &Session, run: &Run, text: &str) -> Vec<(String, String)> {
    let mut db = wf_analysis::Database::new(s.root());
    let (edited, _) = run.files[0];
    for (path, seed) in &run.files[1..] {
        db.set_file(s.root().join(path), *path, *seed);
    }
    let main = db.set_file(s.root().join(edited), edited, text.to_string());
    db.file_diagnostics(main)
        .iter()
        .map(|d| {
            let first = d.message.lines().next().unwrap_or("").to_string();
            (d.code.code.to_string(), first)
        })
        .collect()
}

/// The same view of published diagnostics.
fn summary(published: &Value) -> Vec<(String, String)> {
    published
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            let message = d["message"].as_str().unwrap_or("");
            let first = message.lines().next().unwrap_or("").to_string();
            (d["code"].as_str().unwrap_or("").to_string(), first)
        })
        .collect()
}

/// Waits until the server's published diagnostics for `path` equal
/// `wanted` (an edit that changes nothing publishes nothing, so they may
/// already), reading its messages with cheap round trips.
async fn converge(s: &mut Session, path: &str, current: &mut Value, wanted: &[(String, String)]) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(published) = s.last_diagnostics(path) {
            *current = published;
        }
        if summary(current) == wanted {
            return;
        }
        if Instant::now() >= deadline {
            let got = summary(current);
            let first = got.iter().zip(wanted).position(|(a, b)| a != b);
            panic!(
                "published {} diagnostics, wfc check says {}; first difference at {first:?}: {:?} vs {:?}",
                got.len(),
                wanted.len(),
                first.and_then(|i| got.get(i)),
                first.and_then(|i| wanted.get(i)),
            );
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
        s.request("workspace/symbol", json!({"query": "\u{1}"}))
            .await;
    }
}

async fn random_edits(run: Run) {
    let mut s = Session::start_with(&run.files, json!({"debounceMs": 0})).await;
    let (path, seed) = run.files[0];
    s.open(path, seed).await;
    let mut text = seed.to_string();
    let mut published = json!([]);
    let mut rng = Rng(run.seed);
    let edits = edit_count();
    for version in 2..edits as i32 + 2 {
        let start = boundary(&text, rng.next(text.len() + 1));
        // Past 6 KB, deletions grow so that the text stays a few KB long.
        let span = if text.len() > 6_000 { 600 } else { 12 };
        let end = boundary(&text, (start + rng.next(span)).min(text.len()));
        let pasted;
        let insert = match rng.next(6) {
            0 | 1 => "",
            2 => {
                // A paste of up to 400 bytes of another file.
                let other = &run.others[rng.next(run.others.len())];
                let from = boundary(other, rng.next(other.len() + 1));
                let to = boundary(other, (from + rng.next(400)).min(other.len()));
                pasted = other[from..to].to_string();
                pasted.as_str()
            }
            _ => run.pastes[rng.next(run.pastes.len())],
        };
        let (from, to) = (position(&text, start), position(&text, end));
        s.edit(path, version, from, to, insert).await;
        text.replace_range(start..end, insert);
        let at = position(&text, boundary(&text, rng.next(text.len() + 1)));
        for method in ["textDocument/hover", "textDocument/completion"] {
            let reply = s.at(method, path, at.0, at.1).await;
            if let Some(error) = reply.get("error") {
                // Only cancellation by a newer edit is acceptable.
                assert_eq!(error["code"], json!(-32801), "{method} at {at:?}: {reply}");
            }
        }
        // The quick fixes of the line, suppressions included (each tried
        // on a copy of the text).
        let uri = s.uri(path);
        let line = json!({"start": {"line": at.0, "character": 0}, "end": {"line": at.0 + 1, "character": 0}});
        let reply = s
            .request(
                "textDocument/codeAction",
                json!({"textDocument": {"uri": uri}, "range": line, "context": {"diagnostics": []}}),
            )
            .await;
        if let Some(error) = reply.get("error") {
            assert_eq!(
                error["code"],
                json!(-32801),
                "codeAction at {at:?}: {reply}"
            );
        }
        let wanted = expected(&s, &run, &text);
        converge(&mut s, path, &mut published, &wanted).await;
    }
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_edits_never_break_the_server() {
    let mut others = other_files();
    others.push(SEED_TEXT.to_string());
    random_edits(Run {
        files: vec![("main.wf", SEED_TEXT), ("lib.wf", LIB)],
        pastes: PASTES,
        others,
        seed: 0x9e37_79b9_7f4a_7c15,
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_edits_of_a_dot_pipeline() {
    let mut others = corpus_pipelines();
    others.push(DOT_SEED.to_string());
    random_edits(Run {
        files: vec![("pipeline.dot", DOT_SEED)],
        pastes: DOT_PASTES,
        others,
        seed: 0x2545_f491_4f6c_dd1d,
    })
    .await;
}

/// Found by 5,000 random edits: hovering a code in a comment right after a
/// multi-byte character sliced inside it and answered an internal error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_on_a_code_after_a_multibyte_character() {
    let text = "workflow A {\n  start -> done // é·WF0301\n}\n";
    let mut s = Session::start(&[("main.wf", text)]).await;
    s.open("main.wf", text).await;
    let (line, column) = common::cursor(text, "WF0301", 2);
    let reply = s.at("textDocument/hover", "main.wf", line, column).await;
    assert!(reply.get("error").is_none(), "{reply}");
    assert!(reply.to_string().contains("WF0301"), "{reply}");
    s.shutdown().await;
}
