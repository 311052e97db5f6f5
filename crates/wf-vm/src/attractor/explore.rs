//! The dry run's way out of loops (`--agent auto`, docs/attractor.md,
//! "Dry runs").
//!
//! A simulated stage (a `codergen` stage without a backend, a tool under
//! `--tools simulate`, a handler type this engine does not know) reports
//! plain success the first time the run enters it, so a pipeline's first
//! pass is the path a successful run takes. When the run enters it again
//! (a loop), [`steer`] makes it report what a real stage could report to
//! leave the loop: the status (`success`, `partial_success`, `fail`,
//! `skipped`), the preferred label and the context updates that make the
//! conditions hold on the shortest way to an exit, through the
//! `conditional` and `start` nodes after it (which cannot choose), and it
//! names the edge. It is a function of the graph, the context and the
//! visit count: the same pipeline always runs the same way.
//!
//! When no exit can be reached at all (every way out needs an outcome no
//! handler returns, a key the engine owns, or a condition beyond `key op
//! value` tests), the stage fails with a reason that names the loop and
//! the conditions, instead of going round until `max_visits`.

mod clause;
mod diagnose;

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;
use wf_ir::{IrEdge, NodeIdx, Opcode};

use crate::agent::{DecisionContext, Outcome, Status, Write};
use clause::{At, Guard, Report};

/// What a node does with its outcome, for the planner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An exit, or a node no edge leaves (but a human gate): the run
    /// ends there.
    Goal,
    /// A simulated stage: reports what the planner chooses.
    Steered,
    /// Succeeds and lets the engine route (`start`, `conditional`).
    Passes,
    /// Decides by itself (a human gate, a fan-out, a manager).
    Decides,
}

/// The statuses a steered stage may report, in the order tried: a real
/// stage's `status.json` may say any of them (`retry` is not tried: it
/// runs the stage again).
const STEERED: &[&str] = &["success", "partial_success", "fail", "skipped"];
const SUCCESS: &[&str] = &["success"];
const GATE: &[&str] = &["success", "partial_success"];

/// The planner's view of one workflow.
struct Graph<'c, 'a> {
    ctx: &'c DecisionContext<'a>,
    /// The steered node's own writes, which the conditions will see.
    own: BTreeMap<String, Value>,
    kinds: Vec<Kind>,
    guards: Vec<Guard>,
}

impl<'c, 'a> Graph<'c, 'a> {
    fn new(ctx: &'c DecisionContext<'a>, writes: &[Write]) -> Self {
        let mut own: BTreeMap<String, Value> = writes
            .iter()
            .map(|w| (w.key.clone(), w.value.clone()))
            .collect();
        // A tool's standard output becomes `tool.output` (tool.rs).
        let stdout = format!("{}.stdout", ctx.str(ctx.node.id));
        if ctx.node.op == Opcode::Tool
            && let Some(out) = own.get(&stdout).cloned()
        {
            own.insert("tool.output".into(), out);
        }
        let w = ctx.workflow;
        let kinds = w
            .nodes
            .iter()
            .map(|n| {
                let ty = n.handler.map_or("codergen", |h| ctx.str(h));
                // A gate without choices fails the run (a loud halt):
                // no place to aim for.
                if n.op == Opcode::Exit || (n.edges.len == 0 && ty != "wait.human") {
                    Kind::Goal
                } else if n.op == Opcode::Tool
                    || ty == "codergen"
                    || !super::BUILT_IN_TYPES.contains(&ty)
                {
                    Kind::Steered
                } else if ty == "start" || ty == "conditional" {
                    Kind::Passes
                } else {
                    Kind::Decides
                }
            })
            .collect();
        let guards = w
            .edges
            .iter()
            .map(|e| clause::decode(ctx.program, e.guard.as_deref()))
            .collect();
        Graph {
            ctx,
            own,
            kinds,
            guards,
        }
    }

    fn id(&self, n: NodeIdx) -> &'a str {
        self.ctx
            .program
            .str(self.ctx.workflow.nodes[n.0 as usize].id)
    }

    fn edge(&self, e: usize) -> &'a IrEdge {
        &self.ctx.workflow.edges[e]
    }

    fn outgoing(&self, n: NodeIdx) -> std::ops::Range<usize> {
        let r = self.ctx.workflow.nodes[n.0 as usize].edges;
        r.start as usize..(r.start + r.len) as usize
    }

    fn is_tool(&self, n: NodeIdx) -> bool {
        self.ctx.workflow.nodes[n.0 as usize].op == Opcode::Tool
    }

    fn kind(&self, n: NodeIdx) -> Kind {
        self.kinds[n.0 as usize]
    }

    fn current(&self, key: &str) -> Option<Value> {
        match self.own.get(key) {
            Some(v) => Some(v.clone()),
            None => self.ctx.blackboard.get(key).cloned(),
        }
    }

    /// The statuses a node may end with, as the planner counts on them.
    fn statuses(&self, n: NodeIdx) -> &'static [&'static str] {
        match self.kind(n) {
            // A goal gate that fails sends the run back from the exit.
            Kind::Steered if self.ctx.workflow.nodes[n.0 as usize].engine.goal_gate => GATE,
            Kind::Steered => STEERED,
            _ => SUCCESS,
        }
    }

    /// The edge the engine takes when no condition holds and no edge is
    /// unconditional (seed 3.3's last step, `any_edge`): the highest
    /// weight, then the target id that sorts first.
    fn fallback(&self, n: NodeIdx) -> Option<usize> {
        if self.outgoing(n).any(|e| self.guards[e] == Guard::Always) {
            return None;
        }
        self.outgoing(n)
            .fold(None, |best: Option<usize>, e| match best {
                Some(b) if !self.better(e, b) => Some(b),
                _ => Some(e),
            })
    }

    /// Whether `e` wins over `b` in edge selection: weight, then target id.
    fn better(&self, e: usize, b: usize) -> bool {
        let (we, wb) = (self.edge(e).weight, self.edge(b).weight);
        we > wb || (we == wb && self.id(self.edge(e).to) < self.id(self.edge(b).to))
    }

    /// The edges the run may take out of `n`: those whose conditions can
    /// hold, and the fallback edge.
    fn ways(&self, n: NodeIdx) -> Vec<usize> {
        let fallback = self.fallback(n);
        self.outgoing(n)
            .filter(|&e| Some(e) == fallback || self.passable(e))
            .collect()
    }

    /// Whether edge `e` could ever be taken (see [`clause::possible`]).
    fn passable(&self, e: usize) -> bool {
        let from = self.edge(e).from;
        match &self.guards[e] {
            Guard::Always => true,
            Guard::Opaque => false,
            Guard::All(cs) => cs.iter().all(|c| {
                clause::possible(
                    c,
                    self.statuses(from),
                    self.kind(from) != Kind::Passes,
                    self.is_tool(from),
                    self.id(from),
                    &|k| self.current(k),
                )
            }),
        }
    }

    /// Each node's distance (in edges) to a goal over passable edges.
    fn distances(&self) -> Vec<Option<u32>> {
        let n = self.kinds.len();
        let mut dist = vec![None; n];
        let mut into: Vec<Vec<usize>> = vec![Vec::new(); n];
        for v in 0..n {
            for e in self.ways(NodeIdx(v as u32)) {
                into[self.edge(e).to.0 as usize].push(e);
            }
        }
        let mut queue = VecDeque::new();
        for (i, k) in self.kinds.iter().enumerate() {
            if *k == Kind::Goal {
                dist[i] = Some(0);
                queue.push_back(i);
            }
        }
        while let Some(v) = queue.pop_front() {
            let d = dist[v].unwrap_or(0) + 1;
            for &e in &into[v] {
                let from = self.edge(e).from.0 as usize;
                if dist[from].is_none() {
                    dist[from] = Some(d);
                    queue.push_back(from);
                }
            }
        }
        dist
    }
}

/// The steered node's plan: what it reports, the edge it names, and how
/// many edges from there to an exit.
struct Plan {
    cost: u32,
    report: Report,
    edge: usize,
    /// Whether the stage names the edge (else the engine's fallback
    /// takes it).
    named: bool,
}

/// Steers a simulated stage's `outcome` (a plain success) toward an exit
/// when the run enters the stage again (see the module's documentation).
/// Attractor workflows only; a first visit is left as it is.
pub fn steer(ctx: &DecisionContext<'_>, outcome: &mut Outcome) {
    if ctx.visit < 2
        || outcome.status != Status::Success
        || ctx.workflow.dialect != wf_ir::Dialect::Attractor
        || ctx.node.edges.len == 0
    {
        return;
    }
    let g = Graph::new(ctx, &outcome.writes);
    let dist = g.distances();
    match plan(&g, &dist) {
        Some(p) => apply(&g, p, outcome),
        None if dist[ctx.node_idx.0 as usize].is_none() => {
            *outcome = Outcome::failed(diagnose::why(&g));
        }
        // An exit is reachable on paper but not by one stage's report
        // (conflicting conditions on the way): the run goes on as the
        // engine routes a success.
        None => {}
    }
}

/// The plan at the current node: the cheapest way out on the node's
/// second visit; on later visits the next one, by cost then edge order,
/// round and round (the distances are optimistic, so the cheapest way
/// may lead back; trying each in turn finds one that does not).
fn plan(g: &Graph<'_, '_>, dist: &[Option<u32>]) -> Option<Plan> {
    let ctx = g.ctx;
    let here = ctx.node_idx;
    let at = At {
        node: g.id(here),
        fixed: None,
        gate: false,
        tool: g.is_tool(here),
    };
    let fallback = g.fallback(here);
    // The best plan through each edge.
    let mut per_edge: Vec<Plan> = Vec::new();
    for e in g.outgoing(here) {
        let mut best: Option<Plan> = None;
        for &name in g.statuses(here) {
            let status = match name {
                "success" => Status::Success,
                "partial_success" => Status::PartialSuccess,
                // Failure routing takes only conditions that hold for the
                // failure.
                "fail" if g.guards[e] != Guard::Always => Status::Fail,
                "skipped" => Status::Skipped,
                _ => continue,
            };
            let mut report = Report {
                status,
                label: None,
                writes: BTreeMap::new(),
            };
            let mut named = true;
            let ok = match &g.guards[e] {
                Guard::Always => true,
                Guard::Opaque => false,
                Guard::All(cs) => clause::satisfy(cs, &at, &mut report, &|k| g.current(k)).is_ok(),
            };
            if !ok {
                // The engine's last resort: no condition holds, and this
                // edge is the one it then takes.
                if Some(e) != fallback
                    || status == Status::Fail
                    || g.outgoing(here).any(|o| holds(g, o, &at, &report))
                {
                    continue;
                }
                named = false;
            }
            let mut seen = vec![here];
            let Some((cost, report)) = chain(g, dist, g.edge(e).to, report, 1, &mut seen) else {
                continue;
            };
            if best.as_ref().is_none_or(|b| cost < b.cost) {
                best = Some(Plan {
                    cost,
                    report,
                    edge: e,
                    named,
                });
            }
        }
        per_edge.extend(best);
    }
    per_edge.sort_by_key(|p| p.cost);
    let turn = (ctx.visit as usize).saturating_sub(2);
    let n = per_edge.len();
    (n > 0).then(|| per_edge.swap_remove(turn % n))
}

/// Whether edge `e`'s condition holds as things are with `report`, which
/// it may not change.
fn holds(g: &Graph<'_, '_>, e: usize, at: &At<'_>, report: &Report) -> bool {
    match &g.guards[e] {
        Guard::Always => true,
        Guard::Opaque => false,
        Guard::All(cs) => {
            let mut r = report.clone();
            clause::satisfy(cs, at, &mut r, &|k| g.current(k)).is_ok() && r == *report
        }
    }
}

/// From node `at` (reached in `depth` edges), the cost to an exit and the
/// report it needs: through nodes that pass, the edge the engine would
/// select must be one the report can make hold.
fn chain(
    g: &Graph<'_, '_>,
    dist: &[Option<u32>],
    at: NodeIdx,
    report: Report,
    depth: u32,
    seen: &mut Vec<NodeIdx>,
) -> Option<(u32, Report)> {
    match g.kind(at) {
        Kind::Goal => return Some((depth, report)),
        Kind::Steered | Kind::Decides => {
            return dist[at.0 as usize].map(|d| (depth + d, report));
        }
        Kind::Passes if depth > 16 || seen.contains(&at) => return None,
        Kind::Passes => {}
    }
    seen.push(at);
    let here = At {
        node: g.id(at),
        fixed: Some("success"),
        gate: false,
        tool: g.is_tool(g.ctx.node_idx),
    };
    let mut best: Option<(u32, Report)> = None;
    for e in g.outgoing(at) {
        let mut r = report.clone();
        let ok = match &g.guards[e] {
            Guard::Always => true,
            Guard::Opaque => false,
            Guard::All(cs) => clause::satisfy(cs, &here, &mut r, &|k| g.current(k)).is_ok(),
        };
        if !ok || selected(g, at, &here, &r) != Some(e) {
            continue;
        }
        if let Some(found) = chain(g, dist, g.edge(e).to, r, depth + 1, seen)
            && best.as_ref().is_none_or(|b| found.0 < b.0)
        {
            best = Some(found);
        }
    }
    seen.pop();
    best
}

/// The edge the engine selects at a node that passes when the context
/// holds `report`'s writes (`select.rs`: a condition that holds first,
/// then the unconditional edges; by weight, then target id). A condition
/// the planner cannot read counts as false.
fn selected(g: &Graph<'_, '_>, at: NodeIdx, here: &At<'_>, report: &Report) -> Option<usize> {
    let holds = |e: usize| holds(g, e, here, report);
    let better = |e: usize, b: usize| g.better(e, b);
    let pick = |cands: Vec<usize>| {
        cands
            .into_iter()
            .fold(None, |best: Option<usize>, e| match best {
                Some(b) if !better(e, b) => Some(b),
                _ => Some(e),
            })
    };
    let guarded: Vec<usize> = g
        .outgoing(at)
        .filter(|&e| g.guards[e] != Guard::Always && holds(e))
        .collect();
    if !guarded.is_empty() {
        return pick(guarded);
    }
    g.fallback(at).or_else(|| {
        pick(
            g.outgoing(at)
                .filter(|&e| g.guards[e] == Guard::Always)
                .collect(),
        )
    })
}

/// Turns the success into the plan's report.
fn apply(g: &Graph<'_, '_>, p: Plan, outcome: &mut Outcome) {
    let edge = g.edge(p.edge);
    let mut said = vec![format!("outcome {}", p.report.status.as_str())];
    if let Some(l) = &p.report.label {
        said.push(format!("label `{l}`"));
    }
    let stdout = format!("{}.stdout", g.id(g.ctx.node_idx));
    for (k, v) in &p.report.writes {
        // A tool reports its output as its standard output, which the
        // tool runner copies to `tool.output`.
        if k.trim_start_matches("context.") == "tool.output" {
            for w in outcome.writes.iter_mut().filter(|w| w.key == stdout) {
                w.value = v.clone();
            }
        }
        said.push(format!(
            "{k}={}",
            v.as_str().map_or(v.to_string(), str::to_string)
        ));
        outcome.writes.push(Write {
            key: k.clone(),
            value: v.clone(),
        });
    }
    let note = format!(
        "dry run: entered again, steered toward an exit by edge `{}` ({})",
        g.ctx.str(edge.id),
        said.join(", ")
    );
    outcome.status = p.report.status;
    if p.report.status == Status::Fail {
        outcome.failure_reason = Some(note.clone());
    }
    outcome.preferred_label = p.report.label;
    if p.named {
        outcome.edge = Some(g.ctx.str(edge.id).to_string());
    }
    outcome.notes = Some(match outcome.notes.take() {
        Some(n) => format!("{n}; {note}"),
        None => note,
    });
}
