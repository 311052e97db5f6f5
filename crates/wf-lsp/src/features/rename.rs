//! Rename (nodes, workflows across files, keys) with prepare-rename, and
//! the inlay hints that show implicit nodes' kinds.

use wf_analysis::Database;
use wf_diagnostics::{FileId, FileSpan};

use super::nav;
use super::resolve::{BUILTIN_NAMES, Target, target_at};

/// Words that cannot be names.
const KEYWORDS: &[&str] = &[
    "workflow", "import", "as", "needs", "gives", "reads", "writes", "when", "step", "human",
    "tool", "call", "branch", "parallel", "join", "exit", "true", "false", "null", "in", "matches",
    "exists",
];

/// The context keys the Attractor engine and its handlers set (seed
/// section 5.1, "Built-in context keys"); `internal.*` and `graph.*` are
/// the engine's too.
const ENGINE_KEYS: &[&str] = &[
    "outcome",
    "preferred_label",
    "current_node",
    "last_stage",
    "last_response",
];

/// What can be renamed at `offset`: the span and current name, or why not.
pub fn prepare(db: &Database, file: FileId, offset: usize) -> Result<(FileSpan, String), String> {
    let Some((target, span)) = target_at(db, file, offset) else {
        let word = word_at(db, file, offset);
        if BUILTIN_NAMES.contains(&word.as_str()) || KEYWORDS.contains(&word.as_str()) {
            return Err(format!("`{word}` is built in: it cannot be renamed"));
        }
        return Err("nothing to rename here".into());
    };
    let name = match &target {
        Target::Node(workflow, id) => {
            let name = &workflow.node(*id).name;
            if name == "start" {
                return Err("`start` is the built-in entry node: it cannot be renamed".into());
            }
            name.clone()
        }
        Target::Workflow(name) => name.clone(),
        Target::Key(_, key) => {
            let bare = key.strip_prefix("context.").unwrap_or(key);
            if ENGINE_KEYS.contains(&bare)
                || bare.starts_with("internal.")
                || bare.starts_with("graph.")
                || KEYWORDS.contains(&bare)
            {
                return Err(format!(
                    "`{key}` is a context key the engine sets: it cannot be renamed"
                ));
            }
            key.clone()
        }
        Target::Import(_) => return Err("an import path cannot be renamed".into()),
        Target::Code(_) => return Err("a diagnostic code cannot be renamed".into()),
    };
    if BUILTIN_NAMES.contains(&name.as_str()) {
        return Err(format!("`{name}` is built in: it cannot be renamed"));
    }
    Ok((span, name))
}

/// The edits that rename the target at `offset` to `new_name`: every
/// mention (in every file for a workflow), each checked to spell the old
/// name exactly, so a rename never rewrites text it does not understand.
pub fn rename(
    db: &Database,
    file: FileId,
    offset: usize,
    new_name: &str,
) -> Result<Vec<FileSpan>, String> {
    let (_, old) = prepare(db, file, offset)?;
    let (target, _) = target_at(db, file, offset).ok_or("nothing to rename here")?;
    let valid = new_name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && new_name.chars().all(|c| {
            c.is_ascii_alphanumeric() || c == '_' || (c == '.' && matches!(target, Target::Key(..)))
        });
    if !valid {
        return Err(format!("`{new_name}` is not a valid name"));
    }
    if KEYWORDS.contains(&new_name)
        || BUILTIN_NAMES.contains(&new_name)
        || new_name.starts_with("internal")
    {
        return Err(format!("`{new_name}` is reserved"));
    }
    let mentions = nav::references(db, &target);
    for span in &mentions {
        let text = db.file_text(span.file).unwrap_or_default();
        if text.get(span.span.range()) != Some(old.as_str()) {
            return Err(format!(
                "`{old}` is written differently somewhere (quoted or escaped); rename it by hand"
            ));
        }
    }
    Ok(mentions)
}

/// Every mention of the target at `offset` in the same file (document
/// highlight).
pub fn highlights(db: &Database, file: FileId, offset: usize) -> Vec<FileSpan> {
    let Some((target, _)) = target_at(db, file, offset) else {
        return Vec::new();
    };
    nav::references(db, &target)
        .into_iter()
        .filter(|s| s.file == file)
        .collect()
}

/// Implicit nodes (declared by their edges) with the kind the analysis
/// gave them, hinted after their first mention.
pub fn implicit_kinds(db: &Database, file: FileId) -> Vec<(FileSpan, &'static str)> {
    db.file_workflows(file)
        .iter()
        .flat_map(|w| {
            w.nodes
                .iter()
                .filter(|n| n.implicit && n.name_span.file == file)
                .map(|n| (n.name_span, n.kind.as_str()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The identifier at `offset` (empty when there is none).
fn word_at(db: &Database, file: FileId, offset: usize) -> String {
    let text = db.file_text(file).unwrap_or_default();
    let offset = offset.min(text.len());
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let start = text[..offset]
        .rfind(|c: char| !is_word(c))
        .map_or(0, |i| i + 1);
    let end = text[offset..]
        .find(|c: char| !is_word(c))
        .map_or(text.len(), |i| offset + i);
    text[start..end].to_string()
}
