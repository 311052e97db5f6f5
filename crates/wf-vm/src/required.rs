//! The keys a run started at some node needs (`wfc run --from NODE`).
//!
//! The checker's data-flow analysis (WF0301, WF0302) proves that every
//! required read is written on every path from the entry. A run that starts
//! elsewhere skips the nodes before its start, so the same forward
//! must-analysis is run again on the IR, from the start node: a key is
//! *available* at a node when the workflow `needs` it (the caller's, or
//! here `--set`'s, value) or when every path from the start to the node
//! passes through a node that writes it (by `writes` or a call's return
//! map). What a node reads as required (`reads` without `?`), or a callee
//! needs at a `call` node, and is not available there must be given.
//!
//! Only the IR is read, so the runtime stays front-end free. Unlike the
//! checker's pass (a DAG, one visit per node) this one iterates to a
//! fixpoint, so an Attractor pipeline's cycles are handled: sets start full
//! and only shrink. Time O((N + E) · K) per round for K tracked keys, a
//! few rounds in practice.

use std::collections::VecDeque;

use wf_ir::{IrProgram, NodeIdx, Opcode, StrId, ValueType, WorkflowIdx};

/// A key a run started at some node must be given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiredKey {
    /// The key.
    pub key: String,
    /// The type it is declared with (`any` when nobody says).
    pub ty: ValueType,
    /// Who needs it: the workflow, or the first node (in node order).
    pub by: NeededBy,
}

/// Who needs a [`RequiredKey`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NeededBy {
    /// The workflow's `needs`: its inputs, wherever the run starts.
    Workflow,
    /// A node that reads it (not optionally).
    Read(String),
    /// A `call` node whose callee `needs` it.
    Call(String),
}

/// The keys a run of workflow `wf` that starts at `start` needs before
/// its first step, in a stable order (the workflow's `needs` first, then
/// by the first node that needs them). Keys with a reserved name are
/// left out (the runtime writes them).
pub fn required_from(program: &IrProgram, wf: WorkflowIdx, start: NodeIdx) -> Vec<RequiredKey> {
    let w = &program.workflows[wf.0 as usize];
    let n = w.nodes.len();
    let mut out: Vec<RequiredKey> = w
        .needs
        .iter()
        .map(|k| RequiredKey {
            key: program.str(k.key).to_owned(),
            ty: k.ty,
            by: NeededBy::Workflow,
        })
        .collect();
    let needs: Vec<StrId> = w.needs.iter().map(|k| k.key).collect();

    // Every key a node writes gets a bit (the sets are small: a workflow
    // writes tens of keys, not thousands).
    let mut bits: Vec<StrId> = Vec::new();
    let mut gen_bits: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, node) in w.nodes.iter().enumerate() {
        let returned = node.call.iter().flat_map(|c| &c.return_map);
        for key in node
            .writes
            .iter()
            .map(|k| k.key)
            .chain(returned.map(|r| r.parent))
        {
            let b = bits.iter().position(|&k| k == key).unwrap_or_else(|| {
                bits.push(key);
                bits.len() - 1
            });
            gen_bits[i].push(b);
        }
    }
    let successors = |v: usize| {
        let r = w.nodes[v].edges;
        w.edges[r.start as usize..(r.start + r.len) as usize]
            .iter()
            .map(|e| e.to.0 as usize)
    };

    // Forward must-analysis to a fixpoint: `incoming[v]` is `None` until a
    // predecessor reached from the start has been processed (top).
    let k = bits.len();
    let mut incoming: Vec<Option<Vec<bool>>> = vec![None; n];
    let s = start.0 as usize;
    incoming[s] = Some(vec![false; k]);
    let mut queue: VecDeque<usize> = VecDeque::from([s]);
    let mut queued = vec![false; n];
    queued[s] = true;
    while let Some(v) = queue.pop_front() {
        queued[v] = false;
        let mut set = incoming[v].clone().expect("queued nodes have a set");
        for &b in &gen_bits[v] {
            set[b] = true;
        }
        for t in successors(v) {
            // The start keeps its own set: an edge back into it is a loop,
            // and its first visit has only what the run was given.
            if t == s {
                continue;
            }
            let join = w.nodes[t].op == Opcode::Join;
            let changed = match &mut incoming[t] {
                slot @ None => {
                    *slot = Some(set.clone());
                    true
                }
                Some(old) => {
                    let mut changed = false;
                    for (o, &new) in old.iter_mut().zip(&set) {
                        // Every branch into a `join` has run when it
                        // fires: their writes are merged (a union).
                        let merged = if join { *o || new } else { *o && new };
                        changed |= merged != *o;
                        *o = merged;
                    }
                    changed
                }
            };
            if changed && !queued[t] {
                queued[t] = true;
                queue.push_back(t);
            }
        }
    }

    let available = |set: &[bool], key: StrId| {
        needs.contains(&key)
            || crate::contract::is_reserved(program.str(key))
            || bits.iter().position(|&b| b == key).is_some_and(|b| set[b])
    };
    for (v, set) in incoming.iter().enumerate() {
        let Some(set) = set else { continue };
        let node = &w.nodes[v];
        let callee_needs = node
            .call
            .iter()
            .flat_map(|c| &program.workflows[c.workflow.0 as usize].needs)
            .map(|k| (k.key, k.ty, true));
        let reads = node
            .reads
            .iter()
            .filter(|r| !r.optional)
            .map(|r| (r.key, declared_type(program, wf, r.key), false));
        for (key, ty, call) in reads.chain(callee_needs) {
            let name = program.str(key);
            if !available(set, key) && !out.iter().any(|r| r.key == name) {
                let id = program.str(node.id).to_owned();
                out.push(RequiredKey {
                    key: name.to_owned(),
                    ty,
                    by: if call {
                        NeededBy::Call(id)
                    } else {
                        NeededBy::Read(id)
                    },
                });
            }
        }
    }
    out
}

/// The type some node of `wf` writes `key` with, else `any`: what the
/// value given in its place must be.
fn declared_type(program: &IrProgram, wf: WorkflowIdx, key: StrId) -> ValueType {
    program.workflows[wf.0 as usize]
        .nodes
        .iter()
        .flat_map(|n| &n.writes)
        .find(|k| k.key == key && k.ty != ValueType::Any)
        .map_or(ValueType::Any, |k| k.ty)
}
