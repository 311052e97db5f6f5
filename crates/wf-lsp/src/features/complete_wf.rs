//! `.wf` completion inside bodies: attribute names with their types (from
//! the engine attribute schema of `wf_analysis::attributes`), and the keys
//! of return maps (`parent <- child`: the caller's keys on the left, the
//! callee's `gives` and written keys on the right).

use tower_lsp_server::ls_types::{CompletionItem, CompletionItemKind, Documentation};
use wf_analysis::Database;
use wf_analysis::attributes::schema::{self, Place};
use wf_diagnostics::FileId;
use wf_model::{NodeKind, Workflow};

use super::context::{self, header, stem};

/// Where in a body the cursor is.
#[derive(Debug, PartialEq)]
pub enum Body {
    /// Where an item of a workflow body starts.
    Workflow,
    /// Elsewhere: the general completion applies.
    Other,
}

/// The node kind a body header starts with (`step a "label"`).
fn kind_of(word: &str) -> Option<NodeKind> {
    use NodeKind::*;
    [Step, Human, Tool, Call, Branch, Parallel, Join, Exit]
        .into_iter()
        .find(|k| k.as_str() == word)
}

/// Completion inside a node body, or which kind of body the cursor is in.
pub fn body(
    db: &Database,
    file: FileId,
    text: &str,
    offset: usize,
) -> Result<Vec<CompletionItem>, Body> {
    let scan = context::scan(text, offset, false);
    if scan.in_string.is_some() {
        return Ok(Vec::new());
    }
    let Some(open) = scan.innermost('{') else {
        return Err(Body::Other);
    };
    let head = header(text, open);
    let statement = context::statement(text, offset, &[';', '{']);
    let first = head.split_whitespace().next().unwrap_or("");
    if first == "workflow" {
        return Err(if at_item_start(statement) {
            Body::Workflow
        } else {
            Body::Other
        });
    }
    let Some(kind) = kind_of(first) else {
        return Err(Body::Other);
    };
    let caller = db
        .file_workflows(file)
        .into_iter()
        .find(|w| super::resolve::touches(w.span, offset));
    if kind == NodeKind::Call
        && let Some((_, right)) = statement.rsplit_once("<-")
        && stem(right).trim().is_empty()
    {
        let callee = head.rsplit_once('=').map(|(_, c)| c.trim()).unwrap_or("");
        let callee = callee.split_whitespace().next().unwrap_or("");
        return Ok(db
            .workflow_declarations(file, callee)
            .first()
            .map(|w| callee_keys(w))
            .unwrap_or_default());
    }
    if !at_item_start(statement) {
        return Err(Body::Other);
    }
    let mut out = attributes(Place::Node, Some(kind));
    out.extend(["reads", "writes"].map(keyword));
    if kind == NodeKind::Call
        && let Some(caller) = caller
    {
        out.extend(caller_keys(&caller));
    }
    Ok(out)
}

/// Whether the statement before the cursor is at the start of an item: it
/// is empty but for the word being typed, or the previous item on the line
/// is complete (`timeout = 5m  re|`, `a <- b  c|`).
fn at_item_start(statement: &str) -> bool {
    let words: Vec<&str> = stem(statement).split_whitespace().collect();
    if words.is_empty() {
        return true;
    }
    let n = words.len();
    let complete = n >= 3 && matches!(words[n - 2], "=" | "<-");
    // `x = 1,` in a one-line body also ends an item.
    complete && stem(statement).ends_with(char::is_whitespace)
}

fn keyword(word: &str) -> CompletionItem {
    CompletionItem {
        label: word.to_string(),
        kind: Some(CompletionItemKind::KEYWORD),
        detail: Some("keyword".to_string()),
        ..CompletionItem::default()
    }
}

/// The engine attributes written at `place` (on a node of `kind`), with
/// their types as detail and what they do as documentation. Aliases are
/// left out: completion offers the main spelling.
pub fn attributes(place: Place, kind: Option<NodeKind>) -> Vec<CompletionItem> {
    schema::SCHEMA
        .iter()
        .filter(|s| s.place == place && s.alias_of.is_none())
        .filter(|s| kind.is_none_or(|k| schema::applies_to(s, k)))
        .map(|s| CompletionItem {
            label: s.key.to_string(),
            kind: Some(CompletionItemKind::PROPERTY),
            detail: Some(s.ty.expected()),
            documentation: Some(Documentation::String(s.summary.to_string())),
            insert_text: Some(format!("{} = ", s.key)),
            ..CompletionItem::default()
        })
        .collect()
}

fn key_item(key: &str, detail: String) -> CompletionItem {
    CompletionItem {
        label: key.to_string(),
        kind: Some(CompletionItemKind::PROPERTY),
        detail: Some(detail),
        ..CompletionItem::default()
    }
}

/// The caller's keys, for the left side of a return map.
fn caller_keys(workflow: &Workflow) -> Vec<CompletionItem> {
    let mut keys: Vec<(String, Option<String>)> = workflow
        .needs
        .iter()
        .chain(&workflow.gives)
        .chain(workflow.nodes.iter().flat_map(|n| &n.writes))
        .map(|d| (d.key.clone(), d.ty.clone()))
        .chain(
            workflow
                .nodes
                .iter()
                .flat_map(|n| &n.reads)
                .map(|r| (r.key.clone(), None)),
        )
        .collect();
    sort_keys(&mut keys);
    keys.into_iter()
        .map(|(k, ty)| {
            let ty = ty.unwrap_or_else(|| "key".to_string());
            key_item(&k, format!("{ty} (key of {})", workflow.name))
        })
        .collect()
}

/// The callee's `gives` and written keys, for the right side.
fn callee_keys(callee: &Workflow) -> Vec<CompletionItem> {
    let mut keys: Vec<(String, Option<String>)> = callee
        .gives
        .iter()
        .chain(callee.nodes.iter().flat_map(|n| &n.writes))
        .map(|d| (d.key.clone(), d.ty.clone()))
        .collect();
    sort_keys(&mut keys);
    keys.into_iter()
        .map(|(k, ty)| {
            let given = callee.gives.iter().any(|g| g.key == k);
            let what = if given { "gives" } else { "writes" };
            let ty = ty.unwrap_or_else(|| "key".to_string());
            key_item(&k, format!("{ty} ({} {what} it)", callee.name))
        })
        .collect()
}

/// Sorts keys by name, keeping the first typed declaration of each.
fn sort_keys(keys: &mut Vec<(String, Option<String>)>) {
    keys.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.is_some().cmp(&a.1.is_some())));
    keys.dedup_by(|a, b| a.0 == b.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_start() {
        assert!(at_item_start("    "));
        assert!(at_item_start("  ti"));
        assert!(at_item_start(" timeout = 5m  re"));
        assert!(!at_item_start(" timeout = "));
        assert!(!at_item_start(" reads a"));
    }

    #[test]
    fn attributes_follow_the_kind() {
        let tool = attributes(Place::Node, Some(NodeKind::Tool));
        assert!(tool.iter().any(|i| i.label == "command"));
        let step = attributes(Place::Node, Some(NodeKind::Step));
        assert!(!step.iter().any(|i| i.label == "command"));
        assert!(!step.iter().any(|i| i.label == "max_retries"), "no aliases");
        let timeout = step.iter().find(|i| i.label == "timeout").unwrap();
        assert_eq!(timeout.detail.as_deref(), Some("a duration"));
    }
}
