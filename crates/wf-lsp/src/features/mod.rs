//! The request handlers, each a pure function of a [`Snapshot`]: protocol
//! positions in, protocol values out. The analysis parts are in the
//! submodules.

mod allow;
mod complete_dot;
mod complete_wf;
mod context;
mod edit;
mod hover;
mod nav;
mod outline;
mod rename;
mod resolve;
mod tokens;
mod tokens_dot;

use tower_lsp_server::ls_types::*;
use wf_diagnostics::FileId;

use crate::convert::{FileMap, LineIndex};
use crate::workspace::Snapshot;

/// What the server offers.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![" ".to_string(), ">".to_string()]),
            ..CompletionOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_range_formatting_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        inlay_hint_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: tokens::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                ..SemanticTokensOptions::default()
            },
        )),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..ServerCapabilities::default()
    }
}

/// The file and byte offset of a protocol position.
fn locate(snapshot: &Snapshot, at: &TextDocumentPositionParams) -> Option<(FileId, usize)> {
    let file = snapshot.file(&at.text_document.uri)?;
    let text = snapshot.db.file_text(file)?;
    let offset = LineIndex::new(&text).offset(&text, at.position);
    Some((file, offset))
}

/// `textDocument/hover`.
pub fn hover(snapshot: &Snapshot, at: &TextDocumentPositionParams) -> Option<Hover> {
    let (file, offset) = locate(snapshot, at)?;
    let (target, span) = resolve::target_at(&snapshot.db, file, offset)?;
    let value = hover::markdown(&snapshot.db, file, &target)?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: snapshot.file_map().range(span),
    })
}

/// `textDocument/definition`.
pub fn definition(
    snapshot: &Snapshot,
    at: &TextDocumentPositionParams,
) -> Option<GotoDefinitionResponse> {
    let (file, offset) = locate(snapshot, at)?;
    let (target, _) = resolve::target_at(&snapshot.db, file, offset)?;
    let files = snapshot.file_map();
    let locations: Vec<Location> = nav::definitions(&snapshot.db, file, &target)
        .into_iter()
        .filter_map(|span| files.location(span))
        .collect();
    match locations.len() {
        0 => None,
        1 => locations
            .into_iter()
            .next()
            .map(GotoDefinitionResponse::Scalar),
        _ => Some(GotoDefinitionResponse::Array(locations)),
    }
}

/// `textDocument/references`.
pub fn references(snapshot: &Snapshot, at: &TextDocumentPositionParams) -> Option<Vec<Location>> {
    let (file, offset) = locate(snapshot, at)?;
    let (target, _) = resolve::target_at(&snapshot.db, file, offset)?;
    let files = snapshot.file_map();
    Some(
        nav::references(&snapshot.db, &target)
            .into_iter()
            .filter_map(|span| files.location(span))
            .collect(),
    )
}

/// `textDocument/documentSymbol`.
pub fn document_symbols(snapshot: &Snapshot, uri: &Uri) -> Option<DocumentSymbolResponse> {
    let file = snapshot.file(uri)?;
    let files = one_file(snapshot, file)?;
    Some(DocumentSymbolResponse::Nested(outline::symbols(
        &snapshot.db,
        &files,
        file,
    )))
}

/// `textDocument/foldingRange`.
pub fn folding_ranges(snapshot: &Snapshot, uri: &Uri) -> Option<Vec<FoldingRange>> {
    let file = snapshot.file(uri)?;
    let files = one_file(snapshot, file)?;
    Some(outline::folding(&snapshot.db, &files, file))
}

/// `textDocument/completion`.
pub fn completion(
    snapshot: &Snapshot,
    at: &TextDocumentPositionParams,
) -> Option<CompletionResponse> {
    let (file, offset) = locate(snapshot, at)?;
    Some(CompletionResponse::Array(edit::completion(
        &snapshot.db,
        file,
        offset,
    )))
}

/// `textDocument/codeAction`: the fixes of the diagnostics in the range.
pub fn code_actions(snapshot: &Snapshot, params: &CodeActionParams) -> Option<CodeActionResponse> {
    let file = snapshot.file(&params.text_document.uri)?;
    let text = snapshot.db.file_text(file)?;
    let index = LineIndex::new(&text);
    let range = (
        index.offset(&text, params.range.start),
        index.offset(&text, params.range.end),
    );
    let files = snapshot.file_map();
    Some(edit::code_actions(snapshot, &files, file, range))
}

/// `textDocument/formatting` (`range: None`) and
/// `textDocument/rangeFormatting`.
pub fn format(snapshot: &Snapshot, uri: &Uri, range: Option<Range>) -> Option<Vec<TextEdit>> {
    let file = snapshot.file(uri)?;
    let files = one_file(snapshot, file)?;
    let bytes = range.and_then(|range| {
        let text = snapshot.db.file_text(file)?;
        let index = LineIndex::new(&text);
        Some(index.offset(&text, range.start)..index.offset(&text, range.end))
    });
    edit::format(&snapshot.db, &files, file, bytes)
}

/// A [`FileMap`] of one file (for features that stay in it).
fn one_file(snapshot: &Snapshot, file: FileId) -> Option<FileMap> {
    let mut files = FileMap::default();
    files.insert(file, snapshot.uri(file)?, snapshot.db.file_text(file)?);
    Some(files)
}

/// `textDocument/prepareRename`: the name's range, or an error saying why
/// it cannot be renamed (built-ins, imports, codes).
pub fn prepare_rename(
    snapshot: &Snapshot,
    at: &TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>, String> {
    let Some((file, offset)) = locate(snapshot, at) else {
        return Ok(None);
    };
    let (span, name) = rename::prepare(&snapshot.db, file, offset)?;
    let files = one_file(snapshot, file).ok_or("unknown file")?;
    Ok(files
        .range(span)
        .map(|range| PrepareRenameResponse::RangeWithPlaceholder {
            range,
            placeholder: name,
        }))
}

/// `textDocument/rename`: edits in every file that mentions the target.
pub fn rename(snapshot: &Snapshot, params: &RenameParams) -> Result<Option<WorkspaceEdit>, String> {
    let at = &params.text_document_position;
    let Some((file, offset)) = locate(snapshot, at) else {
        return Ok(None);
    };
    let spans = rename::rename(&snapshot.db, file, offset, &params.new_name)?;
    let files = snapshot.file_map();
    let mut changes: std::collections::HashMap<Uri, Vec<TextEdit>> = Default::default();
    for span in spans {
        if let Some(location) = files.location(span) {
            changes.entry(location.uri).or_default().push(TextEdit {
                range: location.range,
                new_text: params.new_name.clone(),
            });
        }
    }
    Ok(Some(WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    }))
}

/// `textDocument/documentHighlight`.
pub fn document_highlight(
    snapshot: &Snapshot,
    at: &TextDocumentPositionParams,
) -> Option<Vec<DocumentHighlight>> {
    let (file, offset) = locate(snapshot, at)?;
    let files = one_file(snapshot, file)?;
    Some(
        rename::highlights(&snapshot.db, file, offset)
            .into_iter()
            .filter_map(|span| {
                Some(DocumentHighlight {
                    range: files.range(span)?,
                    kind: Some(DocumentHighlightKind::TEXT),
                })
            })
            .collect(),
    )
}

/// `textDocument/inlayHint`: `: kind` after the first mention of each
/// implicit node in the range.
pub fn inlay_hints(snapshot: &Snapshot, uri: &Uri, range: Range) -> Option<Vec<InlayHint>> {
    let file = snapshot.file(uri)?;
    let files = one_file(snapshot, file)?;
    Some(
        rename::implicit_kinds(&snapshot.db, file)
            .into_iter()
            .filter_map(|(span, kind)| {
                let end = files.range(span)?.end;
                (range.start <= end && end <= range.end).then(|| InlayHint {
                    position: end,
                    label: InlayHintLabel::String(format!(": {kind}")),
                    kind: Some(InlayHintKind::TYPE),
                    text_edits: None,
                    tooltip: Some(InlayHintTooltip::String(format!(
                        "implicit node: declared by its edges, resolved as `{kind}`"
                    ))),
                    padding_left: None,
                    padding_right: None,
                    data: None,
                })
            })
            .collect(),
    )
}

/// `textDocument/semanticTokens/full`.
pub fn semantic_tokens(snapshot: &Snapshot, uri: &Uri) -> Option<SemanticTokensResult> {
    let file = snapshot.file(uri)?;
    let data = tokens::semantic_tokens(&snapshot.db, file)?;
    Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    }))
}

/// `workspace/symbol`: workflows and nodes whose names contain the query
/// (ignoring case), in every file.
#[allow(deprecated)] // `deprecated` is a required field of SymbolInformation
pub fn workspace_symbols(snapshot: &Snapshot, query: &str) -> Option<WorkspaceSymbolResponse> {
    let query = query.to_lowercase();
    let files = snapshot.file_map();
    let mut out = Vec::new();
    for file in snapshot.db.file_ids() {
        for workflow in snapshot.db.file_workflows(file) {
            let named =
                std::iter::once((&workflow.name, workflow.name_span, SymbolKind::CLASS, None))
                    .chain(workflow.nodes.iter().map(|n| {
                        (
                            &n.name,
                            n.name_span,
                            SymbolKind::FIELD,
                            Some(workflow.name.clone()),
                        )
                    }));
            for (name, span, kind, container) in named {
                if !name.to_lowercase().contains(&query) {
                    continue;
                }
                if let Some(location) = files.location(span) {
                    out.push(SymbolInformation {
                        name: name.clone(),
                        kind,
                        tags: None,
                        deprecated: None,
                        location,
                        container_name: container,
                    });
                }
            }
        }
    }
    Some(WorkspaceSymbolResponse::Flat(out))
}
