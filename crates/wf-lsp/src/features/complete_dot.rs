//! Completion in Attractor `.dot` pipelines: attribute names inside `[…]`
//! (graph, node and edge attributes of the Attractor spec's Appendix A,
//! with their types), shapes after `shape=` (with the handler each runs,
//! Appendix B), handler types after `type=`, node ids in edges, and
//! statuses after `outcome=` in a `condition="…"`.

use tower_lsp_server::ls_types::{CompletionItem, CompletionItemKind, Documentation};
use wf_analysis::Database;
use wf_diagnostics::FileId;

use super::context::{self, stem};

/// Where an Attractor attribute is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Graph,
    Node,
    Edge,
}

/// The Attractor attributes (Appendix A, plus the handler attributes of
/// section 4 that the DOT front end types): place, key, type, summary.
#[rustfmt::skip]
const ATTRIBUTES: &[(Place, &str, &str, &str)] = &[
    (Place::Graph, "goal", "String", "Pipeline-level goal description"),
    (Place::Graph, "label", "String", "Display name for the graph"),
    (Place::Graph, "model_stylesheet", "String", "CSS-like LLM model/provider stylesheet"),
    (Place::Graph, "default_max_retry", "Integer", "Global retry ceiling (default 50)"),
    (Place::Graph, "default_fidelity", "String", "Default context fidelity mode"),
    (Place::Graph, "retry_target", "String", "Node to jump to on unsatisfied exit"),
    (Place::Graph, "fallback_retry_target", "String", "Secondary jump target"),
    (Place::Graph, "stack.child_dotfile", "String", "Path to child DOT file for supervision"),
    (Place::Graph, "stack.child_workdir", "String", "Working directory for child run"),
    (Place::Graph, "tool_hooks.pre", "String", "Shell command before each tool call"),
    (Place::Graph, "tool_hooks.post", "String", "Shell command after each tool call"),
    (Place::Node, "label", "String", "Display name (default: the node id)"),
    (Place::Node, "shape", "String", "Graphviz shape (determines the handler type)"),
    (Place::Node, "type", "String", "Explicit handler type override"),
    (Place::Node, "prompt", "String", "LLM prompt (supports `$goal` expansion)"),
    (Place::Node, "max_retries", "Integer", "Additional retry attempts"),
    (Place::Node, "goal_gate", "Boolean", "Must succeed before pipeline exit"),
    (Place::Node, "retry_target", "String", "Jump target on failure"),
    (Place::Node, "fallback_retry_target", "String", "Secondary jump target"),
    (Place::Node, "fidelity", "String", "Context fidelity mode"),
    (Place::Node, "thread_id", "String", "Session reuse key"),
    (Place::Node, "class", "String", "Stylesheet class names (comma-separated)"),
    (Place::Node, "timeout", "Duration", "Max execution time"),
    (Place::Node, "llm_model", "String", "LLM model override"),
    (Place::Node, "llm_provider", "String", "LLM provider override"),
    (Place::Node, "reasoning_effort", "String", "Reasoning depth: low/medium/high"),
    (Place::Node, "auto_status", "Boolean", "Auto-generate SUCCESS if no status written"),
    (Place::Node, "allow_partial", "Boolean", "Accept PARTIAL_SUCCESS on retry exhaustion"),
    (Place::Node, "tool_command", "String", "The command a `tool` node runs"),
    (Place::Node, "max_parallel", "Integer", "How many branches a `parallel` node runs at once"),
    (Place::Node, "manager.poll_interval", "Duration", "How often a manager loop polls its child"),
    (Place::Node, "manager.max_cycles", "Integer", "How many cycles a manager loop runs"),
    (Place::Node, "manager.steer_prompt", "String", "The instructions a manager's `steer` gives its child"),
    (Place::Node, "max_visits", "Integer", "How often this node may run (wfc)"),
    (Place::Edge, "label", "String", "Display caption and routing key"),
    (Place::Edge, "condition", "String", "Boolean guard expression"),
    (Place::Edge, "weight", "Integer", "Priority for edge selection (higher wins)"),
    (Place::Edge, "fidelity", "String", "Override fidelity for target node"),
    (Place::Edge, "thread_id", "String", "Override thread ID for target node"),
    (Place::Edge, "loop_restart", "Boolean", "Restart pipeline with fresh log directory"),
];

/// The built-in handler types (section 2.8).
const HANDLERS: &[(&str, &str)] = &[
    ("start", "No-op entry point"),
    ("exit", "No-op exit point (goal gate check in engine)"),
    ("codergen", "LLM task (default for all nodes)"),
    ("wait.human", "Blocks for human selection"),
    (
        "conditional",
        "Pass-through; engine evaluates edge conditions",
    ),
    ("parallel", "Concurrent branch execution"),
    ("parallel.fan_in", "Consolidate parallel results"),
    ("tool", "External tool execution"),
    ("stack.manager_loop", "Supervisor polling loop"),
];

const STATUSES: &[&str] = &["success", "partial_success", "retry", "fail", "skipped"];

/// Names a condition may compare besides context keys.
const CONDITION_NAMES: &[(&str, &str)] = &[
    ("outcome", "the last handler's status"),
    ("preferred_label", "the last handler's preferred edge label"),
    ("context.", "a context key"),
];

fn item(label: &str, kind: CompletionItemKind, detail: &str) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: Some(detail.to_string()),
        ..CompletionItem::default()
    }
}

/// Completion items at byte `offset` of the `.dot` file `file`.
pub fn completion(db: &Database, file: FileId, text: &str, offset: usize) -> Vec<CompletionItem> {
    let scan = context::scan(text, offset, true);
    if let Some(open) = scan.innermost('[') {
        return in_attributes(text, offset, open, scan.in_string);
    }
    if scan.in_string.is_some() {
        return Vec::new();
    }
    let statement = context::statement(text, offset, &[';', '{', '}']);
    let nodes = node_ids(db, file);
    if stem(statement).trim_end().ends_with("->") {
        return nodes;
    }
    if !stem(statement).trim().is_empty() {
        return Vec::new();
    }
    let mut out: Vec<CompletionItem> = ["graph", "node", "edge", "subgraph"]
        .iter()
        .map(|k| item(k, CompletionItemKind::KEYWORD, "keyword"))
        .collect();
    out.extend(attributes(Place::Graph));
    out.extend(nodes);
    out
}

/// Completion inside an attribute list opened at `open`.
fn in_attributes(
    text: &str,
    offset: usize,
    open: usize,
    in_string: Option<usize>,
) -> Vec<CompletionItem> {
    // The attribute being written: from the last `[`, `,` or `;` outside
    // a string.
    let from = in_string.unwrap_or(offset);
    let list = &text[open + 1..from];
    let segment = list.rsplit([',', ';']).next().unwrap_or(list);
    if let Some((key, _)) = segment.split_once('=') {
        let key = key.trim().trim_matches('"');
        return match (key, in_string) {
            ("shape", _) => wf_dot::SHAPE_HANDLERS
                .iter()
                .map(|(s, handler)| {
                    item(
                        s,
                        CompletionItemKind::ENUM_MEMBER,
                        &format!("handler `{handler}`"),
                    )
                })
                .collect(),
            ("type", _) => HANDLERS
                .iter()
                .map(|(h, what)| item(h, CompletionItemKind::ENUM_MEMBER, what))
                .collect(),
            ("condition", Some(start)) => condition(&text[start..offset]),
            _ => Vec::new(),
        };
    }
    if in_string.is_some() {
        return Vec::new();
    }
    let head = context::header(text, open);
    let place = if head.contains("->") || head == "edge" {
        Place::Edge
    } else if head == "graph" {
        Place::Graph
    } else {
        Place::Node
    };
    attributes(place)
}

/// Completion inside a condition string typed so far as `written`.
fn condition(written: &str) -> Vec<CompletionItem> {
    let clause = written.rsplit("&&").next().unwrap_or(written);
    let clause = stem(clause).trim_end();
    if clause.ends_with("outcome=") || clause.ends_with("outcome!=") {
        return STATUSES
            .iter()
            .map(|s| item(s, CompletionItemKind::ENUM_MEMBER, "outcome status"))
            .collect();
    }
    if clause.trim().is_empty() {
        return CONDITION_NAMES
            .iter()
            .map(|(n, what)| item(n, CompletionItemKind::VARIABLE, what))
            .collect();
    }
    Vec::new()
}

fn attributes(place: Place) -> Vec<CompletionItem> {
    ATTRIBUTES
        .iter()
        .filter(|(p, ..)| *p == place)
        .map(|(_, key, ty, what)| CompletionItem {
            label: key.to_string(),
            kind: Some(CompletionItemKind::PROPERTY),
            detail: Some(ty.to_string()),
            documentation: Some(Documentation::String(what.to_string())),
            ..CompletionItem::default()
        })
        .collect()
}

/// The node ids of the file's pipelines, with the kind each resolved to.
fn node_ids(db: &Database, file: FileId) -> Vec<CompletionItem> {
    let mut out: Vec<CompletionItem> = db
        .file_workflows(file)
        .iter()
        .flat_map(|w| w.nodes.iter())
        .map(|n| item(&n.name, CompletionItemKind::FIELD, n.kind.as_str()))
        .collect();
    out.sort_by(|a, b| a.label.cmp(&b.label));
    out.dedup_by(|a, b| a.label == b.label);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(items: &[CompletionItem]) -> Vec<&str> {
        items.iter().map(|i| i.label.as_str()).collect()
    }

    #[test]
    fn contexts_inside_brackets() {
        let shape = "digraph G {\n  a [shape=";
        let items = in_attributes(shape, shape.len(), shape.find('[').unwrap(), None);
        assert!(labels(&items).contains(&"Mdiamond"));
        assert_eq!(items[0].detail.as_deref(), Some("handler `start`"));
        let edge = "digraph G {\n  a -> b [lab";
        let items = in_attributes(edge, edge.len(), edge.find('[').unwrap(), None);
        assert!(labels(&items).contains(&"condition"));
        let graph = "digraph G {\n  graph [";
        let items = in_attributes(graph, graph.len(), graph.find('[').unwrap(), None);
        assert!(labels(&items).contains(&"model_stylesheet"));
    }

    #[test]
    fn statuses_in_conditions() {
        assert!(labels(&condition("outcome=")).contains(&"success"));
        assert!(labels(&condition("context.x=1 && outcome!=fa")).contains(&"fail"));
        assert!(labels(&condition("")).contains(&"outcome"));
        assert!(condition("outcome=success ").is_empty());
    }
}
