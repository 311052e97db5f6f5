//! Semantic tokens for `.wf` files: keywords, strings, numbers and
//! comments from the lexer; identifiers classified by the model (workflow
//! names, node names, blackboard keys), so the colours follow what the
//! analysis understood rather than a regular expression.

use std::collections::HashMap;

use tower_lsp_server::ls_types::{SemanticToken, SemanticTokenType, SemanticTokensLegend};
use wf_analysis::Database;
use wf_diagnostics::{FileId, FileSpan};
use wf_syntax::TriviaKind;
use wf_syntax::token::Token;

use super::resolve::keys_in_expr;
use crate::convert::LineIndex;

/// The token types, in legend order.
const TYPES: [SemanticTokenType; 8] = [
    SemanticTokenType::KEYWORD,
    SemanticTokenType::STRING,
    SemanticTokenType::NUMBER,
    SemanticTokenType::COMMENT,
    SemanticTokenType::CLASS,    // workflows
    SemanticTokenType::FUNCTION, // nodes
    SemanticTokenType::PROPERTY, // blackboard keys
    SemanticTokenType::OPERATOR,
];
pub(super) const KEYWORD: u32 = 0;
pub(super) const STRING: u32 = 1;
pub(super) const NUMBER: u32 = 2;
pub(super) const COMMENT: u32 = 3;
pub(super) const WORKFLOW: u32 = 4;
pub(super) const NODE: u32 = 5;
pub(super) const KEY: u32 = 6;
pub(super) const OPERATOR: u32 = 7;

/// The legend announced in the capabilities.
pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.to_vec(),
        token_modifiers: Vec::new(),
    }
}

/// The tokens of a file, encoded as the protocol wants (relative
/// positions, UTF-16 lengths, one token per line).
pub fn semantic_tokens(db: &Database, file: FileId) -> Option<Vec<SemanticToken>> {
    let path = db.file_path(file)?;
    match wf_model::SourceFormat::of_path(&path) {
        Some(wf_model::SourceFormat::Dot) => return super::tokens_dot::semantic_tokens(db, file),
        Some(wf_model::SourceFormat::Wf) => {}
        // An extension-less file reads as `.wf`; Reflex JSON and unknown
        // extensions have no tokens.
        None if path.extension().is_none() => {}
        _ => return None,
    }
    let text = db.file_text(file)?;
    let lexed = wf_syntax::lexer::lex(&text, file);
    let names = classify(db, file);
    let mut raw: Vec<(usize, usize, u32)> = Vec::new();
    for (token, span) in &lexed.tokens {
        let kind = match token {
            Token::Ident(_) | Token::Backtick(_) => name_kind(&names, span.start, span.end),
            Token::Str(_) | Token::TextBlock(_) => Some(STRING),
            Token::Int(_) | Token::Float(_) | Token::Duration(_) => Some(NUMBER),
            Token::True | Token::False | Token::Null => Some(KEYWORD),
            Token::Arrow
            | Token::LArrow
            | Token::EqEq
            | Token::NotEq
            | Token::AndAnd
            | Token::OrOr => Some(OPERATOR),
            t if is_keyword(t) => Some(KEYWORD),
            _ => None,
        };
        if let Some(kind) = kind {
            raw.push((span.start as usize, span.end as usize, kind));
        }
    }
    for trivia in &lexed.trivia {
        if trivia.kind != TriviaKind::BlankLines {
            raw.push((
                trivia.span.start as usize,
                trivia.span.end as usize,
                COMMENT,
            ));
        }
    }
    raw.sort();
    Some(encode(&text, &raw))
}

fn is_keyword(token: &Token<'_>) -> bool {
    matches!(
        token,
        Token::Import
            | Token::As
            | Token::Workflow
            | Token::Needs
            | Token::Gives
            | Token::Step
            | Token::Human
            | Token::Tool
            | Token::Call
            | Token::Branch
            | Token::Parallel
            | Token::Join
            | Token::Exit
            | Token::Reads
            | Token::Writes
            | Token::When
            | Token::In
            | Token::Contains
            | Token::Matches
            | Token::Exists
    )
}

/// The kind of the name span that covers `start..end` (a dotted key
/// `build.log` is one span in the model, three tokens in the lexer).
pub(super) fn name_kind(names: &[(u32, u32, u32)], start: u32, end: u32) -> Option<u32> {
    let i = names.partition_point(|&(s, _, _)| s <= start);
    names[..i]
        .iter()
        .rev()
        .take(4)
        .find(|&&(_, e, _)| e >= end)
        .map(|&(_, _, kind)| kind)
}

/// The kind of every name span the model knows, sorted by position.
pub(super) fn classify(db: &Database, file: FileId) -> Vec<(u32, u32, u32)> {
    let mut out = HashMap::new();
    let mut put = |span: FileSpan, kind: u32| {
        if span.file == file {
            out.insert((span.span.start, span.span.end), kind);
        }
    };
    for workflow in db.file_workflows(file) {
        put(workflow.name_span, WORKFLOW);
        for decl in workflow.needs.iter().chain(&workflow.gives) {
            put(decl.span, KEY);
        }
        for node in &workflow.nodes {
            put(node.name_span, NODE);
            node.writes.iter().for_each(|d| put(d.span, KEY));
            node.reads.iter().for_each(|r| put(r.span, KEY));
            if let Some(call) = &node.call {
                put(call.workflow_span, WORKFLOW);
                for entry in &call.return_map {
                    put(entry.parent_span, KEY);
                    put(entry.child_span, KEY);
                }
            }
        }
        for edge in &workflow.edges {
            put(edge.from_span, NODE);
            put(edge.to_span, NODE);
            if let Some(guard) = &edge.guard {
                let mut keys = Vec::new();
                keys_in_expr(&guard.expr, &mut keys);
                keys.into_iter().for_each(|(_, span)| put(span, KEY));
            }
        }
    }
    let mut out: Vec<(u32, u32, u32)> = out.into_iter().map(|((s, e), k)| (s, e, k)).collect();
    out.sort_unstable();
    out
}

/// Splits multi-line tokens per line and delta-encodes them.
pub(super) fn encode(text: &str, raw: &[(usize, usize, u32)]) -> Vec<SemanticToken> {
    let index = LineIndex::new(text);
    let mut out = Vec::new();
    let (mut last_line, mut last_start) = (0u32, 0u32);
    let mut previous_end = 0usize;
    for &(start, end, kind) in raw {
        if start < previous_end {
            continue; // overlapping (a comment inside something else): skip
        }
        previous_end = end;
        let mut piece_start = start;
        while piece_start < end {
            let line_end = text[piece_start..end]
                .find('\n')
                .map_or(end, |i| piece_start + i);
            let from = index.position(text, piece_start);
            let to = index.position(text, line_end);
            let length = to.character.saturating_sub(from.character);
            if length > 0 {
                let delta_line = from.line - last_line;
                let delta_start = if delta_line == 0 {
                    from.character - last_start
                } else {
                    from.character
                };
                out.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length,
                    token_type: kind,
                    token_modifiers_bitset: 0,
                });
                (last_line, last_start) = (from.line, from.character);
            }
            piece_start = line_end + 1;
        }
    }
    out
}
