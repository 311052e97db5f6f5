//! Error recovery: every recovery path, as snapshots of the tree that
//! survives and the diagnostics reported.

use crate::common;

use common::{parsed, render};
use insta::assert_snapshot;
use wf_syntax::ast::{Item, Statement};

fn codes(src: &str) -> Vec<&'static str> {
    parsed(src)
        .diagnostics
        .iter()
        .map(|d| d.code.code)
        .collect()
}

#[test]
fn three_unrelated_errors_are_all_reported_and_good_workflows_survive() {
    let src = r#"
workflow First {
  step { prompt = "no name" }
  start -> a
}

workflow Cycle {
  start -> a -> b -> a
  b -> done
}

workflow Second {
  retries = 
  start -> b
}

workflow Third {
  start -> c when outcome ==
}

workflow Fine {
  step x "X" { timeout = 5s }
  start -> x -> done
}
"#;
    let parsed = parsed(src);
    let errors: Vec<_> = parsed.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 3, "{:#?}", parsed.diagnostics);
    assert!(errors.iter().all(|d| d.code.code == "WF0001"));
    let workflows: Vec<_> = parsed
        .file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Workflow(w) => Some(w),
            _ => None,
        })
        .collect();
    assert_eq!(workflows.len(), 5);
    // The workflows without errors are complete.
    let cycle = &workflows[1];
    assert_eq!(cycle.name.text, "Cycle");
    assert_eq!(cycle.body.len(), 2);
    assert!(cycle.body.iter().all(|s| matches!(s, Statement::Edge(_))));
    let fine = &workflows[4];
    assert_eq!(fine.body.len(), 2);
    assert!(
        matches!(&fine.body[0], Statement::Node(n) if n.body.as_ref().unwrap().items.len() == 1)
    );
    assert_snapshot!(render(src));
}

#[test]
fn statement_level_errors() {
    assert_snapshot!(render(
        r#"
workflow W {
  step { prompt = "x" }
  step ok
  needs a:
  gives b
  = 3
  human h "x" { }
  x y z = 1
  start -> ok
}
"#
    ));
}

#[test]
fn body_level_errors() {
    assert_snapshot!(render(
        r#"
workflow W {
  step a {
    retries =
    reads
    writes x:, y: string
    timeout = 5s
    -> nowhere
    parent <-
    model = "m"
  }
  start -> a
}
"#
    ));
}

#[test]
fn value_errors_become_error_values() {
    assert_snapshot!(render(
        r#"
workflow W {
  a = [1, 2 3]
  b = { cpu 2 }
  c = { "k": }
  d = [1, , 2]
  e = (1)
  f = 15min
  g = "fine"
}
"#
    ));
}

#[test]
fn guard_errors() {
    assert_snapshot!(render(
        r#"
workflow W {
  a -> b when outcome ==
  b -> c when { weight = 1 }
  c -> d when x == 1 == 2
  d -> e when !
  e -> f when (x == ) && y { weight = 2 }
  f -> g when exists() || exists(1)
  g -> h when x &&
  h -> i when x = 1 { weight = 3 }
  i -> j when [1, 2 && x
}
"#
    ));
}

#[test]
fn edge_errors() {
    assert_snapshot!(render(
        r#"
workflow W {
  a -> -> b
  c -> d { weight = , note = "n" ; = 2 }
  e -> f "label" "another"
  g -> h
}
"#
    ));
}

#[test]
fn call_node_errors() {
    assert_snapshot!(render(
        r#"
workflow W {
  call sub Review
  call other = { x <- y }
  call fine = Review { verdict <- decision }
}
"#
    ));
}

#[test]
fn item_level_errors() {
    assert_snapshot!(render(
        r#"
step outside
import 42
import "a.wf" as
workflow { a -> b }
workflow Missing start -> end
}
workflow Ok { a -> b }
import "b.wf" as b
"#
    ));
}

#[test]
fn unclosed_delimiters() {
    assert_snapshot!(render(
        r#"
workflow A {
  goal = [1, 2
  step q {
    timeout = 1s
  step r
  a -> b when (x == 1 { weight = 1 }
  c -> d
"#
    ));
}

#[test]
fn unclosed_group_whose_contents_fail() {
    assert_snapshot!(render(
        "workflow W {\n  a -> b when (\n  c -> d\n  e -> f when exists(\n  g -> h\n}\nworkflow X { y -> z }\n"
    ));
}

#[test]
fn mismatched_and_stray_delimiters() {
    assert_snapshot!(render(
        r#"
}
workflow A {
  x = [1, 2)
  y = 3
}
workflow B {
  ) step q
  step r
  a -> b when (x == 1]
  c -> d
}
)
workflow C { a -> b }
"#
    ));
}

#[test]
fn interacting_delimiter_errors_stay_contained() {
    // Two bracket mistakes on neighbouring lines: each wrong bracket closes
    // the group opened on its own line, so they do not pair up.
    assert_snapshot!(render(
        r#"
workflow A {
  x = [1, 2)
  y = { a: 1 ]
  step q
}
workflow B { a -> b }
"#
    ));
}

#[test]
fn missing_values_and_operands_do_not_swallow_the_next_line() {
    assert_snapshot!(render(
        r#"
workflow W {
  a -> b when outcome ==
  x = [1, 2
  step s {
    retries =
    parent <- child
    timeout =
    "quoted" = 1
  }
  goal =
  c -> d
  e -> f when x = 1
}
"#
    ));
}

#[test]
fn node_body_closed_by_the_wrong_bracket() {
    assert_snapshot!(render(
        r#"
workflow W {
  step plan { timeout = 5m )
  step other { x = 1 ) }
  step last {
    y = 2
  )
  start -> plan -> done
}
"#
    ));
}

#[test]
fn lexical_errors_do_not_cascade() {
    assert_snapshot!(render(
        r#"
workflow W {
  step a { prompt = "unterminated
    model = "m" }
  step b @ { retries = 1 }
  c -> d when x == 'y'
  e = 99999999999999999999
  f = "bad \q escape"
}
workflow After { a -> b }
"#
    ));
}

#[test]
fn unterminated_block_comment_and_text_block() {
    assert_snapshot!(render(
        "workflow W { a -> b }\n/* never closed\nworkflow X { c -> d }\n"
    ));
    assert_snapshot!(render("workflow W {\n  p = \"\"\"\n  never closed\n}\n"));
}

#[test]
fn broken_workflow_headers_keep_their_bodies() {
    let src = r#"workflow { a -> b }
workflow 123 { c -> d }
workflow step { e -> f }
workflow Deploy now { g -> h }
workflow Typed(x: int) { i -> j }
workflow
{ k -> l }
workflow "" { m -> n }
"#;
    assert_snapshot!(render(src));
    let parsed = parsed(src);
    let names: Vec<_> = parsed
        .file
        .items
        .iter()
        .map(|item| match item {
            Item::Workflow(w) => (
                w.name.text.as_str(),
                w.name.is_missing(),
                &src[w.name.span.range()],
            ),
            Item::Import(_) | Item::Error(_) => panic!("{item:?}"),
        })
        .collect();
    assert_eq!(
        names,
        vec![
            ("", true, ""),
            ("", true, "123"),
            ("", true, "step"),
            ("Deploy", false, "Deploy"),
            ("Typed", false, "Typed"),
            ("", true, ""),
            ("", false, "\"\""),
        ]
    );
    // The missing name sits where the name should have been.
    let Item::Workflow(first) = &parsed.file.items[0] else {
        unreachable!()
    };
    assert_eq!(first.name.span.range(), 9..9);
}

#[test]
fn unrecoverable_workflow_headers_skip_the_item() {
    // No `{` on the header's line (or only after an unclosed bracket, or
    // after another item keyword): the item is skipped, as before.
    assert_snapshot!(render(
        r#"workflow Missing start -> end
}
workflow 1
2 { a -> b }
workflow B [ { c -> d }
workflow workflow C { e -> f }
workflow Ok { g -> h }
workflow
"#
    ));
}

#[test]
fn keywords_in_dotted_keys() {
    // A keyword is a key segment only directly after the `.`: a dot left
    // at the end of a line does not swallow the next statement.
    assert_snapshot!(render(
        "workflow W {\n  step a { writes out.\n  }\n  x = result.\n  step b\n  y = tool.output\n  a -> b when exit.code == 0\n  step c { reads step.x }\n  z = x. in\n  a -> b\n}\n"
    ));
}

#[test]
fn keywords_as_names_get_a_hint() {
    assert_snapshot!(render(
        "workflow W {\n  step exit\n  step \"exit\"\n  a -> step\n}\n"
    ));
}

#[test]
fn errors_at_the_same_position_are_reported_once() {
    let src = "workflow W {\n  x = \n}\n";
    assert_eq!(codes(src), vec!["WF0001"]);
}

#[test]
fn deep_nesting_is_reported_not_recursed() {
    let depth = 10_000;
    let value = format!(
        "workflow W {{ v = {}1{} a -> b }}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let parsed = parsed(&value);
    assert_eq!(codes(&value), vec!["WF0001"]);
    assert!(
        parsed.diagnostics[0]
            .message
            .contains("nested more than 256 levels")
    );
    let guard = format!(
        "workflow W {{ a -> b when {}x{} c -> d }}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    assert_eq!(codes(&guard), vec!["WF0001"]);
    let Item::Workflow(w) = &parsed.file.items[0] else {
        panic!()
    };
    assert_eq!(w.body.len(), 2);
}

#[test]
fn long_operator_chains_are_capped() {
    let bangs = format!("workflow W {{ a -> b when {}x }}", "!".repeat(100_000));
    assert_eq!(codes(&bangs), vec!["WF0001"]);
    let chain = format!("workflow W {{ a -> b when x{} }}", " || x".repeat(100_000));
    assert_eq!(codes(&chain), vec!["WF0001"]);
    let ok = format!("workflow W {{ a -> b when x{} }}", " && x".repeat(200));
    assert!(codes(&ok).is_empty());
}
