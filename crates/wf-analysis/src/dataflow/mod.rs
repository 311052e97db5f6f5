//! The `contracts` family (WF03xx): node contracts, workflow signatures,
//! return maps and the data flow between them.
//!
//! - WF0301 a required read not written on every path from the entry,
//!   WF0302 a callee's `needs` not available at the call, WF0303 a `gives`
//!   key missing on some path to a terminal: a forward must-analysis with
//!   bit sets over the DAG ([`flow`]), each error with a witness path
//!   ([`witness`]);
//! - WF0304 return-map completeness, from each callee's "guaranteed at
//!   completion" keys (the same analysis, at its terminals);
//! - WF0305 guard and interpolation keys nothing writes ([`unwritten`]);
//! - WF0306 type mismatches and WF0307 unknown type names ([`types`]);
//! - WF0308 recursion that can never complete ([`recursion`]).
//!
//! Writes to reserved keys (`_…`, `internal.…`) are WF0106 in the names
//! family, which covers every key of every contract; they are not reported
//! again here.
//!
//! Complexity: per workflow O((N + E) · K / 64) for the must-analysis (K
//! tracked keys, see [`flow`]), plus O(N + E) per distinct missing key for
//! witness paths (budgeted), plus linear passes for the rest; program-wide,
//! the recursion fixpoint is linear for bounded call fan-out.

mod bits;
mod contracts;
mod flow;
mod recursion;
mod types;
mod unwritten;
mod witness;

use std::collections::HashMap;

use wf_diagnostics::Diagnostic;
use wf_model::Program;

use crate::graph::{self, GraphFacts};

pub use flow::{FlowResult, analyze, writes_key, written_keys};
pub use types::{TYPES, compatible};

/// The checks of this family that look at one workflow alone (WF0305,
/// WF0306 within the workflow, WF0307). Linear in its size.
pub fn check_workflow(workflow: &wf_model::Workflow) -> Vec<Diagnostic> {
    let mut out = unwritten::unwritten_keys(workflow);
    out.extend(types::check_workflow(workflow));
    out
}

/// The checks of this family that need the whole program: WF0301 to
/// WF0304, WF0306 across calls and WF0308. (Run [`check_workflow`] on every
/// workflow as well for the rest of the family.)
pub fn check_program(program: &Program) -> Vec<Diagnostic> {
    let facts: Vec<GraphFacts> = program.workflows.iter().map(graph::analyze).collect();
    check_program_with_facts(program, &facts)
}

/// [`check_program`] with the graph facts of every workflow already
/// computed (`facts[i]` for `program.workflows[i]`).
pub fn check_program_with_facts(program: &Program, facts: &[GraphFacts]) -> Vec<Diagnostic> {
    // The first workflow of each name is the one calls invoke.
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, w) in program.workflows.iter().enumerate() {
        index.entry(w.name.as_str()).or_insert(i);
    }
    // Keys each workflow's callers take from it through return maps.
    let mut requested: Vec<Vec<&str>> = vec![Vec::new(); program.workflows.len()];
    for w in &program.workflows {
        for call in w.nodes.iter().filter_map(|n| n.call.as_ref()) {
            if let Some(&c) = index.get(call.workflow.as_str()) {
                requested[c].extend(call.return_map.iter().map(|e| e.child.as_str()));
            }
        }
    }
    for keys in &mut requested {
        keys.sort_unstable();
        keys.dedup();
    }

    let mut out = Vec::new();
    let mut completions: contracts::Completions = Vec::with_capacity(program.workflows.len());
    for (i, workflow) in program.workflows.iter().enumerate() {
        // A syntax error may have dropped `writes`: stay silent rather than
        // report keys as missing.
        let result = if workflow.incomplete {
            None
        } else {
            let callee_needs = |node: &wf_model::Node| {
                let call = node.call.as_ref()?;
                let &c = index.get(call.workflow.as_str())?;
                Some(program.workflows[c].needs.as_slice())
            };
            flow::analyze(workflow, &facts[i], callee_needs, &requested[i])
        };
        match result {
            Some(result) => {
                let mut witnesses = witness::Witnesses::new(workflow, &facts[i]);
                out.extend(contracts::missing_reads(workflow, &result, &mut witnesses));
                out.extend(contracts::missing_needs(
                    program,
                    &index,
                    workflow,
                    &result,
                    &mut witnesses,
                ));
                out.extend(contracts::missing_gives(workflow, &result, &mut witnesses));
                completions.push(result.completion);
            }
            None => completions.push(None),
        }
    }
    let types: Vec<_> = program.workflows.iter().map(types::key_types).collect();
    for (i, workflow) in program.workflows.iter().enumerate() {
        out.extend(contracts::return_maps(
            program,
            &index,
            workflow,
            &completions,
        ));
        out.extend(types::check_calls(program, workflow, &types, i, &index));
    }
    out.extend(recursion::never_completing(program, facts, &index));
    out
}

#[cfg(test)]
mod tests;
