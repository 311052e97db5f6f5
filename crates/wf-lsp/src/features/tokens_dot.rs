//! Semantic tokens for Attractor `.dot` pipelines, in the legend of
//! `tokens.rs`: DOT keywords, strings, numbers, comments and `->` from the
//! DOT lexer; attribute names (a word before `=`) as properties; graph and
//! node ids classified by the model.

use tower_lsp_server::ls_types::SemanticToken;
use wf_analysis::Database;
use wf_diagnostics::FileId;
use wf_dot::lexer::Token;

use super::tokens::{COMMENT, KEY, KEYWORD, NUMBER, OPERATOR, STRING, classify, encode, name_kind};

/// DOT's keywords (case-insensitive).
const KEYWORDS: &[&str] = &["strict", "graph", "digraph", "node", "edge", "subgraph"];

/// The tokens of a `.dot` file, encoded.
pub fn semantic_tokens(db: &Database, file: FileId) -> Option<Vec<SemanticToken>> {
    let text = db.file_text(file)?;
    let lexed = wf_dot::lexer::lex(&text, file);
    let names = classify(db, file);
    let mut raw: Vec<(usize, usize, u32)> = Vec::new();
    let tokens = &lexed.tokens;
    for (i, (token, span)) in tokens.iter().enumerate() {
        let next_is_eq = matches!(tokens.get(i + 1), Some((Token::Eq, _)));
        let kind = match token {
            Token::Word(w) if KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w)) => Some(KEYWORD),
            Token::Word(_) if next_is_eq => Some(KEY),
            Token::Word(w) if w.parse::<f64>().is_ok() => Some(NUMBER),
            Token::Word(_) => name_kind(&names, span.start, span.end),
            Token::Str(_) => name_kind(&names, span.start, span.end).or(Some(if next_is_eq {
                KEY
            } else {
                STRING
            })),
            Token::Html(_) => Some(STRING),
            Token::Arrow | Token::DashDash => Some(OPERATOR),
            _ => None,
        };
        if let Some(kind) = kind {
            raw.push((span.start as usize, span.end as usize, kind));
        }
    }
    for comment in &lexed.comments {
        raw.push((
            comment.span.start as usize,
            comment.span.end as usize,
            COMMENT,
        ));
    }
    raw.sort();
    Some(encode(&text, &raw))
}
