//! A scripted LSP client: runs the server in-process over in-memory pipes,
//! speaks framed JSON-RPC to it, and normalises file URIs for snapshots.

#![allow(dead_code)] // each test file uses a subset

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// How long to wait for any one message before failing the test.
const TIMEOUT: Duration = Duration::from_secs(30);

/// A client session with a running server.
pub struct Session {
    root: PathBuf,
    writer: DuplexStream,
    reader: BufReader<DuplexStream>,
    next_id: i64,
    /// Server-to-client messages read while waiting for something else.
    pending: VecDeque<Value>,
    _dir: tempfile::TempDir,
}

impl Session {
    /// Writes `files` (path, text) into a fresh directory, starts a server
    /// and initializes it with that directory as the workspace folder.
    pub async fn start(files: &[(&str, &str)]) -> Session {
        Session::start_with(files, Value::Null).await
    }

    /// [`Session::start`] with `initializationOptions` (such as
    /// `{"debounceMs": 0}`).
    pub async fn start_with(files: &[(&str, &str)], options: Value) -> Session {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let (client_out, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, client_in) = tokio::io::duplex(1 << 20);
        tokio::spawn(wf_lsp::serve(server_in, server_out));
        let mut session = Session {
            root,
            writer: client_out,
            reader: BufReader::new(client_in),
            next_id: 0,
            pending: VecDeque::new(),
            _dir: dir,
        };
        let root_uri = session.uri("");
        let init = session
            .request(
                "initialize",
                json!({
                    "processId": null,
                    "capabilities": {},
                    "workspaceFolders": [{"uri": root_uri.trim_end_matches('/'), "name": "ws"}],
                    "initializationOptions": options,
                }),
            )
            .await;
        assert!(init["capabilities"].is_object(), "{init}");
        session.notify("initialized", json!({})).await;
        session
    }

    /// The URI of a path of the workspace.
    pub fn uri(&self, path: &str) -> String {
        format!("file://{}/{path}", self.root.display())
    }

    /// The workspace directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The text of a file of the workspace.
    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root.join(path)).unwrap()
    }

    async fn send(&mut self, message: Value) {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.writer.write_all(frame.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    async fn receive(&mut self) -> Value {
        tokio::time::timeout(TIMEOUT, async {
            let mut length = None;
            loop {
                let mut line = String::new();
                let n = self.reader.read_line(&mut line).await.unwrap();
                assert!(n > 0, "the server closed its output");
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(value) = line.strip_prefix("Content-Length: ") {
                    length = Some(value.parse::<usize>().unwrap());
                }
            }
            let mut body = vec![0; length.expect("Content-Length header")];
            self.reader.read_exact(&mut body).await.unwrap();
            serde_json::from_slice(&body).unwrap()
        })
        .await
        .expect("no message from the server in time")
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request and returns its result (or its error object, for
    /// a failed request).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.receive().await;
            if message["id"] == json!(id) && message.get("method").is_none() {
                return message
                    .get("result")
                    .cloned()
                    .unwrap_or_else(|| json!({"error": message["error"]}));
            }
            self.pending.push_back(message);
        }
    }

    /// Waits for the next `publishDiagnostics` for `path` and returns its
    /// diagnostics.
    pub async fn diagnostics(&mut self, path: &str) -> Value {
        let uri = self.uri(path);
        loop {
            let position = self.pending.iter().position(|m| {
                m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
            });
            if let Some(i) = position {
                let message = self.pending.remove(i).unwrap();
                return message["params"]["diagnostics"].clone();
            }
            let message = self.receive().await;
            self.pending.push_back(message);
        }
    }

    /// The last `publishDiagnostics` for `path` already received (all
    /// earlier ones are dropped).
    pub fn last_diagnostics(&mut self, path: &str) -> Option<Value> {
        let uri = self.uri(path);
        let mut last = None;
        self.pending.retain(|m| {
            let hit = m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri;
            if hit {
                last = Some(m["params"]["diagnostics"].clone());
            }
            !hit
        });
        last
    }

    /// Opens a document with `text`.
    pub async fn open(&mut self, path: &str, text: &str) {
        let uri = self.uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "wf", "version": 1, "text": text}}),
        )
        .await;
    }

    /// Replaces the text between two (line, UTF-16 character) positions.
    pub async fn edit(
        &mut self,
        path: &str,
        version: i32,
        from: (u32, u32),
        to: (u32, u32),
        text: &str,
    ) {
        let uri = self.uri(path);
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{
                    "range": {
                        "start": {"line": from.0, "character": from.1},
                        "end": {"line": to.0, "character": to.1},
                    },
                    "text": text,
                }],
            }),
        )
        .await;
    }

    /// A request at a position of a file (`textDocument/hover`, …).
    pub async fn at(&mut self, method: &str, path: &str, line: u32, character: u32) -> Value {
        let uri = self.uri(path);
        self.request(
            method,
            json!({
                "textDocument": {"uri": uri},
                "position": {"line": line, "character": character},
                "context": {"includeDeclaration": true, "triggerKind": 1},
            }),
        )
        .await
    }

    /// A value with the workspace's URIs replaced by `file:///ROOT/…`.
    pub fn normalize(&self, value: &Value) -> Value {
        let text = value.to_string();
        let root = format!("file://{}", self.root.display());
        serde_json::from_str(&text.replace(&root, "file:///ROOT")).unwrap()
    }

    /// Shuts the server down: `shutdown` answers null, and after `exit`
    /// the server closes its output.
    pub async fn shutdown(mut self) {
        let result = self.request("shutdown", Value::Null).await;
        assert_eq!(result, Value::Null);
        self.notify("exit", Value::Null).await;
    }
}

/// The (line, UTF-16 character) of the first occurrence of `needle` in
/// `text`, plus `shift` characters: how fixtures mark the cursor.
pub fn cursor(text: &str, needle: &str, shift: u32) -> (u32, u32) {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in the fixture"));
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .encode_utf16()
        .count() as u32;
    (line, column + shift)
}
