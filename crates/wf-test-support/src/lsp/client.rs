//! The JSON-RPC client of every language-server test: frames messages,
//! pumps the server's output on a thread, answers the server's own requests
//! (`client/registerCapability`, …), keeps the notifications not yet taken
//! and the last published diagnostics of every URI. The server is either
//! `wf_lsp` in-process ([`Client::in_process`]) or a program over stdio
//! ([`Client::spawn`], `wfc lsp`): the same client drives both.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long to wait for a reply before failing the session.
const TIMEOUT: Duration = Duration::from_secs(60);

/// How long the server must stay silent before its published diagnostics
/// count as settled (the fixtures run with the debounce at 0 ms).
const QUIET: Duration = Duration::from_millis(400);

/// A running server and what it has said.
pub struct Client {
    writer: Option<Box<dyn Write + Send>>,
    rx: Receiver<Value>,
    next_id: i64,
    /// The server's notifications not taken yet, in order.
    pending: VecDeque<Value>,
    /// The server process, when it is one.
    child: Option<Child>,
    /// The last diagnostics published for each URI.
    pub published: HashMap<String, Value>,
    /// The document version of the last `publishDiagnostics` for each
    /// URI that named one.
    pub published_versions: HashMap<String, i64>,
    /// Requests the server sent to the client, in order.
    pub server_requests: Vec<Value>,
}

impl Client {
    /// Starts `program lsp` in `dir` and speaks to it over its standard
    /// input and output.
    pub fn spawn(program: &Path, dir: &Path) -> Client {
        let mut child = Command::new(program)
            .arg("lsp")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the language server");
        let stdin = child.stdin.take().expect("stdin");
        let rx = pump(child.stdout.take().expect("stdout"));
        Client::over(Box::new(stdin), rx, Some(child))
    }

    /// Starts `wf_lsp::serve` in-process, on a runtime of its own thread
    /// (two workers, as `wfc lsp` runs it), over in-memory pipes.
    pub fn in_process() -> Client {
        let (to_server, mut outgoing) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        let (from_server, incoming) = mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("tokio runtime");
            runtime.block_on(async move {
                let (mut client_out, server_in) = tokio::io::duplex(1 << 20);
                let (server_out, mut client_in) = tokio::io::duplex(1 << 20);
                // The client's bytes to the server; when the client is
                // dropped, the server's input closes and `serve` returns.
                tokio::spawn(async move {
                    while let Some(bytes) = outgoing.recv().await {
                        if client_out.write_all(&bytes).await.is_err() {
                            break;
                        }
                    }
                });
                // The server's bytes to the client's pump.
                tokio::spawn(async move {
                    let mut buffer = vec![0; 1 << 16];
                    while let Ok(n @ 1..) = client_in.read(&mut buffer).await {
                        if from_server.send(buffer[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                });
                wf_lsp::serve(server_in, server_out).await;
            });
        });
        let reader = ChannelReader {
            rx: incoming,
            chunk: Vec::new(),
            at: 0,
        };
        Client::over(Box::new(ChannelWriter(to_server)), pump(reader), None)
    }

    fn over(writer: Box<dyn Write + Send>, rx: Receiver<Value>, child: Option<Child>) -> Client {
        Client {
            writer: Some(writer),
            rx,
            next_id: 0,
            pending: VecDeque::new(),
            child,
            published: HashMap::new(),
            published_versions: HashMap::new(),
            server_requests: Vec::new(),
        }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let writer = self.writer.as_mut().expect("the client is open");
        write!(writer, "Content-Length: {}\r\n\r\n{body}", body.len())
            .expect("write to the server");
        writer.flush().expect("flush");
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

    /// Waits until the server has published diagnostics for `version` (or
    /// a later one) of the open document `uri`: the server publishes each
    /// new version of an open file, so this does not depend on timing.
    pub fn wait_for_version(&mut self, uri: &str, version: i64) {
        while self
            .published_versions
            .get(uri)
            .is_none_or(|&v| v < version)
        {
            self.recv(TIMEOUT)
                .unwrap_or_else(|| panic!("no diagnostics for version {version} of {uri} in time"));
        }
    }

    /// Takes the oldest `publishDiagnostics` notification for `uri` not
    /// taken yet, waiting for one if need be.
    pub fn next_publish(&mut self, uri: &str) -> Value {
        loop {
            let position = self.pending.iter().position(|m| is_publish(m, uri));
            if let Some(i) = position {
                return self.pending.remove(i).expect("a pending message");
            }
            self.recv(TIMEOUT)
                .expect("no message from the server in time");
        }
    }

    /// Takes every `publishDiagnostics` notification for `uri` already
    /// received and not taken yet, and returns the last one.
    pub fn take_publishes(&mut self, uri: &str) -> Option<Value> {
        let mut last = None;
        self.pending.retain(|m| {
            let hit = is_publish(m, uri);
            if hit {
                last = Some(m.clone());
            }
            !hit
        });
        last
    }

    /// The next message, handling the server's requests and publishes on
    /// the way; `None` after `wait` without one.
    fn recv(&mut self, wait: Duration) -> Option<Value> {
        let message = match self.rx.recv_timeout(wait) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => return None,
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
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
        } else if message.get("method").is_some() {
            if message["method"] == "textDocument/publishDiagnostics" {
                let uri = message["params"]["uri"].as_str().unwrap_or("").to_string();
                if let Some(version) = message["params"]["version"].as_i64() {
                    self.published_versions.insert(uri.clone(), version);
                }
                self.published
                    .insert(uri, message["params"]["diagnostics"].clone());
            }
            self.pending.push_back(message.clone());
        }
        Some(message)
    }

    /// Shuts the server down (`shutdown` must answer null, then `exit`);
    /// a server process must then exit with status 0.
    pub fn shutdown(mut self) {
        let reply = self.request("shutdown", Value::Null);
        assert_eq!(reply["result"], Value::Null, "{reply}");
        self.notify("exit", Value::Null);
        drop(self.writer.take());
        if let Some(mut child) = self.child.take() {
            let status = child.wait().expect("wait for the server");
            assert!(status.success(), "the server exited with {status}");
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // A failed session must not leave a server process running (an
        // in-process server stops when its input closes with the writer).
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn is_publish(message: &Value, uri: &str) -> bool {
    message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == uri
}

/// The client's bytes, to the in-process server's runtime.
struct ChannelWriter(tokio::sync::mpsc::UnboundedSender<Vec<u8>>);

impl Write for ChannelWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .send(bytes.to_vec())
            .map_err(|_| std::io::ErrorKind::BrokenPipe)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The in-process server's bytes, read as a stream by the pump.
struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.rx.recv() {
                Ok(chunk) => (self.chunk, self.at) = (chunk, 0),
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.chunk.len() - self.at);
        out[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Reads framed messages into a channel.
fn pump(output: impl Read + Send + 'static) -> Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut output = BufReader::new(output);
        loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if output.read_line(&mut line).unwrap_or(0) == 0 {
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
            if output.read_exact(&mut body).is_err() {
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
