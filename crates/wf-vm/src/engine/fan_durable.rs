//! What makes a `.wf` fan-out's branch durable beyond its journaled
//! result (docs/runtime.md, "Durable fan-outs").
//!
//! A branch killed half-way runs again from its first node. So that it
//! does not repeat what it had already done, each branch of a durable run
//! has a folder of its own beside its journal entry,
//! `{journal}/step-N/{index}/`, holding:
//!
//! - `effects.jsonl`: the effect records (`done`) of the branch's engine,
//!   one synced line each, as the run log holds the root engine's; the
//!   branch run again reuses the effects whose idempotence key it finds
//!   there instead of running them again; with the `started` records
//!   of its `at_most_once` nodes, it says which one a kill interrupted
//!   (engine/fan_effect.rs);
//! - `branches/{workflow}/{node}/step-M/`: the journals of the fan-outs
//!   nested in the branch (at the branch engine's step `M`), laid out as
//!   the run's own, so a nested fan-out does not run its finished inner
//!   branches again.
//!
//! A branch engine has no run log: this folder is all it writes. An
//! Attractor `parallel` branch, and a manager node's child pipeline, get
//! one too (`Inherited::in_branch_dir`), for their effect records and the
//! journals of the fan-outs and child pipelines nested in them, laid out
//! as the run directory keeps the root's (`Kit::journal`:
//! `{node}/branches/step-M/`, `{node}/child-journals/step-M/`;
//! docs/runtime.md, "Fan-outs nested in a branch or a child pipeline").

use std::io::Write;
use std::path::{Path, PathBuf};

use super::Engine;
use crate::effects::EffectRecord;

/// The file of a branch's effect records, in its folder.
const EFFECTS: &str = "effects.jsonl";

impl Engine<'_> {
    /// The folder this engine's fan-outs journal in: the run directory of
    /// a durable run's root engine, a branch engine's own folder; `None`
    /// (nothing journaled) otherwise.
    pub(super) fn journal_root(&self) -> Option<PathBuf> {
        match &self.out.log {
            Some(log) => log.journal_dir(),
            None => self.effects.branch_dir.clone(),
        }
    }

    /// Makes this branch engine durable in `dir`: its fan-outs journal
    /// there, its completed effects are recorded there, and the keyed
    /// effects an earlier run of the branch recorded there are reused.
    pub(crate) fn attach_branch_dir(&mut self, dir: PathBuf) {
        if self.effects.any {
            let records = read(&dir);
            self.load_branch_history(&records);
            for record in records {
                // Only keys are trusted across runs of the branch: a
                // branch run again may take another path, so an unkeyed
                // record cannot be matched to a step of it.
                if matches!(&record, EffectRecord::Done { key: Some(_), .. }) {
                    self.effects.load(record);
                }
            }
            self.effects.last_done = None;
            self.effects.last_started.clear();
        }
        self.effects.branch_dir = Some(dir);
    }
}

/// Appends `record` to the effect records of the branch folder `dir`,
/// synced before this returns (nothing later syncs a branch's folder).
pub(super) fn record(dir: &Path, record: &EffectRecord) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(EFFECTS);
    let new = !path.exists();
    let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    file.write_all(&line)?;
    file.sync_data()?;
    if new {
        // The file's name, and the folder's in its journal, must survive
        // a crash too.
        std::fs::File::open(dir)?.sync_all()?;
        if let Some(parent) = dir.parent() {
            std::fs::File::open(parent)?.sync_all()?;
        }
    }
    Ok(())
}

/// The keyed `done` records of the branch folder `dir`, for the registry
/// of its fan-out's keys (engine/fan_keys.rs).
pub(super) fn keyed(dir: &Path) -> Vec<(String, super::fan_keys::Done)> {
    read(dir)
        .into_iter()
        .filter_map(|r| match r {
            EffectRecord::Done {
                step,
                workflow,
                node,
                key: Some(key),
                input,
                ..
            } if crate::effects::is_done(&input) => Some((
                key,
                super::fan_keys::Done {
                    step,
                    workflow,
                    node,
                    input: *input,
                },
            )),
            _ => None,
        })
        .collect()
}

/// The complete records of `dir`'s effects file. A torn last line (a kill
/// mid-write) is cut off the file, so the next record starts a line of
/// its own; a line that does not parse is skipped (its effect runs again).
pub(super) fn read(dir: &Path) -> Vec<EffectRecord> {
    let path = dir.join(EFFECTS);
    let Ok((bytes, complete)) = crate::persist::read_lines_file(&path) else {
        return Vec::new();
    };
    if complete < bytes.len()
        && let Ok(file) = std::fs::OpenOptions::new().write(true).open(&path)
    {
        let _ = file.set_len(complete as u64);
    }
    bytes[..complete]
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{EFFECTS, read, record};
    use crate::agent::Outcome;
    use crate::effects::EffectRecord;
    use crate::engine::StepInput;

    fn done(step: u64, key: Option<&str>) -> EffectRecord {
        EffectRecord::Done {
            step,
            workflow: "W".into(),
            node: format!("n{step}"),
            key: key.map(str::to_owned),
            compensate: None,
            id: None,
            ts: None,
            scope: None,
            input: Box::new(StepInput::Tool {
                outcome: Outcome::success(),
                refused: false,
            }),
        }
    }

    /// A kill mid-write leaves a torn last line: it is not a record, and
    /// it is cut off, so the next record is a line of its own.
    #[test]
    fn a_torn_record_is_cut_off_and_the_next_one_reads_back() {
        let dir = std::env::temp_dir().join(format!("wf-fan-durable-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        record(&dir, &done(1, Some("k1"))).unwrap();
        record(&dir, &done(2, None)).unwrap();
        let path = dir.join(EFFECTS);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(b"{\"effect\":\"done\",\"st");
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read(&dir), [done(1, Some("k1")), done(2, None)]);
        record(&dir, &done(3, Some("k3"))).unwrap();
        let all = read(&dir);
        assert_eq!(
            all,
            [done(1, Some("k1")), done(2, None), done(3, Some("k3"))]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
