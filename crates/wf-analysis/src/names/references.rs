//! References to things that do not exist within one workflow: WF0103
//! unknown entry, WF0105 undeclared node that looks like a typo. (WF0104,
//! an unknown callee, depends on imports: `db::names`.)

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Applicability, Diagnostic, FileSpan, Fix, TextEdit, codes};
use wf_model::{NodeId, SourceFormat, Workflow};

use crate::suggest::{SuggestionIndex, name_source_text};
use crate::text::code;

/// How many further mentions of an undeclared name get their own label.
const MAX_MENTION_LABELS: usize = 8;

/// A fix replacing each span with `name` written as `.wf` source.
fn rename_fix(spans: impl IntoIterator<Item = FileSpan>, name: &str) -> Fix {
    let replacement = name_source_text(name);
    Fix {
        message: format!("replace with `{name}`"),
        edits: spans
            .into_iter()
            .map(|location| TextEdit {
                location,
                replacement: replacement.clone(),
            })
            .collect(),
        applicability: Applicability::MaybeIncorrect,
    }
}

/// WF0103: `entry = x` where the workflow has no node `x` (declared or
/// mentioned in an edge). Silent for an incomplete workflow, whose missing
/// node may be the one that failed to parse.
pub fn unknown_entry(workflow: &Workflow) -> Option<Diagnostic> {
    let (name, span) = workflow.entry.as_ref()?;
    if workflow.incomplete || workflow.nodes.iter().any(|n| &n.name == name) {
        return None;
    }
    let diagnostic = Diagnostic::new(
        &codes::UNKNOWN_ENTRY,
        format!(
            "unknown entry node `{name}` in workflow `{}`",
            workflow.name
        ),
        *span,
    )
    .with_primary_label(format!("no node named `{name}`"));
    let mut index = SuggestionIndex::new(workflow.nodes.iter().map(|n| n.name.as_str()));
    Some(match index.suggest(name) {
        Some(suggestion) => diagnostic
            .with_help(format!("did you mean `{suggestion}`?"))
            .with_fix(rename_fix([*span], suggestion)),
        None => {
            diagnostic.with_help("set `entry` to one of the workflow's nodes, or declare the node")
        }
    })
}

/// WF0105: an implicit node (named only in edges) whose name is close to a
/// declared node's: probably a typo. Names close to nothing are deliberate
/// implicit steps and stay silent. One warning per undeclared name, at its
/// first mention, with a fix renaming every mention.
pub fn undeclared_nodes(workflow: &Workflow) -> Vec<Diagnostic> {
    if !workflow.nodes.iter().any(|n| n.implicit) {
        return Vec::new();
    }
    let mut index = SuggestionIndex::new(
        workflow
            .nodes
            .iter()
            .filter(|n| !n.implicit)
            .map(|n| n.name.as_str()),
    );
    let mut flagged: HashMap<NodeId, (&str, Vec<FileSpan>)> = HashMap::default();
    for id in workflow.node_ids() {
        let node = workflow.node(id);
        let suggestion = if node.implicit {
            index.suggest(&node.name)
        } else {
            None
        };
        if let Some(suggestion) = suggestion {
            flagged.insert(id, (suggestion, Vec::new()));
        }
    }
    if flagged.is_empty() {
        return Vec::new();
    }
    let names = workflow.node_index();
    for edge in &workflow.edges {
        for (id, span) in [(edge.from, edge.from_span), (edge.to, edge.to_span)] {
            if let Some((_, mentions)) = flagged.get_mut(&id) {
                mentions.push(span);
            }
        }
    }
    let mut flagged: Vec<_> = flagged.into_iter().collect();
    flagged.sort_by_key(|(id, _)| *id);
    flagged
        .into_iter()
        .map(|(id, (suggestion, mut mentions))| {
            let node = workflow.node(id);
            mentions.sort();
            mentions.dedup();
            let declared = workflow.node(names[suggestion]);
            let mut diagnostic = Diagnostic::new(
                &codes::UNDECLARED_NODE,
                format!(
                    "`{}` is not declared; did you mean `{suggestion}`?",
                    node.name
                ),
                node.name_span,
            )
            .with_primary_label(if workflow.format == SourceFormat::Dot {
                format!(
                    "not declared, so {} is a new node (an LLM stage)",
                    code(&node.name)
                )
            } else {
                format!(
                    "not declared, so {} is an implicit `step`",
                    code(&node.name)
                )
            })
            .with_label(
                declared.name_span,
                format!("`{suggestion}` is declared here"),
            );
            for &span in mentions
                .iter()
                .filter(|&&s| s != node.name_span)
                .take(MAX_MENTION_LABELS)
            {
                diagnostic = diagnostic.with_label(span, "also used here");
            }
            let help = if workflow.format == SourceFormat::Dot {
                format!(
                    "if `{}` is meant to be a new node, declare it with what it runs: `{} [prompt=\"...\"]`",
                    node.name,
                    wf_dot::ast::id_source_text(&node.name)
                )
            } else {
                format!(
                    "if `{}` is meant to be a new step, declare it: `step {}`",
                    node.name,
                    name_source_text(&node.name)
                )
            };
            diagnostic
                .with_help(help)
                .with_fix(rename_fix(mentions, suggestion))
        })
        .collect()
}
