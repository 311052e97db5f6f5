//! The `contracts` family (WF03xx): node contracts, workflow signatures,
//! return maps and the data flow between them.
//!
//! - WF0301 a required read not written on every path from the entry,
//!   WF0302 a callee's `needs` not available at the call, WF0303 a `gives`
//!   key missing on some path to a terminal: a forward must-analysis with
//!   bit sets over the DAG (`flow`), each error with a witness path
//!   (`witness`);
//! - WF0304 return-map completeness, from each callee's "guaranteed at
//!   completion" keys (the same analysis, at its terminals);
//! - WF0305 guard and interpolation keys nothing writes (`unwritten`);
//! - WF0306 type mismatches and WF0307 unknown type names (`types`);
//! - WF0308 recursion that can never complete ([`recursion`]).
//!
//! Writes to reserved keys (`_…`, `internal.…`) are WF0106 in the names
//! family, which covers every key of every contract; they are not reported
//! again here.
//!
//! Complexity: per workflow O((N + E) · K / 64) for the must-analysis (K
//! tracked keys, see `flow`), plus O(N + E) per distinct missing key for
//! witness paths (budgeted), plus linear passes for the rest; program-wide,
//! the recursion fixpoint is linear for bounded call fan-out.
//!
//! Incrementality: the analysis of a workflow ([`flow_facts`]) reads only
//! the workflow (its span-free shape suffices), its graph facts, its
//! callees' `needs` keys and the keys its callers request; the checks of
//! its calls ([`check_calls`]) read its callees' span-free summaries
//! ([`Interface`], [`Guarantees`]) and look at a callee's model only to
//! point into it. The database memoises each per workflow (`db::flow`).

mod bits;
mod contracts;
mod flow;
pub mod recursion;
mod types;
mod unwritten;
mod witness;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use wf_diagnostics::Diagnostic;
use wf_model::{NodeId, Workflow};

use crate::graph::GraphFacts;

pub use flow::{FlowResult, analyze, writes_key, written_keys};
pub use types::{TYPES, compatible};

/// The checks of this family that look at one workflow alone (WF0305,
/// WF0306 within the workflow, WF0307). Linear in its size.
pub fn check_workflow(workflow: &Workflow) -> Vec<Diagnostic> {
    let mut out = unwritten::unwritten_keys(workflow);
    out.extend(types::check_workflow(workflow));
    out
}

/// What callers see of a workflow, without spans: its `needs` (keys and
/// valid types), its `gives` and the type of each typed key. Linear in its
/// size.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interface {
    /// The `needs` keys, in order.
    pub need_keys: Vec<String>,
    /// Their types, when declared with one of [`TYPES`].
    pub need_types: Vec<Option<String>>,
    /// The `gives` keys, in order.
    pub gives: Vec<String>,
    /// Per typed key, its type and where it is declared (see
    /// `types::key_types`).
    pub key_types: HashMap<String, (String, String)>,
}

/// The [`Interface`] of `workflow` (computed from the model with spans:
/// the first typed declaration of a key is the first in source order).
pub fn interface(workflow: &Workflow) -> Interface {
    Interface {
        need_keys: workflow.needs.iter().map(|k| k.key.clone()).collect(),
        need_types: workflow
            .needs
            .iter()
            .map(|k| k.ty.clone().filter(|t| TYPES.contains(&t.as_str())))
            .collect(),
        gives: workflow.gives.iter().map(|k| k.key.clone()).collect(),
        key_types: types::key_type_names(workflow),
    }
}

/// The must-analysis of one workflow ([`flow::analyze`]) with the witness
/// path of each finding, free of spans (node indices only), so that it can
/// be computed from a workflow's span-free shape and memoised apart from
/// text moves. `paths` are parallel to the findings of `result`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlowFacts {
    /// `None` when the workflow is incomplete or has no resolved entry.
    pub result: Option<FlowResult>,
    /// Witness paths of `result.missing_reads`.
    pub read_paths: Vec<Option<Vec<NodeId>>>,
    /// Witness paths of `result.missing_needs`.
    pub need_paths: Vec<Option<Vec<NodeId>>>,
    /// Witness paths of `result.missing_gives` (to their first terminal).
    pub gives_paths: Vec<Option<Vec<NodeId>>>,
}

/// Runs the must-analysis on `workflow` and finds the witness paths.
/// `callee_needs(v)` are the `needs` keys of the workflow the call node `v`
/// invokes, when it is known; `requested` the keys callers' return maps
/// take from `workflow` (sorted, deduplicated). O((N + E) · K / 64) plus
/// O(N + E) per distinct missing key (budgeted, see `witness`).
pub fn flow_facts<'a>(
    workflow: &Workflow,
    facts: &GraphFacts,
    callee_needs: impl Fn(NodeId) -> Option<&'a [String]>,
    requested: &[&str],
) -> FlowFacts {
    // A syntax error may have dropped `writes`: stay silent rather than
    // report keys as missing.
    if workflow.incomplete {
        return FlowFacts::default();
    }
    let Some(result) = flow::analyze(workflow, facts, &callee_needs, requested) else {
        return FlowFacts::default();
    };
    let mut witnesses = witness::Witnesses::new(workflow, facts);
    let read_paths = result
        .missing_reads
        .iter()
        .map(|&(v, i)| witnesses.path(&workflow.node(v).reads[i].key, v))
        .collect();
    let need_paths = result
        .missing_needs
        .iter()
        .map(|&(v, i)| {
            let key = &callee_needs(v)?[i];
            witnesses.path(key, v)
        })
        .collect();
    let gives_paths = result
        .missing_gives
        .iter()
        .map(|(g, terminals)| witnesses.path(&workflow.gives[*g].key, terminals[0]))
        .collect();
    FlowFacts {
        result: Some(result),
        read_paths,
        need_paths,
        gives_paths,
    }
}

/// What a workflow guarantees its callers on completion, without spans:
/// for the return-map check (WF0304) of its callers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guarantees {
    /// Per requested key written but not on every path to every terminal
    /// (and not in `gives`), the first terminals reached without it; `None`
    /// when completion could not be analysed (see [`FlowResult`]).
    pub completion: Option<HashMap<String, Vec<NodeId>>>,
    /// The requested keys some node of the workflow writes.
    pub written: HashSet<String>,
}

/// The [`Guarantees`] of `workflow`, from its [`FlowFacts`] and the keys
/// callers request. O(size of the workflow).
pub fn guarantees(workflow: &Workflow, flow: &FlowFacts, requested: &[&str]) -> Guarantees {
    let completion = flow.result.as_ref().and_then(|r| r.completion.clone());
    let written = if requested.is_empty() {
        HashSet::default()
    } else {
        let all: HashSet<&str> = workflow.nodes.iter().flat_map(written_keys).collect();
        requested
            .iter()
            .filter(|k| all.contains(*k))
            .map(|k| k.to_string())
            .collect()
    };
    Guarantees {
        completion,
        written,
    }
}

/// A callee as one call node sees it: span-free summaries.
#[derive(Debug, Clone, Copy)]
pub struct CalleeView<'a> {
    /// Its needs, gives and key types.
    pub interface: &'a Interface,
    /// What it guarantees on completion.
    pub guarantees: &'a Guarantees,
}

/// WF0301 to WF0304 and WF0306 across calls for one workflow, from its
/// [`FlowFacts`] and its callees' summaries. `callee(v)` is what the call
/// node `v` sees of its callee, when it is known; `callee_model(v)` is the
/// callee itself, asked for only when a diagnostic must point into it (so
/// that a caller need not depend on its callees' spans). Linear in the
/// size of the workflow plus the diagnostics.
pub fn check_calls<'a>(
    workflow: &Workflow,
    flow: &FlowFacts,
    callee: impl Fn(NodeId) -> Option<CalleeView<'a>>,
    callee_model: impl Fn(NodeId) -> Option<&'a Workflow>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(result) = &flow.result {
        out.extend(contracts::missing_reads(workflow, result, &flow.read_paths));
        out.extend(contracts::missing_needs(
            workflow,
            result,
            &flow.need_paths,
            &callee_model,
        ));
        out.extend(contracts::missing_gives(
            workflow,
            result,
            &flow.gives_paths,
        ));
    }
    out.extend(contracts::return_maps(workflow, &callee, &callee_model));
    out.extend(types::check_calls(workflow, &callee, &callee_model));
    out
}

#[cfg(test)]
mod tests;
