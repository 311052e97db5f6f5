//! WF0201: cycles, shown as the whole path.

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{SourceFormat, Workflow};

use super::{Cycle, cycle_severity};
use crate::suggest::name_source_text;
use crate::text::join_truncated;

/// How many node names the message shows before eliding the middle.
const MAX_PATH_NAMES: usize = 24;
/// How many edges of a cycle get a label.
const MAX_EDGE_LABELS: usize = 24;
/// How many other nodes of a tangle the note lists.
const MAX_TANGLE_NAMES: usize = 8;

/// The diagnostic for one cycle: the path in the message (`a -> b -> a`),
/// the edge closing it as the primary span and a label on every other edge.
pub fn cycle(workflow: &Workflow, cycle: &Cycle) -> Diagnostic {
    let name = |id: wf_model::NodeId| workflow.node(id).name.as_str();
    let Some(&closing) = cycle.path.last() else {
        // Unreachable (see `scc::cycle_through`); a plain report keeps it safe.
        let first = workflow.node(cycle.component[0]);
        return Diagnostic::new(
            &codes::CYCLE,
            format!(
                "cycle in workflow `{}` through `{}`",
                workflow.name, first.name
            ),
            first.name_span,
        )
        .with_severity(cycle_severity(workflow.format));
    };
    let mut names: Vec<&str> = cycle
        .path
        .iter()
        .map(|&e| name(workflow.edge(e).from))
        .collect();
    names.push(names[0]);
    let closing_edge = workflow.edge(closing);
    let primary_label = if cycle.path.len() == 1 {
        format!("`{}` goes to itself", name(closing_edge.from))
    } else {
        format!(
            "`{}` goes back to `{}`, closing the cycle",
            name(closing_edge.from),
            name(closing_edge.to)
        )
    };
    let mut diagnostic = Diagnostic::new(
        &codes::CYCLE,
        format!(
            "cycle in workflow `{}`: {}",
            workflow.name,
            path_text(&names)
        ),
        closing_edge.span,
    )
    .with_severity(cycle_severity(workflow.format))
    .with_primary_label(primary_label);
    let others = &cycle.path[..cycle.path.len() - 1];
    for &e in others.iter().take(MAX_EDGE_LABELS) {
        let edge = workflow.edge(e);
        diagnostic = diagnostic.with_label(
            edge.span,
            format!("`{}` goes to `{}`", name(edge.from), name(edge.to)),
        );
    }
    if others.len() > MAX_EDGE_LABELS {
        diagnostic = diagnostic.with_note(format!(
            "the cycle has {} edges; only the first {} are labelled",
            cycle.path.len(),
            MAX_EDGE_LABELS + 1
        ));
    }
    if cycle.component.len() > cycle.path.len() {
        let on_path: rustc_hash::FxHashSet<_> =
            cycle.path.iter().map(|&e| workflow.edge(e).from).collect();
        let tangle = cycle
            .component
            .iter()
            .filter(|n| !on_path.contains(n))
            .map(|&n| format!("`{}`", name(n)));
        diagnostic = diagnostic.with_note(format!(
            "these nodes are on cycles with it too: {}",
            join_truncated(tangle, MAX_TANGLE_NAMES)
        ));
    }
    match workflow.format {
        SourceFormat::Dot => diagnostic.with_note(
            "DOT pipelines may loop; the runtime bounds repetitions (max steps, visits per node), so make sure the loop has a way out",
        ),
        SourceFormat::Wf => diagnostic.with_help(
            "a workflow must be acyclic: to repeat steps, move them into their own workflow and invoke it recursively with a `call` node",
        ),
        SourceFormat::ReflexJson => diagnostic.with_help(
            "a workflow must be acyclic: to repeat steps, move them into their own workflow and invoke it recursively from a node's `invokes`",
        ),
    }
}

/// `a -> b -> c -> a`, eliding the middle of very long cycles.
fn path_text(names: &[&str]) -> String {
    let shown: Vec<String> = if names.len() <= MAX_PATH_NAMES {
        names.iter().map(|n| name_source_text(n)).collect()
    } else {
        let head = MAX_PATH_NAMES - 2;
        let hidden = names.len() - head - 2;
        let mut parts: Vec<String> = names[..head].iter().map(|n| name_source_text(n)).collect();
        parts.push(format!("… ({hidden} more)"));
        parts.extend(names[names.len() - 2..].iter().map(|n| name_source_text(n)));
        parts
    };
    shown.join(" -> ")
}
