//! The branch journal: what makes a fan-out durable.
//!
//! A parallel node's step is logged only when the whole fan-out is done,
//! so a run killed during it re-runs the node on resume. To keep the
//! branches that had finished from running again (and repeating their
//! side effects), each branch's result is written, atomically and synced,
//! as soon as it finishes:
//! `{stage dir of the parallel node}/branches/step-{N}/{index}.json`. The
//! resumed run re-runs the node at the same step `N` (the log replays the
//! run up to it exactly), finds the results there and runs only the
//! branches that have none. A later visit of the node is another step,
//! and a `loop_restart` another stage directory: neither reads this one.
//!
//! A branch that was running when the run died has no result and runs
//! again from its first node. Its own folder, `step-{N}/{index}/`, keeps
//! the journals of the fan-outs nested in it, laid out as the run
//! directory keeps the root's (`{node}/branches/step-{M}/`, `M` the
//! branch engine's step; a child pipeline's folder likewise, see
//! `manager.rs`): the branch run again takes the same steps to its nested
//! fan-out, which then runs only the inner branches that had not finished.
//!
//! A fan-out that suspends because an agent error suspended one of its
//! branches (a backend outage in a durable run) is asked again at a later
//! step `M` on resume. So that the branches that had finished do not run
//! again, it leaves `branches/suspended.json` naming its journal and `M`
//! ([`Journal::suspend`]); the journal of step `M` is then that one. Any
//! other step (a later visit of the node) keeps its own.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::policy::BranchResult;
use crate::attractor::RunFiles;

/// The journal of one execution of a parallel node; inert without a run
/// directory.
#[derive(Debug, Clone, Default)]
pub struct Journal {
    dir: Option<PathBuf>,
}

impl Journal {
    /// The journal of the parallel node `node` run at `step`.
    pub fn at(files: Option<&RunFiles>, node: &str, step: u64) -> Self {
        Journal {
            dir: files.map(|f| {
                let branches = f.stage_path(node).join("branches");
                redirected(&branches, step).unwrap_or_else(|| branches.join(format!("step-{step}")))
            }),
        }
    }

    /// The journal of the parallel node `node` run at `step` of the
    /// pipeline whose fan-outs journal in `root` (the run directory, or a
    /// branch's or child pipeline's own folder): `{root}/{node}/branches/`.
    pub(crate) fn under(root: &Path, node: &str, step: u64) -> Self {
        let branches = root
            .join(crate::attractor::safe_name(node))
            .join("branches");
        Self::in_dir_at(&branches, step)
    }

    /// Notes, durably, that the fan-out suspended and will be asked again
    /// at `resume_step`, which is to read this journal.
    pub fn suspend(&self, resume_step: u64) -> std::io::Result<()> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let (Some(branches), Some(name)) = (dir.parent(), dir.file_name()) else {
            return Ok(());
        };
        std::fs::create_dir_all(branches)?;
        let doc = json!({"format": "wfc-parallel-suspended", "version": 1,
                         "journal": name.to_string_lossy(), "resume_step": resume_step});
        RunFiles::new(branches).write_json(&branches.join(SUSPENDED), &doc)?;
        std::fs::File::open(branches)?.sync_all()
    }

    /// The journal of a `.wf` fan-out run at `step`, whose journals are
    /// in `branches`: `step-{step}`, unless the fan-out suspended and
    /// named another for this step ([`Journal::suspend`]).
    pub(crate) fn in_dir_at(branches: &Path, step: u64) -> Self {
        let dir =
            redirected(branches, step).unwrap_or_else(|| branches.join(format!("step-{step}")));
        Journal { dir: Some(dir) }
    }

    /// After the branches of the fan-out run at `step` ran: when a
    /// graceful stop was requested (`crate::interrupt`), the step is
    /// interrupted and the resumed run asks the node again at the next
    /// one, which is to read this journal ([`Journal::suspend`]).
    pub(crate) fn note_interrupted(&self, step: u64) {
        if crate::interrupt::requested().is_some() {
            // Without the note the finished branches run again: no worse
            // than a kill.
            let _ = self.suspend(step + 1);
        }
    }

    /// The own folder of branch `index` (a `.wf` branch's effect records
    /// and nested journals: engine/fan_durable.rs), beside its result.
    pub(crate) fn branch_dir(&self, index: usize) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(index.to_string()))
    }

    fn path(&self, index: usize) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{index}.json")))
    }

    /// The recorded result of branch `index` (starting at `id`), when it
    /// finished before the run was interrupted: the result and how long it
    /// took. A file that does not parse or names another branch is
    /// ignored (the branch runs).
    pub fn load(&self, index: usize, id: &str) -> Option<(BranchResult, u64)> {
        let text = std::fs::read(self.path(index)?).ok()?;
        let v: Value = serde_json::from_slice(&text).ok()?;
        let result: BranchResult = serde_json::from_value(v.get("result")?.clone()).ok()?;
        (result.id == id).then(|| (result, v["duration_ms"].as_u64().unwrap_or(0)))
    }

    /// Records that branch `index` finished with `result`, durably: the
    /// file is written beside, synced, renamed, and the directory synced.
    pub fn record(
        &self,
        index: usize,
        result: &BranchResult,
        duration_ms: u64,
    ) -> std::io::Result<()> {
        self.record_decided(index, result, duration_ms, None)
    }

    /// [`Journal::record`], with the `(workflow, node)` of each decision
    /// the branch's agent gave (`decided`: a JSON list), which a resumed
    /// `script:` agent skips (docs/agents.md, "Resumed scripts").
    pub(crate) fn record_decided(
        &self,
        index: usize,
        result: &BranchResult,
        duration_ms: u64,
        decided: Option<Value>,
    ) -> std::io::Result<()> {
        let (Some(dir), Some(path)) = (&self.dir, self.path(index)) else {
            return Ok(());
        };
        // A branch that failed after a graceful stop was requested may
        // have failed by the kill: not journaled, so a resume runs it.
        if crate::interrupt::requested().is_some() && result.outcome == crate::agent::Status::Fail {
            return Ok(());
        }
        std::fs::create_dir_all(dir)?;
        let mut doc = json!({"format": "wfc-parallel-branch", "version": 1,
                             "index": index, "duration_ms": duration_ms, "result": result});
        if let Some(decided) = decided {
            doc["decided"] = decided;
        }
        RunFiles::new(dir).write_json(&path, &doc)?;
        // The rename itself must survive a crash too.
        std::fs::File::open(dir)?.sync_all()
    }
}

/// A branch that waits at a gate (docs/runtime.md, "Gates in parallel
/// branches"), or at a fan-out or manager nested in it that waits: the
/// (first) question, the branch's engine as it stood there, and the
/// branch's events so far. The resumed fan-out restores the
/// branch from it and asks the gate again, where the recorded answer is
/// given: the nodes before the gate do not run again.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Waiting {
    /// The question, its id scoped to the branch.
    pub question: crate::question::PendingQuestion,
    /// The branch's engine, suspended at the gate.
    pub snapshot: crate::engine::Snapshot,
    /// The branch's events up to the gate.
    pub events: Vec<Value>,
    /// The `(workflow, node)` of each decision the branch's agent gave up
    /// to the gate (`{"workflow", "node"}` objects): not asked again, so a
    /// resumed `script:` agent skips them (agents/noting.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decided: Vec<Value>,
}

impl Waiting {
    /// Keeps the branch's `events` up to the gate: not its suspension,
    /// which the restored branch takes back (an uninterrupted branch has
    /// none).
    pub fn set_events(&mut self, events: &[Value]) {
        let n = match events.last() {
            Some(e) if e["event"] == "engine:suspend" => events.len() - 1,
            _ => events.len(),
        };
        self.events = events[..n].to_vec();
    }
}

impl Journal {
    fn waiting_path(&self, index: usize) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{index}.waiting.json")))
    }

    /// Records, durably, that branch `index` waits at a gate. Without a
    /// run directory there is nowhere to keep it: an error.
    pub fn record_waiting(&self, index: usize, waiting: &Waiting) -> std::io::Result<()> {
        let (Some(dir), Some(path)) = (&self.dir, self.waiting_path(index)) else {
            return Err(std::io::Error::other("the run has no run directory"));
        };
        std::fs::create_dir_all(dir)?;
        let doc = json!({"format": "wfc-parallel-waiting", "version": 1,
                         "index": index, "waiting": waiting});
        RunFiles::new(dir).write_json(&path, &doc)?;
        std::fs::File::open(dir)?.sync_all()
    }

    /// Where branch `index` waited when the fan-out last suspended, if it
    /// did and its question is in the branch's `scope` (`fan#1/a/`: at a
    /// gate of the branch, or nested deeper in it); a file that does not
    /// parse or names another branch is ignored (the branch runs from its
    /// start).
    pub fn load_waiting_under(&self, index: usize, scope: &str) -> Option<Waiting> {
        let text = std::fs::read(self.waiting_path(index)?).ok()?;
        let v: Value = serde_json::from_slice(&text).ok()?;
        let w: Waiting = serde_json::from_value(v.get("waiting")?.clone()).ok()?;
        w.question.id.starts_with(scope).then_some(w)
    }

    /// Where branch `index` (starting at `id`) waited when the fan-out
    /// last suspended, if it did; a file that does not parse or names
    /// another branch is ignored (the branch runs from its start).
    pub fn load_waiting(&self, index: usize, id: &str) -> Option<Waiting> {
        let text = std::fs::read(self.waiting_path(index)?).ok()?;
        let v: Value = serde_json::from_slice(&text).ok()?;
        let w: Waiting = serde_json::from_value(v.get("waiting")?.clone()).ok()?;
        let first = w.question.id.rsplit('/').nth(1);
        (first == Some(id)).then_some(w)
    }
}

impl Journal {
    fn events_path(&self, index: usize) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{index}.events.json")))
    }

    /// Keeps the events of branch `index`, which ended in a fan-out that
    /// suspends for a question, to be told when the fan-out ends.
    pub fn record_events(
        &self,
        index: usize,
        (offset_ms, duration_ms): (Option<u64>, u64),
        events: &super::trace::BranchEvents,
    ) -> std::io::Result<()> {
        let (Some(dir), Some(path)) = (&self.dir, self.events_path(index)) else {
            return Ok(());
        };
        std::fs::create_dir_all(dir)?;
        let doc = json!({"format": "wfc-parallel-events", "version": 1, "index": index,
                         "offset_ms": offset_ms, "duration_ms": duration_ms,
                         "events": events.events, "dropped": events.dropped});
        RunFiles::new(dir).write_json(&path, &doc)
    }

    /// The events [`Journal::record_events`] kept for branch `index`: its
    /// start offset, duration and events.
    pub fn load_events(
        &self,
        index: usize,
    ) -> Option<(Option<u64>, u64, super::trace::BranchEvents)> {
        let v: Value =
            serde_json::from_slice(&std::fs::read(self.events_path(index)?).ok()?).ok()?;
        let events = super::trace::BranchEvents {
            events: serde_json::from_value(v.get("events")?.clone()).ok()?,
            dropped: v["dropped"].as_u64().unwrap_or(0),
        };
        Some((v["offset_ms"].as_u64(), v["duration_ms"].as_u64()?, events))
    }
}

/// The note a suspended fan-out leaves beside its journals.
const SUSPENDED: &str = "suspended.json";

/// The journal a fan-out that suspended named for `step`, if any: only a
/// sibling `step-N` folder is accepted. A note for `step + 1` is this
/// step's own: the fan-out at `step` wrote it, then a kill cut the step's
/// record off the log, so `step` runs again and must find the branches
/// where that run left them (a fresh journal would run again what they
/// had started, `at_most_once` effects included).
fn redirected(branches: &Path, step: u64) -> Option<PathBuf> {
    let v: Value = serde_json::from_slice(&std::fs::read(branches.join(SUSPENDED)).ok()?).ok()?;
    let resume_step = v["resume_step"].as_u64()?;
    if resume_step != step && resume_step != step.saturating_add(1) {
        return None;
    }
    let name = v["journal"].as_str()?;
    let digits = name.strip_prefix("step-")?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| branches.join(name))
}

#[cfg(test)]
mod redirect_tests {
    use super::*;

    /// A suspended fan-out's note is read at the step it names, and at
    /// the step before it (the suspending step whose record a kill cut
    /// off), never at others.
    #[test]
    fn a_suspension_note_serves_its_step_and_the_cut_off_one() {
        let branches =
            std::env::temp_dir().join(format!("wfc-journal-redirect-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&branches);
        let journal = Journal::in_dir_at(&branches, 1);
        journal.suspend(3).unwrap();
        let at = |step| Journal::in_dir_at(&branches, step).dir.unwrap();
        assert_eq!(at(3), branches.join("step-1"));
        assert_eq!(at(2), branches.join("step-1"));
        assert_eq!(at(4), branches.join("step-4"));
        assert_eq!(at(1), branches.join("step-1"));
        assert_eq!(at(0), branches.join("step-0"));
        let _ = std::fs::remove_dir_all(&branches);
    }
}
