//! Random edits through `didChange`, each followed by a hover and a
//! completion: the server must answer every request (a result or "content
//! modified", never an internal error), and its final diagnostics must
//! equal what the database `wfc check` uses says of the same text.
//!
//! Edits are deletions, insertions of syntax fragments and pastes of
//! slices of other files (the imported library and the repository's
//! examples). `WFC_LSP_EDITS` sets the number of edits (default
//! [`DEFAULT_EDITS`], quick in a debug build); issue 6 asks for 5,000:
//! `WFC_LSP_EDITS=5000 cargo test --release -p wf-lsp --test robustness`.

mod common;

use common::Session;
use serde_json::json;

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_edits_never_break_the_server() {
    let mut s = Session::start(&[("lib.wf", LIB), ("main.wf", SEED_TEXT)]).await;
    s.open("main.wf", SEED_TEXT).await;
    let mut text = SEED_TEXT.to_string();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let others = other_files();
    let edits = edit_count();
    for version in 2..edits as i32 + 2 {
        let start = boundary(&text, rng.next(text.len() + 1));
        let end = boundary(&text, (start + rng.next(12)).min(text.len()));
        let pasted;
        let insert = match rng.next(6) {
            0 | 1 => "",
            2 => {
                // A paste of up to 400 bytes of another file.
                let other = &others[rng.next(others.len())];
                let from = boundary(other, rng.next(other.len() + 1));
                let to = boundary(other, (from + rng.next(400)).min(other.len()));
                pasted = other[from..to].to_string();
                pasted.as_str()
            }
            _ => PASTES[rng.next(PASTES.len())],
        };
        let (from, to) = (position(&text, start), position(&text, end));
        s.edit("main.wf", version, from, to, insert).await;
        text.replace_range(start..end, insert);
        let at = position(&text, boundary(&text, rng.next(text.len() + 1)));
        for method in ["textDocument/hover", "textDocument/completion"] {
            let reply = s.at(method, "main.wf", at.0, at.1).await;
            if let Some(error) = reply.get("error") {
                // Only cancellation by a newer edit is acceptable.
                assert_eq!(error["code"], json!(-32801), "{method} at {at:?}: {reply}");
            }
        }
    }
    // The server's final word equals a fresh database's: wait past the
    // debounce, then a round trip makes sure every publish has been read.
    tokio::time::sleep(wf_lsp::debounce_from_env() * 6).await;
    s.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": s.uri("main.wf")},
        "position": {"line": 0, "character": 0}}),
    )
    .await;
    let published = s.last_diagnostics("main.wf").unwrap_or(json!([]));
    let mut db = wf_analysis::Database::new(s.root());
    db.set_file(s.root().join("lib.wf"), "lib.wf", LIB);
    let main = db.set_file(s.root().join("main.wf"), "main.wf", text.clone());
    let expected: Vec<(String, String)> = db
        .file_diagnostics(main)
        .iter()
        .map(|d| (d.code.code.to_string(), d.message.clone()))
        .collect();
    let got: Vec<(String, String)> = published
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let message = d["message"].as_str().unwrap();
            let first = message.lines().next().unwrap_or("").to_string();
            (d["code"].as_str().unwrap().to_string(), first)
        })
        .collect();
    let expected_first: Vec<(String, String)> = expected
        .into_iter()
        .map(|(c, m)| (c, m.lines().next().unwrap_or("").to_string()))
        .collect();
    assert_eq!(got, expected_first, "final text:\n{text}");
    s.shutdown().await;
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
