//! Starting elsewhere: what a run from a node must be given
//! (`wf_vm::required`), and forks of a recorded run (`Engine::fork`).

use crate::common;

use common::*;
use serde_json::json;
use wf_ir::{Dialect, IrProgram, Opcode, ReadKey, ValueType, WorkflowIdx};
use wf_vm::agents::ScriptAgent;
use wf_vm::required::{NeededBy, required_from};
use wf_vm::{Engine, EngineConfig, ForkError, Origin, RunDir, RunStatus};

fn read(p: &mut Prog, w: WorkflowIdx, node: &str, key: &str) {
    let key = p.s(key);
    p.nm(w, node).reads.push(ReadKey {
        key,
        optional: false,
    });
}

/// The keys and who needs them, as `key@node` (`key@` for the workflow).
fn required(program: &IrProgram, node: &str) -> Vec<String> {
    let w = WorkflowIdx(0);
    let wf = &program.workflows[0];
    let start = wf
        .nodes
        .iter()
        .position(|n| program.str(n.id) == node)
        .unwrap();
    required_from(program, w, wf_ir::NodeIdx(start as u32))
        .into_iter()
        .map(|r| match r.by {
            NeededBy::Workflow => format!("{}@", r.key),
            NeededBy::Read(n) => format!("{}@{n}", r.key),
            NeededBy::Call(n) => format!("{}@call:{n}", r.key),
        })
        .collect()
}

/// A chain a → b → c → d: b writes `x`, d reads `x` and `y` (nobody
/// writes `y`), the workflow needs `t`; a call node `c` to a callee that
/// needs `z` and returns `w`, which d reads too.
fn chain() -> IrProgram {
    let mut p = Prog::new();
    let main = p.wf("main");
    let sub = p.wf("sub");
    p.chain(main, &["a", "b", "c", "d"]);
    p.writes(main, "b", "x", ValueType::Int);
    read(&mut p, main, "d", "x");
    read(&mut p, main, "d", "y");
    read(&mut p, main, "d", "w");
    read(&mut p, main, "d", "_reserved");
    let t = p.s("t");
    p.w(main).needs.push(wf_ir::KeyType {
        key: t,
        ty: ValueType::String,
    });
    p.chain(sub, &["s1"]);
    let z = p.s("z");
    p.w(sub).needs.push(wf_ir::KeyType {
        key: z,
        ty: ValueType::Int,
    });
    p.writes(sub, "s1", "out", ValueType::Any);
    p.call(main, "c", sub, &[("w", "out")]);
    p.build()
}

#[test]
fn a_run_from_a_node_needs_what_nothing_on_the_way_writes() {
    let p = chain();
    // From the entry: what the checker requires of the workflow (`y` is
    // written by nobody: the checker reports it, WF0301).
    assert_eq!(required(&p, "a"), ["t@", "z@call:c", "y@d"]);
    assert_eq!(required(&p, "b"), ["t@", "z@call:c", "y@d"]);
    // Past the writer of `x`: `x` must be given too.
    assert_eq!(required(&p, "c"), ["t@", "z@call:c", "x@d", "y@d"]);
    // Past the call: its return `w` too, but not the callee's need.
    assert_eq!(required(&p, "d"), ["t@", "x@d", "y@d", "w@d"]);
}

/// Only a write on *every* path counts: `k` written on one branch of
/// two is required at the node after them.
#[test]
fn a_key_written_on_one_branch_only_is_required() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b", "d"]);
    p.node(w, "c", Opcode::Step);
    p.edge(w, "a", "c");
    p.edge(w, "c", "d");
    p.writes(w, "b", "k", ValueType::Any);
    read(&mut p, w, "d", "k");
    let one = p.build();
    assert_eq!(required(&one, "a"), ["k@d"]);
    assert_eq!(required(&one, "b"), Vec::<String>::new());
}

/// A `join` runs after all its branches: what either wrote is there.
#[test]
fn a_join_has_what_every_branch_wrote() {
    let build = |op: Opcode| {
        let mut p = Prog::new();
        let w = p.wf("main");
        p.node(w, "fan", Opcode::Parallel);
        p.node(w, "x", Opcode::Step);
        p.node(w, "y", Opcode::Step);
        p.node(w, "j", op);
        p.node(w, "z", Opcode::Step);
        for (f, t) in [
            ("fan", "x"),
            ("fan", "y"),
            ("x", "j"),
            ("y", "j"),
            ("j", "z"),
        ] {
            p.edge(w, f, t);
        }
        p.writes(w, "x", "k1", ValueType::Any);
        p.writes(w, "y", "k2", ValueType::Any);
        read(&mut p, w, "z", "k1");
        read(&mut p, w, "z", "k2");
        p.build()
    };
    assert_eq!(required(&build(Opcode::Join), "fan"), Vec::<String>::new());
    assert_eq!(required(&build(Opcode::Branch), "fan"), ["k1@z", "k2@z"]);
}

/// A pipeline's loop: a key written later in the loop is not there the
/// first time round, and one written before the loop stays.
#[test]
fn loops_are_iterated_to_a_fixpoint() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b", "c"]);
    p.edge(w, "c", "a");
    p.w(w).dialect = Dialect::Attractor;
    p.writes(w, "c", "late", ValueType::Any);
    p.writes(w, "a", "early", ValueType::Any);
    read(&mut p, w, "b", "late");
    read(&mut p, w, "c", "early");
    let prog = p.build();
    assert_eq!(required(&prog, "a"), ["late@b"]);
    // From `b`: `late` at the start, and `early` at `c` on the first
    // round (`a` has not run yet).
    assert_eq!(required(&prog, "b"), ["late@b", "early@c"]);
}

/// The workflow of `persist.rs`: a call, writes and a human choice.
fn program() -> IrProgram {
    let mut p = Prog::new();
    let main = p.wf("main");
    let sub = p.wf("sub");
    p.chain(main, &["a", "sub", "ask"]);
    p.node(main, "yes", Opcode::Exit);
    p.node(main, "no", Opcode::Exit);
    let e = p.edge(main, "ask", "yes");
    p.label(main, e, "[Y] Yes");
    let e = p.edge(main, "ask", "no");
    p.label(main, e, "[N] No");
    p.nm(main, "ask").op = Opcode::Human;
    p.call(main, "sub", sub, &[("total", "sum")]);
    p.writes(main, "a", "n", ValueType::Int);
    p.chain(sub, &["s1", "s2", "s3"]);
    p.writes(sub, "s2", "sum", ValueType::Int);
    p.build()
}

fn script(suspend: bool) -> ScriptAgent {
    let mut ask = vec![json!("[N] No")];
    if suspend {
        ask.insert(0, json!({"type": "suspend", "reason": "awaiting a person"}));
    }
    ScriptAgent::from_json(&json!({
        "fallback": "auto",
        "nodes": {
            "a": [{"type": "advance", "status": "success", "writes": [{"key": "n", "value": 4}]}],
            "sub/s2": [{"type": "advance", "status": "success", "writes": [{"key": "sum", "value": 10}]}],
            "ask": ask,
        }
    }))
    .unwrap()
}

/// A fork at any step, given the answers the source was given from there,
/// ends as the source did, and replays; the source is never written.
#[test]
fn a_fork_at_every_step_ends_as_the_source_did() {
    let p = program();
    for suspend in [false, true] {
        let path = temp_dir("fork-source");
        let dir = RunDir::create(&path, &p, &json!({})).unwrap();
        let mut engine = Engine::new(&p, WorkflowIdx(0), EngineConfig::default()).unwrap();
        engine.persist_to(dir).unwrap();
        let mut agent = script(suspend);
        let mut source = engine.run(&mut agent);
        if suspend {
            assert!(matches!(source.status, RunStatus::Suspended { .. }));
            source = engine.run(&mut agent);
        }
        drop(engine);
        assert_eq!(source.status, RunStatus::Completed);
        let log = std::fs::read(path.join("log.jsonl")).unwrap();
        let read_only = RunDir::open_read_only(&path).unwrap();
        for at in 0..source.steps {
            let mut fork = Engine::fork(&p, &read_only, at, EngineConfig::default()).unwrap();
            assert_eq!(fork.steps(), at);
            let new = temp_dir("fork-new");
            let new_dir = RunDir::create(&new, &p, &json!({})).unwrap();
            let origin = Origin::Fork {
                dir: path.display().to_string(),
                step: at,
            };
            fork.persist_from(new_dir.clone(), origin.clone()).unwrap();
            // The fork's agent has the answers of the nodes still ahead.
            let mut agent = script(false);
            let report = fork.run(&mut agent);
            assert_eq!(report.status, source.status, "fork at {at}");
            // (The source's suspension took a step the fork may skip.)
            if !suspend {
                assert_eq!(report.steps, source.steps, "fork at {at}");
            }
            assert_eq!(report.blackboard, source.blackboard, "fork at {at}");
            drop(fork);
            assert_eq!(new_dir.read_start().unwrap().unwrap().origin, Some(origin));
            let replay = Engine::replay(&p, &RunDir::open_read_only(&new).unwrap()).unwrap();
            assert_eq!(replay.divergence, None, "fork at {at}");
            // A fork of the fork starts no earlier than its start.
            if at > 0 {
                let again = Engine::fork(
                    &p,
                    &RunDir::open_read_only(&new).unwrap(),
                    at - 1,
                    EngineConfig::default(),
                );
                assert!(
                    matches!(again, Err(ForkError::OutOfRange { first, .. }) if first == at),
                    "fork at {at}"
                );
            }
        }
        assert_eq!(std::fs::read(path.join("log.jsonl")).unwrap(), log);
        let past = Engine::fork(&p, &read_only, source.steps, EngineConfig::default());
        assert!(matches!(past, Err(ForkError::Ended { .. })));
        let beyond = Engine::fork(&p, &read_only, source.steps + 5, EngineConfig::default());
        assert!(
            matches!(beyond, Err(ForkError::OutOfRange { last, .. }) if last == source.steps - 1)
        );
    }
}

/// `start_from` moves the start, and only before anything happened.
#[test]
fn start_from_is_refused_once_inputs_are_set() {
    let p = program();
    let mut engine = Engine::new(&p, WorkflowIdx(0), EngineConfig::default()).unwrap();
    assert!(engine.start_from("nowhere").is_err());
    engine.start_from("ask").unwrap();
    assert_eq!(engine.position().1, wf_ir::NodeIdx(2));
    engine.set_input("n", json!(1)).unwrap();
    assert!(engine.start_from("a").is_err());
    let report = engine.run(&mut script(false));
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(report.at.unwrap().node, "no");
}
