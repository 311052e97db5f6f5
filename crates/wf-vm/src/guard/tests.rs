use serde_json::json;
use wf_ir::{CmpOp, Const, FORMAT, Insn, IrProgram, NodeIdx, StrId, VERSION, WorkflowIdx};

use super::{GuardEnv, Regexes, eval};
use crate::blackboard::{Entry, Frame, Visible};

fn program(strings: &[&str]) -> IrProgram {
    IrProgram {
        format: FORMAT.into(),
        version: VERSION,
        strings: strings.iter().map(|s| s.to_string()).collect(),
        workflows: vec![],
    }
}

/// Strings: 0 `n`, 1 `name`, 2 `tags`, 3 `^a.c$`, 4 `abc`, 5 `x`, 6 `fail`,
/// 7 `missing`, 8 `b`, 9 `failed`, 10 `succeeded`.
fn run(code: Vec<Insn>) -> Result<bool, String> {
    run_as(code, false)
}

/// [`run`], with `peer_statuses` as an Attractor pipeline sets it.
fn run_as(code: Vec<Insn>, peer_statuses: bool) -> Result<bool, String> {
    let p = program(&[
        "n",
        "name",
        "tags",
        "^a.c$",
        "abc",
        "x",
        "fail",
        "missing",
        "b",
        "failed",
        "succeeded",
    ]);
    let mut f = Frame::new(WorkflowIdx(0), NodeIdx(0));
    let mut visible = Visible::default();
    for (k, v) in [(0, json!(3)), (1, json!("abc")), (2, json!(["x", "y"]))] {
        f.push(
            Entry {
                key: k,
                value: v,
                node: NodeIdx(0),
                step: 0,
                size: 1,
            },
            1,
            &mut visible,
        );
    }
    let frames = [f];
    let regexes = Regexes::default();
    eval(
        &code,
        &GuardEnv {
            program: &p,
            frames: &frames,
            visible: &visible,
            outcome: "fail",
            label: None,
            regexes: &regexes,
            peer_statuses,
        },
    )
}

const fn s(i: u32) -> Const {
    Const::Str(StrId(i))
}

#[test]
fn comparisons_numbers_and_missing() {
    use Insn::*;
    assert_eq!(
        run(vec![
            Load(StrId(0)),
            Push(Const::Float(3.0)),
            Cmp(CmpOp::Eq)
        ]),
        Ok(true)
    );
    assert_eq!(
        run(vec![Load(StrId(0)), Push(Const::Int(2)), Cmp(CmpOp::Gt)]),
        Ok(true)
    );
    assert_eq!(
        run(vec![Load(StrId(7)), Push(Const::Int(2)), Cmp(CmpOp::Eq)]),
        Ok(false)
    );
    assert_eq!(
        run(vec![Load(StrId(7)), Push(Const::Int(2)), Cmp(CmpOp::Ne)]),
        Ok(true)
    );
    assert_eq!(
        run(vec![Load(StrId(7)), Push(Const::Int(2)), Cmp(CmpOp::Lt)]),
        Ok(false)
    );
    assert_eq!(
        run(vec![Load(StrId(1)), Push(Const::Int(2)), Cmp(CmpOp::Lt)]),
        Ok(false)
    );
    assert_eq!(run(vec![LoadOutcome, Push(s(6)), Cmp(CmpOp::Eq)]), Ok(true));
    assert_eq!(run(vec![LoadLabel]), Ok(false), "missing is false");
    assert_eq!(
        run(vec![
            Exists(StrId(0)),
            Exists(StrId(7)),
            Not,
            Cmp(CmpOp::Eq)
        ]),
        Ok(true)
    );
}

#[test]
fn membership_and_matching() {
    use Insn::*;
    assert_eq!(run(vec![Push(s(5)), Load(StrId(2)), In]), Ok(true));
    assert_eq!(run(vec![Push(s(8)), Load(StrId(2)), In]), Ok(false));
    assert_eq!(
        run(vec![
            Load(StrId(0)),
            Push(Const::Int(1)),
            Push(Const::Int(3)),
            List(2),
            In
        ]),
        Ok(true)
    );
    assert_eq!(run(vec![Load(StrId(1)), Push(s(8)), Contains]), Ok(true));
    assert_eq!(run(vec![Load(StrId(2)), Push(s(5)), Contains]), Ok(true));
    assert_eq!(run(vec![Load(StrId(1)), Push(s(3)), Matches]), Ok(true));
    assert_eq!(run(vec![Load(StrId(0)), Push(s(3)), Matches]), Ok(false));
    // A pattern computed at run time is compiled and cached.
    assert_eq!(run(vec![Push(s(4)), Load(StrId(1)), Matches]), Ok(true));
}

#[test]
fn short_circuits_and_errors() {
    use Insn::*;
    // false && <error-if-run>: the jump skips the right side.
    let and = vec![
        Push(Const::Bool(false)),
        JumpIfFalse(4),
        Push(Const::Int(1)),
        Not,
    ];
    assert_eq!(run(and), Ok(false));
    let or = vec![
        Push(Const::Bool(true)),
        JumpIfTrue(4),
        Push(Const::Int(1)),
        Not,
    ];
    assert_eq!(run(or), Ok(true));
    let and = vec![Push(Const::Bool(true)), JumpIfFalse(3), Exists(StrId(0))];
    assert_eq!(run(and), Ok(true));
    assert!(
        run(vec![Push(Const::Int(1))])
            .unwrap_err()
            .contains("not a boolean")
    );
    assert!(run(vec![Not]).unwrap_err().contains("underflows"));
    assert!(
        run(vec![Push(Const::Bool(true)), JumpIfTrue(0)])
            .unwrap_err()
            .contains("out of range")
    );
    assert!(run(vec![]).unwrap_err().contains("leaves 0 values"));
    assert!(
        run(vec![
            Push(s(0)),
            Push(Const::Str(StrId(1))),
            Matches,
            Push(s(0)),
            Push(s(8)),
            Matches,
            Cmp(CmpOp::Eq)
        ])
        .is_ok()
    );
}

#[test]
fn constant_patterns_compile_once_and_bad_ones_are_errors() {
    use Insn::*;
    let mut p = program(&["w", "e", "(", "k"]);
    p.workflows.push(wf_ir::IrWorkflow {
        name: StrId(0),
        entry: NodeIdx(0),
        needs: vec![],
        gives: vec![],
        goal: None,
        label: None,
        limits: Default::default(),
        retry_target: None,
        fallback_retry_target: None,
        spec: Default::default(),
        templates: Default::default(),
        nodes: vec![],
        edges: vec![wf_ir::IrEdge {
            id: StrId(1),
            from: NodeIdx(0),
            to: NodeIdx(0),
            label: None,
            weight: 0,
            guard: Some(vec![Load(StrId(3)), Push(s(2)), Matches]),
            spec: Default::default(),
        }],
        dialect: Default::default(),
    });
    let err = Regexes::new(&p).unwrap_err();
    assert!(
        err.contains("edge `e`") && err.contains("invalid regular expression"),
        "{err}"
    );
    p.strings[2] = "^k".into();
    assert_eq!(Regexes::new(&p).unwrap().fixed.len(), 1);
}

#[test]
fn type_errors_show_values_as_the_language_writes_them() {
    use Insn::*;
    let err = |code| run(code).unwrap_err();
    assert_eq!(
        err(vec![Push(s(4))]),
        "the guard's result is not a boolean: \"abc\""
    );
    assert_eq!(
        err(vec![Load(StrId(1)), Not]),
        "the operand of `!` is not a boolean: \"abc\""
    );
    assert_eq!(
        err(vec![Load(StrId(2))]),
        "the guard's result is not a boolean: [\"x\", \"y\"]"
    );
    assert_eq!(
        err(vec![
            Push(s(5)),
            Push(Const::Int(2)),
            Push(Const::Null),
            List(3)
        ]),
        "the guard's result is not a boolean: [\"x\", 2, null]"
    );
    assert_eq!(
        err(vec![Push(Const::Float(1.5))]),
        "the guard's result is not a boolean: 1.5"
    );
}

/// An Attractor pipeline's `outcome=failed` (fabro's spelling) holds when
/// the outcome is `fail`, on either side and with `!=`; only the outcome
/// is read so, and only in Attractor pipelines.
#[test]
fn peer_status_spellings_match_the_outcome_in_attractor_pipelines() {
    use Insn::*;
    let eq = |code: Vec<Insn>| (run_as(code.clone(), true), run_as(code, false));
    assert_eq!(
        eq(vec![LoadOutcome, Push(s(9)), Cmp(CmpOp::Eq)]),
        (Ok(true), Ok(false))
    );
    assert_eq!(
        eq(vec![Push(s(9)), LoadOutcome, Cmp(CmpOp::Eq)]),
        (Ok(true), Ok(false))
    );
    assert_eq!(
        eq(vec![LoadOutcome, Push(s(9)), Cmp(CmpOp::Ne)]),
        (Ok(false), Ok(true))
    );
    // `succeeded` is `success`, not the outcome `fail`.
    assert_eq!(
        eq(vec![LoadOutcome, Push(s(10)), Cmp(CmpOp::Eq)]),
        (Ok(false), Ok(false))
    );
    // A context key holding `fail` is compared as written.
    assert_eq!(
        eq(vec![Push(s(6)), Push(s(9)), Cmp(CmpOp::Eq)]),
        (Ok(false), Ok(false))
    );
    // The spec's own spelling holds either way.
    assert_eq!(
        eq(vec![LoadOutcome, Push(s(6)), Cmp(CmpOp::Eq)]),
        (Ok(true), Ok(true))
    );
}
