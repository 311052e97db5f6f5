//! The persistence interface (`RunStore`): one suite of behaviour run
//! against both implementations (a run directory and the in-memory
//! store), and the snapshot cadence's bounds.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};
use wf_ir::{IrProgram, WorkflowIdx};
use wf_vm::agents::AutoAgent;
use wf_vm::effects::EffectRecord;
use wf_vm::{
    Engine, EngineConfig, LogRecord, MemoryStore, PersistError, RunDir, RunStatus, RunStore,
    Snapshot, StorePart,
};

/// Makes stores of one implementation for one run.
trait Backend {
    /// The run, created for `program`, its lease held.
    fn create(&mut self, program: &IrProgram) -> Box<dyn RunStore>;
    /// Another writer of the same run (takes the lease).
    fn open(&self) -> Result<Box<dyn RunStore>, PersistError>;
    /// A reader of the same run (no lease).
    fn reader(&self) -> Box<dyn RunStore>;
}

struct Dir(std::path::PathBuf);

impl Backend for Dir {
    fn create(&mut self, program: &IrProgram) -> Box<dyn RunStore> {
        first_snapshot(
            Box::new(RunDir::create(&self.0, program, &json!({})).unwrap()),
            program,
        )
    }
    fn open(&self) -> Result<Box<dyn RunStore>, PersistError> {
        Ok(Box::new(RunDir::open(&self.0)?))
    }
    fn reader(&self) -> Box<dyn RunStore> {
        Box::new(RunDir::open_read_only(&self.0).unwrap())
    }
}

struct Memory(Option<MemoryStore>);

impl Backend for Memory {
    fn create(&mut self, program: &IrProgram) -> Box<dyn RunStore> {
        let store = MemoryStore::create("run", program, "worker-1");
        self.0 = Some(store.reader());
        first_snapshot(Box::new(store), program)
    }
    fn open(&self) -> Result<Box<dyn RunStore>, PersistError> {
        Ok(Box::new(self.0.as_ref().unwrap().open("worker-2")?))
    }
    fn reader(&self) -> Box<dyn RunStore> {
        Box::new(self.0.as_ref().unwrap().reader())
    }
}

/// `store` with the snapshot of a run of `program` that has not started
/// (a run is readable once it has one).
fn first_snapshot(mut store: Box<dyn RunStore>, program: &IrProgram) -> Box<dyn RunStore> {
    let engine = Engine::new(program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    store.write_snapshot(&engine.snapshot()).unwrap();
    store
}

/// Runs `suite` on a fresh run of each implementation.
fn both(name: &str, suite: impl Fn(&mut dyn Backend)) {
    suite(&mut Dir(temp_dir(&format!("store-{name}"))));
    suite(&mut Memory(None));
}

fn steps_of(records: &[(usize, LogRecord)]) -> Vec<u64> {
    records.iter().map(|(_, r)| r.step).collect()
}

/// Interrupted after 7 steps (the engine dropped, as a killed process
/// leaves it) and resumed through another handle: the resumed run ends as
/// an uninterrupted one, with every step logged once, in order, and the
/// recorded run replays.
#[test]
fn a_run_resumed_through_the_store_ends_as_an_uninterrupted_run() {
    let program = linear(20, true);
    let mut straight = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    let expected = straight.run(&mut AutoAgent);
    both("resume", |b| {
        let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
        engine.persist_to(b.create(&program)).unwrap();
        assert_eq!(engine.run_for(&mut AutoAgent, 7), RunStatus::Yielded);
        drop(engine);
        let stored = b.reader().program().unwrap();
        assert_eq!(stored, program);
        let mut engine =
            Engine::resume(&stored, b.open().unwrap(), EngineConfig::default()).unwrap();
        assert_eq!(engine.steps(), 7);
        let report = engine.run(&mut AutoAgent);
        assert_eq!(report.status, expected.status);
        assert_eq!(report.blackboard, expected.blackboard);
        drop(engine);
        let reader = b.reader();
        let steps = steps_of(&reader.read_log_from(0).unwrap());
        assert_eq!(steps, (0..expected.steps).collect::<Vec<_>>());
        assert_eq!(
            steps_of(&reader.read_log_from(15).unwrap()),
            (15..expected.steps).collect::<Vec<_>>()
        );
        assert_eq!(reader.read_snapshot().unwrap().step, expected.steps);
        assert_eq!(reader.read_start().unwrap().unwrap().step, 0);
        let replay = Engine::replay(&stored, &*reader).unwrap();
        assert_eq!(replay.divergence, None);
        assert_eq!(replay.steps, expected.steps);
    });
}

/// One writer at a time: a second can take the lease only once the first
/// released it, and the first may not write after that; a reader writes
/// nothing.
#[test]
fn the_lease_admits_one_writer_at_a_time() {
    let program = linear(3, false);
    both("lease", |b| {
        let mut first = b.create(&program);
        let holder = first.lock_holder().unwrap();
        assert!(holder.is_some());
        assert!(matches!(
            b.open(),
            Err(PersistError::InUse { .. } | PersistError::Held { .. })
        ));
        let lease = first.renew_lock(Duration::from_secs(60)).unwrap();
        assert_eq!(
            first
                .take_lock("again", Duration::from_secs(60))
                .unwrap()
                .token,
            lease.token
        );
        let mut reader = b.reader();
        assert!(
            reader
                .append(0, br#"{"step":0,"input":"engine","events":[]}"#)
                .is_err()
        );
        assert!(reader.record_effect(&started("k"), true).is_err());
        first.release_lock().unwrap();
        assert!(
            first
                .append(0, br#"{"step":0,"input":"engine","events":[]}"#)
                .is_err()
        );
        assert!(matches!(
            first.renew_lock(Duration::from_secs(1)),
            Err(PersistError::LockLost { .. })
        ));
        let mut second = b.open().unwrap();
        second
            .append(0, br#"{"step":0,"input":"engine","events":[]}"#)
            .unwrap();
        assert_eq!(steps_of(&b.reader().read_log_from(0).unwrap()), [0]);
    });
}

/// A lease with a time to live lapses unless renewed: another worker takes
/// it (with a higher token), and the first worker's writes are refused.
/// (A run directory's lease is an OS lock, which never lapses.)
#[test]
fn a_lapsed_lease_passes_to_another_worker_and_fences_the_first() {
    let program = linear(3, false);
    let root = MemoryStore::create("run", &program, "a");
    let mut a = root.reader();
    drop(root);
    let lease = a.take_lock("a", Duration::ZERO).unwrap();
    assert!(lease.expires_ms.is_some());
    let mut b = a.reader();
    let taken = b.take_lock("b", Duration::from_secs(60)).unwrap();
    assert!(taken.token > lease.token);
    assert_eq!(a.lock_holder().unwrap().as_deref(), Some("b"));
    match a.record_effect(&started("a"), true) {
        Err(PersistError::LockLost { holder, .. }) => assert_eq!(holder.as_deref(), Some("b")),
        other => panic!("{other:?}"),
    }
    assert!(a.renew_lock(Duration::from_secs(60)).is_err());
    b.record_effect(&started("b"), true).unwrap();
    assert_eq!(a.effects().unwrap(), [started("b")]);
    // A lapsed lease nobody took is still its holder's to renew, with the
    // same token; until renewed, its holder may not write.
    let renewed = {
        b.renew_lock(Duration::ZERO).unwrap();
        assert!(b.record_effect(&started("c"), true).is_err());
        b.renew_lock(Duration::from_secs(60)).unwrap()
    };
    assert_eq!(renewed.token, taken.token);
    b.record_effect(&started("c"), true).unwrap();
    assert_eq!(b.lock_holder().unwrap().as_deref(), Some("b"));
}

/// Effect records are kept in the order recorded, and read back through
/// another handle after the writer is gone.
#[test]
fn effects_are_kept_in_order() {
    let program = linear(3, false);
    both("effects", |b| {
        let mut w = b.create(&program);
        assert_eq!(w.effects().unwrap(), []);
        w.record_effect(&started("deploy"), true).unwrap();
        w.record_effect(&started("notify"), false).unwrap();
        w.record_effect(&started("deploy"), true).unwrap();
        drop(w);
        let r = b.reader();
        assert_eq!(
            r.effects().unwrap(),
            [started("deploy"), started("notify"), started("deploy")]
        );
    });
}

/// An effect record of node `node` (started at step 1).
fn started(node: &str) -> EffectRecord {
    EffectRecord::Started {
        step: 1,
        workflow: "W".into(),
        node: node.into(),
    }
}

/// An answer as `wfc answer` records it: a choice for question `id`.
fn answer(id: &str, node: &str, label: &str) -> Value {
    json!({"question": id, "workflow": "w", "node": node, "visit": 1,
           "choice": {"key": &label[1..2], "label": label}})
}

/// Questions keep their order; an answer goes to the question it names,
/// only to one that was asked; asking again forgets the old answer.
#[test]
fn answers_go_to_the_question_they_name() {
    let program = linear(3, false);
    both("questions", |b| {
        let mut w = b.create(&program);
        w.record_question("q1#1", &json!({"text": "Ship?"}))
            .unwrap();
        w.record_question("q2#1", &json!({"text": "Why?"})).unwrap();
        assert!(matches!(
            w.record_answer("q3#1", &answer("q3#1", "q3", "[Y] Yes")),
            Err(PersistError::UnknownQuestion(id)) if id == "q3#1"
        ));
        let because = answer("q2#1", "q2", "[B] Because");
        w.record_answer("q2#1", &because).unwrap();
        let qs = b.reader().questions().unwrap();
        let got: Vec<(&str, Option<&Value>)> = qs
            .iter()
            .map(|q| (q.id.as_str(), q.answer.as_ref()))
            .collect();
        assert_eq!(got, [("q1#1", None), ("q2#1", Some(&because))]);
        w.record_question("q2#1", &json!({"text": "Why, again?"}))
            .unwrap();
        let qs = b.reader().questions().unwrap();
        assert_eq!(qs[1].question, json!({"text": "Why, again?"}));
        assert_eq!(qs[1].answer, None);
    });
}

/// Issue 17.2/17.6: questions of gates in parallel branches have ids
/// scoped to their branch; two branches asking at the same node (same
/// node id and visit) are two questions, and an answer goes to the one it
/// names only. The questions of the current suspension, and the answers
/// the resume applies, read back through the store alike.
#[test]
fn branch_scoped_questions_are_answered_one_by_one() {
    use wf_vm::question::{PendingQuestion, QuestionKind};
    let program = linear(3, false);
    let asked = |branch: &str| PendingQuestion {
        id: format!("fan#1/{branch}/review#1"),
        place: format!("branch `{branch}` of parallel node `fan`"),
        workflow: "w".into(),
        node: "review".into(),
        visit: 1,
        text: "Ship it?".into(),
        kind: QuestionKind::Choice,
        options: Vec::new(),
    };
    both("scoped", |b| {
        let mut w = b.create(&program);
        let (qa, qb) = (asked("a"), asked("b"));
        wf_vm::question::record(&mut *w, 2, &[qa.clone(), qb.clone()]).unwrap();
        let reject = answer("fan#1/b/review#1", "review", "[R] Reject");
        w.record_answer(&qb.id, &reject).unwrap();
        let r = b.reader();
        let current = wf_vm::question::current(&*r, 2).unwrap();
        assert_eq!(current.len(), 2);
        assert_eq!((&current[0].0, &current[0].1), (&qa, &None));
        assert_eq!(current[1].0, qb);
        let got = current[1].1.as_ref().expect("b's answer");
        assert_eq!(got.question, "fan#1/b/review#1");
        assert_eq!(got.choice.as_ref().unwrap().label, "[R] Reject");
        // Another suspension's questions are not the current ones.
        assert!(wf_vm::question::current(&*r, 3).unwrap().is_empty());
        let answers = wf_vm::question::answers(&*r).unwrap();
        assert_eq!(answers.len(), 1);
        assert_eq!(answers[0].question, qb.id);
        // A later suspension's questions make the earlier answers stale.
        wf_vm::question::record(&mut *w, 4, std::slice::from_ref(&qa)).unwrap();
        assert!(wf_vm::question::answers(&*b.reader()).unwrap().is_empty());
        // An unscoped id names neither.
        assert!(matches!(
            w.record_answer("review#1", &answer("review#1", "review", "[A] Approve")),
            Err(PersistError::UnknownQuestion(_))
        ));
    });
}

/// What a store holds that does not fit the program is reported as
/// corrupt, naming the part (a run directory names the file).
#[test]
fn a_snapshot_that_does_not_fit_names_the_store_part() {
    let program = linear(3, false);
    let other = linear(5, false);
    both("corrupt", |b| {
        let mut engine = Engine::new(&other, WorkflowIdx(0), EngineConfig::default()).unwrap();
        let mut store = b.create(&program);
        engine.run_for(&mut AutoAgent, 4);
        store.write_snapshot(&engine.snapshot()).unwrap();
        drop(store);
        let err = Engine::inspect(&program, &*b.reader(), EngineConfig::default())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("snapshot"), "{err}");
        assert!(err.contains("has no node `n"), "{err}");
        let named = b
            .reader()
            .corrupt(StorePart::Log, Some(3), "x".into())
            .to_string();
        assert!(named.contains("line 3"), "{named}");
    });
}

/// A store that counts the snapshots written through it and may take
/// `delay` to write each one (a slow disk or database).
#[derive(Debug)]
struct Counting {
    inner: MemoryStore,
    snapshots: Arc<Mutex<Vec<(u64, Instant, Instant)>>>,
    delay: Duration,
}

impl RunStore for Counting {
    fn append(&mut self, step: u64, record: &[u8]) -> Result<(), PersistError> {
        self.inner.append(step, record)
    }
    fn sync(&mut self) -> Result<(), PersistError> {
        self.inner.sync()
    }
    fn write_snapshot(&mut self, snap: &Snapshot) -> Result<(), PersistError> {
        let start = Instant::now();
        std::thread::sleep(self.delay);
        self.inner.write_snapshot(snap)?;
        self.snapshots
            .lock()
            .unwrap()
            .push((snap.step, start, Instant::now()));
        Ok(())
    }
    fn write_start(&mut self, snap: &Snapshot) -> Result<(), PersistError> {
        self.inner.write_start(snap)
    }
    fn record_effect(&mut self, record: &EffectRecord, sync: bool) -> Result<(), PersistError> {
        self.inner.record_effect(record, sync)
    }
    fn effects(&self) -> Result<Vec<EffectRecord>, PersistError> {
        self.inner.effects()
    }
    fn record_question(&mut self, id: &str, q: &Value) -> Result<(), PersistError> {
        self.inner.record_question(id, q)
    }
    fn record_answer(&mut self, id: &str, a: &Value) -> Result<(), PersistError> {
        self.inner.record_answer(id, a)
    }
    fn questions(&self) -> Result<Vec<wf_vm::QuestionRecord>, PersistError> {
        self.inner.questions()
    }
    fn take_lock(&mut self, h: &str, ttl: Duration) -> Result<wf_vm::Lease, PersistError> {
        self.inner.take_lock(h, ttl)
    }
    fn renew_lock(&mut self, ttl: Duration) -> Result<wf_vm::Lease, PersistError> {
        self.inner.renew_lock(ttl)
    }
    fn release_lock(&mut self) -> Result<(), PersistError> {
        self.inner.release_lock()
    }
    fn lock_holder(&self) -> Result<Option<String>, PersistError> {
        self.inner.lock_holder()
    }
    fn program(&self) -> Result<IrProgram, PersistError> {
        self.inner.program()
    }
    fn read_snapshot(&self) -> Result<Snapshot, PersistError> {
        self.inner.read_snapshot()
    }
    fn read_start(&self) -> Result<Option<Snapshot>, PersistError> {
        self.inner.read_start()
    }
    fn read_log_from(&self, from: u64) -> Result<Vec<(usize, LogRecord)>, PersistError> {
        self.inner.read_log_from(from)
    }
    fn corrupt(&self, part: StorePart, pos: Option<usize>, message: String) -> PersistError {
        self.inner.corrupt(part, pos, message)
    }
}

/// Runs a 2,000-step chain through a [`Counting`] store; returns the
/// snapshots written (step, start, end) between the first and the final
/// one.
fn cadence(config: EngineConfig, delay: Duration) -> Vec<(u64, Instant, Instant)> {
    let program = linear(2000, false);
    let snapshots = Arc::new(Mutex::new(Vec::new()));
    let store = Counting {
        inner: MemoryStore::create("run", &program, "w"),
        snapshots: snapshots.clone(),
        delay,
    };
    let mut engine = Engine::new(&program, WorkflowIdx(0), config).unwrap();
    engine.persist_to(store).unwrap();
    assert_eq!(engine.run(&mut AutoAgent).status, RunStatus::Completed);
    let mut s = snapshots.lock().unwrap().clone();
    s.remove(0);
    // The final snapshot, written whatever the cadence.
    assert_eq!(s.pop().map(|s| s.0), Some(2000));
    s
}

/// With only the byte trigger, a snapshot is written each time the log
/// has grown by that many bytes (each log record here is well under 1 KB):
/// the replay a resume does is bounded.
#[test]
fn snapshots_follow_the_log_bytes() {
    let config = EngineConfig {
        snapshot_every: 0,
        snapshot_interval: Duration::ZERO,
        snapshot_log_bytes: 20_000,
        ..EngineConfig::default()
    };
    let snaps = cadence(config, Duration::ZERO);
    let steps: Vec<u64> = snaps.iter().map(|s| s.0).collect();
    // None between the first and the final one when no trigger is set.
    let none = EngineConfig {
        snapshot_every: 0,
        snapshot_interval: Duration::ZERO,
        snapshot_log_bytes: 0,
        ..EngineConfig::default()
    };
    assert_eq!(cadence(none, Duration::ZERO), []);
    // Records of this chain are 450 to 1,000 bytes (with their run id,
    // time and duration, about 550): the first snapshot comes after 20 to
    // 45 steps (the later ones may be held back by the spacing when the
    // machine is loaded), and never two within 20,000 bytes (20 steps) of
    // log.
    assert!((20..=45).contains(&steps[0]), "{steps:?}");
    assert!(steps.windows(2).all(|w| w[1] - w[0] >= 20), "{steps:?}");
}

/// A slow store is not asked for snapshots faster than it writes them:
/// even when every step's log would trigger one, the run spends at least
/// nine times a snapshot's cost running between two of them.
#[test]
fn slow_snapshots_are_spaced_by_their_cost() {
    let config = EngineConfig {
        snapshot_every: 0,
        snapshot_interval: Duration::from_millis(1),
        snapshot_log_bytes: 1,
        ..EngineConfig::default()
    };
    let delay = Duration::from_millis(20);
    let snaps = cadence(config, delay);
    // Without the spacing: one snapshot per step (2,000 × 20 ms).
    assert!(snaps.len() < 50, "{} snapshots", snaps.len());
    for w in snaps.windows(2) {
        let (cost, gap) = (w[0].2 - w[0].1, w[1].1 - w[0].2);
        assert!(gap >= cost * 9, "{gap:?} after a snapshot of {cost:?}");
    }
}
