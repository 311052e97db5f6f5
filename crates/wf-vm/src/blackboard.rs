//! The scoped, append-only blackboard: one local log of entries per call
//! frame; reads walk local → parent → … and the first match wins.
//!
//! Keys are interned: a key that appears in the program's string table has
//! the same number as its [`wf_ir::StrId`], so guards look keys up without
//! hashing strings; keys that agents invent are appended to the table.

use rustc_hash::FxHashMap;
use serde_json::Value;
use wf_ir::{IrProgram, NodeIdx, WorkflowIdx};

use crate::agent::{BlackboardView, Status};

/// An interned key.
pub(crate) type KeyId = u32;

/// The key interner.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyTable {
    names: Vec<Box<str>>,
    ids: FxHashMap<Box<str>, KeyId>,
    /// The program's strings: never forgotten.
    base: usize,
}

impl KeyTable {
    /// A table holding the program's strings, numbered as in the program.
    pub fn new(program: &IrProgram) -> Self {
        let mut t = KeyTable::default();
        for s in &program.strings {
            let id = t.names.len() as KeyId;
            t.names.push(s.as_str().into());
            t.ids.entry(s.as_str().into()).or_insert(id);
        }
        t.base = t.names.len();
        t
    }

    /// How many keys the table holds.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Forgets the keys interned since the table held `len` (never the
    /// program's): a popped frame's keys, so that many calls writing
    /// distinct keys do not grow the table. Only valid when no live entry
    /// uses them (see [`Frame::key_mark`]).
    pub fn truncate(&mut self, len: usize) {
        let len = len.max(self.base);
        while self.names.len() > len {
            if let Some(name) = self.names.pop() {
                self.ids.remove(&name);
            }
        }
    }

    /// The id of `key`, interning it when new.
    pub fn intern(&mut self, key: &str) -> KeyId {
        if let Some(&id) = self.ids.get(key) {
            return id;
        }
        let id = self.names.len() as KeyId;
        self.names.push(key.into());
        self.ids.insert(key.into(), id);
        id
    }

    /// The id of `key` when it has one.
    pub fn lookup(&self, key: &str) -> Option<KeyId> {
        self.ids.get(key).copied()
    }

    /// The key with this id.
    pub fn name(&self, id: KeyId) -> &str {
        &self.names[id as usize]
    }
}

/// One blackboard entry. Its workflow and depth are its frame's.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub key: KeyId,
    pub value: Value,
    /// The node that wrote it (for return-map entries: the call node).
    pub node: NodeIdx,
    pub step: u64,
    /// Serialized size in bytes, for the blackboard size limit.
    pub size: u32,
}

/// Where a frame's node stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Phase {
    /// Just entered: a call node pushes, any other node asks the agent.
    Entered,
    /// A call node whose callee returned: the agent decides the way on.
    Returned,
}

/// One call frame.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Frame {
    pub workflow: WorkflowIdx,
    pub node: NodeIdx,
    pub phase: Phase,
    /// The attempt at `node` (1 = first).
    pub attempt: u32,
    /// `node` was entered by failure routing (an edge taken for a `fail`
    /// outcome, or a retry-target jump): completing at it is a failure exit.
    pub entered_by_failure: bool,
    /// At a call node whose callee failed (phase `Returned`): why. The
    /// next step applies it as the call node's `fail` outcome.
    pub callee_failure: Option<String>,
    pub entries: Vec<Entry>,
    /// Latest entry per key.
    pub index: FxHashMap<KeyId, u32>,
    /// The latest outcome of each goal-gate node run in this frame.
    pub gates: Vec<(NodeIdx, Status)>,
    pub bytes: usize,
    /// For each key first written in this frame, what [`Visible`] showed
    /// for it before (restored when the frame is popped).
    pub shadows: Vec<(KeyId, Option<Slot>)>,
    /// The step that pushed this frame and the run's active time then:
    /// where a callee's own `max_steps` and `wall_clock` count from.
    pub pushed: (u64, std::time::Duration),
    /// The key table's length when this frame was pushed. Only the top
    /// frame is written, so keys interned since then are used by this
    /// frame and the ones above it only: popping it forgets them.
    pub key_mark: usize,
}

/// Where an entry lives: (frame depth, 1-based; index in its entries).
pub(crate) type Slot = (u32, u32);

/// The entry each key resolves to through the scope chain, kept up to date
/// on every write and pop, so a scoped read is one hash lookup however deep
/// the call stack is (a miss does not walk every frame).
#[derive(Debug, Clone, Default)]
pub(crate) struct Visible(FxHashMap<KeyId, Slot>);

impl Visible {
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Forgets a popped frame's entries: each key shows its parent's entry
    /// again.
    pub fn pop(&mut self, frame: &Frame) {
        for &(key, prev) in frame.shadows.iter().rev() {
            match prev {
                Some(slot) => self.0.insert(key, slot),
                None => self.0.remove(&key),
            };
        }
    }
}

impl Frame {
    pub fn new(workflow: WorkflowIdx, node: NodeIdx) -> Self {
        Frame {
            workflow,
            node,
            phase: Phase::Entered,
            attempt: 1,
            entered_by_failure: false,
            callee_failure: None,
            entries: Vec::new(),
            index: FxHashMap::default(),
            gates: Vec::new(),
            bytes: 0,
            shadows: Vec::new(),
            pushed: (0, std::time::Duration::ZERO),
            key_mark: 0,
        }
    }

    /// Re-initialises a recycled frame (keeps the allocations; and its
    /// `key_mark`, which whoever pushes it sets).
    pub fn reset(&mut self, workflow: WorkflowIdx, node: NodeIdx) {
        self.workflow = workflow;
        self.node = node;
        self.phase = Phase::Entered;
        self.attempt = 1;
        self.entered_by_failure = false;
        self.callee_failure = None;
        self.entries.clear();
        self.index.clear();
        self.gates.clear();
        self.bytes = 0;
        self.shadows.clear();
        self.pushed = (0, std::time::Duration::ZERO);
    }

    /// The latest local value of `key`.
    pub fn get(&self, key: KeyId) -> Option<&Value> {
        self.index
            .get(&key)
            .map(|&i| &self.entries[i as usize].value)
    }

    /// Appends an entry. The frame must be the top of the stack, at
    /// `depth` (entries are only ever written to the current frame).
    pub fn push(&mut self, entry: Entry, depth: usize, visible: &mut Visible) {
        let key = entry.key;
        let slot = (depth as u32, self.entries.len() as u32);
        self.bytes += entry.size as usize;
        let first = self.index.insert(key, slot.1).is_none();
        self.entries.push(entry);
        let prev = visible.0.insert(key, slot);
        if first {
            self.shadows.push((key, prev));
        }
    }

    /// Removes the entries from index `len` on, newest first, restoring
    /// what each key resolved to before them: undoes the writes of a step
    /// that ended in an error. The frame must be the top of the stack, at
    /// `depth`.
    pub fn truncate(&mut self, len: usize, depth: usize, visible: &mut Visible) {
        while self.entries.len() > len {
            let Some(e) = self.entries.pop() else { break };
            self.bytes -= e.size as usize;
            match self.entries.iter().rposition(|x| x.key == e.key) {
                Some(j) => {
                    self.index.insert(e.key, j as u32);
                    visible.0.insert(e.key, (depth as u32, j as u32));
                }
                None => {
                    self.index.remove(&e.key);
                    // This was the key's first entry in the frame; every
                    // later first entry is gone already, so its shadow is
                    // the last one.
                    if let Some((key, prev)) = self.shadows.pop() {
                        debug_assert_eq!(key, e.key);
                        match prev {
                            Some(slot) => visible.0.insert(key, slot),
                            None => visible.0.remove(&key),
                        };
                    }
                }
            }
        }
    }

    /// Records a goal gate's outcome.
    pub fn record_gate(&mut self, node: NodeIdx, status: Status) {
        match self.gates.iter_mut().find(|(n, _)| *n == node) {
            Some(slot) => slot.1 = status,
            None => self.gates.push((node, status)),
        }
    }
}

/// Scoped lookup: the latest entry of `key` in the most local frame that
/// has one.
pub(crate) fn scoped_get<'f>(
    frames: &'f [Frame],
    visible: &Visible,
    key: KeyId,
) -> Option<&'f Value> {
    let &(depth, i) = visible.0.get(&key)?;
    Some(&frames[depth as usize - 1].entries[i as usize].value)
}

/// Where an entry came from (Reflex `BlackboardSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source<'a> {
    /// The frame's workflow.
    pub workflow: &'a str,
    /// The writing node.
    pub node: &'a str,
    /// The frame's depth (1 = root).
    pub depth: usize,
}

/// One entry as the public view shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntryRef<'a> {
    /// The key.
    pub key: &'a str,
    /// The value.
    pub value: &'a Value,
    /// Who wrote it.
    pub source: Source<'a>,
    /// The step that wrote it.
    pub step: u64,
}

/// The scoped blackboard of a run, read-only (Reflex `BlackboardReader`).
#[derive(Clone, Copy)]
pub struct Blackboard<'a> {
    pub(crate) program: &'a IrProgram,
    pub(crate) frames: &'a [Frame],
    pub(crate) visible: &'a Visible,
    pub(crate) keys: &'a KeyTable,
}

impl<'a> Blackboard<'a> {
    fn entry_ref(&self, depth: usize, e: &'a Entry) -> EntryRef<'a> {
        let frame = &self.frames[depth - 1];
        let wf = &self.program.workflows[frame.workflow.0 as usize];
        EntryRef {
            key: self.keys.name(e.key),
            value: &e.value,
            source: Source {
                workflow: self.program.str(wf.name),
                node: self.program.str(wf.nodes[e.node.0 as usize].id),
                depth,
            },
            step: e.step,
        }
    }

    /// Every entry for `key` in every scope, shadowed ones included: most
    /// local scope first, oldest first within a scope (Reflex `getAll`).
    pub fn get_all(&self, key: &str) -> Vec<EntryRef<'a>> {
        let Some(id) = self.keys.lookup(key) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, f) in self.frames.iter().enumerate().rev() {
            for e in f.entries.iter().filter(|e| e.key == id) {
                out.push(self.entry_ref(i + 1, e));
            }
        }
        out
    }

    /// Every entry in every scope, most local scope first (Reflex `entries`).
    pub fn entries(&self) -> Vec<EntryRef<'a>> {
        let mut out = Vec::new();
        for (i, f) in self.frames.iter().enumerate().rev() {
            for e in &f.entries {
                out.push(self.entry_ref(i + 1, e));
            }
        }
        out
    }

    /// The current frame's entries with their sources (Reflex `local`).
    pub fn local_entries(&self) -> Vec<EntryRef<'a>> {
        let Some(f) = self.frames.last() else {
            return Vec::new();
        };
        let depth = self.frames.len();
        f.entries.iter().map(|e| self.entry_ref(depth, e)).collect()
    }
}

impl BlackboardView for Blackboard<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        scoped_get(self.frames, self.visible, self.keys.lookup(key)?)
    }

    fn keys(&self) -> Vec<&str> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        for f in self.frames.iter().rev() {
            for e in &f.entries {
                if seen.insert(e.key) {
                    out.push(self.keys.name(e.key));
                }
            }
        }
        out
    }

    fn local(&self) -> Vec<(&str, &Value)> {
        self.frames
            .last()
            .map(|f| {
                f.entries
                    .iter()
                    .map(|e| (self.keys.name(e.key), &e.value))
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: KeyId, v: i64) -> Entry {
        Entry {
            key,
            value: Value::from(v),
            node: NodeIdx(0),
            step: 0,
            size: 1,
        }
    }

    #[test]
    fn reads_walk_local_then_parents_and_latest_wins() {
        let mut keys = KeyTable::default();
        let a = keys.intern("a");
        let b = keys.intern("b");
        assert_eq!(keys.intern("a"), a);
        let mut vis = Visible::default();
        let mut root = Frame::new(WorkflowIdx(0), NodeIdx(0));
        root.push(entry(a, 1), 1, &mut vis);
        root.push(entry(b, 2), 1, &mut vis);
        let mut child = Frame::new(WorkflowIdx(0), NodeIdx(0));
        child.push(entry(a, 10), 2, &mut vis);
        child.push(entry(a, 11), 2, &mut vis);
        let c = child.clone();
        let frames = [root, child];
        assert_eq!(scoped_get(&frames, &vis, a), Some(&Value::from(11)));
        assert_eq!(scoped_get(&frames, &vis, b), Some(&Value::from(2)));
        assert_eq!(scoped_get(&frames, &vis, 99), None);
        assert_eq!(frames[1].entries.len(), 2, "append-only: history kept");
        vis.pop(&c);
        assert_eq!(scoped_get(&frames[..1], &vis, a), Some(&Value::from(1)));
        assert_eq!(scoped_get(&frames[..1], &vis, b), Some(&Value::from(2)));
    }

    #[test]
    fn truncate_undoes_writes_in_every_view() {
        let mut keys = KeyTable::default();
        let (a, b, c) = (keys.intern("a"), keys.intern("b"), keys.intern("c"));
        let mut vis = Visible::default();
        let mut root = Frame::new(WorkflowIdx(0), NodeIdx(0));
        root.push(entry(a, 1), 1, &mut vis);
        let mut child = Frame::new(WorkflowIdx(0), NodeIdx(0));
        child.push(entry(b, 2), 2, &mut vis);
        let before = (child.clone(), vis.clone());
        child.push(entry(a, 10), 2, &mut vis);
        child.push(entry(b, 20), 2, &mut vis);
        child.push(entry(c, 30), 2, &mut vis);
        child.truncate(1, 2, &mut vis);
        assert_eq!(child, before.0);
        assert_eq!(vis.0, before.1.0);
        let frames = [root, child];
        assert_eq!(scoped_get(&frames, &vis, a), Some(&Value::from(1)));
        assert_eq!(scoped_get(&frames, &vis, b), Some(&Value::from(2)));
        assert_eq!(scoped_get(&frames, &vis, c), None);
    }
}
