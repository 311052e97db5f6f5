//! A small hand-built program and blackboard for the unit tests of tools
//! and agents, so they do not depend on the compiler.

use serde_json::{Map, Value, json};
use wf_ir::{
    EdgeIdx, EdgeRange, EngineAttrs, IrEdge, IrNode, IrProgram, IrWorkflow, Limits, NodeIdx,
    Opcode, StrId, WorkflowIdx,
};

use crate::agent::{BlackboardView, DecisionContext};

static DEFAULT_CONFIG: std::sync::LazyLock<crate::EngineConfig> =
    std::sync::LazyLock::new(crate::EngineConfig::default);

/// A flat blackboard: one frame.
pub(crate) struct Board(pub Vec<(String, Value)>);

impl BlackboardView for Board {
    fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    fn keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = Vec::new();
        for (k, _) in self.0.iter().rev() {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
        keys
    }
    fn local(&self) -> Vec<(&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v)).collect()
    }
}

/// Workflow `Demo`: `run` (tool) → `ask` (human, choices `[A] Approve` to
/// `done` and `[R] Reject` to `stop`) ; `done` and `stop` are exits.
pub(crate) fn program() -> IrProgram {
    let strings: Vec<String> = [
        "Demo",
        "run",
        "ask",
        "done",
        "stop",
        "Ship it?",
        "[A] Approve",
        "[R] Reject",
        "run->ask",
        "ask->done",
        "ask->stop",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let node = |id: u32, op, label: Option<u32>, start, len, spec: Map<String, Value>| IrNode {
        id: StrId(id),
        op,
        label: label.map(StrId),
        spec,
        engine: EngineAttrs::default(),
        templates: Default::default(),
        reads: Vec::new(),
        writes: Vec::new(),
        call: None,
        edges: EdgeRange { start, len },
        handler: None,
    };
    let edge = |id: u32, from, to, label: Option<u32>| IrEdge {
        id: StrId(id),
        from: NodeIdx(from),
        to: NodeIdx(to),
        label: label.map(StrId),
        weight: 0,
        guard: None,
        spec: Map::new(),
    };
    let mut run_spec = Map::new();
    run_spec.insert("env".into(), json!({"GREETING": "hi", "COUNT": 3}));
    let mut ask_spec = Map::new();
    ask_spec.insert("prompt".into(), json!("Ship?"));
    IrProgram {
        format: wf_ir::FORMAT.into(),
        version: wf_ir::VERSION,
        strings,
        workflows: vec![IrWorkflow {
            name: StrId(0),
            entry: NodeIdx(0),
            needs: Vec::new(),
            gives: Vec::new(),
            goal: None,
            label: None,
            limits: Limits::default(),
            retry_target: None,
            fallback_retry_target: None,
            spec: Map::new(),
            templates: Default::default(),
            nodes: vec![
                node(1, Opcode::Tool, None, 0, 1, run_spec),
                node(2, Opcode::Human, Some(5), 1, 2, ask_spec),
                node(3, Opcode::Exit, None, 3, 0, Map::new()),
                node(4, Opcode::Exit, None, 3, 0, Map::new()),
            ],
            edges: vec![
                edge(8, 0, 1, None),
                edge(9, 1, 2, Some(6)),
                edge(10, 1, 3, Some(7)),
            ],
            dialect: Default::default(),
        }],
    }
}

/// Every outgoing edge of `node` counts as valid.
pub(crate) fn all_edges(program: &IrProgram, node: u32) -> Vec<EdgeIdx> {
    let range = program.workflows[0].nodes[node as usize].edges;
    (range.start..range.start + range.len)
        .map(EdgeIdx)
        .collect()
}

/// The context at `node` of [`program`].
pub(crate) fn context<'a>(
    program: &'a IrProgram,
    node: u32,
    board: &'a Board,
    valid: &'a [EdgeIdx],
) -> DecisionContext<'a> {
    let workflow = &program.workflows[0];
    DecisionContext {
        incoming_edge: None,
        program,
        workflow_idx: WorkflowIdx(0),
        workflow,
        node_idx: NodeIdx(node),
        node: &workflow.nodes[node as usize],
        blackboard: board,
        valid_edges: valid,
        depth: 1,
        attempt: 1,
        step: 7,
        visit: 1,
        config: &DEFAULT_CONFIG,
        limits: &DEFAULT_CONFIG.limits,
        elapsed: std::time::Duration::ZERO,
        fan_keys: None,
        fan_effects: None,
    }
}
