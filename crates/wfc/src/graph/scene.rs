//! What a graph picture shows, independent of the output syntax: one
//! cluster per rendered workflow, its nodes and edges with their display
//! text, and where each `call` node leads.

use wf_analysis::graph::{Adjacency, analyze};
use wf_analysis::guards::expr_label;
use wf_model::{NodeKind, Program, SourceFormat, Workflow};

/// Everything a renderer draws, in a fixed order (workflows, then nodes and
/// edges in model order), so the output is deterministic.
#[derive(Debug)]
pub struct Scene {
    /// One cluster per rendered workflow.
    pub clusters: Vec<Cluster>,
    /// Called workflows that are not rendered (in another file, or left out
    /// by `--workflow`, or unknown), drawn as one stub node each.
    pub externals: Vec<External>,
}

/// One workflow.
#[derive(Debug)]
pub struct Cluster {
    /// The workflow's name.
    pub name: String,
    /// Its `label` attribute, when it has one.
    pub label: Option<String>,
    /// Its nodes, in model order.
    pub nodes: Vec<SceneNode>,
    /// Its edges, in source order.
    pub edges: Vec<SceneEdge>,
    /// Index of the entry node, when it resolves.
    pub entry: Option<usize>,
}

/// One node of a cluster.
#[derive(Debug)]
pub struct SceneNode {
    /// The node id.
    pub name: String,
    /// Its kind, which picks the shape.
    pub kind: NodeKind,
    /// Its label, when it has one.
    pub label: Option<String>,
    /// True when a run can complete here.
    pub terminal: bool,
    /// For a `call` node, what it calls.
    pub call: Option<CallTarget>,
}

/// Where a `call` node leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallTarget {
    /// A rendered workflow: the cluster's index.
    Cluster(usize),
    /// A stub: the index in [`Scene::externals`].
    External(usize),
}

/// One edge of a cluster.
#[derive(Debug)]
pub struct SceneEdge {
    /// Source node index.
    pub from: usize,
    /// Target node index.
    pub to: usize,
    /// The edge label, when it has one.
    pub label: Option<String>,
    /// The guard as `.wf` source text, when it has one.
    pub guard: Option<String>,
}

impl SceneEdge {
    /// The lines of text an edge shows: its label, then `when GUARD`.
    pub fn text_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        lines.extend(self.label.clone());
        lines.extend(self.guard.as_ref().map(|g| format!("when {g}")));
        lines
    }
}

/// A called workflow that is not rendered.
#[derive(Debug)]
pub struct External {
    /// The workflow's name.
    pub name: String,
    /// Where it is defined (a path), or `None` when no loaded file defines it.
    pub file: Option<String>,
}

/// Builds the scene of `selected` (indices into `program.workflows`);
/// `file_path` names a workflow's file for external stubs.
pub fn build(
    program: &Program,
    selected: &[usize],
    file_path: &dyn Fn(&Workflow) -> String,
) -> Scene {
    let mut scene = Scene {
        clusters: Vec::with_capacity(selected.len()),
        externals: Vec::new(),
    };
    for &index in selected {
        let workflow = &program.workflows[index];
        let cluster = cluster(program, selected, workflow, &mut scene.externals, file_path);
        scene.clusters.push(cluster);
    }
    scene
}

fn cluster(
    program: &Program,
    selected: &[usize],
    workflow: &Workflow,
    externals: &mut Vec<External>,
    file_path: &dyn Fn(&Workflow) -> String,
) -> Cluster {
    let facts = analyze(workflow);
    let adjacency: &Adjacency = &facts.adjacency;
    let nodes = workflow
        .node_ids()
        .map(|id| {
            let node = workflow.node(id);
            // Attractor pipelines complete only at exit nodes; elsewhere any
            // node without outgoing edges is a terminal.
            let terminal = node.kind == NodeKind::Exit
                || (workflow.format != SourceFormat::Dot && adjacency.outgoing(id).is_empty());
            let call = node
                .call
                .as_ref()
                .map(|call| target(program, selected, &call.workflow, externals, file_path));
            SceneNode {
                name: node.name.clone(),
                kind: node.kind,
                // `start [label="Start"]` says nothing the name does not.
                label: node
                    .label
                    .clone()
                    .filter(|l| !l.eq_ignore_ascii_case(&node.name)),
                terminal,
                call,
            }
        })
        .collect();
    let edges = workflow
        .edges
        .iter()
        .map(|edge| SceneEdge {
            from: edge.from.index(),
            to: edge.to.index(),
            label: edge.label.clone(),
            guard: edge.guard.as_ref().map(|g| expr_label(&g.expr)),
        })
        .collect();
    let label = workflow
        .attributes
        .iter()
        .find_map(|a| match (&*a.key, &a.value) {
            ("label", wf_model::Value::String(s)) if !s.is_empty() && *s != workflow.name => {
                Some(s.clone())
            }
            _ => None,
        });
    Cluster {
        name: workflow.name.clone(),
        label,
        nodes,
        edges,
        entry: facts.entry.node().map(|n| n.index()),
    }
}

/// The cluster a call leads to, or a (shared) stub for its callee.
fn target(
    program: &Program,
    selected: &[usize],
    callee: &str,
    externals: &mut Vec<External>,
    file_path: &dyn Fn(&Workflow) -> String,
) -> CallTarget {
    if let Some(position) = selected
        .iter()
        .position(|&i| program.workflows[i].name == callee)
    {
        return CallTarget::Cluster(position);
    }
    if let Some(existing) = externals.iter().position(|e| e.name == callee) {
        return CallTarget::External(existing);
    }
    let file = program.workflow(callee).map(file_path);
    externals.push(External {
        name: callee.to_owned(),
        file,
    });
    CallTarget::External(externals.len() - 1)
}
