//! The safety net for DOT: a formatted file must mean what the original
//! meant.

use wf_diagnostics::{FileId, Span};
use wf_dot::ast::{AttrList, EdgeEnd, File, Id, Stmt, Subgraph};
use wf_dot::lexer::{self, Token};
use wf_dot::{CommentKind, Parsed};

use crate::FormatError;
use crate::verify::no_new_errors;

/// Checks that `after` has the same tokens as `before` (the optional `;`
/// and `,` separators aside), parses to the same tree (spans aside: ids
/// keep their decoded text and how they were written) with no new syntax
/// error, and holds the same comments in the same order. The tree is what
/// the lowering reads, so the same tree lowers to the same model.
pub(crate) fn same_graph(before: &str, parsed: &Parsed, after: &str) -> Result<(), FormatError> {
    let reparsed = wf_dot::parse(after, FileId(0));
    no_new_errors(&parsed.diagnostics, &reparsed.diagnostics)?;
    if tokens(before) != tokens(after) {
        return Err(FormatError::Unsafe(
            "the formatted text would add or drop a token".into(),
        ));
    }
    if blank_file(&parsed.file) != blank_file(&reparsed.file) {
        return Err(FormatError::Unsafe(
            "the formatted text would parse to a different graph".into(),
        ));
    }
    if comments(before, parsed) != comments(after, &reparsed) {
        return Err(FormatError::Unsafe(
            "the formatted text would lose or reorder a comment".into(),
        ));
    }
    Ok(())
}

/// The spans of the tokens (without `;` and `,`) and comments of a DOT
/// text, in source order: what range formatting pairs up between the
/// input and the formatted text.
pub(crate) fn anchors(text: &str) -> Vec<Span> {
    let lexed = lexer::lex(text, FileId(0));
    let mut out: Vec<Span> = lexed
        .tokens
        .iter()
        .filter(|(t, _)| !matches!(t, Token::Semi | Token::Comma))
        .map(|(_, span)| *span)
        .chain(lexed.comments.iter().map(|c| c.span))
        .collect();
    out.sort_by_key(|s| s.start);
    out
}

/// The text of every comment, trailing whitespace removed (the formatter
/// trims line comments).
fn comments<'t>(text: &'t str, parsed: &Parsed) -> Vec<(CommentKind, &'t str)> {
    parsed
        .comments
        .iter()
        .map(|c| (c.kind, text.get(c.span.range()).unwrap_or("").trim_end()))
        .collect()
}

/// The tokens but the separators, with their text.
fn tokens(text: &str) -> Vec<(std::mem::Discriminant<Token<'_>>, &str)> {
    lexer::lex(text, FileId(0))
        .tokens
        .into_iter()
        .filter(|(t, _)| !matches!(t, Token::Semi | Token::Comma))
        .map(|(t, span)| {
            (
                std::mem::discriminant(&t),
                text.get(span.range()).unwrap_or(""),
            )
        })
        .collect()
}

/// A copy of the tree with every span emptied.
pub(crate) fn blank_file(file: &File) -> File {
    let mut file = file.clone();
    for graph in &mut file.graphs {
        graph.strict = graph.strict.map(|_| Span::default());
        graph.keyword = Span::default();
        graph.span = Span::default();
        if let Some(name) = &mut graph.name {
            blank_id(name);
        }
        blank_stmts(&mut graph.stmts);
    }
    file
}

fn blank_id(id: &mut Id) {
    id.span = Span::default();
    for piece in &mut id.pieces {
        *piece = Span::default();
    }
}

fn blank_attrs(list: &mut AttrList) {
    list.span = Span::default();
    for attr in &mut list.attrs {
        attr.span = Span::default();
        blank_id(&mut attr.key);
        blank_id(&mut attr.value);
    }
}

fn blank_subgraph(sub: &mut Subgraph) {
    sub.keyword = sub.keyword.map(|_| Span::default());
    sub.span = Span::default();
    if let Some(name) = &mut sub.name {
        blank_id(name);
    }
    blank_stmts(&mut sub.stmts);
}

fn blank_stmts(stmts: &mut [Stmt]) {
    for stmt in stmts {
        match stmt {
            Stmt::AttrDefaults {
                keyword,
                attrs,
                span,
                ..
            } => {
                *keyword = Span::default();
                *span = Span::default();
                blank_attrs(attrs);
            }
            Stmt::Assign(attr) => {
                attr.span = Span::default();
                blank_id(&mut attr.key);
                blank_id(&mut attr.value);
            }
            Stmt::Node { node, attrs, span } => {
                *span = Span::default();
                blank_id(&mut node.id);
                node.port = node.port.map(|_| Span::default());
                if let Some(attrs) = attrs {
                    blank_attrs(attrs);
                }
            }
            Stmt::Edge {
                ends,
                directed,
                attrs,
                span,
            } => {
                *span = Span::default();
                for end in ends {
                    match end {
                        EdgeEnd::Node(node) => {
                            blank_id(&mut node.id);
                            node.port = node.port.map(|_| Span::default());
                        }
                        EdgeEnd::Subgraph(sub) => blank_subgraph(sub),
                    }
                }
                for (_, op) in directed {
                    *op = Span::default();
                }
                if let Some(attrs) = attrs {
                    blank_attrs(attrs);
                }
            }
            Stmt::Subgraph(sub) => blank_subgraph(sub),
        }
    }
}
