//! [`MemoryStore`]: a run kept in memory, shared by every handle opened
//! from it as a database row is by its workers. For tests, and for
//! embedders that want the engine's durability protocol (leases,
//! effects, questions) without a disk.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use wf_ir::IrProgram;

use super::{Lease, QuestionRecord, RunStore, StorePart, parse_record};
use crate::effects::EffectRecord;
use crate::engine::Snapshot;
use crate::persist::{LogRecord, PersistError};

/// A run kept in memory (see the module docs). A handle from
/// [`MemoryStore::create`] or [`MemoryStore::open`] holds the lease;
/// [`MemoryStore::reader`] makes one that reads only.
#[derive(Debug)]
pub struct MemoryStore {
    name: String,
    shared: Arc<Mutex<Shared>>,
    /// The token of the lease this handle took, if any.
    token: Option<u64>,
}

#[derive(Debug)]
struct Shared {
    program: IrProgram,
    /// The step of the first record, and the records.
    first_step: Option<u64>,
    log: Vec<Vec<u8>>,
    snapshot: Option<Snapshot>,
    start: Option<Snapshot>,
    effects: Vec<EffectRecord>,
    questions: Vec<QuestionRecord>,
    lease: Option<Lease>,
    tokens: u64,
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Shared {
    /// The lease, while current.
    fn current(&self) -> Option<&Lease> {
        self.lease
            .as_ref()
            .filter(|l| l.expires_ms.is_none_or(|e| now_ms() < e))
    }
}

impl MemoryStore {
    /// A new run `name` of `program`, with its lease taken by `holder`
    /// until released.
    pub fn create(name: &str, program: &IrProgram, holder: &str) -> Self {
        let lease = Lease {
            holder: holder.to_owned(),
            token: 1,
            expires_ms: None,
        };
        MemoryStore {
            name: name.to_owned(),
            shared: Arc::new(Mutex::new(Shared {
                program: program.clone(),
                first_step: None,
                log: Vec::new(),
                snapshot: None,
                start: None,
                effects: Vec::new(),
                questions: Vec::new(),
                lease: Some(lease),
                tokens: 1,
            })),
            token: Some(1),
        }
    }

    /// Another handle on the same run, taking its lease for `holder` until
    /// released ([`PersistError::Held`] while another holds it).
    pub fn open(&self, holder: &str) -> Result<Self, PersistError> {
        let mut handle = self.reader();
        handle.take(holder, None)?;
        Ok(handle)
    }

    /// Another handle on the same run that holds no lease (it reads; it
    /// may take the lease with [`RunStore::take_lock`]).
    pub fn reader(&self) -> Self {
        MemoryStore {
            name: self.name.clone(),
            shared: self.shared.clone(),
            token: None,
        }
    }

    fn shared(&self) -> MutexGuard<'_, Shared> {
        // A panic elsewhere cannot leave `Shared` half-updated: every
        // update is a single assignment or push.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn take(&mut self, holder: &str, ttl: Option<Duration>) -> Result<Lease, PersistError> {
        let mut s = self.shared();
        let expires_ms = ttl.map(|t| now_ms().saturating_add(t.as_millis() as u64));
        let token = match s.current() {
            Some(l) if Some(l.token) == self.token => l.token,
            Some(l) => {
                return Err(PersistError::Held {
                    run: self.name.clone(),
                    holder: l.holder.clone(),
                });
            }
            None => {
                s.tokens += 1;
                s.tokens
            }
        };
        let lease = Lease {
            holder: holder.to_owned(),
            token,
            expires_ms,
        };
        s.lease = Some(lease.clone());
        drop(s);
        self.token = Some(token);
        Ok(lease)
    }

    /// The shared state, when this handle holds the current lease.
    fn writing(&self) -> Result<MutexGuard<'_, Shared>, PersistError> {
        let s = self.shared();
        let current = s.current().map(|l| (l.token, l.holder.clone()));
        match current {
            Some((token, _)) if Some(token) == self.token => Ok(s),
            other => Err(PersistError::LockLost {
                run: self.name.clone(),
                holder: other.map(|(_, h)| h),
            }),
        }
    }
}

/// A handle dropped with its lease gives it up, as a process's OS lock
/// goes with the process.
impl Drop for MemoryStore {
    fn drop(&mut self) {
        let _ = self.release_lock();
    }
}

impl RunStore for MemoryStore {
    fn append(&mut self, step: u64, record: &[u8]) -> Result<(), PersistError> {
        let mut s = self.writing()?;
        // The engine appends steps in order: a gap or a repeat would lose
        // or duplicate a step, so it is refused.
        let first = *s.first_step.get_or_insert(step);
        if step != first + s.log.len() as u64 {
            let line = s.log.len() + 1;
            drop(s);
            return Err(self.corrupt(
                StorePart::Log,
                Some(line),
                format!("step {step} appended out of order"),
            ));
        }
        s.log.push(record.to_vec());
        Ok(())
    }

    fn sync(&mut self) -> Result<(), PersistError> {
        self.writing().map(drop)
    }

    fn write_snapshot(&mut self, snap: &Snapshot) -> Result<(), PersistError> {
        self.writing()?.snapshot = Some(snap.clone());
        Ok(())
    }

    fn write_start(&mut self, snap: &Snapshot) -> Result<(), PersistError> {
        self.writing()?.start = Some(snap.clone());
        Ok(())
    }

    fn record_effect(&mut self, record: &EffectRecord, _sync: bool) -> Result<(), PersistError> {
        self.writing()?.effects.push(record.clone());
        Ok(())
    }

    fn effects(&self) -> Result<Vec<EffectRecord>, PersistError> {
        Ok(self.shared().effects.clone())
    }

    fn record_question(&mut self, id: &str, question: &Value) -> Result<(), PersistError> {
        let mut s = self.writing()?;
        match s.questions.iter_mut().find(|q| q.id == id) {
            Some(q) => {
                q.question = question.clone();
                q.answer = None;
            }
            None => s.questions.push(QuestionRecord {
                id: id.to_owned(),
                question: question.clone(),
                answer: None,
            }),
        }
        Ok(())
    }

    fn record_answer(&mut self, id: &str, answer: &Value) -> Result<(), PersistError> {
        let mut s = self.writing()?;
        let q = s.questions.iter_mut().find(|q| q.id == id);
        let q = q.ok_or_else(|| PersistError::UnknownQuestion(id.to_owned()))?;
        q.answer = Some(answer.clone());
        Ok(())
    }

    fn questions(&self) -> Result<Vec<QuestionRecord>, PersistError> {
        Ok(self.shared().questions.clone())
    }

    fn take_lock(&mut self, holder: &str, ttl: Duration) -> Result<Lease, PersistError> {
        self.take(holder, Some(ttl))
    }

    fn renew_lock(&mut self, ttl: Duration) -> Result<Lease, PersistError> {
        let mut s = self.shared();
        // A lease that lapsed but that nobody took since is still this
        // handle's to renew (its token is unchanged).
        match &mut s.lease {
            Some(l) if Some(l.token) == self.token => {
                l.expires_ms = Some(now_ms().saturating_add(ttl.as_millis() as u64));
                Ok(l.clone())
            }
            other => Err(PersistError::LockLost {
                run: self.name.clone(),
                holder: other.as_ref().map(|l| l.holder.clone()),
            }),
        }
    }

    fn release_lock(&mut self) -> Result<(), PersistError> {
        let mut s = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        if s.lease.as_ref().map(|l| l.token) == self.token {
            s.lease = None;
        }
        drop(s);
        self.token = None;
        Ok(())
    }

    fn lock_holder(&self) -> Result<Option<String>, PersistError> {
        Ok(self.shared().current().map(|l| l.holder.clone()))
    }

    fn program(&self) -> Result<IrProgram, PersistError> {
        Ok(self.shared().program.clone())
    }

    fn read_snapshot(&self) -> Result<Snapshot, PersistError> {
        let snap = self.shared().snapshot.clone();
        snap.ok_or_else(|| self.corrupt(StorePart::Snapshot, None, "the run has none".into()))
    }

    fn read_start(&self) -> Result<Option<Snapshot>, PersistError> {
        Ok(self.shared().start.clone())
    }

    fn read_log_from(&self, from: u64) -> Result<Vec<(usize, LogRecord)>, PersistError> {
        let log = self.shared().log.clone();
        let mut out = Vec::new();
        for (i, bytes) in log.iter().enumerate() {
            let record = parse_record(self, i + 1, bytes)?;
            if record.step >= from {
                out.push((i + 1, record));
            }
        }
        Ok(out)
    }

    fn corrupt(&self, part: StorePart, position: Option<usize>, message: String) -> PersistError {
        let part = match part {
            StorePart::Log => "log",
            StorePart::Snapshot => "snapshot",
            StorePart::Start => "start",
            StorePart::Program => "program",
        };
        // Not a file: the run's name and the part, where a run directory
        // names its file.
        PersistError::Corrupt {
            path: PathBuf::from(format!("{}/{part}", self.name)),
            line: position,
            message,
        }
    }
}
