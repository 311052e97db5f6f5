//! Every construct of the grammar, as S-expression snapshots.

use crate::common;

use common::{DESIGN_PRODUCTION, DESIGN_SKETCH, parsed, render, render_with};
use insta::assert_snapshot;

#[test]
fn design_examples_parse_without_diagnostics() {
    for src in [DESIGN_SKETCH, DESIGN_PRODUCTION] {
        let parsed = parsed(src);
        assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    }
    assert_snapshot!("design_sketch", render_with(DESIGN_SKETCH, true));
    assert_snapshot!("design_production", render(DESIGN_PRODUCTION));
}

#[test]
fn empty_and_comment_only_files() {
    assert_snapshot!(render(""), @"(file)");
    let parsed = parsed("// just a comment\n/* and a block */\n");
    assert!(parsed.file.items.is_empty() && parsed.diagnostics.is_empty());
    assert_eq!(parsed.trivia.len(), 2);
}

#[test]
fn imports() {
    assert_snapshot!(render(
        r#"
import "lib/review.wf"
import "../shared/util.wf" as util
import "quoted \"path\".wf"
"#
    ));
}

#[test]
fn workflow_names_and_attributes() {
    assert_snapshot!(render(
        r#"
workflow Plain { goal = "x" }
workflow "Quoted Name" {
  entry = plan
  max_steps = 500
  "Quoted Key" = true
  deep.dotted.key = null
}
"#
    ));
}

#[test]
fn values_of_every_kind() {
    assert_snapshot!(render(
        r#"
workflow Values {
  s = "text"
  t = """
    block
    """
  i = 1_000
  f = 1.5e-3
  d = 250ms
  b = false
  n = null
  p = fidelity.full
  l = [1, "two", [3], {}, ]
  m = { cpu: 2, "Nice Key": [true], deep.key: { x: 1s }, }
  e = []
}
"#
    ));
}

#[test]
fn signatures() {
    assert_snapshot!(render(
        r#"
workflow Sig {
  needs ticket: string, attempts: int, context.repo, "Part Concept": map
  gives url: string
  gives report.summary, "Final Verdict": any
}
"#
    ));
}

#[test]
fn node_kinds_labels_and_bodies() {
    assert_snapshot!(render(
        r#"
workflow Nodes {
  step plan
  step "Quoted Node" "With a label"
  human approve "Ship it?" { timeout = 1h default = "[R] Reject" }
  tool build { command = "make" }
  branch route
  parallel fan {}
  join gather { strategy = "all" }
  exit done
  call review = Review
  call "Sub Flow" "Run it" = "Other Flow" {
    verdict <- decision
    review.notes <- notes,
    "Human Readable" <- "Raw Name";
    timeout = 1h
  }
}
"#
    ));
}

#[test]
fn contracts_and_separators() {
    assert_snapshot!(render(
        r#"
workflow Contracts {
  step gather {
    reads ticket, context.repo?, "Part Concept"?
    writes notes: string, notes.summary: string
    writes "Raw Data", count: int;
    reads a, b, timeout = 5s, retries = 2; model = "m"
    writes out: string, parent <- child
  }
  step one { reads plan, verdict  writes url: string  goal_gate = true }
}
"#
    ));
}

#[test]
fn edges() {
    assert_snapshot!(render(
        r#"
workflow Edges {
  start -> plan -> build
  build -> review "label" when outcome == success { weight = 2, note = "x"; timeout = 1m }
  "Part Concept" -> "All Done" "[A] Approve"
  a -> b { weight = 1 }
  a -> c
  "d" -> e
  step f
  "key" = 1
  g -> h "lbl"
  "x" = 2
}
"#
    ));
}

#[test]
fn guard_precedence() {
    assert_snapshot!(render(
        r#"
workflow Guards {
  a -> b when a == 1 || b == 2 && c == 3
  a -> c when (a == 1 || b == 2) && c == 3
  a -> d when !done && !(x > 1) || !!flag
  a -> e when !a == b
  a -> f when x in [1, "two", y.z, [3],] && tags contains "u" && t matches "^fix"
  a -> g when exists(report.summary) && exists(`Part Concept`) && `odd key!` != 3
  a -> h when x < 1 || x <= 2 || x > 3 || x >= 4 || x != 5 || t < 15m
  a -> i when ((((deep))))
  a -> j when outcome == partial_success && label == "x" && n == null && f == 1.5
}
"#
    ));
}

#[test]
fn strings_escapes_and_interpolation() {
    assert_snapshot!(render(
        r#"
workflow Strings {
  quote = "a \"quoted\" \\ word\n\t\r\0"
  dollar = "costs \$5, not ${price} or $item.name."
  unicode = "\u{1F600} \u{e9}"
  block = """
      First line, ${ticket}.

        Indented more.
      He said "hi" and ""twice"" and \"escaped\".
      """
  inline = """one line"""
  empty = """"""
}
"#
    ));
}

#[test]
fn doc_comments_attach_to_items() {
    assert_snapshot!(render_with(
        r#"/// The import.
import "a.wf"

/// First line.
///   Indented second line.
///No space.
workflow W {
  /// The node.
  step s

  /// The edge.
  s -> t
}
"#,
        true
    ));
}

#[test]
fn dangling_doc_comments() {
    assert_snapshot!(render(
        r#"/// Before an attribute.
workflow W {
  /// Documents an attribute: dangling.
  goal = "x"
  /// Separated by a plain comment.
  // plain
  step s
  /// Before the closing brace.
}
/// At the end of the file.
"#
    ));
}

#[test]
fn duplicate_attributes() {
    assert_snapshot!(render(
        r#"
workflow W {
  goal = "a"
  goal = "b"
  step s { timeout = 1s retries = 1 timeout = 2s }
  s -> t { weight = 1, weight = 2 }
  m = { a: 1, b: { c: 1, c: 2 }, a: 3 }
}
"#
    ));
}

#[test]
fn trivia_is_recorded_in_order() {
    let src = "// a\nworkflow W { /* b */\n\n\n  start -> end /// c\n}\n";
    let parsed = parsed(src);
    let trivia: Vec<_> = parsed
        .trivia
        .iter()
        .map(|t| (t.kind, &src[t.span.range()]))
        .collect();
    assert_eq!(
        trivia,
        vec![
            (wf_syntax::TriviaKind::LineComment, "// a"),
            (wf_syntax::TriviaKind::BlockComment, "/* b */"),
            (wf_syntax::TriviaKind::BlankLines, "\n\n"),
            (wf_syntax::TriviaKind::DocComment, "/// c"),
        ]
    );
}

#[test]
fn keywords_after_a_dot_in_keys() {
    let src = r#"
workflow Keyed {
  needs result.exit: int, git.step
  gives x.in: bool
  config.when = true
  defaults = { tool_run.call: result.exit, a.b.null: [x.true] }
  call sub = Sub { run.exit <- result.exit  git.step <- x.in }
  step run "Run" { reads git.step, x.in?  writes result.exit: int  limits.exit = 5s }
  run -> sub when result.exit == 0 && x.in in [a.matches] && exists(git.step) && !x.contains contains "y"
  note = "Exit $result.exit, ${git.step}"
}
"#;
    assert!(parsed(src).diagnostics.is_empty());
    assert_snapshot!(render(src));
}
