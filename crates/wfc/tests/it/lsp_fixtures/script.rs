//! One fixture session: the files of a `tests/lsp/<name>/` directory
//! (cursors marked `$0`…`$9`) written to a temporary directory, and its
//! `session.lsp` script replayed against `wfc lsp`, producing a transcript
//! of the replies. The format is documented in `docs/testing.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use wf_test_support::lsp::{Client, canonical};

use super::render;

/// A cursor: the file it is in and its byte offset in the current text.
#[derive(Debug, Clone)]
struct Cursor {
    path: String,
    offset: usize,
}

/// A session being replayed.
pub struct Session {
    root: PathBuf,
    client: Option<Client>,
    /// Current text of every fixture file, by relative path.
    texts: BTreeMap<String, String>,
    cursors: BTreeMap<char, Cursor>,
    versions: BTreeMap<String, i32>,
    /// The semantic token types the server announced.
    pub legend: Vec<String>,
    out: String,
}

/// Removes the `$N` markers of `text`, returning the text and the markers'
/// offsets.
fn strip_markers(text: &str) -> (String, Vec<(char, usize)>) {
    let mut out = String::with_capacity(text.len());
    let mut markers = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$'
            && let Some(&d) = chars.peek()
            && d.is_ascii_digit()
        {
            chars.next();
            markers.push((d, out.len()));
            continue;
        }
        out.push(c);
    }
    (out, markers)
}

/// The files of a fixture directory (everything but `session.lsp`), by
/// path relative to it.
fn fixture_files(dir: &Path, base: &Path, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("fixture dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            fixture_files(&path, base, out);
        } else if path.file_name().is_some_and(|n| n != "session.lsp") {
            let relative = path.strip_prefix(base).unwrap();
            out.push((relative.to_string_lossy().replace('\\', "/"), path));
        }
    }
}

impl Session {
    /// Copies the fixture `dir` into `root` (without markers).
    pub fn new(dir: &Path, root: &Path) -> Session {
        let mut files = Vec::new();
        fixture_files(dir, dir, &mut files);
        let mut session = Session {
            root: root.to_path_buf(),
            client: None,
            texts: BTreeMap::new(),
            cursors: BTreeMap::new(),
            versions: BTreeMap::new(),
            legend: Vec::new(),
            out: String::new(),
        };
        for (relative, path) in files {
            let raw = std::fs::read_to_string(&path).expect("fixture file");
            let (text, markers) = strip_markers(&raw);
            for (name, offset) in markers {
                let cursor = Cursor {
                    path: relative.clone(),
                    offset,
                };
                let previous = session.cursors.insert(name, cursor);
                assert!(previous.is_none(), "cursor ${name} is marked twice");
            }
            let target = root.join(&relative);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(&target, &text).unwrap();
            session.texts.insert(relative, text);
        }
        session
    }

    /// The file URI of a path relative to the root (`.` is the root).
    pub fn uri(&self, relative: &str) -> String {
        let path = if relative == "." || relative.is_empty() {
            self.root.clone()
        } else {
            self.root.join(relative)
        };
        format!("file://{}", path.display())
    }

    fn client(&mut self) -> &mut Client {
        if self.client.is_none() {
            self.init(&json!({}));
        }
        self.client.as_mut().unwrap()
    }

    /// The current text of a fixture file.
    pub fn text_of_uri(&self, uri: &str) -> Option<&str> {
        let prefix = format!("{}/", self.uri("."));
        let relative = uri.strip_prefix(&prefix)?;
        self.texts.get(relative).map(String::as_str)
    }

    /// The protocol position of a byte offset in a file.
    fn position(&self, path: &str, offset: usize) -> Value {
        let text = &self.texts[path];
        let before = &text[..offset];
        let line = before.matches('\n').count();
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        json!({"line": line, "character": before[start..].encode_utf16().count()})
    }

    fn cursor(&self, name: char) -> &Cursor {
        self.cursors
            .get(&name)
            .unwrap_or_else(|| panic!("no cursor ${name} in the fixture"))
    }

    /// Replaces the `$…` placeholders of a parameter value.
    fn substitute(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => self.placeholder(s).unwrap_or_else(|| value.clone()),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.substitute(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.substitute(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn placeholder(&self, s: &str) -> Option<Value> {
        let name = |t: &str| t.chars().next().filter(char::is_ascii_digit);
        if s == "$cursor" {
            let c = self.cursor('0');
            return Some(self.position(&c.path, c.offset));
        }
        if let Some(path) = s.strip_prefix("$uri:") {
            return Some(json!(self.uri(path)));
        }
        if let Some(path) = s.strip_prefix("$doc:") {
            return Some(json!({"uri": self.uri(path)}));
        }
        if let Some(n) = s.strip_prefix("$pos:").and_then(name) {
            let c = self.cursor(n);
            return Some(self.position(&c.path, c.offset));
        }
        if let Some((a, b)) = s.strip_prefix("$range:").and_then(|r| r.split_once(':')) {
            let (a, b) = (self.cursor(name(a)?), self.cursor(name(b)?));
            return Some(json!({"start": self.position(&a.path, a.offset),
                "end": self.position(&b.path, b.offset)}));
        }
        // `$at:N`: the text document and position of cursor N.
        if let Some(n) = s.strip_prefix("$at:").and_then(name) {
            let c = self.cursor(n);
            return Some(json!({"textDocument": {"uri": self.uri(&c.path)},
                "position": self.position(&c.path, c.offset)}));
        }
        None
    }

    /// `init [{"folders": [...], "watch": bool, "options": {...}}]`.
    fn init(&mut self, args: &Value) {
        let folders: Vec<String> = args["folders"]
            .as_array()
            .map(|f| {
                f.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_else(|| vec![".".to_string()]);
        let folders: Vec<Value> = folders
            .iter()
            .map(|f| json!({"uri": self.uri(f), "name": f}))
            .collect();
        let mut capabilities = json!({});
        if args["watch"] == json!(true) {
            capabilities = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true},
                "workspaceFolders": true}});
        }
        let options = args
            .get("options")
            .cloned()
            .unwrap_or(json!({"debounceMs": 0}));
        let mut client = Client::spawn(Path::new(env!("CARGO_BIN_EXE_wfc")), &self.root);
        let reply = client.request(
            "initialize",
            json!({"processId": null, "capabilities": capabilities,
                "workspaceFolders": folders, "initializationOptions": options}),
        );
        let legend = &reply["result"]["capabilities"]["semanticTokensProvider"]["legend"];
        self.legend = legend["tokenTypes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().map(String::from))
            .collect();
        client.notify("initialized", json!({}));
        if args["show"] == json!(true) {
            let capabilities = canonical(&reply["result"]["capabilities"]);
            self.out
                .push_str(&serde_json::to_string_pretty(&capabilities).unwrap());
            self.out.push('\n');
        }
        self.client = Some(client);
    }

    /// Runs one command of the script.
    pub fn run(&mut self, command: &str) {
        let (verb, rest) = command
            .split_once(char::is_whitespace)
            .unwrap_or((command, ""));
        let rest = rest.trim();
        self.out.push_str(&format!(">>> {command}\n"));
        let json_arg = |text: &str| -> Value {
            if text.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(text)
                    .unwrap_or_else(|e| panic!("bad JSON in `{command}`: {e}"))
            }
        };
        match verb {
            "init" => self.init(&json_arg(rest)),
            "open" => {
                let text = self.texts[rest].clone();
                let language = if rest.ends_with(".wf") { "wf" } else { "dot" };
                let uri = self.uri(rest);
                self.versions.insert(rest.to_string(), 1);
                self.client().notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {"uri": uri, "languageId": language,
                        "version": 1, "text": text}}),
                );
            }
            "close" => {
                self.versions.remove(rest);
                let uri = self.uri(rest);
                self.client().notify(
                    "textDocument/didClose",
                    json!({"textDocument": {"uri": uri}}),
                );
            }
            "replace" => {
                let (path, args) = rest
                    .split_once(char::is_whitespace)
                    .expect("replace PATH [old, new]");
                let args = json_arg(args.trim());
                let (old, new) = (args[0].as_str().unwrap(), args[1].as_str().unwrap());
                self.replace(path, old, new);
            }
            "write" => {
                let (path, text) = rest
                    .split_once(char::is_whitespace)
                    .expect("write PATH \"text\"");
                let text = json_arg(text.trim())
                    .as_str()
                    .expect("a JSON string")
                    .to_string();
                let target = self.root.join(path);
                std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                std::fs::write(target, &text).unwrap();
                self.texts.insert(path.to_string(), text);
            }
            "delete" => {
                std::fs::remove_file(self.root.join(rest)).expect("delete a fixture file");
                self.texts.remove(rest);
            }
            "notify" | "request" => {
                let (method, params) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let params = self.substitute(&json_arg(params.trim()));
                if verb == "notify" {
                    self.client().notify(method, params);
                } else {
                    let reply = self.client().request(method, params.clone());
                    let shown = render::reply(self, method, &params, &reply);
                    self.out.push_str(&shown);
                }
            }
            "diagnostics" => {
                self.client().settle();
                for path in rest.split_whitespace() {
                    let uri = self.uri(path);
                    // An open file's diagnostics are those of its last
                    // version, however slow the machine.
                    if let Some(&version) = self.versions.get(path) {
                        self.client().wait_for_version(&uri, version.into());
                    }
                    let published = self.client().published.get(&uri).cloned();
                    let shown = match published {
                        Some(d) => serde_json::to_string_pretty(&canonical(&d)).unwrap(),
                        None => "(nothing published)".to_string(),
                    };
                    self.out.push_str(&format!("{path}: {shown}\n"));
                }
            }
            "server-requests" => {
                self.client().settle();
                let requests = std::mem::take(&mut self.client().server_requests);
                for request in requests {
                    let shown = json!({"method": request["method"], "params": request["params"]});
                    self.out
                        .push_str(&serde_json::to_string_pretty(&canonical(&shown)).unwrap());
                    self.out.push('\n');
                }
            }
            other => panic!("unknown command `{other}`"),
        }
    }

    /// Replaces the first `old` in an open file with `new` through an
    /// incremental `didChange`, moving the cursors after it.
    fn replace(&mut self, path: &str, old: &str, new: &str) {
        let text = self.texts[path].clone();
        let start = text
            .find(old)
            .unwrap_or_else(|| panic!("`{old}` is not in {path}"));
        let end = start + old.len();
        let range = json!({"start": self.position(path, start), "end": self.position(path, end)});
        let mut updated = text.clone();
        updated.replace_range(start..end, new);
        self.texts.insert(path.to_string(), updated);
        for cursor in self.cursors.values_mut() {
            if cursor.path == path && cursor.offset >= end {
                cursor.offset = cursor.offset - old.len() + new.len();
            }
        }
        let version = self.versions.entry(path.to_string()).or_insert(1);
        *version += 1;
        let version = *version;
        let uri = self.uri(path);
        self.client().notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": range, "text": new}]}),
        );
    }

    /// Ends the session (the server must exit cleanly) and returns the
    /// transcript with the temporary directory's paths normalised.
    pub fn finish(mut self) -> String {
        if let Some(client) = self.client.take() {
            client.shutdown();
        }
        let root = self.root.display().to_string();
        self.out
            .replace(&format!("file://{root}"), "file://$ROOT")
            .replace(&root, "$ROOT")
    }
}
