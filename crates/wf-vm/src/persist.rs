//! Run directories: durable runs that survive suspension and `kill -9`.
//!
//! A run directory holds:
//!
//! - `program.json` — the IR program being run (written once, compact JSON);
//! - `meta.json` — what the embedder needs to resume (the CLI stores the
//!   workflow, the agent, …; opaque to the engine);
//! - `log.jsonl` — one record per step, appended and handed to the OS
//!   (one `write`) before the next step starts: `{"step": N, "input": …,
//!   "events": […], "run": …, "ts": …, "duration_ms": …}`, whose events
//!   inherit the record's run id and time (read back with them,
//!   [`LogRecord::parse`]); its cost per step does not depend on the
//!   state's size;
//!   effect lines (`{"effect": …}`, [`crate::effects`]) sit between the
//!   step records and are skipped by the step readers;
//! - `snapshot.json` — the full state (a [`Snapshot`]), replaced atomically
//!   (temporary file, fsync, rename, fsync of the directory) at the start,
//!   at suspension, at the end and by the snapshot cadence (`cadence.rs`);
//! - `start.json` — the state the run started from (a [`Snapshot`] at
//!   step 0, inputs included), written once: `wfc replay` re-runs the log
//!   from it;
//! - `run.lock` — the pid (and, on a second line, the host name) of the
//!   process that holds the directory: a
//!   [`RunDir`] holds an exclusive OS lock (`flock`) on it while any clone
//!   of it lives, so two processes never run one directory at once.
//!
//! - `questions.jsonl` — questions and answers recorded through
//!   [`crate::RunStore`] (effect records are lines of `log.jsonl`).
//!
//! The engine reaches all of it through [`crate::RunStore`], which
//! [`RunDir`] implements (`persist/store.rs`).
//!
//! Resuming reads the snapshot and re-applies the log records after it. A
//! last line without its newline is a torn write from a killed process: it
//! is cut off the file, and that step runs again.

mod answers;
mod cadence;
mod event_text;
mod events;
mod lock;
mod record;
mod store;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use events::event_spans;
pub use lock::host_name;
use lock::lock;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wf_ir::IrProgram;

use crate::engine::{Snapshot, StepInput};
use crate::store::RunStore;

use crate::stamp::Stamp;
pub(crate) use cadence::Cadence;
pub(crate) use event_text::EventText;
pub(crate) use record::{RunJson, write_stamped};

/// A run directory could not be used.
#[derive(Debug)]
pub enum PersistError {
    /// Reading or writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What the engine was doing.
        what: &'static str,
        /// The error.
        error: io::Error,
    },
    /// A file holds something the engine did not write.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The 1-based line, for the log.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// `create` on a directory that already holds a run.
    AlreadyExists(PathBuf),
    /// `open` on a directory that does not exist.
    NotFound(PathBuf),
    /// Another process holds the directory's lock.
    InUse {
        /// The directory.
        path: PathBuf,
        /// The holder's pid, as its lock file records it (`None` while the
        /// holder has not written it yet).
        pid: Option<u32>,
    },
    /// Another holder has a current lease on the run (a store whose
    /// holders are not processes: see [`crate::RunStore::take_lock`]).
    Held {
        /// The run.
        run: String,
        /// The holder.
        holder: String,
    },
    /// This handle's lease lapsed and another holder took it, or it was
    /// released: the handle may not write any more.
    LockLost {
        /// The run.
        run: String,
        /// The current holder, if any.
        holder: Option<String>,
    },
    /// An answer to a question the run never asked.
    UnknownQuestion(String),
}

impl std::fmt::Display for PersistError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PersistError::Io { path, what, error } => {
                write!(f, "could not {what} `{}`: {error}", path.display())
            }
            PersistError::Corrupt {
                path,
                line: Some(l),
                message,
            } => write!(f, "`{}` line {l} is corrupt: {message}", path.display()),
            PersistError::Corrupt {
                path,
                line: None,
                message,
            } => write!(f, "`{}` is corrupt: {message}", path.display()),
            PersistError::AlreadyExists(p) => write!(
                f,
                "`{}` already holds a run: resume it, or choose an empty directory",
                p.display()
            ),
            PersistError::NotFound(p) => {
                write!(f, "run directory {} does not exist", p.display())
            }
            PersistError::InUse {
                path,
                pid: Some(pid),
            } => write!(
                f,
                "run directory {} is in use by process {pid}",
                path.display()
            ),
            PersistError::InUse { path, pid: None } => write!(
                f,
                "run directory {} is in use by another process",
                path.display()
            ),
            PersistError::Held { run, holder } => write!(f, "run {run} is held by {holder}"),
            PersistError::LockLost { run, holder } => {
                write!(f, "the lease on run {run} was lost")?;
                match holder {
                    Some(h) => write!(f, " (now held by {h})"),
                    None => Ok(()),
                }
            }
            PersistError::UnknownQuestion(id) => {
                write!(f, "the run never asked a question `{id}`")
            }
        }
    }
}

impl std::error::Error for PersistError {}

/// The bytes of the JSON-lines file at `path` (none when it does not
/// exist) and the length of its complete lines: a last line without its
/// newline is a torn write, not a record.
pub(crate) fn read_lines_file(path: &Path) -> Result<(Vec<u8>, usize), PersistError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(io_err(path, "read")(e)),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    Ok((bytes, complete))
}

fn io_err<'a>(path: &'a Path, what: &'static str) -> impl FnOnce(io::Error) -> PersistError + 'a {
    move |error| PersistError::Io {
        path: path.to_owned(),
        what,
        error,
    }
}

/// One log record as read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogRecord {
    /// The step.
    pub step: u64,
    /// What the step ran on.
    #[serde(flatten)]
    pub input: StepInput,
    /// The events it emitted.
    #[serde(default)]
    pub events: Vec<Value>,
    /// The run's id (absent in logs written before records had one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// When the step ended (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    /// How long the step took (the agent's decision or the tool
    /// included), in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl LogRecord {
    /// Parses one record of a log. Its events get the record's `run` and
    /// `ts` where they have none ([`LogRecord::inherit_stamps`]).
    pub fn parse(bytes: &[u8]) -> Result<LogRecord, serde_json::Error> {
        let mut record: LogRecord = serde_json::from_slice(bytes)?;
        record.inherit_stamps();
        Ok(record)
    }

    /// Gives each event the record's run id and time where it has none of
    /// its own: in the log an event leaves out what it shares with its
    /// record (docs/runtime.md, "How the log carries run ids and times").
    /// Events of older logs, which carry their own (or, before run ids,
    /// none, like their record), are left as they are.
    pub fn inherit_stamps(&mut self) {
        let Some(run) = &self.run else { return };
        for event in &mut self.events {
            if let Value::Object(fields) = event {
                if !fields.contains_key("run") {
                    fields.insert("run".into(), Value::from(run.as_str()));
                }
                if let Some(ts) = &self.ts
                    && !fields.contains_key("ts")
                {
                    fields.insert("ts".into(), Value::from(ts.as_str()));
                }
            }
        }
    }
}

/// A run directory (see the module docs). It holds the directory's lock
/// until the last clone is dropped.
#[derive(Debug, Clone)]
pub struct RunDir {
    path: PathBuf,
    /// The locked `run.lock`: the lock lasts as long as the open file.
    /// `None`: opened read-only ([`RunDir::open_read_only`]).
    lock: Option<Arc<File>>,
    /// `log.jsonl` opened for appending, on the first append.
    log: Option<Arc<File>>,
    /// The line being appended (reused: one `write` per record).
    line: Vec<u8>,
}

const SNAPSHOT: &str = "snapshot.json";
const LOG: &str = "log.jsonl";
const PROGRAM: &str = "program.json";
const META: &str = "meta.json";
const START: &str = "start.json";
/// The lock file. Not a name an Attractor stage folder can take by
/// accident: plain DOT ids have no `.`.
pub const LOCK_FILE: &str = "run.lock";

impl RunDir {
    /// Creates a run directory (or uses an existing one that holds no run)
    /// holding `program` and `meta`, and locks it. The check that no run is
    /// there happens under the lock, so of two processes creating a run in
    /// one directory at once, exactly one succeeds.
    pub fn create(
        path: impl Into<PathBuf>,
        program: &IrProgram,
        meta: &Value,
    ) -> Result<Self, PersistError> {
        let path = path.into();
        fs::create_dir_all(&path).map_err(io_err(&path, "create the run directory"))?;
        let dir = RunDir {
            lock: Some(lock(&path)?),
            path,
            log: None,
            line: Vec::new(),
        };
        // A snapshot or a log is a run that is not ours to replace. Without
        // either, a process killed while it created the directory (under
        // this lock, so it is gone) left `program.json`, `meta.json` or
        // `start.json` and ran nothing: that creation is done again, as
        // the run cannot be resumed (kill_storm found the dead end).
        if [SNAPSHOT, LOG].iter().any(|f| dir.file(f).exists()) {
            return Err(PersistError::AlreadyExists(dir.path));
        }
        // Compact: pretty-printing made it 198 MB for a 200 k-node chain.
        // `program()` reads either form, so older pretty files still load.
        let mut text = serde_json::to_vec(program)
            .expect("IR types serialise without fallible parts (string keys, finite floats)");
        text.push(b'\n');
        dir.write_atomic(PROGRAM, &text)?;
        let meta = serde_json::to_vec_pretty(meta).expect("JSON serialises");
        dir.write_atomic(META, &meta)?;
        Ok(dir)
    }

    /// Opens an existing run directory and locks it.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, PersistError> {
        let path = path.into();
        if !path.is_dir() {
            if path.exists() {
                let error = io::Error::from(io::ErrorKind::NotADirectory);
                return Err(io_err(&path, "open the run directory")(error));
            }
            return Err(PersistError::NotFound(path));
        }
        let not_a_run = |snap: PathBuf| PersistError::Corrupt {
            path: snap,
            line: None,
            message: "there is no snapshot: this is not a run directory".into(),
        };
        // Checked before locking too, so that a directory that is not a run
        // is not given a lock file.
        if !path.join(SNAPSHOT).exists() && !path.join(PROGRAM).exists() {
            return Err(not_a_run(path.join(SNAPSHOT)));
        }
        let dir = RunDir {
            lock: Some(lock(&path)?),
            path,
            log: None,
            line: Vec::new(),
        };
        let snap = dir.file(SNAPSHOT);
        if !snap.exists() {
            return Err(PersistError::Corrupt {
                path: snap,
                line: None,
                message: "there is no snapshot: the run was stopped while its directory was \
                          being created, before its first step (nothing ran); start it again \
                          with `wfc run FILE --run-dir` on this directory"
                    .into(),
            });
        }
        Ok(dir)
    }

    /// Opens an existing run directory to read it only (`wfc replay`,
    /// `wfc status`): no lock is taken, so a run in progress goes on
    /// undisturbed (its holder, if any, is [`RunDir::holder`]) and is seen
    /// up to its last complete log line; a torn last line is left in place
    /// rather than cut off. Writing through it fails.
    pub fn open_read_only(path: impl Into<PathBuf>) -> Result<Self, PersistError> {
        let path = path.into();
        if !path.is_dir() {
            if path.exists() {
                let error = io::Error::from(io::ErrorKind::NotADirectory);
                return Err(io_err(&path, "open the run directory")(error));
            }
            return Err(PersistError::NotFound(path));
        }
        let snap = path.join(SNAPSHOT);
        if !snap.exists() {
            return Err(PersistError::Corrupt {
                path: snap,
                line: None,
                message: "there is no snapshot: this is not a run directory".into(),
            });
        }
        Ok(RunDir {
            path,
            lock: None,
            log: None,
            line: Vec::new(),
        })
    }

    /// Whether another process holds the directory's lock: `Some(pid)`
    /// (the pid its lock file records, when readable) while a run is in
    /// progress there, `None` when it is free. Only probes the lock.
    pub fn holder(&self) -> Result<Option<Option<u32>>, PersistError> {
        lock::holder(&self.path)
    }

    /// The host name the lock file records for its holder (the last one
    /// to take the lock), when it records one: compare with
    /// [`host_name`] before signalling the pid [`RunDir::holder`] gives.
    pub fn holder_host(&self) -> Option<String> {
        lock::holder_host(&self.path)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of the snapshot (`snapshot.json`).
    pub fn snapshot_path(&self) -> PathBuf {
        self.file(SNAPSHOT)
    }

    /// The path of the step log (`log.jsonl`).
    pub fn log_path(&self) -> PathBuf {
        self.file(LOG)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    fn read_json<T: for<'de> Deserialize<'de>>(&self, name: &str) -> Result<T, PersistError> {
        let path = self.file(name);
        let text = fs::read(&path).map_err(io_err(&path, "read"))?;
        serde_json::from_slice(&text).map_err(|e| PersistError::Corrupt {
            path,
            line: Some(e.line()),
            message: e.to_string(),
        })
    }

    /// The program stored at creation, loaded and verified like any IR
    /// file (a run directory is untrusted input).
    pub fn program(&self) -> Result<IrProgram, PersistError> {
        let path = self.file(PROGRAM);
        let text = fs::read_to_string(&path).map_err(io_err(&path, "read"))?;
        wf_ir::load(&text).map_err(|e| PersistError::Corrupt {
            path,
            line: None,
            message: e.to_string(),
        })
    }

    /// The embedder's metadata stored at creation.
    pub fn meta(&self) -> Result<Value, PersistError> {
        self.read_json(META)
    }

    /// The last snapshot.
    pub fn read_snapshot(&self) -> Result<Snapshot, PersistError> {
        self.read_json(SNAPSHOT)
    }

    /// The state the run started from (`start.json`); `None` for a run
    /// directory written before it existed.
    pub fn read_start(&self) -> Result<Option<Snapshot>, PersistError> {
        if !self.file(START).exists() {
            return Ok(None);
        }
        self.read_json(START).map(Some)
    }

    /// Writes `start.json` (once, with the first snapshot).
    pub(crate) fn write_start(&self, snap: &Snapshot) -> Result<(), PersistError> {
        self.write_snapshot_as(START, snap)
    }

    /// An error for a write through a read-only handle.
    fn check_writable(&self, path: &Path) -> Result<(), PersistError> {
        match self.lock {
            Some(_) => Ok(()),
            None => Err(PersistError::Io {
                path: path.to_owned(),
                what: "write",
                error: io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    "the run directory was opened read-only",
                ),
            }),
        }
    }

    /// Replaces the snapshot atomically.
    pub fn write_snapshot(&self, snap: &Snapshot) -> Result<(), PersistError> {
        self.write_snapshot_as(SNAPSHOT, snap)
    }

    /// Replaces `name` with `snap`, streamed to the file: a large state's
    /// snapshot is never held whole in memory a second time, as text.
    fn write_snapshot_as(&self, name: &str, snap: &Snapshot) -> Result<(), PersistError> {
        self.write_atomic_with(name, |f| {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, f);
            serde_json::to_writer(&mut out, snap).map_err(std::io::Error::from)?;
            out.flush()
        })
    }

    fn write_atomic(&self, name: &str, bytes: &[u8]) -> Result<(), PersistError> {
        self.write_atomic_with(name, |mut f| f.write_all(bytes))
    }

    /// Replaces `name` atomically with what `write` writes: a temporary
    /// file, fsynced, renamed over it, and the directory fsynced.
    fn write_atomic_with(
        &self,
        name: &str,
        write: impl FnOnce(&File) -> std::io::Result<()>,
    ) -> Result<(), PersistError> {
        let path = self.file(name);
        self.check_writable(&path)?;
        let tmp = self.file(&format!("{name}.tmp"));
        let f = File::create(&tmp).map_err(io_err(&tmp, "create"))?;
        write(&f).map_err(io_err(&tmp, "write"))?;
        f.sync_all().map_err(io_err(&tmp, "sync"))?;
        drop(f);
        fs::rename(&tmp, &path).map_err(io_err(&path, "replace"))?;
        // Make the rename itself durable (best effort where directories
        // cannot be opened).
        if let Ok(d) = File::open(&self.path) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Every log record; a torn last line is cut off the file first (left
    /// alone, and not read, through a read-only handle).
    pub fn read_log(&self) -> Result<Vec<(usize, LogRecord)>, PersistError> {
        let path = self.file(LOG);
        let (bytes, complete) = read_lines_file(&path)?;
        if complete < bytes.len() && self.lock.is_some() {
            let f = OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(io_err(&path, "open"))?;
            f.set_len(complete as u64)
                .map_err(io_err(&path, "cut the torn last line of"))?;
            f.sync_all().map_err(io_err(&path, "sync"))?;
        }
        let mut out = Vec::new();
        for (i, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
            if line.is_empty() || crate::effects::is_effect_line(line) {
                continue;
            }
            // An answer `wfc answer` recorded: not a step (`RunDir::answers`).
            if answers::is_answer(line) {
                answers::parse(line, &path, i + 1)?;
                continue;
            }
            let rec = LogRecord::parse(line).map_err(|e| PersistError::Corrupt {
                path: path.clone(),
                line: Some(i + 1),
                message: e.to_string(),
            })?;
            out.push((i + 1, rec));
        }
        Ok(out)
    }

    /// The events of every step in the log, as the engine sent them to
    /// its sinks, one JSON object per line: what an `--events` file of the
    /// run holds up to its last committed step (byte for byte: the text is
    /// copied, not serialised again, with the run id and time each event
    /// shares with its record put back, `events::expand_event`).
    pub fn logged_events(&self) -> Result<Vec<u8>, PersistError> {
        let path = self.file(LOG);
        // Parses (and checks) every record, and cuts a torn last line.
        let records = self.read_log()?;
        let (bytes, complete) = read_lines_file(&path)?;
        let mut out = Vec::with_capacity(complete);
        let mut records = records.iter().peekable();
        let (mut run_json, mut ts) = (RunJson::default(), Vec::new());
        for (i, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
            // Only the step records have events (not effects, answers).
            let Some((_, record)) = records.next_if(|(n, _)| *n == i + 1) else {
                continue;
            };
            let run = record.run.as_deref().map(|r| run_json.of(r));
            ts.clear();
            if let Some(t) = &record.ts {
                record::push_str(&mut ts, t);
            }
            for (start, end) in event_spans(line) {
                events::expand_event(&line[start..end], run, &ts, &mut out);
                out.push(b'\n');
            }
        }
        Ok(out)
    }

    /// The log records of steps `step` and later.
    pub(crate) fn read_log_after(
        &self,
        step: u64,
    ) -> Result<Vec<(usize, LogRecord)>, PersistError> {
        let mut all = self.read_log()?;
        all.retain(|(_, r)| r.step >= step);
        Ok(all)
    }
}

/// An event of the record being built ([`RunLog::add_event`]).
#[derive(Debug, Clone, Copy)]
struct EventMark {
    end: usize,
    ts: (usize, usize),
    duration_ms: Option<u64>,
}

/// The step log of a running engine: builds each step's record and
/// appends it through the run's store.
pub(crate) struct RunLog {
    store: Box<dyn RunStore>,
    input: Vec<u8>,
    /// The step's events, each without its `run`, `ts` and duration nor
    /// its closing brace (`record::event_body`), one after the other.
    events: Vec<u8>,
    /// Where each of them ends in `events`, with its stamp's time (a
    /// range of `times`) and duration.
    marks: Vec<EventMark>,
    /// The events' times, one after the other.
    times: Vec<u8>,
    line: Vec<u8>,
    /// When the current step began (milliseconds since the epoch).
    begun_ms: u64,
    /// The run id's JSON and the time's text, reused from record to record.
    parts: record::Parts,
    /// When to write the next snapshot.
    pub cadence: Cadence,
}

impl RunLog {
    pub fn new(store: Box<dyn RunStore>) -> Self {
        RunLog {
            store,
            input: Vec::new(),
            events: Vec::new(),
            marks: Vec::new(),
            times: Vec::new(),
            line: Vec::new(),
            begun_ms: 0,
            parts: record::Parts::default(),
            cadence: Cadence::new(),
        }
    }

    /// The store's folder for fan-out journals ([`RunStore::journal_dir`]).
    pub fn journal_dir(&self) -> Option<std::path::PathBuf> {
        self.store.journal_dir()
    }

    pub fn store(&mut self) -> &mut dyn RunStore {
        &mut *self.store
    }

    /// Starts a step's record.
    pub fn begin(&mut self) {
        self.input.clear();
        self.events.clear();
        self.marks.clear();
        self.times.clear();
        self.begun_ms = crate::stamp::now_ms();
    }

    pub fn set_input(&mut self, input: &StepInput) {
        self.input.clear();
        record::write_input(&mut self.input, input);
    }

    /// Adds an event to the step's record: `body`, its own fields
    /// ([`record::event_body`]); its stamp's run id is the record's (one
    /// clock stamps a run's events and records), and its time and
    /// duration are kept for [`RunLog::commit`].
    pub fn add_event(&mut self, body: &[u8], stamp: &Stamp<'_>) {
        self.events.extend_from_slice(body);
        let start = self.times.len();
        self.times.extend_from_slice(stamp.ts.as_bytes());
        self.marks.push(EventMark {
            end: self.events.len(),
            ts: (start, self.times.len()),
            duration_ms: stamp.duration_ms,
        });
    }

    /// Appends the step's record (a run directory: with one `write`): its
    /// step, input and events, then the run id, the time and the step's
    /// duration. `at`: the time of the step's events, when it had any
    /// (the clock is read once per step); else the clock is read now.
    /// An event carries a `ts` of its own only when its time is not the
    /// record's, and never the run id: both are the record's
    /// (docs/runtime.md, "How the log carries run ids and times").
    pub fn commit(&mut self, step: u64, run: &str, at: Option<u64>) -> Result<(), PersistError> {
        let now = at.unwrap_or_else(crate::stamp::now_ms);
        let ts = self.parts.ts.of(now);
        let line = &mut self.line;
        line.clear();
        line.extend_from_slice(b"{\"step\":");
        record::push_u64(line, step);
        line.push(b',');
        if self.input.len() >= 2 {
            line.extend_from_slice(&self.input[1..self.input.len() - 1]);
        } else {
            line.extend_from_slice(br#""input":"engine""#);
        }
        line.extend_from_slice(b",\"events\":[");
        let mut from = 0;
        for (i, mark) in self.marks.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            line.extend_from_slice(&self.events[from..mark.end]);
            from = mark.end;
            let own = &self.times[mark.ts.0..mark.ts.1];
            if own != ts.as_bytes() {
                line.extend_from_slice(b",\"ts\":\"");
                line.extend_from_slice(own);
                line.push(b'"');
            }
            if let Some(d) = mark.duration_ms {
                line.extend_from_slice(b",\"duration_ms\":");
                record::push_u64(line, d);
            }
            line.push(b'}');
        }
        line.extend_from_slice(b"],\"run\":");
        line.extend_from_slice(self.parts.run.of(run));
        line.extend_from_slice(b",\"ts\":\"");
        line.extend_from_slice(ts.as_bytes());
        line.extend_from_slice(b"\",\"duration_ms\":");
        record::push_u64(line, now.saturating_sub(self.begun_ms));
        line.push(b'}');
        self.store.append(step, &self.line)?;
        self.cadence.logged(self.line.len() as u64 + 1);
        Ok(())
    }

    /// Records one effect line (see [`crate::effects`]) through the store;
    /// `sync`: durable before this returns.
    pub fn append_effect(
        &mut self,
        record: &crate::effects::EffectRecord,
        sync: bool,
    ) -> Result<(), PersistError> {
        self.store.record_effect(record, sync)
    }
}
