//! Language-server test sessions: a workspace written to a temporary
//! directory, the `wf_lsp` server started in-process on it, and the one
//! JSON-RPC [`Client`] of every language-server test (the same client
//! drives `wfc lsp` over stdio in wfc's fixture sessions).

mod client;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

pub use client::{Client, canonical};

/// A client session with a running server.
///
/// Its methods are `async` for the tests that drive it from a tokio
/// runtime; they block on the client, which is fine because the server
/// runs on a runtime of its own.
pub struct Session {
    root: PathBuf,
    client: Client,
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
        let mut session = Session {
            root,
            client: Client::in_process(),
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

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.client.notify(method, params);
    }

    /// Sends a request and returns its result (or its error object, for
    /// a failed request).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let reply = self.client.request(method, params);
        reply
            .get("result")
            .cloned()
            .unwrap_or_else(|| json!({"error": reply["error"]}))
    }

    /// Waits for the next `publishDiagnostics` for `path` and returns its
    /// diagnostics.
    pub async fn diagnostics(&mut self, path: &str) -> Value {
        let uri = self.uri(path);
        self.client.next_publish(&uri)["params"]["diagnostics"].clone()
    }

    /// The last `publishDiagnostics` for `path` already received (all
    /// earlier ones are dropped).
    pub fn last_diagnostics(&mut self, path: &str) -> Option<Value> {
        let uri = self.uri(path);
        let last = self.client.take_publishes(&uri)?;
        Some(last["params"]["diagnostics"].clone())
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
    pub async fn shutdown(self) {
        self.client.shutdown();
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
