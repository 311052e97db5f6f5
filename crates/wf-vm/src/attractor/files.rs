//! The run directory of an Attractor pipeline (seed section 5.6):
//! `manifest.json`, `checkpoint.json` and one folder per node with
//! `prompt.md`, `response.md` and `status.json`. Every file is written
//! atomically (temporary file, fsync, rename), so a killed run never leaves
//! half a file.

use std::cell::Cell;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use crate::agent::Outcome;

/// The files of one Attractor run, under the run directory. Clones share
/// the count of `loop_restart`s, which chooses where node folders go.
#[derive(Debug, Clone)]
pub struct RunFiles {
    root: PathBuf,
    restarts: Rc<Cell<u32>>,
}

impl RunFiles {
    /// The layout under `root` (which must exist: the engine's run
    /// directory).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        RunFiles {
            root: root.into(),
            restarts: Rc::new(Cell::new(0)),
        }
    }

    /// The layout as data another thread can take: the root and the
    /// count of `loop_restart`s (a parallel branch on a thread of its own
    /// writes where its parent's next node would; so does a backend
    /// forked for such a branch).
    pub fn parts(&self) -> (PathBuf, u32) {
        (self.root.clone(), self.restarts.get())
    }

    /// The layout [`RunFiles::parts`] describes, with a count of its own.
    pub fn from_parts((root, restarts): (PathBuf, u32)) -> Self {
        RunFiles {
            root,
            restarts: Rc::new(Cell::new(restarts)),
        }
    }

    /// The run directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A `loop_restart` was taken: the run starts again with a fresh log
    /// directory (seed 2.7), so the node folders of the pass that follows
    /// the k-th restart go under `{root}/restart-k/`.
    pub fn restarted(&self) {
        self.restarts.set(self.restarts.get().saturating_add(1));
    }

    /// Where the node folders of the current pass go: the run directory,
    /// or `restart-k/` in it after the k-th `loop_restart`.
    pub fn log_dir(&self) -> PathBuf {
        match self.restarts.get() {
            0 => self.root.clone(),
            k => self.root.join(format!("restart-{k}")),
        }
    }

    /// The folder of `node` in the current pass (see [`RunFiles::log_dir`]),
    /// not created. A node id that is not a plain file name (`..`, `a/b`,
    /// control characters) is escaped, so no node writes outside its folder.
    pub fn stage_path(&self, node: &str) -> PathBuf {
        self.log_dir().join(safe_name(node))
    }

    /// [`RunFiles::stage_path`], created when missing.
    pub fn stage_dir(&self, node: &str) -> io::Result<PathBuf> {
        let dir = self.stage_path(node);
        fs::create_dir_all(&dir)?;
        Ok(dir)
    }

    /// Writes `bytes` to `path` atomically: a temporary file beside it,
    /// flushed to disk, renamed over `path`. The temporary file's name is
    /// the writer's own: concurrent branches that run the same stage write
    /// its files at once, and must not rename each other's away.
    pub fn write_atomic(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()));
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    }

    /// Writes `value` as pretty JSON to `path`, atomically.
    pub fn write_json(&self, path: &Path, value: &Value) -> io::Result<()> {
        let mut bytes = serde_json::to_vec_pretty(value).expect("JSON values serialise");
        bytes.push(b'\n');
        self.write_atomic(path, &bytes)
    }

    /// Writes `manifest.json`: the pipeline's name, goal, source and start
    /// time.
    pub fn write_manifest(&self, graph: &str, goal: &str, source: Option<&str>) -> io::Result<()> {
        let (ms, iso) = now();
        let manifest = json!({
            "format": "wfc-attractor-run",
            "version": 1,
            "name": graph,
            "goal": goal,
            "source": source,
            "started_at": iso,
            "started_at_ms": ms,
        });
        self.write_json(&self.root.join("manifest.json"), &manifest)
    }

    /// Writes `{node}/status.json` for an outcome (Appendix C), with the
    /// resolved fidelity and thread recorded beside the contract's fields.
    pub fn write_status(
        &self,
        node: &str,
        outcome: &Outcome,
        fidelity: &str,
        thread_id: Option<&str>,
    ) -> io::Result<()> {
        let path = self.stage_dir(node)?.join("status.json");
        self.write_json(&path, &status_json(outcome, fidelity, thread_id))
    }

    /// Writes `{node}/{name}` (`prompt.md`, `response.md`).
    pub fn write_text(&self, node: &str, name: &str, text: &str) -> io::Result<()> {
        let path = self.stage_dir(node)?.join(name);
        self.write_atomic(&path, text.as_bytes())
    }
}

/// The Appendix C status document of an outcome: `outcome`,
/// `preferred_next_label`, `suggested_next_ids`, `context_updates`
/// (the handler's writes) and `notes`; then `failure_reason` (when set),
/// `fidelity`, `thread_id` (when set) and `usage` (when a model was
/// called), which readers of the contract ignore.
pub fn status_json(outcome: &Outcome, fidelity: &str, thread_id: Option<&str>) -> Value {
    let updates: Map<String, Value> = outcome
        .writes
        .iter()
        .map(|w| (w.key.clone(), w.value.clone()))
        .collect();
    let mut doc = json!({
        "outcome": outcome.status.as_str(),
        "preferred_next_label": outcome.preferred_label.clone().unwrap_or_default(),
        "suggested_next_ids": outcome.suggested_next,
        "context_updates": updates,
        "notes": clip(outcome.notes.as_deref().unwrap_or_default()),
    });
    let map = doc.as_object_mut().expect("an object");
    if let Some(r) = &outcome.failure_reason {
        map.insert("failure_reason".into(), json!(clip(r)));
    }
    map.insert("fidelity".into(), json!(fidelity));
    if let Some(t) = thread_id {
        map.insert("thread_id".into(), json!(t));
    }
    // A model call's tokens, latency and cost (`wfc run --agent llm`,
    // docs/llm.md), as its `LlmUsage` event reports them.
    if let Some(usage) = outcome.events.iter().rev().find(|e| e.name == "LlmUsage") {
        map.insert("usage".into(), usage.data.clone());
    }
    doc
}

/// A backend's note or reason as the status file keeps it: cut like the
/// engine cuts them (`SizeLimits::max_text_bytes`, default).
fn clip(text: &str) -> String {
    crate::bound::clip(text, crate::config::SizeLimits::default().max_text_bytes)
}

/// A node id as one safe path component: ASCII letters, digits, `_`, `-`
/// and `.` are kept; anything else (and a name that is empty or only dots)
/// is percent-encoded byte by byte.
pub fn safe_name(id: &str) -> String {
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.');
    let only_dots = id.bytes().all(|b| b == b'.');
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if plain(b) && !(only_dots && b == b'.') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.is_empty() {
        out.push_str("%00");
    }
    out
}

/// Now as milliseconds since the epoch and as RFC 3339 UTC text.
pub fn now() -> (u64, String) {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    (ms, rfc3339(ms))
}

/// `ms` since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ` (Howard Hinnant's
/// civil-from-days algorithm).
pub fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_stay_inside_the_run_directory() {
        assert_eq!(safe_name("plan"), "plan");
        assert_eq!(safe_name("a.b-c_d"), "a.b-c_d");
        assert_eq!(safe_name(".."), "%2E%2E");
        assert_eq!(safe_name("a/../b"), "a%2F..%2Fb");
        assert_eq!(safe_name(""), "%00");
    }

    #[test]
    fn status_files_cut_long_notes_and_reasons() {
        let long = "n".repeat(100_000);
        let outcome = Outcome {
            status: crate::agent::Status::Fail,
            notes: Some(long.clone()),
            failure_reason: Some(long),
            ..Outcome::success()
        };
        let doc = status_json(&outcome, "compact", None);
        for key in ["notes", "failure_reason"] {
            let text = doc[key].as_str().unwrap();
            assert!(text.len() < 4200, "{key}: {} bytes", text.len());
            assert!(text.ends_with("… [truncated, 100000 bytes]"), "{key}");
        }
    }

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn status_files_carry_a_model_calls_usage() {
        let outcome = Outcome {
            events: vec![crate::agent::HandlerEvent {
                name: "LlmUsage".into(),
                data: json!({"input_tokens": 3}),
            }],
            ..Outcome::success()
        };
        assert_eq!(
            status_json(&outcome, "compact", None)["usage"]["input_tokens"],
            3
        );
        assert!(
            status_json(&Outcome::success(), "compact", None)
                .get("usage")
                .is_none()
        );
    }
}
