//! Unit tests of the guard checks; the annotated files under
//! `tests/check/conditions/` cover the rendered diagnostics.

use wf_diagnostics::FileId;
use wf_model::{Expr, SourceFormat};

use super::logic::Truths;
use super::print::expr_text;
use super::*;
use crate::test_support::{check, codes, lower, with_code};

/// The guard of the first guarded edge of the first workflow of `src`.
fn first_guard(src: &str) -> Expr {
    let lowered = lower(src);
    let workflow = &lowered.program.workflows[0];
    let edge = workflow.edges.iter().find(|e| e.guard.is_some()).unwrap();
    edge.guard.clone().unwrap().expr
}

fn guard(text: &str) -> Expr {
    first_guard(&format!("workflow W {{ a -> b when {text} }}"))
}

/// The WF04xx codes of checking `src`.
fn guard_codes(src: &str) -> Vec<&'static str> {
    codes(&check(src))
        .into_iter()
        .filter(|c| c.starts_with("WF04"))
        .collect()
}

#[test]
fn backtick_keys_are_keys_and_bare_builtins_are_not() {
    let expr = guard("`outcome` == outcome && `success` == success");
    let mut keys = Vec::new();
    keys_read(&expr, &mut |k, _| keys.push(k));
    assert_eq!(keys, ["outcome", "success"]);
    let Expr::Binary(l, _, _, _) = &expr else {
        panic!()
    };
    let Expr::Binary(ll, _, lr, _) = &**l else {
        panic!()
    };
    assert_eq!(operand(ll), Some(Operand::Key("outcome")));
    assert_eq!(operand(lr), Some(Operand::Outcome));
}

#[test]
fn names_compared_with_outcome_are_not_key_reads() {
    let expr = guard("outcome == sucess || outcome in [fail, skiped, `k`] || x in ys || exists(z)");
    let mut keys = Vec::new();
    keys_read(&expr, &mut |k, _| keys.push(k));
    assert_eq!(keys, ["k", "x", "ys", "z"]);
}

#[test]
fn printing_keeps_the_meaning() {
    for text in [
        "a == 1 || b == 2 && c == 3",
        "(a == 1 || b == 2) && c == 3",
        "!(x > 1) && !done",
        "!a == b",
        "`Part Count` > 0 && exists(`Part Concept`)",
        "title matches \"^fix\\\\(\" && d < 15m && f == 0.5",
        "x in [success, \"a\\\"b\", null, true]",
    ] {
        let expr = guard(text);
        let printed = expr_text(&expr).unwrap();
        let again = guard(&printed);
        assert_eq!(expr_text(&again).unwrap(), printed, "{text}");
        assert_eq!(strip(&expr), strip(&again), "{text} printed as {printed}");
    }
}

/// The expression's shape without spans.
fn strip(expr: &Expr) -> String {
    let text = format!("{expr:?}");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("FileSpan {") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find("} }").unwrap();
        rest = &rest[at + end + 3..];
    }
    out + rest
}

#[test]
fn truths_per_status() {
    let (_, t) = Truths::of(&guard("outcome == success || outcome in [fail]"));
    assert_eq!(t.t, 0b0_1001);
    assert_eq!(t.f, 0b1_0110);
    let (_, t) = Truths::of(&guard("!(outcome != skipped) && x > 1"));
    assert_eq!((t.t, t.f), (0b1_0000, 0b1_1111));
    let (_, t) = Truths::of(&guard("outcome matches \"^s\""));
    assert_eq!(t.t, 0b1_0001);
    let (_, t) = Truths::of(&guard("outcome in [success, x]"));
    assert_eq!((t.t, t.f), (0b1_1111, 0b1_1110));
    let (_, t) = Truths::of(&guard("\"abc\" matches \"b\" && [1, 2] contains 2.0"));
    assert!(t.always());
}

#[test]
fn declared_types_come_from_needs_gives_and_writes() {
    let lowered = lower(
        "workflow W {\n  needs a: int, b\n  gives c: string\n  step s { writes d: bool, a: string, e: nonsense }\n  call k = V { f <- g }\n  start -> s -> k\n}",
    );
    let keys = KeyTypes::own(&lowered.program.workflows[0]);
    use types::Ty;
    assert_eq!(keys.ty("a").ty, Ty::Any, "conflicting types");
    assert_eq!(keys.get("b").unwrap().ty, Ty::Any);
    assert_eq!(keys.ty("c").ty, Ty::String);
    assert_eq!(keys.ty("d").ty, Ty::Bool);
    assert_eq!(keys.ty("e").ty, Ty::Any, "unknown type name");
    assert!(keys.get("f").is_some(), "return-map parents are known");
    assert!(keys.get("zzz").is_none());
}

#[test]
fn return_map_parents_take_the_callee_type_when_known() {
    let lowered = lower(
        "workflow W {\n  call k = V { f <- g }\n  start -> k\n  k -> a when f > 1\n  k -> b\n}\nworkflow V { step s { writes g: string }  start -> s }",
    );
    let program = &lowered.program;
    let callee = KeyTypes::own(&program.workflows[1]);
    let mut keys = KeyTypes::own(&program.workflows[0]);
    keys.add_return_maps(&program.workflows[0], |name| {
        (name == "V").then_some(&callee)
    });
    assert_eq!(keys.ty("f").ty, types::Ty::String);
    let adjacency = crate::graph::Adjacency::new(&program.workflows[0]);
    let found = check_workflow_with(&program.workflows[0], &adjacency, &keys);
    assert_eq!(codes(&found), ["WF0401"]);
    // The per-workflow check cannot see the callee: `f` is `any` there.
    assert!(check_workflow(&program.workflows[0], &adjacency).is_empty());
}

#[test]
fn fixes_replace_exactly_the_operand() {
    let src = "workflow W {\n  tool t { command = \"x\" }\n  start -> t\n  t -> a when outcome == Sucess\n  t -> b when outcome == fail\n}";
    let found = check(src);
    let d = with_code(&found, "WF0403");
    let fix = d[0].fix.as_ref().unwrap();
    let edit = &fix.edits[0];
    assert_eq!(&src[edit.location.span.range()], "Sucess");
    assert_eq!(edit.replacement, "success");
}

#[test]
fn syntax_errors_in_a_guard_silence_its_checks() {
    let found = check(
        "workflow W {\n  step s\n  start -> s\n  s -> a when outcome == == success\n  s -> b when outcome == fail\n}",
    );
    assert!(codes(&found).contains(&"WF0001"));
    assert!(
        !codes(&found).iter().any(|c| c.starts_with("WF04")),
        "{found:?}"
    );
}

#[test]
fn dot_and_incomplete_workflows_skip_coverage() {
    let src = "workflow W {\n  step s\n  start -> s\n  s -> a when outcome == success\n  s -> b when outcome == skipped\n}";
    assert_eq!(guard_codes(src), ["WF0406"]);
    let lowered = lower(src);
    let mut workflow = lowered.program.workflows[0].clone();
    let adjacency = crate::graph::Adjacency::new(&workflow);
    workflow.format = SourceFormat::Dot;
    assert!(check_workflow(&workflow, &adjacency).is_empty());
    workflow.format = SourceFormat::Wf;
    workflow.incomplete = true;
    assert!(check_workflow(&workflow, &adjacency).is_empty());
}

#[test]
fn success_and_fail_must_be_covered_and_branches_only_succeed() {
    // The DESIGN example's `build`: success and fail are covered.
    let tool = "workflow W {\n  tool build { command = \"make\" }\n  start -> build\n  build -> a when outcome == success\n  build -> b when outcome == fail\n}";
    assert!(guard_codes(tool).is_empty());
    let step = tool.replace("tool build { command = \"make\" }", "step build");
    assert!(guard_codes(&step).is_empty());
    let partial = step.replace("== fail", "== partial_success");
    assert_eq!(guard_codes(&partial), ["WF0406"]);
    let branch = tool.replace("tool build { command = \"make\" }", "branch build");
    assert!(guard_codes(&branch).is_empty());
    let branch = branch.replace("== success", "== skipped");
    assert_eq!(guard_codes(&branch), ["WF0406"]);
}

/// A guard of 20,000 clauses and a fan-out of 20,000 edges are checked
/// without overflowing the stack and with the right findings. Their speed is
/// measured by benchmarks (`bench/check_scaling.sh`), not here.
#[test]
fn large_guards_and_fan_outs_are_checked() {
    let clauses = 20_000;
    let big_list: Vec<String> = (0..20_000).map(|i| i.to_string()).collect();
    // Built by hand, as a balanced `&&` tree: the parser bounds guard depth
    // at 256 (and dropping a 20,000-deep tree would overflow the stack).
    let clause = guard("x != 0");
    let mut level: Vec<Expr> = vec![clause; clauses];
    level.push(guard(&format!("x in [{}]", big_list.join(", "))));
    while level.len() > 1 {
        let mut next = Vec::with_capacity(level.len() / 2 + 1);
        let mut items = level.into_iter();
        while let Some(l) = items.next() {
            match items.next() {
                Some(r) => {
                    let span = resolve::span(&l);
                    next.push(Expr::Binary(
                        Box::new(l),
                        wf_model::BinOp::And,
                        Box::new(r),
                        span,
                    ));
                }
                None => next.push(l),
            }
        }
        level = next;
    }
    let expr = level.pop().unwrap();
    let (truths, _) = Truths::of(&expr);
    let _ = conflicts::never(&expr, &truths);
    let keys = KeyTypes::default();
    let mut out = Vec::new();
    typeck::check_guard(
        &expr,
        &keys,
        wf_model::SourceFormat::Wf,
        &mut Default::default(),
        &mut out,
    );
    assert!(out.is_empty(), "{out:?}");

    let mut src = String::from("workflow W {\n  step s\n  start -> s\n");
    for i in 0..20_000 {
        src.push_str(&format!(
            "  s -> n{i} when outcome == success && k == {i}\n"
        ));
    }
    src.push_str("}\n");
    let lowered = lower(&src);
    let workflow = &lowered.program.workflows[0];
    let adjacency = crate::graph::Adjacency::new(workflow);
    let found = check_workflow(workflow, &adjacency);
    assert_eq!(codes(&found), ["WF0406"]);
    assert!(found[0].notes.iter().any(|n| n.contains("19992 more")));
}

#[test]
fn regex_errors_point_into_plain_literals_only() {
    let literal = wf_diagnostics::Span::new(10, 14).in_file(FileId(3));
    let d = pattern::check("a(", literal).unwrap();
    assert_eq!(d.primary.location.file, FileId(3));
    assert_eq!(d.primary.location.span, wf_diagnostics::Span::new(12, 13));
    // With an escape in the source the offsets differ: the whole literal.
    let escaped = wf_diagnostics::Span::new(10, 16).in_file(FileId(3));
    assert_eq!(
        pattern::check("a(", escaped).unwrap().primary.location,
        escaped
    );
}
