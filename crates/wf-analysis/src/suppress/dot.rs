//! Suppressions in `.dot` pipelines: `// wfc: allow(CODE, ...)` or
//! `# wfc: allow(CODE, ...)`, with the scopes of `.wf` files. At the end of
//! a line a comment covers that line; alone on its line it covers the item
//! that starts on the next line of code: the whole graph, a statement
//! (node, edge chain, `node [...]` defaults, `key=value`, subgraph) or one
//! attribute of a multi-line `[...]` block.

use wf_diagnostics::{Diagnostic, FileId, Span};
use wf_dot::CommentKind;
use wf_dot::ast::{AttrList, Stmt};

use super::{Layout, Suppression, collect_comments};

/// Whether `text` may hold a suppression at all: the check reads `.dot`
/// files without keeping their syntax tree, so a file is parsed again for
/// its comments only when this holds.
pub fn may_suppress(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"wfc:").is_some()
}

/// Finds the suppression comments of one parsed `.dot` file; malformed ones
/// become WF0010 warnings.
pub fn collect(
    file: FileId,
    text: &str,
    parsed: &wf_dot::Parsed,
) -> (Vec<Suppression>, Vec<Diagnostic>) {
    let comments = parsed
        .comments
        .iter()
        .filter(|c| matches!(c.kind, CommentKind::Line | CommentKind::Hash))
        .map(|c| c.span);
    let mut anchors = Vec::new();
    for graph in &parsed.file.graphs {
        anchors.push((graph.span.start, graph.span));
        statement_anchors(&graph.stmts, &mut anchors);
    }
    let layout = Layout {
        anchors,
        pipeline: true,
        comment_line: |line: &str| {
            line.starts_with("//") || line.starts_with('#') || line.starts_with("/*")
        },
    };
    collect_comments(file, text, comments, &layout)
}

fn statement_anchors(stmts: &[Stmt], anchors: &mut Vec<(u32, Span)>) {
    for stmt in stmts {
        let (span, attrs) = match stmt {
            Stmt::AttrDefaults { attrs, span, .. } => (*span, Some(attrs)),
            Stmt::Assign(attr) => (attr.span, None),
            Stmt::Node { attrs, span, .. } | Stmt::Edge { attrs, span, .. } => {
                (*span, attrs.as_ref())
            }
            Stmt::Subgraph(subgraph) => {
                statement_anchors(&subgraph.stmts, anchors);
                (subgraph.span, None)
            }
        };
        anchors.push((span.start, span));
        attrs
            .into_iter()
            .flat_map(|list: &AttrList| &list.attrs)
            .for_each(|attr| anchors.push((attr.span.start, attr.span)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scopes(text: &str) -> Vec<&str> {
        let parsed = wf_dot::parse(text, FileId(0));
        let (suppressions, problems) = collect(FileId(0), text, &parsed);
        assert!(problems.is_empty(), "{problems:?}");
        suppressions
            .iter()
            .map(|s| &text[s.scope.range()])
            .collect()
    }

    #[test]
    fn trailing_comments_cover_their_line() {
        let text = "digraph G {\n  work [timeout=900] // wfc: allow(WF0605)\n}\n";
        assert_eq!(scopes(text), ["  work [timeout=900] // wfc: allow(WF0605)"]);
    }

    #[test]
    fn standalone_comments_cover_the_next_statement() {
        let text = "digraph G {\n  # wfc: allow(dot-duration-unit)\n  // another comment\n  a -> b [\n    timeout=9\n  ]\n}\n";
        assert_eq!(scopes(text), ["a -> b [\n    timeout=9\n  ]"]);
    }

    #[test]
    fn a_comment_before_the_graph_covers_it() {
        let text = "// wfc: allow(cycle)\ndigraph G {\n  a -> b -> a\n}\n";
        assert_eq!(scopes(text), ["digraph G {\n  a -> b -> a\n}"]);
    }

    #[test]
    fn a_comment_inside_an_attribute_block_covers_one_attribute() {
        let text = "digraph G {\n  work [\n    // wfc: allow(WF0605)\n    timeout=900,\n    max_retries=2\n  ]\n}\n";
        assert_eq!(scopes(text), ["timeout=900"]);
    }

    #[test]
    fn statements_inside_subgraphs_are_items() {
        let text = "digraph G {\n  subgraph cluster_a {\n    // wfc: allow(WF0605)\n    work [timeout=9]\n  }\n}\n";
        assert_eq!(scopes(text), ["work [timeout=9]"]);
    }

    #[test]
    fn block_comments_are_not_suppressions() {
        assert!(scopes("digraph G {\n  /* wfc: allow(WF0605) */\n  w [timeout=9]\n}\n").is_empty());
    }

    #[test]
    fn malformed_suppressions_are_reported() {
        let text = "digraph G {\n  # wfc: allow(WF9999)\n  a -> b\n}\n";
        let parsed = wf_dot::parse(text, FileId(0));
        let (suppressions, problems) = collect(FileId(0), text, &parsed);
        assert!(suppressions.is_empty());
        assert_eq!(problems[0].code.code, "WF0010");
        assert_eq!(
            &text[problems[0].primary.location.span.range()],
            "# wfc: allow(WF9999)"
        );
    }

    #[test]
    fn dot_syntax_errors_cannot_be_suppressed() {
        let text = "digraph G {\n  a -> b [condition=\"outcome=\"] // wfc: allow(WF0606, WF0601)\n  c -- d // wfc: allow(WF0603)\n  @ // wfc: allow(dot-syntax-error)\n}\n";
        let parsed = wf_dot::parse(text, FileId(0));
        let (suppressions, problems) = collect(FileId(0), text, &parsed);
        // Each code named is refused, with WF0010 on its comment.
        let refused: Vec<_> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(refused.len(), 4, "{refused:?}");
        assert!(refused.iter().all(|m| m.ends_with("cannot be suppressed")));
        assert!(problems.iter().all(|p| p.notes[0].contains("syntax error")));
        let mut diagnostics = wf_dot::parse_and_lower(text, FileId(0)).diagnostics;
        let codes = |d: &[Diagnostic]| d.iter().map(|d| d.code.code).collect::<Vec<_>>();
        let before = codes(&diagnostics);
        assert!(
            before.contains(&"WF0606") && before.contains(&"WF0603"),
            "{before:?}"
        );
        assert!(before.contains(&"WF0601"), "{before:?}");
        super::super::apply(&mut diagnostics, &suppressions);
        assert_eq!(codes(&diagnostics), before);
    }

    #[test]
    fn only_files_naming_wfc_are_parsed_again() {
        assert!(may_suppress("digraph G { a -> b // wfc: allow(cycle)\n}"));
        assert!(!may_suppress("digraph G { a -> b }"));
    }
}
