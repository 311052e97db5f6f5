//! A JSON-RPC client for `wfc lsp` over stdio: frames messages, pumps the
//! server's output on a thread, answers the server's own requests
//! (`client/registerCapability`, …) and keeps the last published
//! diagnostics of every URI.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long to wait for a reply before failing the session.
const TIMEOUT: Duration = Duration::from_secs(60);

/// How long the server must stay silent before its published diagnostics
/// count as settled (the fixtures run with the debounce at 0 ms).
const QUIET: Duration = Duration::from_millis(400);

/// A running `wfc lsp` and what it has said.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
    /// The last diagnostics published for each URI.
    pub published: HashMap<String, Value>,
    /// Requests the server sent to the client, in order.
    pub server_requests: Vec<Value>,
}

impl Client {
    /// Starts `wfc lsp` in `dir`.
    pub fn spawn(dir: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wfc"))
            .arg("lsp")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn wfc lsp");
        let stdin = child.stdin.take();
        let rx = pump(child.stdout.take().expect("stdout"));
        Client {
            child,
            stdin,
            rx,
            next_id: 0,
            published: HashMap::new(),
            server_requests: Vec::new(),
        }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to wfc lsp");
        stdin.flush().expect("flush");
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns the whole response (`result` or
    /// `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .recv(left)
                .unwrap_or_else(|| panic!("no reply to {method} in time"));
            if message.get("method").is_none() && message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Waits until the server has been silent for a while, so that every
    /// publish an edit caused has arrived.
    pub fn settle(&mut self) {
        let deadline = Instant::now() + TIMEOUT;
        while Instant::now() < deadline {
            if self.recv(QUIET).is_none() {
                return;
            }
        }
    }

    /// The next message, handling the server's requests and publishes on
    /// the way; `None` after `wait` without one.
    fn recv(&mut self, wait: Duration) -> Option<Value> {
        let message = match self.rx.recv_timeout(wait) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => return None,
            Err(RecvTimeoutError::Disconnected) => panic!("wfc lsp closed its output"),
        };
        if let (Some(method), Some(id)) = (message.get("method"), message.get("id")) {
            // A request from the server: accept it.
            let result = if method == "workspace/configuration" {
                json!([])
            } else {
                Value::Null
            };
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
            self.server_requests.push(message.clone());
            self.send(&reply);
        } else if message["method"] == "textDocument/publishDiagnostics" {
            let uri = message["params"]["uri"].as_str().unwrap_or("").to_string();
            self.published
                .insert(uri, message["params"]["diagnostics"].clone());
        }
        Some(message)
    }

    /// Shuts the server down and checks that it exits cleanly.
    pub fn shutdown(mut self) {
        let reply = self.request("shutdown", Value::Null);
        assert_eq!(reply["result"], Value::Null, "{reply}");
        self.notify("exit", Value::Null);
        drop(self.stdin.take());
        let status = self.child.wait().expect("wait for wfc lsp");
        assert!(status.success(), "wfc lsp exited with {status}");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // A failed session must not leave the server running.
        if self.stdin.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Reads framed messages into a channel.
fn pump(stdout: std::process::ChildStdout) -> Receiver<Value> {
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
            let Some(length) = length else { return };
            let mut body = vec![0; length];
            if stdout.read_exact(&mut body).is_err() {
                return;
            }
            let Ok(message) = serde_json::from_slice(&body) else {
                return;
            };
            if tx.send(message).is_err() {
                return;
            }
        }
    });
    rx
}

/// `value` with every object's keys sorted (stable snapshots whatever map
/// type serde_json uses), and positions and ranges written compactly as
/// `"line:column"` and `"line:column-line:column"`, 1-based like an
/// editor shows them (columns in UTF-16 code units).
pub fn canonical(value: &Value) -> Value {
    if let Some(position) = position(value) {
        return json!(position);
    }
    if let Some(map) = value.as_object()
        && map.len() == 2
        && let (Some(start), Some(end)) = (
            map.get("start").and_then(position),
            map.get("end").and_then(position),
        )
    {
        return json!(format!("{start}-{end}"));
    }
    match value {
        Value::Object(map) => {
            let sorted: BTreeMap<&String, Value> =
                map.iter().map(|(k, v)| (k, canonical(v))).collect();
            Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// A protocol position `{"line", "character"}` as `"line:column"`, 1-based.
fn position(value: &Value) -> Option<String> {
    let map = value.as_object()?;
    if map.len() != 2 {
        return None;
    }
    let line = map.get("line")?.as_u64()?;
    let column = map.get("character")?.as_u64()?;
    Some(format!("{}:{}", line + 1, column + 1))
}
