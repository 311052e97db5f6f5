//! The persistence interface of durable runs (the Reflex seed's
//! persistence adapter): everything the engine writes about a run, and
//! everything resume, replay and status read back, goes through
//! [`RunStore`]. [`RunDir`](crate::RunDir) is the embedded implementation
//! (a directory of files); [`MemoryStore`] keeps a run in memory. A server
//! or a database implements the same trait: it names no file-system type,
//! is object safe and `Send`, and its lock is a lease (take, renew,
//! release, with a holder's identity) that a database row can implement.
//!
//! The log is the single source of truth: a record appended before the
//! next step starts is never lost by the store (a [`RunDir`](crate::RunDir)
//! hands it to the operating system, which survives `kill -9`;
//! [`RunStore::sync`] makes it survive a power cut too). Snapshots and the
//! start state only shorten what a resume re-applies.

mod memory;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wf_ir::IrProgram;

pub use memory::MemoryStore;

use crate::effects::EffectRecord;
use crate::engine::Snapshot;
use crate::persist::{LogRecord, PersistError};

/// A lease on a run: while it is current, its holder alone may write the
/// run (one worker per run). A run directory's lease is its OS lock, held
/// until released or the process ends; a database's is a row with an
/// expiry that its holder renews.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// Who holds it (a worker id; a run directory records the process).
    pub holder: String,
    /// Increases with every take (a fencing token): a write carrying an
    /// older token than the store's is from a holder that lost the lease.
    pub token: u64,
    /// When it lapses unless renewed, in milliseconds since the Unix epoch;
    /// `None`: it lasts until released (a run directory's OS lock).
    pub expires_ms: Option<u64>,
}

/// A question a run asked a person, and the answer if one was recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionRecord {
    /// The question's id (unique within the run).
    pub id: String,
    /// The question as the engine recorded it.
    pub question: Value,
    /// The answer, once recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Value>,
}

/// Which part of a stored run an error is about (for
/// [`RunStore::corrupt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorePart {
    /// The step log.
    Log,
    /// The latest snapshot.
    Snapshot,
    /// The state the run started from.
    Start,
    /// The stored program.
    Program,
}

/// Where a durable run is kept (see the module docs and
/// `docs/runtime.md`, "The persistence interface").
///
/// Writes go through a handle that holds the run's lease: creating or
/// opening a run for writing takes it, and a write through a handle that
/// does not hold it fails. Reads need no lease (status and replay read a
/// run in progress).
pub trait RunStore: Send + std::fmt::Debug {
    /// Appends the log record of step `step`: one JSON object
    /// (`{"step": N, "input": …, "events": […]}`, possibly with more
    /// members), without a line break. Steps are appended in order, each
    /// once; when this returns, a killed process no longer loses it.
    fn append(&mut self, step: u64, record: &[u8]) -> Result<(), PersistError>;

    /// Makes every appended record durable against a power cut (the engine
    /// calls it before each snapshot and at the end of the run).
    fn sync(&mut self) -> Result<(), PersistError>;

    /// Replaces the latest snapshot, atomically: a reader sees the old one
    /// or the new one, never a mix.
    fn write_snapshot(&mut self, snap: &Snapshot) -> Result<(), PersistError>;

    /// Records the state the run started from (once, before the first
    /// snapshot).
    fn write_start(&mut self, snap: &Snapshot) -> Result<(), PersistError>;

    /// Records an effect line (docs/runtime.md, section 11): an effect
    /// started, done (with its idempotence key and outputs) or compensated,
    /// kept in order with the log's steps (a run directory: a line of
    /// `log.jsonl`). `sync`: durable before this returns (an
    /// `at_most_once` start is, before its command runs).
    fn record_effect(&mut self, record: &EffectRecord, sync: bool) -> Result<(), PersistError>;

    /// Every effect record, in the order recorded (a record cut short by a
    /// crash is not one): a resumed engine rebuilds its effect index from
    /// them.
    fn effects(&self) -> Result<Vec<EffectRecord>, PersistError>;

    /// Records a question the run asks a person (by id; asking again
    /// replaces the question and forgets an answer to the old one).
    fn record_question(&mut self, id: &str, question: &Value) -> Result<(), PersistError>;

    /// Records the answer to question `id` (a later answer replaces it).
    /// Needs the lease like any write: `wfc answer` takes it while the run
    /// is suspended. A question never asked is
    /// [`PersistError::UnknownQuestion`].
    fn record_answer(&mut self, id: &str, answer: &Value) -> Result<(), PersistError>;

    /// Every question asked, in the order first asked, with its answer.
    fn questions(&self) -> Result<Vec<QuestionRecord>, PersistError>;

    /// Takes the run's lease for `holder` for `ttl` (a run directory's
    /// lease never lapses and ignores `ttl`), or renews it when this handle
    /// already holds it. [`PersistError::InUse`] while another holds a
    /// current lease.
    fn take_lock(&mut self, holder: &str, ttl: Duration) -> Result<Lease, PersistError>;

    /// Extends this handle's lease by `ttl` from now (also a lease that
    /// lapsed but nobody took since); [`PersistError::LockLost`] when
    /// another took it, or it was released.
    fn renew_lock(&mut self, ttl: Duration) -> Result<Lease, PersistError>;

    /// Gives the lease up; writes through this handle fail afterwards.
    fn release_lock(&mut self) -> Result<(), PersistError>;

    /// Who holds a current lease on the run, if anyone.
    fn lock_holder(&self) -> Result<Option<String>, PersistError>;

    /// The program the run runs, verified like any IR (stored data is
    /// untrusted input).
    fn program(&self) -> Result<IrProgram, PersistError>;

    /// The latest snapshot.
    fn read_snapshot(&self) -> Result<Snapshot, PersistError>;

    /// The state the run started from (`None`: a run recorded before start
    /// states existed).
    fn read_start(&self) -> Result<Option<Snapshot>, PersistError>;

    /// The log records of steps `from` and later, in order, each with its
    /// position in the log (a run directory's 1-based line). A record cut
    /// short by a crash is not one: it is dropped (and, through a writing
    /// handle, removed).
    fn read_log_from(&self, from: u64) -> Result<Vec<(usize, LogRecord)>, PersistError>;

    /// An error saying that `part` (at `position`, for the log) holds
    /// something the engine cannot use, naming it as the store names it
    /// (a run directory: the file).
    fn corrupt(&self, part: StorePart, position: Option<usize>, message: String) -> PersistError;

    /// The folder where the engine journals the finished branches of a
    /// `.wf` fan-out (docs/runtime.md, "Parallel branches"), when the store
    /// keeps the run on a file system; `None` (the default) leaves
    /// fan-outs unjournaled: a resumed run then runs their branches again.
    fn journal_dir(&self) -> Option<std::path::PathBuf> {
        None
    }
}

impl<S: RunStore + ?Sized> RunStore for Box<S> {
    fn append(&mut self, step: u64, record: &[u8]) -> Result<(), PersistError> {
        (**self).append(step, record)
    }
    fn sync(&mut self) -> Result<(), PersistError> {
        (**self).sync()
    }
    fn write_snapshot(&mut self, snap: &Snapshot) -> Result<(), PersistError> {
        (**self).write_snapshot(snap)
    }
    fn write_start(&mut self, snap: &Snapshot) -> Result<(), PersistError> {
        (**self).write_start(snap)
    }
    fn record_effect(&mut self, record: &EffectRecord, sync: bool) -> Result<(), PersistError> {
        (**self).record_effect(record, sync)
    }
    fn effects(&self) -> Result<Vec<EffectRecord>, PersistError> {
        (**self).effects()
    }
    fn record_question(&mut self, id: &str, question: &Value) -> Result<(), PersistError> {
        (**self).record_question(id, question)
    }
    fn record_answer(&mut self, id: &str, answer: &Value) -> Result<(), PersistError> {
        (**self).record_answer(id, answer)
    }
    fn questions(&self) -> Result<Vec<QuestionRecord>, PersistError> {
        (**self).questions()
    }
    fn take_lock(&mut self, holder: &str, ttl: Duration) -> Result<Lease, PersistError> {
        (**self).take_lock(holder, ttl)
    }
    fn renew_lock(&mut self, ttl: Duration) -> Result<Lease, PersistError> {
        (**self).renew_lock(ttl)
    }
    fn release_lock(&mut self) -> Result<(), PersistError> {
        (**self).release_lock()
    }
    fn lock_holder(&self) -> Result<Option<String>, PersistError> {
        (**self).lock_holder()
    }
    fn program(&self) -> Result<IrProgram, PersistError> {
        (**self).program()
    }
    fn read_snapshot(&self) -> Result<Snapshot, PersistError> {
        (**self).read_snapshot()
    }
    fn read_start(&self) -> Result<Option<Snapshot>, PersistError> {
        (**self).read_start()
    }
    fn read_log_from(&self, from: u64) -> Result<Vec<(usize, LogRecord)>, PersistError> {
        (**self).read_log_from(from)
    }
    fn corrupt(&self, part: StorePart, position: Option<usize>, message: String) -> PersistError {
        (**self).corrupt(part, position, message)
    }
    fn journal_dir(&self) -> Option<std::path::PathBuf> {
        (**self).journal_dir()
    }
}

/// Parses one stored log record (`position` for the error).
pub(crate) fn parse_record(
    store: &dyn RunStore,
    position: usize,
    bytes: &[u8],
) -> Result<LogRecord, PersistError> {
    LogRecord::parse(bytes)
        .map_err(|e| store.corrupt(StorePart::Log, Some(position), e.to_string()))
}
