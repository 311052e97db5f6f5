//! The safety net: a formatted file must mean what the original meant.

use wf_diagnostics::{Diagnostic, FileId};
use wf_syntax::token::Token;
use wf_syntax::{Parsed, TriviaKind, dump, lexer};

use crate::FormatError;

/// Checks that `after` has the same tokens as `before` (separators and the
/// layout of text blocks aside), parses to the same tree (spans aside: the
/// S-expression dump without spans, which includes doc comments, literal
/// values and parentheses) with no new syntax error, and holds the same
/// comments in the same order. The token check matters for files with
/// syntax errors, whose trees do not show everything.
/// Fails when the formatted text's parse (`after`) has more syntax errors
/// than the original's (`before`), naming the first.
pub(crate) fn no_new_errors(
    before: &[Diagnostic],
    after: &[Diagnostic],
) -> Result<(), FormatError> {
    let errors = |ds: &[Diagnostic]| ds.iter().filter(|d| d.is_error()).count();
    if errors(after) <= errors(before) {
        return Ok(());
    }
    let first = after
        .iter()
        .find(|d| d.is_error())
        .map_or_else(String::new, |d| format!(": {}", d.message));
    Err(FormatError::Unsafe(format!(
        "the formatted text would not parse{first}"
    )))
}

pub(crate) fn same_program(before: &str, parsed: &Parsed, after: &str) -> Result<(), FormatError> {
    let reparsed = wf_syntax::parse(after, FileId(0));
    no_new_errors(&parsed.diagnostics, &reparsed.diagnostics)?;
    if tokens(before) != tokens(after) {
        return Err(FormatError::Unsafe(
            "the formatted text would add or drop a token".into(),
        ));
    }
    if dump::sexpr(&parsed.file, false) != dump::sexpr(&reparsed.file, false) {
        return Err(FormatError::Unsafe(
            "the formatted text would parse to a different program".into(),
        ));
    }
    if comments(before, parsed) != comments(after, &reparsed) {
        return Err(FormatError::Unsafe(
            "the formatted text would lose or reorder a comment".into(),
        ));
    }
    Ok(())
}

/// The text of every comment, trailing whitespace removed (the formatter
/// trims it; doc comments' text is compared in the trees).
fn comments<'t>(text: &'t str, parsed: &Parsed) -> Vec<&'t str> {
    parsed
        .trivia
        .iter()
        .filter(|t| t.kind != TriviaKind::BlankLines)
        .map(|t| text.get(t.span.range()).unwrap_or("").trim_end())
        .collect()
}

/// The kinds of the tokens, without the optional separators `,` and `;`
/// (the formatter drops and adds them), and the text of every token but
/// text blocks (which it re-indents; the tree check compares their values).
fn tokens(text: &str) -> Vec<(std::mem::Discriminant<Token<'_>>, &str)> {
    lexer::lex(text, FileId(0))
        .tokens
        .into_iter()
        .filter(|(t, _)| !matches!(t, Token::Comma | Token::Semi))
        .map(|(t, span)| {
            let spelled = match t {
                Token::TextBlock(_) => "",
                _ => text.get(span.range()).unwrap_or(""),
            };
            (std::mem::discriminant(&t), spelled)
        })
        .collect()
}
