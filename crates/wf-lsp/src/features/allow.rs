//! The quick fix that silences one diagnostic with a suppression comment
//! (`// wfc: allow(name)`), as Ruff offers `# noqa`. It is offered only
//! when the comment would work: the edit is tried on a copy of the text,
//! whose suppressions are read again and applied to the diagnostic.

use std::path::Path;

use wf_analysis::db::formats::{FrontEnd, front_end};
use wf_analysis::suppress;
use wf_diagnostics::{Applicability, Diagnostic, FileId, Fix, Span, codes};

/// The fix that suppresses `diagnostic` (whose primary span is in `text`,
/// the file at `path`): a `// wfc: allow(name)` line above its line, with
/// the line's indentation, or the name added to such a comment already
/// there. `None` when no comment can: a syntax error, a malformed
/// suppression (WF0010: fix it instead), Reflex JSON (no comments), or a
/// comment that would land inside a multi-line string.
pub fn allow_fix(text: &str, path: &Path, diagnostic: &Diagnostic) -> Option<Fix> {
    let front_end = front_end(path);
    if front_end == FrontEnd::Reflex
        || suppress::is_syntax_error(diagnostic)
        || diagnostic.code.code == codes::INVALID_SUPPRESSION.code
    {
        return None;
    }
    let start = diagnostic.primary.location.span.start as usize;
    let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
    let name = diagnostic.code.name;
    let (at, insert) = match extendable_comment(text, line_start) {
        Some(close) => (close, format!(", {name}")),
        None => {
            let line = &text[line_start..];
            let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
            (line_start, format!("{indent}// wfc: allow({name})\n"))
        }
    };
    let mut edited = String::with_capacity(text.len() + insert.len());
    edited.push_str(&text[..at]);
    edited.push_str(&insert);
    edited.push_str(&text[at..]);
    let moved = Span::new(start + insert.len(), start + insert.len());
    covers(&edited, front_end, diagnostic, moved).then(|| {
        Fix::replace(
            format!(
                "Suppress {} ({name}) with `// wfc: allow`",
                diagnostic.code.code
            ),
            Span::new(at, at).in_file(diagnostic.primary.location.file),
            insert,
            Applicability::MaybeIncorrect,
        )
    })
}

/// The offset of the `)` closing a `wfc: allow(...)` comment alone on the
/// line before `line_start`, when there is one.
fn extendable_comment(text: &str, line_start: usize) -> Option<usize> {
    let previous_end = line_start.checked_sub(1)?;
    let previous_start = text[..previous_end].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[previous_start..previous_end];
    let comment = line.trim();
    let alone = comment.starts_with("//") || comment.starts_with('#');
    if !alone || suppress::directive(comment).is_none() || !comment.ends_with(')') {
        return None;
    }
    Some(previous_start + line.rfind(')')?)
}

/// Whether the suppressions of `edited` silence `diagnostic` once it starts
/// at `moved`.
fn covers(edited: &str, front_end: FrontEnd, diagnostic: &Diagnostic, moved: Span) -> bool {
    let file = FileId(0);
    let (suppressions, problems) = match front_end {
        FrontEnd::Wf => suppress::collect(file, edited, &wf_syntax::parse(edited, file)),
        FrontEnd::Dot => suppress::dot::collect(file, edited, &wf_dot::parse(edited, file)),
        FrontEnd::Reflex => return false,
    };
    if !problems.is_empty() {
        return false;
    }
    let mut probe = diagnostic.clone();
    probe.primary.location = moved.in_file(file);
    let mut diagnostics = vec![probe];
    suppress::apply(&mut diagnostics, &suppressions);
    diagnostics.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The diagnostic `code` at the first occurrence of `at` in `text`.
    fn at(text: &str, code: &'static wf_diagnostics::Code, at: &str) -> Diagnostic {
        let start = text.find(at).unwrap();
        Diagnostic::new(
            code,
            "x",
            Span::new(start, start + at.len()).in_file(FileId(3)),
        )
    }

    fn apply(text: &str, fix: &Fix) -> String {
        let edit = &fix.edits[0];
        let at = edit.location.span.start as usize;
        format!("{}{}{}", &text[..at], edit.replacement, &text[at..])
    }

    #[test]
    fn a_comment_line_goes_above_the_line_with_its_indentation() {
        let text = "workflow W {\n  start -> a -> done\n  step orphan\n}\n";
        let d = at(text, &codes::UNREACHABLE_NODE, "orphan");
        let edit = allow_fix(text, Path::new("w.wf"), &d).unwrap();
        assert_eq!(
            apply(text, &edit),
            "workflow W {\n  start -> a -> done\n  // wfc: allow(unreachable-node)\n  step orphan\n}\n"
        );
        assert_eq!(
            edit.message,
            "Suppress WF0205 (unreachable-node) with `// wfc: allow`"
        );
    }

    #[test]
    fn an_existing_comment_above_gets_the_name() {
        let text = "digraph G {\n  # wfc: allow(cycle)\n  w [timeout=9]\n}\n";
        let d = at(text, &codes::DOT_DURATION_UNIT, "9");
        let edit = allow_fix(text, Path::new("p.dot"), &d).unwrap();
        assert_eq!(
            apply(text, &edit),
            "digraph G {\n  # wfc: allow(cycle, dot-duration-unit)\n  w [timeout=9]\n}\n"
        );
    }

    #[test]
    fn nothing_is_offered_where_a_comment_cannot_work() {
        let dot = "digraph G {\n  @\n}\n";
        let syntax = at(dot, &codes::DOT_SYNTAX_ERROR, "@");
        assert_eq!(allow_fix(dot, Path::new("p.dot"), &syntax), None);
        let json = "{\"id\": \"w\"}";
        let reflex = at(json, &codes::REFLEX_SCHEMA, "\"w\"");
        assert_eq!(allow_fix(json, Path::new("w.json"), &reflex), None);
        // The line starts inside a multi-line DOT string: a comment there
        // would be text of the string.
        let string = "digraph G {\n  a [prompt=\"first\nsecond\", timeout=9]\n}\n";
        let inside = at(string, &codes::DOT_DURATION_UNIT, "9");
        assert_eq!(allow_fix(string, Path::new("p.dot"), &inside), None);
    }
}
