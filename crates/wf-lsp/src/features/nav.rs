//! Go to definition and find references.

use wf_analysis::Database;
use wf_diagnostics::{FileSpan, Span};
use wf_model::Workflow;

use super::resolve::{Target, keys_in_expr};

/// Where a target is declared: a node's name, a workflow's declarations,
/// the start of an imported file, a key's writers (and `needs`).
pub fn definitions(db: &Database, from: wf_diagnostics::FileId, target: &Target) -> Vec<FileSpan> {
    match target {
        Target::Node(workflow, id) => vec![workflow.node(*id).name_span],
        Target::Workflow(name) => db
            .workflow_declarations(from, name)
            .iter()
            .map(|w| w.name_span)
            .collect(),
        Target::Import(file) => file
            .map(|f| Span::new(0, 0).in_file(f))
            .into_iter()
            .collect(),
        Target::Key(workflow, key) => {
            let mut out: Vec<FileSpan> = workflow
                .needs
                .iter()
                .filter(|d| &d.key == key)
                .map(|d| d.span)
                .collect();
            out.extend(
                workflow
                    .nodes
                    .iter()
                    .flat_map(|n| &n.writes)
                    .filter(|d| &d.key == key)
                    .map(|d| d.span),
            );
            // A call writes the parent side of its return map.
            out.extend(
                workflow
                    .nodes
                    .iter()
                    .filter_map(|n| n.call.as_ref())
                    .flat_map(|c| &c.return_map)
                    .filter(|e| &e.parent == key)
                    .map(|e| e.parent_span),
            );
            out
        }
        Target::Code(_) => Vec::new(),
    }
}

/// Every mention of a target (declarations included), sorted by file and
/// position, without duplicates.
pub fn references(db: &Database, target: &Target) -> Vec<FileSpan> {
    let mut out = match target {
        Target::Node(workflow, id) => {
            let mut out = vec![workflow.node(*id).name_span];
            for edge in &workflow.edges {
                if edge.from == *id {
                    out.push(edge.from_span);
                }
                if edge.to == *id {
                    out.push(edge.to_span);
                }
            }
            out
        }
        Target::Workflow(name) => {
            let mut out = Vec::new();
            for file in db.file_ids() {
                for workflow in db.file_workflows(file) {
                    if &workflow.name == name {
                        out.push(workflow.name_span);
                    }
                    for node in &workflow.nodes {
                        if let Some(call) = &node.call
                            && &call.workflow == name
                        {
                            out.push(call.workflow_span);
                        }
                    }
                }
            }
            out
        }
        Target::Key(workflow, key) => {
            let mut out = key_mentions(workflow, key);
            out.extend(return_map_children(db, workflow, key));
            out
        }
        Target::Import(_) | Target::Code(_) => Vec::new(),
    };
    out.sort_by_key(|s| (s.file, s.span.start, s.span.end));
    out.dedup();
    out
}

/// Every mention of a key in a workflow.
fn key_mentions(workflow: &Workflow, key: &str) -> Vec<FileSpan> {
    let mut out = Vec::new();
    let decls = workflow.needs.iter().chain(&workflow.gives);
    out.extend(decls.filter(|d| d.key == key).map(|d| d.span));
    out.extend(
        workflow
            .interpolated_reads
            .iter()
            .filter(|r| r.key == key)
            .map(|r| r.span),
    );
    for node in &workflow.nodes {
        out.extend(node.writes.iter().filter(|d| d.key == key).map(|d| d.span));
        out.extend(
            node.reads
                .iter()
                .chain(&node.interpolated_reads)
                .filter(|r| r.key == key)
                .map(|r| r.span),
        );
        if let Some(call) = &node.call {
            out.extend(
                call.return_map
                    .iter()
                    .filter(|e| e.parent == key)
                    .map(|e| e.parent_span),
            );
        }
    }
    for edge in &workflow.edges {
        if let Some(guard) = &edge.guard {
            let mut keys = Vec::new();
            keys_in_expr(&guard.expr, &mut keys);
            out.extend(keys.into_iter().filter(|(k, _)| k == key).map(|(_, s)| s));
        }
    }
    out
}

/// The child side of `parent <- key` in the return maps of every call of
/// `callee` (in every file), so that renaming a key a workflow gives or
/// writes follows it into its callers.
fn return_map_children(db: &Database, callee: &Workflow, key: &str) -> Vec<FileSpan> {
    let mut out = Vec::new();
    for file in db.file_ids() {
        for workflow in db.file_workflows(file) {
            for node in &workflow.nodes {
                let Some(call) = &node.call else { continue };
                if call.workflow != callee.name || !call.return_map.iter().any(|e| e.child == key) {
                    continue;
                }
                // Only calls that resolve to this declaration (another
                // file may declare a workflow of the same name).
                let resolved = db.workflow_declarations(workflow.file, &call.workflow);
                if resolved.first().map(|w| w.name_span) != Some(callee.name_span) {
                    continue;
                }
                out.extend(
                    call.return_map
                        .iter()
                        .filter(|e| e.child == key)
                        .map(|e| e.child_span),
                );
            }
        }
    }
    out
}
