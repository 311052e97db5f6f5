//! The parser's tree, comment table and recovery on small inputs.

use wf_diagnostics::{FileId, Span};
use wf_dot::ast::{EdgeEnd, IdKind, Stmt};
use wf_dot::{CommentKind, parse};

fn codes(text: &str) -> Vec<&'static str> {
    parse(text, FileId(0))
        .diagnostics
        .iter()
        .map(|d| d.code.code)
        .collect()
}

#[test]
fn comments_go_to_the_side_table_never_inside_strings() {
    let text = "# top\ndigraph G { // line\n  a [label=\"# not // a /* comment\"] /* block */\n  b # not at line start\n}\n";
    let parsed = parse(text, FileId(0));
    let kinds: Vec<_> = parsed.comments.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [CommentKind::Hash, CommentKind::Line, CommentKind::Block]
    );
    let spans: Vec<&str> = parsed
        .comments
        .iter()
        .map(|c| &text[c.span.range()])
        .collect();
    assert_eq!(spans, ["# top", "// line", "/* block */"]);
    // The `#` after `b` is not at the start of a line: an error.
    assert_eq!(codes(text), ["WF0601"]);
    let Stmt::Node { attrs, .. } = &parsed.file.graphs[0].stmts[0] else {
        panic!()
    };
    assert_eq!(
        attrs.as_ref().unwrap().attrs[0].value.text,
        "# not // a /* comment"
    );
}

#[test]
fn chains_concatenation_and_quoted_names() {
    let text = "digraph \"My G\" { a -> b -> \"c\" [label=\"x\" + \"y\", weight=2] }";
    let parsed = parse(text, FileId(0));
    assert!(parsed.diagnostics.is_empty());
    let graph = &parsed.file.graphs[0];
    assert_eq!(graph.name.as_ref().unwrap().text, "My G");
    let Stmt::Edge {
        ends,
        attrs,
        directed,
        ..
    } = &graph.stmts[0]
    else {
        panic!()
    };
    assert_eq!(ends.len(), 3);
    assert_eq!(directed.len(), 2);
    let EdgeEnd::Node(c) = &ends[2] else { panic!() };
    assert_eq!((c.id.text.as_str(), c.id.kind), ("c", IdKind::Quoted));
    let label = &attrs.as_ref().unwrap().attrs[0].value;
    assert_eq!(label.text, "xy");
    assert_eq!(label.pieces.len(), 2);
    assert_eq!(&text[label.span.range()], "\"x\" + \"y\"");
}

#[test]
fn every_error_in_a_file_is_reported() {
    let text = "digraph G {\n  a [label \"A\"]\n  b [x=]\n  c -> ;\n  d [y=1]\n  e @ f\n}\n";
    let parsed = parse(text, FileId(0));
    let lines: Vec<usize> = parsed
        .diagnostics
        .iter()
        .map(|d| {
            text[..d.primary.location.span.start as usize]
                .lines()
                .count()
        })
        .collect();
    assert_eq!(lines, [2, 3, 4, 6], "{:#?}", parsed.diagnostics);
    // `d [y=1]` after the broken edge is still a node statement.
    assert!(
        parsed.file.graphs[0]
            .stmts
            .iter()
            .any(|s| matches!(s, Stmt::Node { node, .. } if node.id.text == "d"))
    );
    assert!(parsed.file.graphs[0].incomplete);
}

#[test]
fn missing_closers_point_at_the_opener() {
    let text = "digraph G {\n  a [label=\"A\"\n  b [label=\"B\"]\n";
    let parsed = parse(text, FileId(0));
    let spans: Vec<Span> = parsed
        .diagnostics
        .iter()
        .map(|d| d.primary.location.span)
        .collect();
    assert_eq!(
        spans,
        [Span::new(10, 11), Span::new(16, 17)],
        "{:#?}",
        parsed.diagnostics
    );
}

#[test]
fn rejected_forms_are_diagnostics() {
    assert_eq!(codes("graph G { a -- b }"), ["WF0603", "WF0603"]);
    assert_eq!(codes("strict digraph G { }"), ["WF0603"]);
    assert_eq!(codes("digraph A { } digraph B { }"), ["WF0603"]);
    assert_eq!(codes("digraph G { a:n -> b:s:w }"), ["WF0603", "WF0603"]);
    assert_eq!(codes("digraph G { a [label=<b>] }"), ["WF0603"]);
    assert_eq!(codes("digraph G { a [label=\"x }"), ["WF0602"]);
    assert_eq!(codes("digraph G { /* x }"), ["WF0602"]);
    assert_eq!(codes(""), ["WF0601"]);
    assert_eq!(codes("digraph G { node -> a }"), ["WF0601"]);
}

#[test]
fn tolerated_forms_are_clean() {
    for text in [
        "digraph G { a [x=1 y=2; z=3,] }",
        "digraph G { a [\n  llm_model=gpt-5.4\n  fidelity=summary:high\n]; b }",
        "digraph G { a [human.default_choice=yes, \"quoted.key\"=1] }",
        "DiGraph G { Node [shape=box] EDGE [weight=1] a -> b; }",
        "digraph G { subgraph cluster_x { label=\"L\"; a } { b } }",
        "digraph { a }",
        "\u{FEFF}digraph G { a [w=-1, f=-.5, p=\"a\\\nb\"] }",
    ] {
        assert_eq!(codes(text), Vec::<&str>::new(), "{text}");
    }
}
