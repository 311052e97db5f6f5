//! WF0860: a `tool_hooks.pre` / `tool_hooks.post` (seed 9.7) that nothing
//! runs. `wfc run` runs tool hooks around `tool` nodes only (the tool
//! calls wfc makes itself; docs/llm.md, "Tool hooks"): a hook on another
//! node (the tool calls of a model or a CLI coding agent happen out of
//! wfc's reach), or a graph-level hook in a pipeline without a tool node,
//! would be silently dropped.

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{NodeKind, Workflow};

const KEYS: [&str; 2] = ["tool_hooks.pre", "tool_hooks.post"];

/// The findings for `workflow`.
pub fn check(workflow: &Workflow) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // A `node [...]` default reaches every node declared after it: the
    // same hook on a tool node is run there.
    let run: Vec<(&str, &wf_model::Value)> = workflow
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Tool)
        .flat_map(|n| &n.attributes)
        .filter(|a| KEYS.contains(&a.key.as_str()))
        .map(|a| (a.key.as_str(), &a.value))
        .collect();
    for node in workflow.nodes.iter().filter(|n| n.kind != NodeKind::Tool) {
        for a in node
            .attributes
            .iter()
            .filter(|a| KEYS.contains(&a.key.as_str()))
        {
            // One finding per written attribute.
            if run.contains(&(a.key.as_str(), &a.value))
                || out
                    .iter()
                    .any(|d: &Diagnostic| d.primary.location == a.key_span)
            {
                continue;
            }
            out.push(
                Diagnostic::new(
                    &codes::ATTRACTOR_TOOL_HOOKS_IGNORED,
                    format!(
                        "`{}` on `{}` is never run: wfc runs tool hooks around `tool` nodes only",
                        a.key, node.name
                    ),
                    a.key_span,
                )
                .with_primary_label(format!("`{}` is not a tool node", node.name))
                .with_help(
                    "set the hook on the tool nodes it should guard (or on the graph); a CLI \
                     coding agent's own tool calls are hooked in that agent's settings",
                ),
            );
        }
    }
    if !workflow.nodes.iter().any(|n| n.kind == NodeKind::Tool) {
        for a in workflow
            .attributes
            .iter()
            .filter(|a| KEYS.contains(&a.key.as_str()))
        {
            out.push(
                Diagnostic::new(
                    &codes::ATTRACTOR_TOOL_HOOKS_IGNORED,
                    format!(
                        "`{}` is never run: the pipeline has no tool node, and wfc runs tool hooks around `tool` nodes only",
                        a.key
                    ),
                    a.key_span,
                )
                .with_primary_label("set on a pipeline without tool nodes")
                .with_help(
                    "remove it, or add the `tool` nodes (shape=parallelogram) it should guard; a CLI \
                     coding agent's own tool calls are hooked in that agent's settings",
                ),
            );
        }
    }
    out
}
