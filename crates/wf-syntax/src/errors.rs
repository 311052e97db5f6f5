//! Turns parser errors into WF diagnostics with readable messages:
//! "expected a node name after `step`, found `{`".

use rustc_hash::FxHashSet as HashSet;

use chumsky::error::{RichPattern, RichReason};
use wf_diagnostics::{Diagnostic, FileId, Span, codes};

use crate::parser::{CSpan, Error};
use crate::token::Token;

/// Converts parser errors, keeping one per position and dropping errors at
/// tokens the lexer already reported. Where a specific error (an unclosed
/// bracket, say) and a generic "expected …" error land on the same token,
/// the specific one is kept.
pub(crate) fn to_diagnostics(
    errors: Vec<Error<'_>>,
    tokens: &[(Token<'_>, CSpan)],
    text: &str,
    file: FileId,
) -> Vec<Diagnostic> {
    let mut seen = HashSet::default();
    let mut out = Vec::new();
    let (custom, generic): (Vec<_>, Vec<_>) = errors
        .iter()
        .partition(|e| matches!(e.reason(), RichReason::Custom(_)));
    for error in custom.into_iter().chain(generic) {
        let span = *error.span();
        if !seen.insert(span.start) {
            continue;
        }
        match error.reason() {
            RichReason::Custom(custom) => {
                let mut diagnostic = Diagnostic::new(
                    custom.code,
                    custom.message.clone(),
                    Span::new(span.start, span.end).in_file(file),
                )
                .with_primary_label(custom.label.clone());
                for (at, message) in &custom.secondary {
                    diagnostic = diagnostic.with_label(at.in_file(file), message.clone());
                }
                if let Some(help) = &custom.help {
                    diagnostic = diagnostic.with_help(help.clone());
                }
                out.push(diagnostic);
            }
            RichReason::ExpectedFound { expected, found } => {
                let found = found.as_deref().copied();
                if found != Some(Token::Error) {
                    out.push(expected_found(expected, found, span, tokens, text, file));
                }
            }
        }
    }
    out
}

fn expected_found(
    expected: &[RichPattern<'_, Token<'_>>],
    found: Option<Token<'_>>,
    span: CSpan,
    tokens: &[(Token<'_>, CSpan)],
    text: &str,
    file: FileId,
) -> Diagnostic {
    let list = expected_list(expected);
    let found_text = match found {
        None => "end of file".to_string(),
        Some(token) => describe_found(token, span, text),
    };
    // "after `step`" helps when the previous token is a keyword or an
    // operator; after a name or a literal it would only add noise.
    let prev = tokens
        .partition_point(|(_, s)| s.start < span.start)
        .checked_sub(1)
        .map(|i| tokens[i].0);
    let after = match prev.and_then(|t| t.fixed_text().map(|text| (t, text))) {
        Some((t, text)) if !matches!(t, Token::RBrace | Token::RBracket | Token::RParen) => {
            format!(" after `{text}`")
        }
        _ => String::new(),
    };
    let (message, label) = if list.is_empty() {
        (
            format!("unexpected {found_text}{after}"),
            "unexpected here".to_string(),
        )
    } else {
        (
            format!("expected {list}{after}, found {found_text}"),
            format!("expected {list}"),
        )
    };
    let mut diagnostic = Diagnostic::new(
        &codes::UNEXPECTED_TOKEN,
        message,
        Span::new(span.start, span.end).in_file(file),
    )
    .with_primary_label(label);
    let same_line = prev_end(tokens, span.start).is_some_and(|end| {
        text.get(end..span.start)
            .is_some_and(|gap| !gap.contains('\n'))
    });
    let next = tokens
        .get(tokens.partition_point(|(_, s)| s.start <= span.start))
        .map(|(t, _)| *t);
    // Which statement the found token starts, if it starts one.
    let starts = match next {
        Some(Token::Arrow) => Some("edge"),
        Some(Token::Eq | Token::Dot) if !same_line => Some("attribute"),
        Some(Token::LArrow) if !same_line => Some("return entry"),
        _ => None,
    };
    let after_dot = prev == Some(Token::Dot);
    if let Some(help) = help(expected, found, same_line, after_dot, starts) {
        diagnostic = diagnostic.with_help(help);
    }
    diagnostic
}

/// "a, b or c", labels (descriptions) before literal tokens.
fn expected_list(expected: &[RichPattern<'_, Token<'_>>]) -> String {
    let mut labels = Vec::new();
    let mut tokens = Vec::new();
    for pattern in expected {
        let (item, is_label) = match pattern {
            RichPattern::Token(t) => match t.fixed_text() {
                Some(_) => (t.expected_description(), false),
                None => (t.expected_description(), true),
            },
            RichPattern::Label(l) => (l.to_string(), true),
            RichPattern::Identifier(s) => (format!("`{s}`"), false),
            RichPattern::EndOfInput => ("the end of the file".to_string(), false),
            RichPattern::Any => ("any token".to_string(), true),
            _ => continue,
        };
        let list = if is_label { &mut labels } else { &mut tokens };
        if !list.contains(&item) {
            list.push(item);
        }
    }
    // Separators are always optional; next to a description of what can
    // come they only lengthen the message.
    if !labels.is_empty() {
        tokens.retain(|item| item != "`,`" && item != "`;`");
    }
    labels.append(&mut tokens);
    // A `.` continuing a dotted key is rarely what the user meant to write.
    if labels.len() > 1 {
        labels.retain(|item| item != "`.`");
    }
    match labels.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// How a found token is shown: its text when short, else its kind.
fn describe_found(token: Token<'_>, span: CSpan, text: &str) -> String {
    if let Some(fixed) = token.fixed_text() {
        return format!("`{fixed}`");
    }
    let raw = text.get(span.start..span.end).unwrap_or("");
    let short = raw.chars().count() <= 32 && !raw.contains('\n');
    match token {
        Token::Str(_) if short => format!("string {raw}"),
        Token::Str(_) => "a string".into(),
        Token::TextBlock(_) => "a text block".into(),
        _ if short => format!("`{raw}`"),
        Token::Ident(_) => "an identifier".into(),
        _ => token.expected_description(),
    }
}

/// Where the token before byte `at` ends.
fn prev_end(tokens: &[(Token<'_>, CSpan)], at: usize) -> Option<usize> {
    let i = tokens
        .partition_point(|(_, s)| s.start < at)
        .checked_sub(1)?;
    Some(tokens[i].1.end)
}

fn help(
    expected: &[RichPattern<'_, Token<'_>>],
    found: Option<Token<'_>>,
    same_line: bool,
    after_dot: bool,
    starts: Option<&str>,
) -> Option<String> {
    let expects = |t: Token<'_>| {
        expected
            .iter()
            .any(|p| matches!(p, RichPattern::Token(x) if **x == t))
    };
    let expects_label = |what: &str| {
        expected
            .iter()
            .any(|p| matches!(p, RichPattern::Label(l) if l.contains(what)))
    };
    match found? {
        Token::Step
        | Token::Human
        | Token::Tool
        | Token::Call
        | Token::Branch
        | Token::Parallel
        | Token::Join
        | Token::Exit
        | Token::Needs
        | Token::Gives
        | Token::Ident(_)
            if expects(Token::Workflow) =>
        {
            Some("nodes, edges and attributes belong inside `workflow Name { … }`".into())
        }
        Token::Eq if expects(Token::AndAnd) => {
            Some("to compare two values in a guard, write `==`".into())
        }
        Token::Ident(_) | Token::Str(_) if starts.is_some() && expects_label("expression") => {
            Some(format!(
                "this starts the next {}: the guard before it is incomplete",
                starts.unwrap_or_default()
            ))
        }
        Token::Ident(_) | Token::Str(_) if starts.is_some() && expects_label("value") => {
            Some(format!(
                "this starts the next {}: the attribute before it has no value",
                starts.unwrap_or_default()
            ))
        }
        t if t.is_keyword() && after_dot && same_line => Some(format!(
            "a keyword continues a dotted key only directly after the `.`, with no space: `.{t}`"
        )),
        t if t.is_keyword() && same_line && (expects_label("name") || expects_label("key")) => {
            Some("keywords cannot be used as names; quote the name: \"…\"".into())
        }
        _ => None,
    }
}
