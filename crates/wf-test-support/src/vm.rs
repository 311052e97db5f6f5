//! Builds IR programs by hand for engine tests and benchmarks (until
//! `wf_ir::compile` exists, and for shapes no source format produces).
#![allow(dead_code)]

use std::collections::HashMap;

use serde_json::{Map, Value};
use wf_ir::*;
use wf_vm::{Decision, Outcome, RunStatus, Write};

/// A program under construction.
#[derive(Default)]
pub struct Prog {
    strings: Vec<String>,
    ids: HashMap<String, StrId>,
    wfs: Vec<IrWorkflow>,
    /// Node index by workflow and id: `n` is called per edge, and a linear
    /// search made building a 200,000-node chain quadratic.
    nodes: HashMap<(u32, StrId), NodeIdx>,
}

impl Prog {
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns a string.
    pub fn s(&mut self, x: &str) -> StrId {
        if let Some(&id) = self.ids.get(x) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(x.to_owned());
        self.ids.insert(x.to_owned(), id);
        id
    }

    /// A new empty workflow (its entry is its first node).
    pub fn wf(&mut self, name: &str) -> WorkflowIdx {
        let name = self.s(name);
        self.wfs.push(IrWorkflow {
            name,
            entry: NodeIdx(0),
            needs: vec![],
            gives: vec![],
            goal: None,
            label: None,
            limits: Limits::default(),
            retry_target: None,
            fallback_retry_target: None,
            spec: Map::new(),
            templates: Default::default(),
            nodes: vec![],
            edges: vec![],
            dialect: Default::default(),
        });
        WorkflowIdx(self.wfs.len() as u32 - 1)
    }

    pub fn w(&mut self, w: WorkflowIdx) -> &mut IrWorkflow {
        &mut self.wfs[w.0 as usize]
    }

    /// Adds a node. A `step` gets a spec (`{"task": ID}`): it is work the
    /// agent is asked to do, as the tests built on it expect, not a bare
    /// routing node the engine passes alone (docs/runtime.md, 3.1).
    pub fn node(&mut self, w: WorkflowIdx, id: &str, op: Opcode) -> NodeIdx {
        let mut spec = Map::new();
        if op == Opcode::Step {
            spec.insert("task".into(), Value::from(id));
        }
        let id = self.s(id);
        let wf = &mut self.wfs[w.0 as usize];
        let idx = NodeIdx(wf.nodes.len() as u32);
        self.nodes.entry((w.0, id)).or_insert(idx);
        wf.nodes.push(IrNode {
            id,
            op,
            label: None,
            spec,
            engine: EngineAttrs::default(),
            templates: Default::default(),
            reads: vec![],
            writes: vec![],
            call: None,
            edges: EdgeRange::default(),
            handler: None,
        });
        NodeIdx(wf.nodes.len() as u32 - 1)
    }

    /// The node with this id.
    pub fn n(&mut self, w: WorkflowIdx, id: &str) -> NodeIdx {
        let id = self.s(id);
        *self
            .nodes
            .get(&(w.0, id))
            .unwrap_or_else(|| panic!("no node {id:?}"))
    }

    pub fn nm(&mut self, w: WorkflowIdx, id: &str) -> &mut IrNode {
        let n = self.n(w, id);
        &mut self.wfs[w.0 as usize].nodes[n.0 as usize]
    }

    /// Declares a write with its type.
    pub fn writes(&mut self, w: WorkflowIdx, id: &str, key: &str, ty: ValueType) {
        let key = self.s(key);
        self.nm(w, id).writes.push(KeyType { key, ty });
    }

    /// Sets a spec value.
    pub fn spec(&mut self, w: WorkflowIdx, id: &str, key: &str, v: Value) {
        self.nm(w, id).spec.insert(key.to_owned(), v);
    }

    /// Makes `id` a call node of `callee` with `parent <- child` mappings.
    pub fn call(&mut self, w: WorkflowIdx, id: &str, callee: WorkflowIdx, map: &[(&str, &str)]) {
        let return_map = map
            .iter()
            .map(|(p, c)| ReturnMapping {
                parent: self.s(p),
                child: self.s(c),
            })
            .collect();
        let n = self.nm(w, id);
        n.op = Opcode::Call;
        n.call = Some(IrCall {
            workflow: callee,
            return_map,
        });
    }

    /// Adds an edge (id `from->to` unless given); returns its index in
    /// insertion order (before grouping).
    pub fn edge(&mut self, w: WorkflowIdx, from: &str, to: &str) -> usize {
        let (f, t) = (self.n(w, from), self.n(w, to));
        let id = self.s(&format!("{from}->{to}"));
        let wf = &mut self.wfs[w.0 as usize];
        wf.edges.push(IrEdge {
            id,
            from: f,
            to: t,
            label: None,
            weight: 0,
            guard: None,
            spec: Map::new(),
        });
        wf.edges.len() - 1
    }

    pub fn em(&mut self, w: WorkflowIdx, e: usize) -> &mut IrEdge {
        &mut self.wfs[w.0 as usize].edges[e]
    }

    pub fn edge_id(&mut self, w: WorkflowIdx, e: usize, id: &str) {
        let id = self.s(id);
        self.em(w, e).id = id;
    }

    pub fn label(&mut self, w: WorkflowIdx, e: usize, label: &str) {
        let l = self.s(label);
        self.em(w, e).label = Some(l);
    }

    pub fn guard(&mut self, w: WorkflowIdx, e: usize, code: Vec<Insn>) {
        self.em(w, e).guard = Some(code);
    }

    /// Step nodes `ids[0] -> ids[1] -> …` (nodes created when missing).
    pub fn chain(&mut self, w: WorkflowIdx, ids: &[&str]) {
        for id in ids {
            let sid = self.s(id);
            if !self.nodes.contains_key(&(w.0, sid)) {
                self.node(w, id, Opcode::Step);
            }
        }
        for pair in ids.windows(2) {
            self.edge(w, pair[0], pair[1]);
        }
    }

    /// Groups edges by source node and fills the ranges.
    pub fn build(mut self) -> IrProgram {
        for wf in &mut self.wfs {
            wf.edges.sort_by_key(|e| e.from);
            for n in &mut wf.nodes {
                n.edges = EdgeRange::default();
            }
            for (i, e) in wf.edges.iter().enumerate() {
                let r = &mut wf.nodes[e.from.0 as usize].edges;
                if r.len == 0 {
                    r.start = i as u32;
                }
                r.len += 1;
            }
        }
        IrProgram {
            format: FORMAT.to_owned(),
            version: VERSION,
            strings: self.strings,
            workflows: self.wfs,
        }
    }
}

/// A linear workflow of `n` step nodes, each declaring one `int` write
/// when `writes` (for blackboard-size-independence measurements).
pub fn linear(n: usize, writes: bool) -> IrProgram {
    let mut p = Prog::new();
    let w = p.wf("linear");
    let ids: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    p.chain(w, &refs);
    if writes {
        for id in &ids {
            p.writes(w, id, &format!("k.{id}"), ValueType::Int);
        }
    }
    p.build()
}

/// A workflow that calls itself: `start -> again` while `stop` is in no
/// scope, `start -> done` once it is; `again` calls the workflow itself and
/// maps `result <- result`. The agent decides the depth by writing `stop`.
pub fn recursive() -> IrProgram {
    let mut p = Prog::new();
    let w = p.wf("rec");
    p.node(w, "start", Opcode::Step);
    p.node(w, "again", Opcode::Call);
    p.node(w, "done", Opcode::Exit);
    let e1 = p.edge(w, "start", "again");
    let e2 = p.edge(w, "start", "done");
    let stop = p.s("stop");
    p.guard(w, e1, vec![Insn::Exists(stop), Insn::Not]);
    p.guard(w, e2, vec![Insn::Exists(stop)]);
    p.edge(w, "again", "done");
    p.call(w, "again", w, &[("result", "result")]);
    // `done` writes the result: declared, so the agent is asked there (an
    // exit without writes completes alone, docs/runtime.md 3.1).
    p.writes(w, "done", "result", ValueType::Int);
    p.build()
}

/// `depth` workflows `w0 … w{depth-1}`: each is `start -> sub -> done`
/// where `sub` calls the next one (the last one's `sub` is a step), so one
/// run nests calls `depth` deep with the `auto` agent.
pub fn nested(depth: usize) -> IrProgram {
    let mut p = Prog::new();
    let ws: Vec<WorkflowIdx> = (0..depth).map(|i| p.wf(&format!("w{i}"))).collect();
    for (i, &w) in ws.iter().enumerate() {
        p.chain(w, &["start", "sub", "done"]);
        if let Some(&next) = ws.get(i + 1) {
            p.call(w, "sub", next, &[]);
        }
    }
    p.build()
}

/// An agent from a closure.
pub struct FnAgent<F>(pub F);

impl<F> wf_vm::DecisionAgent for FnAgent<F>
where
    F: FnMut(&wf_vm::DecisionContext<'_>) -> Result<wf_vm::Decision, wf_vm::AgentError>,
{
    fn decide(
        &mut self,
        ctx: &wf_vm::DecisionContext<'_>,
    ) -> Result<wf_vm::Decision, wf_vm::AgentError> {
        (self.0)(ctx)
    }
}

/// `agent`, declaring itself instant (as `auto`, `rules` and `script` do):
/// the engine does not time its decisions.
pub struct InstantAgent<A>(pub A);

impl<A: wf_vm::DecisionAgent> wf_vm::DecisionAgent for InstantAgent<A> {
    fn decide(
        &mut self,
        ctx: &wf_vm::DecisionContext<'_>,
    ) -> Result<wf_vm::Decision, wf_vm::AgentError> {
        self.0.decide(ctx)
    }

    fn is_instant(&self) -> bool {
        true
    }
}

/// One event as a short line: `enter W/N`, `exit W/N status`, `edge ID`,
/// `write W/N k=v …`, `push W`, `pop W`, `retry W/N #attempt`, `complete`,
/// `suspend REASON`, `error REASON`.
pub fn brief(e: &Value) -> String {
    let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("?").to_owned();
    let wn = || format!("{}/{}", s("workflow"), s("node"));
    match s("event").as_str() {
        "node:enter" => format!("enter {}", wn()),
        "node:exit" => format!("exit {} {}", wn(), s("status")),
        "edge:traverse" => format!("edge {}", s("edge")),
        "blackboard:write" => {
            let writes: Vec<String> = e["writes"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|w| format!("{}={}", w["key"].as_str().unwrap_or("?"), w["value"]))
                        .collect()
                })
                .unwrap_or_default();
            format!("write {} {}", wn(), writes.join(" "))
        }
        "workflow:push" => format!("push {}", s("workflow")),
        "workflow:pop" => format!("pop {}", s("workflow")),
        "node:retry" => format!("retry {} #{}", wn(), e["attempt"]),
        "engine:complete" => "complete".into(),
        "engine:suspend" => format!("suspend {}", s("reason")),
        "engine:error" => format!("error {}", s("reason")),
        other => other.to_owned(),
    }
}

/// Runs `program`'s first workflow with `agent` and collects the events.
pub fn run_collect(
    program: &IrProgram,
    config: wf_vm::EngineConfig,
    agent: &mut dyn wf_vm::DecisionAgent,
) -> (wf_vm::Report, Vec<String>) {
    let sink = wf_vm::CollectSink::default();
    let mut engine = wf_vm::Engine::new(program, WorkflowIdx(0), config).expect("engine builds");
    engine.set_event_sink(Box::new(sink.clone()));
    engine.set_sleeper(Box::new(|_| {}));
    let report = engine.run(agent);
    (report, sink.events().iter().map(brief).collect())
}

/// A unique empty temporary directory.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "wf-vm-test-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

pub fn advance(edge: Option<&str>, writes: &[(&str, Value)]) -> Decision {
    Decision::Advance(Outcome {
        edge: edge.map(str::to_owned),
        writes: writes
            .iter()
            .map(|(k, v)| Write {
                key: (*k).to_owned(),
                value: v.clone(),
            })
            .collect(),
        ..Outcome::success()
    })
}

pub fn failed_reason(status: &RunStatus) -> &str {
    match status {
        RunStatus::Failed { reason } => reason,
        other => panic!("expected a failed run, got {other:?}"),
    }
}
