//! Inline suppressions: `// wfc: allow(WF0205, duplicate-accelerator)`.
//!
//! A suppression comment at the end of a line applies to diagnostics whose
//! primary span starts on that line. A comment alone on its line applies to
//! the item that starts on the next line of code: a whole workflow, a node
//! declaration, an edge chain or an attribute, and every diagnostic whose
//! primary span lies inside it. Codes are given by code or by name.
//!
//! Two kinds of errors cannot be suppressed (see [`unsuppressible`]): syntax
//! errors (a file that does not parse is not understood), and the errors
//! that make compiling impossible ([`COMPILE_BLOCKING`]): suppressing those
//! would let `wfc check` pass a file `wfc build` and `wfc run` refuse. A
//! malformed suppression, or one naming such a code, is itself reported
//! (WF0010), so a typo does not silently stop suppressing.
//!
//! `.dot` pipelines take the same comments, written `// wfc: allow(…)` or
//! `# wfc: allow(…)` (see [`dot`]).

pub mod dot;

use wf_diagnostics::{Code, Diagnostic, Family, FileId, Severity, Span, codes};
use wf_syntax::ast::{Item, Statement};
use wf_syntax::{Parsed, TriviaKind};

/// One suppression: which codes, in which byte range of which file.
#[derive(Debug, Clone, PartialEq)]
pub struct Suppression {
    /// The file.
    pub file: FileId,
    /// Diagnostics whose primary span starts in this range are affected.
    pub scope: Span,
    /// The codes suppressed.
    pub codes: Vec<&'static Code>,
}

/// Finds the suppression comments of one parsed file; malformed ones become
/// WF0010 warnings.
pub fn collect(file: FileId, text: &str, parsed: &Parsed) -> (Vec<Suppression>, Vec<Diagnostic>) {
    let comments = parsed
        .trivia
        .iter()
        .filter(|trivia| trivia.kind == TriviaKind::LineComment)
        .map(|trivia| trivia.span);
    let layout = Layout {
        anchors: item_anchors(parsed),
        pipeline: false,
        comment_line: |line: &str| line.starts_with("//"),
    };
    collect_comments(file, text, comments, &layout)
}

/// What a format tells [`collect_comments`] about its files.
struct Layout<F: Fn(&str) -> bool> {
    /// Where each suppressible item starts, with its span.
    anchors: Vec<(u32, Span)>,
    /// Whether the file is an Attractor pipeline (see [`unsuppressible`]).
    pipeline: bool,
    /// Whether a trimmed line holds only a comment (so a stand-alone
    /// suppression looks past it for the next line of code).
    comment_line: F,
}

/// The suppressions among `comments` (line comments, delimiters included);
/// malformed ones become WF0010 warnings.
fn collect_comments<F: Fn(&str) -> bool>(
    file: FileId,
    text: &str,
    comments: impl Iterator<Item = Span>,
    layout: &Layout<F>,
) -> (Vec<Suppression>, Vec<Diagnostic>) {
    let mut suppressions = Vec::new();
    let mut problems = Vec::new();
    for span in comments {
        let Some(directive) = directive(&text[span.range()]) else {
            continue;
        };
        let at = span.in_file(file);
        let codes = match parse_allow(directive.trim()) {
            Ok(codes) => {
                problems.extend(
                    codes
                        .iter()
                        .filter_map(|&code| Some((code, unsuppressible(code, layout.pipeline)?)))
                        .map(|(code, why)| refused(code, why, at)),
                );
                codes
            }
            Err(message) => {
                problems.push(
                    Diagnostic::new(&codes::INVALID_SUPPRESSION, message, at)
                        .with_primary_label("this suppression has no effect")
                        .with_help("write `// wfc: allow(CODE, ...)` with codes such as `WF0205` or names such as `unreachable-node`; `wfc explain` lists them"),
                );
                continue;
            }
        };
        let scope = scope_of(text, span, layout);
        suppressions.push(Suppression { file, scope, codes });
    }
    (suppressions, problems)
}

/// What follows `wfc:` in a line comment (`// wfc: allow(…)`, or `#` in
/// DOT), when the comment is a directive at all.
pub fn directive(comment: &str) -> Option<&str> {
    comment
        .trim_start_matches(['/', '#'])
        .trim()
        .strip_prefix("wfc:")
}

/// The errors `wfc build` cannot compile past: each stands for a
/// `CompileError` of the compiler, `wf-compile` (a duplicate workflow name, no
/// entry node, a cycle in a `.wf` workflow, a key of an unknown type, a
/// call to an unknown workflow, an engine attribute of the wrong type or
/// out of range, a retry target that is not a node). They cannot be
/// suppressed, inline or through `[lints]`. `crates/wfc/tests/it/check_files.rs`
/// holds a sample of each that the compiler refuses.
pub const COMPILE_BLOCKING: &[&Code] = &[
    &codes::DUPLICATE_WORKFLOW,
    &codes::UNKNOWN_ENTRY,
    &codes::UNKNOWN_WORKFLOW,
    &codes::CYCLE,
    &codes::MISSING_ENTRY,
    &codes::AMBIGUOUS_ENTRY,
    &codes::UNKNOWN_TYPE,
    &codes::ATTRIBUTE_TYPE_MISMATCH,
    &codes::INVALID_DURATION,
    &codes::ATTRIBUTE_OUT_OF_RANGE,
    &codes::UNKNOWN_RETRY_TARGET,
];

/// The compile-blocking codes an Attractor pipeline reports below error,
/// which stay suppressible there: a cycle (pipelines loop; an info) and an
/// unknown retry target (rule `retry_target_exists`, a warning).
const BELOW_ERROR_IN_PIPELINES: [&Code; 2] = [&codes::CYCLE, &codes::UNKNOWN_RETRY_TARGET];

/// Why a diagnostic code cannot be suppressed in a `.wf` file (or, with
/// `pipeline`, a `.dot` one), or `None` when it can: a syntax error, or an
/// error in [`COMPILE_BLOCKING`].
pub fn unsuppressible(code: &Code, pipeline: bool) -> Option<&'static str> {
    if code.severity == Severity::Error
        && (code.family == Family::Syntax || DOT_SYNTAX.iter().any(|c| c.code == code.code))
    {
        Some("it is a syntax error: a file that does not parse cannot be checked")
    } else if COMPILE_BLOCKING.iter().any(|c| c.code == code.code)
        && !(pipeline && BELOW_ERROR_IN_PIPELINES.iter().any(|c| c.code == code.code))
    {
        Some("`wfc build` and `wfc run` cannot compile a workflow with this error")
    } else if code.family == Family::Run {
        Some("it is a run failure: `wfc run` reports it, checking never does")
    } else {
        None
    }
}

/// WF0010 for a suppression naming a code it cannot silence.
fn refused(code: &Code, why: &str, at: wf_diagnostics::FileSpan) -> Diagnostic {
    Diagnostic::new(
        &codes::INVALID_SUPPRESSION,
        format!("{} ({}) cannot be suppressed", code.code, code.name),
        at,
    )
    .with_primary_label(format!("this does not silence {}", code.code))
    .with_note(why)
    .with_help(format!(
        "fix the error instead, and take `{}` out of the comment (`wfc explain {}` says how)",
        code.name, code.code
    ))
}

/// Drops every diagnostic a suppression covers. Errors that cannot be
/// suppressed are never dropped (see [`is_unsuppressible`]).
pub fn apply(diagnostics: &mut Vec<Diagnostic>, suppressions: &[Suppression]) {
    if suppressions.is_empty() {
        return;
    }
    diagnostics.retain(|d| {
        if is_unsuppressible(d) {
            return true;
        }
        let at = d.primary.location;
        !suppressions.iter().any(|s| {
            s.file == at.file
                && s.scope.start <= at.span.start
                && at.span.start < s.scope.end.max(s.scope.start + 1)
                && s.codes.iter().any(|c| c.code == d.code.code)
        })
    });
}

/// The DOT front end's syntax errors: a token, an unterminated string,
/// Graphviz syntax outside the subset, a condition that does not parse.
const DOT_SYNTAX: [&Code; 4] = [
    &codes::DOT_SYNTAX_ERROR,
    &codes::DOT_UNTERMINATED,
    &codes::DOT_UNSUPPORTED,
    &codes::DOT_CONDITION_SYNTAX,
];

/// Whether `d` reports text its front end could not read: a `.wf` syntax
/// error, or a DOT one (see `DOT_SYNTAX`). Such errors cannot be
/// suppressed: a file that does not parse is not understood.
pub fn is_syntax_error(d: &Diagnostic) -> bool {
    d.severity == Severity::Error
        && (d.code.family == Family::Syntax || DOT_SYNTAX.iter().any(|c| c.code == d.code.code))
}

/// Whether no suppression may drop `d`: a syntax error, or an error that
/// makes compiling impossible ([`COMPILE_BLOCKING`]). A compile-blocking
/// code reported as a warning (an Attractor rule's own severity) stays
/// suppressible, like any warning.
pub fn is_unsuppressible(d: &Diagnostic) -> bool {
    is_syntax_error(d)
        || (d.severity == Severity::Error && COMPILE_BLOCKING.iter().any(|c| c.code == d.code.code))
}

/// Parses `allow(A, B)` into codes.
fn parse_allow(directive: &str) -> Result<Vec<&'static Code>, String> {
    let Some(rest) = directive.strip_prefix("allow") else {
        return Err(format!(
            "unknown suppression `{directive}`; the only directive is `allow(...)`"
        ));
    };
    let inner = rest
        .trim()
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| "expected `allow(CODE, ...)` with parentheses".to_string())?;
    let names: Vec<&str> = inner
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        return Err("`allow()` names no code".to_string());
    }
    names
        .into_iter()
        .map(|name| {
            codes::lookup(name).ok_or_else(|| format!("`{name}` is not a diagnostic code or name"))
        })
        .collect()
}

/// Where each suppressible item starts, with its span: workflows (anchored
/// at their name) and their statements.
fn item_anchors(parsed: &Parsed) -> Vec<(u32, Span)> {
    let mut anchors = Vec::new();
    for item in &parsed.file.items {
        let Item::Workflow(workflow) = item else {
            continue;
        };
        // The name sits on the `workflow` line, after any doc comments.
        anchors.push((workflow.name.span.start, workflow.span));
        for statement in &workflow.body {
            let span = match statement {
                Statement::Attribute(a) => a.span,
                Statement::Needs(s) | Statement::Gives(s) => s.span,
                Statement::Node(n) => n.span,
                Statement::Edge(e) => e.span,
                Statement::Error(_) => continue,
            };
            anchors.push((span.start, span));
        }
    }
    anchors
}

/// The range a suppression comment covers (see the module docs).
fn scope_of<F: Fn(&str) -> bool>(text: &str, comment: Span, layout: &Layout<F>) -> Span {
    let start = comment.start as usize;
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..start].trim().is_empty() {
        // Trailing comment: the line it ends.
        return Span::new(line_start, comment.end as usize);
    }
    // Stand-alone: the next line holding code (not blank, not a comment).
    let mut offset = text[start..]
        .find('\n')
        .map_or(text.len(), |i| start + i + 1);
    while offset < text.len() {
        let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let line = text[offset..end].trim();
        if !line.is_empty() && !(layout.comment_line)(line) {
            let (code_start, line_end) = (
                offset + (text[offset..end].len() - text[offset..end].trim_start().len()),
                end,
            );
            // The largest item that starts on that line, else the line.
            return layout
                .anchors
                .iter()
                .filter(|(anchor, _)| (code_start as u32..=line_end as u32).contains(anchor))
                .map(|(_, span)| *span)
                .max_by_key(|span| span.len())
                .unwrap_or(Span::new(offset, end));
        }
        offset = end + 1;
    }
    Span::new(text.len(), text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> (Vec<Suppression>, Vec<Diagnostic>) {
        let parsed = wf_syntax::parse(text, FileId(0));
        collect(FileId(0), text, &parsed)
    }

    #[test]
    fn trailing_comment_covers_its_line() {
        let text = "workflow W {\n  step x // wfc: allow(WF0205)\n}\n";
        let (s, p) = run(text);
        assert!(p.is_empty());
        assert_eq!(&text[s[0].scope.range()], "  step x // wfc: allow(WF0205)");
    }

    #[test]
    fn standalone_comment_covers_the_next_item() {
        let text =
            "// wfc: allow(undeclared-node, WF0205)\n\n/// Docs.\nworkflow W {\n  a -> b -> a\n}\n";
        let (s, p) = run(text);
        assert!(p.is_empty());
        assert_eq!(s[0].codes.len(), 2);
        assert!(text[s[0].scope.range()].contains("a -> b -> a"));
    }

    #[test]
    fn malformed_suppressions_are_reported() {
        for bad in [
            "// wfc: allow(WF9999)",
            "// wfc: allow()",
            "// wfc: allow WF0205",
            "// wfc: deny(WF0205)",
        ] {
            let (s, p) = run(&format!("{bad}\nworkflow W {{ a -> b }}\n"));
            assert!(s.is_empty(), "{bad}");
            assert_eq!(p.len(), 1, "{bad}");
            assert_eq!(p[0].code.code, "WF0010");
        }
    }

    #[test]
    fn compile_blocking_errors_cannot_be_suppressed() {
        // Every code of the set, by code and by name, so that a code added
        // to the set is covered without touching this test.
        for code in COMPILE_BLOCKING {
            assert_eq!(code.severity, Severity::Error, "{}", code.code);
            for written in [code.code, code.name] {
                let text = format!("// wfc: allow({written}, WF0205)\nworkflow W {{ a -> b }}\n");
                let (s, p) = run(&text);
                assert_eq!(p.len(), 1, "{written}: {p:?}");
                assert_eq!(p[0].code.code, "WF0010");
                assert!(
                    p[0].message.contains("cannot be suppressed"),
                    "{}",
                    p[0].message
                );
                assert!(p[0].message.contains(code.code));
                let at = Span::new(text.find("a -> b").unwrap(), text.len()).in_file(FileId(0));
                let mut diags = vec![
                    Diagnostic::new(code, "blocking", at),
                    Diagnostic::new(&codes::UNREACHABLE_NODE, "other", at),
                ];
                apply(&mut diags, &s);
                // The other code of the same comment is still silenced.
                assert_eq!(diags.len(), 1, "{written}");
                assert_eq!(diags[0].code.code, code.code);
            }
        }
    }

    #[test]
    fn apply_keeps_syntax_errors() {
        let at = Span::new(5, 6).in_file(FileId(0));
        let mut diags = vec![
            Diagnostic::new(&codes::UNEXPECTED_TOKEN, "x", at),
            Diagnostic::new(&codes::UNREACHABLE_NODE, "y", at),
        ];
        let suppressions = [Suppression {
            file: FileId(0),
            scope: Span::new(0, 10),
            codes: vec![&codes::UNEXPECTED_TOKEN, &codes::UNREACHABLE_NODE],
        }];
        apply(&mut diags, &suppressions);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code.code, "WF0001");
    }

    /// A run failure's code (WF09xx) is not a check finding: a comment
    /// naming it would silence nothing, and says so.
    #[test]
    fn run_failure_codes_cannot_be_suppressed() {
        let text = "// wfc: allow(tool-failed)\nworkflow W { a -> b }\n";
        let (_, p) = run(text);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].code.code, "WF0010");
        assert!(p[0].message.contains("WF0903"), "{}", p[0].message);
    }
}
