//! `wfc lsp` end to end: the real binary over stdio, one scripted session
//! (initialize, open a broken file, diagnostics, fix, cleared, shutdown,
//! exit with status 0). The feature-by-feature sessions are in
//! `crates/wf-lsp/tests/`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

fn frame(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// Reads framed messages from the server into a channel.
fn reader(stdout: std::process::ChildStdout) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stdout = BufReader::new(stdout);
        loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("Content-Length: ") {
                    length = n.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; length.expect("Content-Length")];
            stdout.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        }
    });
    rx
}

/// The next message satisfying `wanted` (others are skipped).
fn next(rx: &mpsc::Receiver<Value>, wanted: impl Fn(&Value) -> bool) -> Value {
    loop {
        let message = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("no reply from wfc lsp in time");
        if wanted(&message) {
            return message;
        }
    }
}

#[test]
fn stdio_session_publishes_and_clears_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let uri = format!("file://{}/main.wf", root.display());
    let broken = "workflow W {\n  step a { reads nope }\n  start -> a -> done\n}\n";
    let mut child = Command::new(env!("CARGO_BIN_EXE_wfc"))
        .arg("lsp")
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let rx = reader(child.stdout.take().unwrap());
    let mut send = |message: Value| stdin.write_all(&frame(&message)).unwrap();
    let root_uri = format!("file://{}", root.display());
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"processId": null, "rootUri": root_uri, "capabilities": {}}}));
    let init = next(&rx, |m| m["id"] == 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "wfc");
    assert_eq!(
        init["result"]["capabilities"]["textDocumentSync"]["change"],
        2
    );
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument":
        {"uri": uri, "languageId": "wf", "version": 1, "text": broken}}}),
    );
    let is_publish = |m: &Value| m["method"] == "textDocument/publishDiagnostics";
    let published = next(&rx, is_publish);
    assert_eq!(published["params"]["uri"], uri.as_str());
    assert_eq!(published["params"]["version"], 1);
    let codes: Vec<&str> = published["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["WF0301"]);
    // `reads nope` → `reads x?` (optional): clean.
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": {"line": 1, "character": 17},
            "end": {"line": 1, "character": 21}}, "text": "x?"}]}}),
    );
    let cleared = next(&rx, is_publish);
    assert_eq!(cleared["params"]["diagnostics"], json!([]));
    assert_eq!(cleared["params"]["version"], 2);
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    assert_eq!(next(&rx, |m| m["id"] == 2)["result"], Value::Null);
    send(json!({"jsonrpc": "2.0", "method": "exit"}));
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
}
