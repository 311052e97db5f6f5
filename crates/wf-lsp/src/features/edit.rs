//! Completion, code actions from diagnostics' fixes, and formatting.

use std::collections::HashMap;

use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CompletionItem, CompletionItemKind, TextEdit,
    Uri, WorkspaceEdit,
};
use wf_analysis::Database;
use wf_diagnostics::FileId;

use crate::convert::{self, FileMap};
use crate::workspace::Snapshot;

/// Top-level and workflow-body keywords.
const KEYWORDS: &[&str] = &[
    "workflow", "import", "needs", "gives", "reads", "writes", "when", "as",
];

/// Node kinds, which start a node declaration.
const NODE_KINDS: &[&str] = &[
    "step", "human", "tool", "call", "branch", "parallel", "join", "exit",
];

/// The outcome statuses.
const STATUSES: &[&str] = &["success", "partial_success", "retry", "fail", "skipped"];

/// Completion items at byte `offset` of `file`, chosen by the text before
/// the cursor on its line.
pub fn completion(db: &Database, file: FileId, offset: usize) -> Vec<CompletionItem> {
    let Some(text) = db.file_text(file) else {
        return Vec::new();
    };
    let offset = offset.min(text.len());
    if db
        .file_path(file)
        .is_some_and(|p| wf_model::SourceFormat::of_path(&p) == Some(wf_model::SourceFormat::Dot))
    {
        return super::complete_dot::completion(db, file, &text, offset);
    }
    let body = match super::complete_wf::body(db, file, &text, offset) {
        Ok(items) => return items,
        Err(body) => body,
    };
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    // Drop the word being typed.
    let stem = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '.');
    let words: Vec<&str> = stem.split_whitespace().collect();
    let last = words.last().copied().unwrap_or("");
    let item = |label: &str, kind: CompletionItemKind, detail: &str| CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: Some(detail.to_string()),
        ..CompletionItem::default()
    };
    // `call name ["label"] = |`: the callee.
    if words.first() == Some(&"call") && last == "=" {
        let mut names: Vec<String> = db
            .file_ids()
            .into_iter()
            .flat_map(|f| db.file_workflows(f))
            .map(|w| w.name.clone())
            .collect();
        names.sort();
        names.dedup();
        return names
            .iter()
            .map(|n| item(n, CompletionItemKind::MODULE, "workflow"))
            .collect();
    }
    if matches!(last, "==" | "!=") && words.iter().rev().nth(1) == Some(&"outcome") {
        return STATUSES
            .iter()
            .map(|s| item(s, CompletionItemKind::ENUM_MEMBER, "outcome status"))
            .collect();
    }
    let workflows = db.file_workflows(file);
    let enclosing = workflows
        .iter()
        .find(|w| super::resolve::touches(w.span, offset));
    if matches!(last, "->") {
        return enclosing
            .map(|w| {
                w.nodes
                    .iter()
                    .map(|n| item(&n.name, CompletionItemKind::FIELD, n.kind.as_str()))
                    .collect()
            })
            .unwrap_or_default();
    }
    // After `reads` or in a guard: the workflow's keys.
    if let Some(w) = enclosing
        && (last == "reads"
            || last.ends_with(',') && words.contains(&"reads")
            || words.contains(&"when"))
    {
        let mut keys: Vec<(&str, Option<&str>)> = w
            .needs
            .iter()
            .chain(w.nodes.iter().flat_map(|n| &n.writes))
            .map(|d| (d.key.as_str(), d.ty.as_deref()))
            // Keys a call's return map writes.
            .chain(
                w.nodes
                    .iter()
                    .filter_map(|n| n.call.as_ref())
                    .flat_map(|c| &c.return_map)
                    .map(|e| (e.parent.as_str(), None)),
            )
            .collect();
        // Typed declarations first, so that the kept one shows the type.
        keys.sort_by(|a, b| a.0.cmp(b.0).then(b.1.is_some().cmp(&a.1.is_some())));
        keys.dedup_by(|a, b| a.0 == b.0);
        let mut out: Vec<CompletionItem> = keys
            .iter()
            .map(|(key, ty)| item(key, CompletionItemKind::PROPERTY, ty.unwrap_or("key")))
            .collect();
        if words.contains(&"when") {
            out.push(item(
                "outcome",
                CompletionItemKind::KEYWORD,
                "the node's outcome",
            ));
        }
        return out;
    }
    let mut out: Vec<CompletionItem> = Vec::new();
    if enclosing.is_some() {
        out.extend(
            NODE_KINDS
                .iter()
                .map(|k| item(k, CompletionItemKind::KEYWORD, "node kind")),
        );
        out.extend(
            KEYWORDS[2..]
                .iter()
                .map(|k| item(k, CompletionItemKind::KEYWORD, "keyword")),
        );
        if let Some(w) = enclosing {
            out.extend(
                w.nodes
                    .iter()
                    .map(|n| item(&n.name, CompletionItemKind::FIELD, n.kind.as_str())),
            );
        }
        if body == super::complete_wf::Body::Workflow {
            out.extend(super::complete_wf::attributes(
                wf_analysis::attributes::schema::Place::Workflow,
                None,
            ));
        }
    } else {
        out.extend(
            KEYWORDS[..2]
                .iter()
                .map(|k| item(k, CompletionItemKind::KEYWORD, "keyword")),
        );
    }
    out
}

/// One quick fix per diagnostic of `file` that has a fix and touches
/// `range` (byte offsets), then one per such diagnostic that a
/// `// wfc: allow(...)` comment can silence ([`super::allow`]).
pub fn code_actions(
    snapshot: &Snapshot,
    files: &FileMap,
    file: FileId,
    range: (usize, usize),
) -> Vec<CodeActionOrCommand> {
    let mut diagnostics = snapshot.db.file_diagnostics(file);
    if let Some(config) = snapshot.config(file) {
        wf_analysis::project::apply_lint_levels(&mut diagnostics, config);
    }
    let touched: Vec<&wf_diagnostics::Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.primary.location.file == file)
        .filter(|d| {
            let span = d.primary.location.span;
            (span.start as usize) <= range.1 && range.0 <= span.end as usize
        })
        .collect();
    // Trying a suppression re-reads the file's comments: only for the
    // diagnostics under the cursor, and not at all when there are none.
    let (text, path) = if touched.is_empty() {
        (None, None)
    } else {
        (snapshot.db.file_text(file), snapshot.db.file_path(file))
    };
    let fixes = touched
        .iter()
        .filter_map(|d| quick_fix(d, d.fix.as_ref()?, files));
    let allows = touched.iter().filter_map(|d| {
        let fix = super::allow::allow_fix(text.as_deref()?, path.as_deref()?, d)?;
        quick_fix(d, &fix, files)
    });
    fixes.chain(allows).collect()
}

/// The code action that applies `fix` to resolve `diagnostic`, preferred
/// when the fix is machine-applicable.
fn quick_fix(
    diagnostic: &wf_diagnostics::Diagnostic,
    fix: &wf_diagnostics::Fix,
    files: &FileMap,
) -> Option<CodeActionOrCommand> {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for edit in &fix.edits {
        let uri = files.uri(edit.location.file)?.clone();
        let range = files.range(edit.location)?;
        changes.entry(uri).or_default().push(TextEdit {
            range,
            new_text: edit.replacement.clone(),
        });
    }
    Some(CodeActionOrCommand::CodeAction(CodeAction {
        title: fix.message.clone(),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![convert::to_lsp(diagnostic, files)]),
        edit: Some(WorkspaceEdit {
            changes: Some(changes),
            ..WorkspaceEdit::default()
        }),
        is_preferred: Some(fix.applicability == wf_diagnostics::Applicability::MachineApplicable),
        ..CodeAction::default()
    }))
}

/// The edits that format a `.wf` or `.dot` file with `wf-fmt` (the
/// differing middle only, so the cursor and folds survive): all of it, or
/// the whole items the byte range `range` touches. `None` when the file
/// does not parse (a file with syntax errors is left alone, as `wfc fmt`
/// does) or is in another language.
pub fn format(
    db: &Database,
    files: &FileMap,
    file: FileId,
    range: Option<std::ops::Range<usize>>,
) -> Option<Vec<TextEdit>> {
    let kind = wf_fmt::SourceKind::from_path(&db.file_path(file)?)?;
    let text = db.file_text(file)?;
    let options = wf_fmt::Options::default();
    let edits = match range {
        None => {
            let formatted = wf_fmt::format_source(&text, kind, &options).ok()?;
            wf_fmt::diff_edits(&text, &formatted)
        }
        Some(range) => wf_fmt::format_range(&text, kind, range, &options).ok()?,
    };
    edits
        .into_iter()
        .map(|edit| {
            let span = wf_diagnostics::Span::new(edit.range.start, edit.range.end).in_file(file);
            Some(TextEdit {
                range: files.range(span)?,
                new_text: edit.new_text,
            })
        })
        .collect()
}
