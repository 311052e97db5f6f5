//! The data-flow checks (WF0301-WF0304, WF0306 across calls, WF0308) as
//! per-workflow queries.
//!
//! A workflow's data flow depends on its own shape and graph facts, on
//! small span-free summaries of its callees (their `needs` keys, their
//! [`Interface`], their [`Guarantees`]) and on the keys its callers
//! request, never on the whole program; a callee's model (with spans) is
//! read only to point a diagnostic into it. Calls resolve through import
//! visibility ([`call_targets`]): a call that is WF0104 has no callee here,
//! so it gets no data-flow diagnostics too.
//!
//! The recursion check (WF0308) reads the span-free [`call_graph`], and the
//! graphs of only the workflows reachable from a call cycle, so an edit
//! that changes no call does not re-run it.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use salsa::Database as Db;
use wf_diagnostics::Diagnostic;
use wf_model::NodeId;

use super::queries::{
    ImportTarget, WorkflowId, file_workflows, graph_facts, import_targets, workflow_model,
    workflow_names, workflow_shape,
};
use super::{Project, RequestMap, SourceFile};
use crate::dataflow::{self, CalleeView, FlowFacts, Guarantees, Interface, recursion};

/// The workflow each name a `call` in `file` may use leads to: the file's
/// own workflows and those of the files it imports directly. A name defined
/// by several of them (WF0101) leads to the definition in the earliest
/// file. Span-free.
#[salsa::tracked(returns(ref))]
pub fn call_targets<'db>(
    db: &'db dyn Db,
    project: Project,
    file: SourceFile,
) -> BTreeMap<String, WorkflowId<'db>> {
    if super::formats::front_end(file.path(db)) == super::formats::FrontEnd::Reflex {
        // Reflex's flat registry: the first definition of each name.
        return super::queries::published_names(db, project)
            .iter()
            .map(|(name, files)| (name.clone(), WorkflowId::new(db, files[0], name.clone(), 0)))
            .collect();
    }
    let mut files = vec![file];
    for target in import_targets(db, project, file) {
        if let ImportTarget::File(imported) = target {
            files.push(*imported);
        }
    }
    files.sort_by_key(|f| f.id(db));
    files.dedup();
    let mut out = BTreeMap::new();
    for f in files {
        for name in workflow_names(db, f) {
            out.entry(name.clone())
                .or_insert_with(|| WorkflowId::new(db, f, name.clone(), 0));
        }
    }
    out
}

/// One `call` node of a workflow.
#[derive(Debug, Clone, PartialEq, Eq, salsa::SalsaValue)]
pub struct CallSite<'db> {
    /// The call node.
    pub node: NodeId,
    /// The workflow it invokes, when visible from the caller's file.
    pub callee: Option<WorkflowId<'db>>,
    /// Whether the node is reachable from the entry.
    pub reachable: bool,
    /// The keys its return map takes from the callee.
    pub children: Vec<String>,
}

/// The call nodes of one workflow, resolved. Span-free: unchanged by edits
/// that move text or change no call.
#[salsa::tracked(returns(ref))]
pub fn workflow_calls<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Vec<CallSite<'db>> {
    let shape = workflow_shape(db, id);
    if !shape.nodes.iter().any(|n| n.call.is_some()) {
        return Vec::new();
    }
    let targets = call_targets(db, Project::get(db), id.file(db));
    let reachable = graph_facts(db, id).reachable.clone();
    shape
        .node_ids()
        .filter_map(|v| {
            let call = shape.node(v).call.as_ref()?;
            Some(CallSite {
                node: v,
                callee: targets.get(&call.workflow).copied(),
                reachable: reachable.as_ref().is_some_and(|r| r[v.index()]),
                children: call.return_map.iter().map(|e| e.child.clone()).collect(),
            })
        })
        .collect()
}

/// Every workflow of the project, in file then source order.
fn all_workflows(db: &dyn Db, project: Project) -> impl Iterator<Item = WorkflowId<'_>> {
    project
        .files(db)
        .iter()
        .flat_map(move |&file| file_workflows(db, file).iter().copied())
}

/// Per workflow, by (file, name, occurrence), the keys its callers' return
/// maps take from it (sorted, deduplicated). O(calls of the project) when
/// a call changes; validated in O(workflows) otherwise.
#[salsa::tracked(returns(ref))]
pub fn call_requests(db: &dyn Db, project: Project) -> RequestMap {
    let mut out = RequestMap::default();
    for id in all_workflows(db, project) {
        for site in workflow_calls(db, id) {
            if let Some(callee) = site.callee {
                out.entry(request_key(db, callee))
                    .or_default()
                    .extend(site.children.iter().cloned());
            }
        }
    }
    for keys in out.values_mut() {
        keys.sort_unstable();
        keys.dedup();
    }
    out
}

/// The key of a workflow in a [`RequestMap`].
fn request_key(db: &dyn Db, id: WorkflowId<'_>) -> (SourceFile, String, u32) {
    (id.file(db), id.name(db).clone(), id.occurrence(db))
}

/// The keys callers request from one workflow: backdated unless they
/// change, so a call edit elsewhere does not re-run this workflow's flow.
#[salsa::tracked(returns(ref))]
pub fn requested_keys<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Vec<String> {
    // The published copy (see `Published`) keeps this query's durability.
    let requests = match super::Published::get(db).requests(db) {
        Some(requests) => requests,
        None => call_requests(db, Project::get(db)),
    };
    requests
        .get(&request_key(db, id))
        .cloned()
        .unwrap_or_default()
}

/// What callers see of a workflow (needs, gives, key types), span-free.
#[salsa::tracked(returns(ref))]
pub fn workflow_interface<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Arc<Interface> {
    Arc::new(dataflow::interface(workflow_model(db, id)))
}

/// The `needs` keys of a workflow: all its callers' flow analysis reads.
#[salsa::tracked(returns(ref))]
pub fn workflow_needs<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Vec<String> {
    workflow_interface(db, id).need_keys.clone()
}

/// The callee of each resolved call node of a workflow.
fn callees<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> HashMap<NodeId, WorkflowId<'db>> {
    workflow_calls(db, id)
        .iter()
        .filter_map(|s| Some((s.node, s.callee?)))
        .collect()
}

/// The must-analysis of one workflow with its witness paths (see
/// [`dataflow::flow_facts`]), from its span-free shape: a whitespace edit
/// does not re-run it, nor does any edit of another workflow that keeps
/// its callees' `needs` and the keys its callers request.
#[salsa::tracked(returns(ref))]
pub fn flow_analysis<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Arc<FlowFacts> {
    let shape = workflow_shape(db, id);
    let facts = graph_facts(db, id);
    let callees = callees(db, id);
    let requested = requested_keys(db, id);
    let requested: Vec<&str> = requested.iter().map(String::as_str).collect();
    let needs = |v: NodeId| callees.get(&v).map(|&c| workflow_needs(db, c).as_slice());
    Arc::new(dataflow::flow_facts(shape, facts, needs, &requested))
}

/// What a workflow guarantees its callers on completion, span-free.
#[salsa::tracked(returns(ref))]
pub fn workflow_guarantees<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Arc<Guarantees> {
    let requested = requested_keys(db, id);
    let requested: Vec<&str> = requested.iter().map(String::as_str).collect();
    Arc::new(dataflow::guarantees(
        workflow_shape(db, id),
        flow_analysis(db, id),
        &requested,
    ))
}

/// WF0301-WF0304 and WF0306 across calls for one workflow: its memoised
/// flow analysis and its callees' summaries turned into diagnostics with
/// spans. Reads a callee's model only to report into it.
#[salsa::tracked(returns(ref))]
pub fn workflow_dataflow<'db>(db: &'db dyn Db, id: WorkflowId<'db>) -> Vec<Diagnostic> {
    let callees = callees(db, id);
    dataflow::check_calls(
        workflow_model(db, id),
        flow_analysis(db, id),
        |v| {
            callees.get(&v).map(|&c| CalleeView {
                interface: workflow_interface(db, c),
                guarantees: workflow_guarantees(db, c),
            })
        },
        |v| callees.get(&v).map(|&c| &**workflow_model(db, c)),
    )
}

/// A workflow and its reachable calls to visible workflows: (call node
/// index, callee).
pub type CallEdges<'db> = (WorkflowId<'db>, Vec<(u32, WorkflowId<'db>)>);

/// The span-free call graph: every workflow with reachable calls to
/// visible workflows, with those calls (node, callee), in project order.
#[salsa::tracked(returns(ref))]
pub fn call_graph<'db>(db: &'db dyn Db, project: Project) -> Vec<CallEdges<'db>> {
    all_workflows(db, project)
        .filter_map(|id| {
            let calls: Vec<(u32, WorkflowId<'db>)> = workflow_calls(db, id)
                .iter()
                .filter(|s| s.reachable)
                .filter_map(|s| Some((s.node.0, s.callee?)))
                .collect();
            (!calls.is_empty()).then_some((id, calls))
        })
        .collect()
}

/// WF0308 (see [`recursion`]). Only workflows on a call cycle can be
/// reported, and only the workflows reachable from one in the call graph
/// decide it, so only their graphs are read: an edit that changes no call
/// and no workflow of a recursion does not re-run this.
#[salsa::tracked(returns(ref))]
pub fn recursion_diagnostics(db: &dyn Db, project: Project) -> Vec<Diagnostic> {
    let graph = call_graph(db, project);
    let edges: HashMap<WorkflowId<'_>, &[(u32, WorkflowId<'_>)]> = graph
        .iter()
        .map(|(id, calls)| (*id, calls.as_slice()))
        .collect();
    let relevant = reachable_from_cycles(graph, &edges);
    if relevant.is_empty() {
        return Vec::new();
    }
    let index: HashMap<WorkflowId<'_>, usize> =
        relevant.iter().enumerate().map(|(i, &w)| (w, i)).collect();
    let calls: Vec<Vec<(NodeId, usize)>> = relevant
        .iter()
        .map(|w| {
            edges
                .get(w)
                .into_iter()
                .flat_map(|c| c.iter())
                .map(|&(v, c)| (NodeId(v), index[&c]))
                .collect()
        })
        .collect();
    let callee_at: Vec<HashMap<NodeId, usize>> =
        calls.iter().map(|c| c.iter().copied().collect()).collect();
    let completable = recursion::completable(&calls, |w, completable| {
        let id = relevant[w];
        recursion::can_complete(
            workflow_shape(db, id),
            graph_facts(db, id),
            |v| callee_at[w].get(&v).copied(),
            completable,
        )
    });
    let mut out = Vec::new();
    for (w, &id) in relevant.iter().enumerate() {
        if completable[w] || !recursion::has_terminal(workflow_shape(db, id), graph_facts(db, id)) {
            continue;
        }
        let Some(chain) = recursion::recursive_chain(&calls, &completable, w) else {
            continue;
        };
        let chain: Vec<(String, String)> = chain
            .iter()
            .map(|&(cw, v)| {
                let caller = workflow_shape(db, relevant[cw]);
                (caller.name.clone(), caller.node(v).name.clone())
            })
            .collect();
        let blocking: Vec<(NodeId, String)> = calls[w]
            .iter()
            .filter(|&&(_, c)| !completable[c])
            .map(|&(v, c)| (v, relevant[c].name(db).clone()))
            .collect();
        out.push(recursion::diagnostic(
            workflow_model(db, id),
            &chain,
            &blocking,
        ));
    }
    out
}

/// The workflows on a call cycle (a strongly connected component of more
/// than one workflow, or a workflow calling itself; Kosaraju's two passes)
/// and every workflow reachable from one; those with calls first, in
/// project order. O(workflows + calls).
fn reachable_from_cycles<'db>(
    graph: &[CallEdges<'db>],
    edges: &HashMap<WorkflowId<'db>, &[(u32, WorkflowId<'db>)]>,
) -> Vec<WorkflowId<'db>> {
    // Kosaraju: finishing order on the graph, then components on the
    // reverse graph. Iterative, so deep call chains cannot overflow.
    let successors = |w: &WorkflowId<'db>| -> Vec<WorkflowId<'db>> {
        edges
            .get(w)
            .map(|c| c.iter().map(|&(_, c)| c).collect())
            .unwrap_or_default()
    };
    let mut order = Vec::new();
    let mut seen: HashSet<WorkflowId<'db>> = HashSet::default();
    for (root, _) in graph {
        if !seen.insert(*root) {
            continue;
        }
        let mut stack = vec![(*root, successors(root), 0usize)];
        while let Some((w, succ, i)) = stack.last_mut() {
            if let Some(&next) = succ.get(*i) {
                *i += 1;
                if seen.insert(next) {
                    let s = successors(&next);
                    stack.push((next, s, 0));
                }
            } else {
                order.push(*w);
                stack.pop();
            }
        }
    }
    let mut reverse: HashMap<WorkflowId<'db>, Vec<WorkflowId<'db>>> = HashMap::default();
    for (w, calls) in graph {
        for &(_, c) in calls {
            reverse.entry(c).or_default().push(*w);
        }
    }
    let mut component: HashMap<WorkflowId<'db>, usize> = HashMap::default();
    let mut sizes = Vec::new();
    for &root in order.iter().rev() {
        if component.contains_key(&root) {
            continue;
        }
        let c = sizes.len();
        let mut size = 0;
        let mut stack = vec![root];
        component.insert(root, c);
        while let Some(w) = stack.pop() {
            size += 1;
            for &p in reverse.get(&w).into_iter().flatten() {
                if let std::collections::hash_map::Entry::Vacant(e) = component.entry(p) {
                    e.insert(c);
                    stack.push(p);
                }
            }
        }
        sizes.push(size);
    }
    let on_cycle = |w: &WorkflowId<'db>| sizes[component[w]] > 1 || successors(w).contains(w);
    // Everything reachable from a workflow on a cycle.
    let mut relevant: HashSet<WorkflowId<'db>> = HashSet::default();
    let mut queue: VecDeque<WorkflowId<'db>> = VecDeque::new();
    for (w, _) in graph {
        if on_cycle(w) && relevant.insert(*w) {
            queue.push_back(*w);
        }
    }
    while let Some(w) = queue.pop_front() {
        for c in successors(&w) {
            if relevant.insert(c) {
                queue.push_back(c);
            }
        }
    }
    let mut out: Vec<WorkflowId<'db>> = graph
        .iter()
        .map(|(w, _)| *w)
        .filter(|w| relevant.contains(w))
        .collect();
    let listed: HashSet<WorkflowId<'db>> = out.iter().copied().collect();
    // The order of the rest does not matter: they cannot be reported, and
    // the fixpoint does not depend on the order.
    out.extend(relevant.into_iter().filter(|w| !listed.contains(w)));
    out
}
