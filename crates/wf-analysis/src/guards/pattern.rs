//! `matches` patterns: compiling them with bounded size, and turning the
//! regex crate's errors into diagnostics.

use regex::{Regex, RegexBuilder};
use wf_diagnostics::{Diagnostic, FileSpan, Span, codes};

/// Upper bound on a compiled pattern (and on its lazy DFA cache), so a
/// hostile guard such as `x matches "(a{999}){999}"` cannot make the checker
/// (or, later, the runtime) allocate without limit.
pub const SIZE_LIMIT: usize = 1 << 20;

/// Compiles a `matches` pattern with the size limits.
pub fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
}

/// WF0404 for `pattern` (written at `literal`, quotes included), or `None`
/// when it compiles.
pub fn check(pattern: &str, literal: FileSpan) -> Option<Diagnostic> {
    let error = compile(pattern).err()?;
    let (reason, excerpt, carets) = match &error {
        regex::Error::Syntax(text) => parse_syntax_error(text),
        regex::Error::CompiledTooBig(limit) => (
            format!("the compiled pattern would exceed the size limit of {limit} bytes"),
            None,
            None,
        ),
        other => (other.to_string(), None, None),
    };
    let primary = carets
        .and_then(|(column, len)| locate(pattern, literal, column, len))
        .unwrap_or(literal);
    let mut diagnostic = Diagnostic::new(
        &codes::INVALID_REGEX,
        format!("invalid regular expression: {reason}"),
        primary,
    )
    .with_primary_label(reason.clone());
    if let Some(excerpt) = excerpt {
        diagnostic = diagnostic.with_note(format!(
            "the pattern, as the regex engine reads it:\n{excerpt}"
        ));
    }
    let help = if matches!(error, regex::Error::CompiledTooBig(_)) {
        "simplify the pattern: large counted repetitions (`{1000}`) multiply its size"
    } else {
        "patterns use the syntax of Rust's `regex` crate; in a string, a backslash is written `\\\\`"
    };
    Some(diagnostic.with_help(help))
}

/// Splits the regex crate's syntax error (`regex parse error:`, the pattern
/// with carets under the culprit, `error: reason`) into the reason, the
/// excerpt, and the first caret run's column and length.
fn parse_syntax_error(text: &str) -> (String, Option<String>, Option<(usize, usize)>) {
    let lines: Vec<&str> = text.lines().collect();
    let reason_at = lines.iter().rposition(|l| l.starts_with("error: "));
    let Some(reason_at) = reason_at else {
        return (text.trim().to_string(), None, None);
    };
    let reason = lines[reason_at]["error: ".len()..].to_string();
    let excerpt_lines = lines.get(1..reason_at).unwrap_or_default();
    let excerpt = (!excerpt_lines.is_empty()).then(|| excerpt_lines.join("\n"));
    // One pattern line and one caret line, indented by four spaces: the
    // carets' column is then a character offset into the pattern.
    let carets = match excerpt_lines {
        [_, carets] => {
            let first = carets.find('^');
            first.and_then(|start| {
                let len = carets[start..].chars().take_while(|&c| c == '^').count();
                start.checked_sub(4).map(|column| (column, len))
            })
        }
        _ => None,
    };
    (reason, excerpt, carets)
}

/// The source span of characters `column..column + len` of the pattern,
/// when the literal is written plainly (`"` + pattern + `"`, no escapes and
/// ASCII only, so pattern offsets are source offsets).
fn locate(pattern: &str, literal: FileSpan, column: usize, len: usize) -> Option<FileSpan> {
    let plain = pattern.is_ascii() && literal.span.len() as usize == pattern.len() + 2;
    if !plain || len == 0 || column + len > pattern.len() {
        return None;
    }
    let start = literal.span.start as usize + 1 + column;
    Some(Span::new(start, start + len).in_file(literal.file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_patterns_compile_and_bad_ones_explain_themselves() {
        assert!(compile("^v[0-9]+$").is_ok());
        let (reason, excerpt, carets) = parse_syntax_error(&compile("a(").unwrap_err().to_string());
        assert_eq!(reason, "unclosed group");
        assert!(excerpt.unwrap().contains("a("));
        assert_eq!(carets, Some((1, 1)));
    }

    #[test]
    fn huge_patterns_hit_the_size_limit() {
        assert!(matches!(
            compile("(a{999}){999}"),
            Err(regex::Error::CompiledTooBig(_))
        ));
    }
}
