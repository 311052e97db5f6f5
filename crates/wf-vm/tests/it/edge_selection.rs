//! Edge selection, one test per step of the Attractor spec's section 3.3:
//! (1) condition match, (2) preferred label after normalisation, (3)
//! suggested next ids, (4) highest weight, (5) lexical tiebreak by target
//! id. Each test sets up a node `h` whose outgoing edges would each win
//! under a different step, so only the step under test explains the result.

use crate::common;

use common::*;
use wf_ir::{CmpOp, Const, Insn, IrProgram, Opcode};
use wf_vm::{Decision, EngineConfig, Outcome, RunStatus};

/// The edge followed from `h` when `h`'s outcome is `outcome`.
fn picked(program: &IrProgram, outcome: Outcome) -> String {
    let mut agent = FnAgent(move |ctx: &wf_vm::DecisionContext<'_>| {
        Ok(if ctx.is_terminal() {
            Decision::Complete { writes: vec![] }
        } else {
            Decision::Advance(outcome.clone())
        })
    });
    let (report, events) = run_collect(program, EngineConfig::default(), &mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{events:?}");
    events
        .iter()
        .find(|e| e.starts_with("edge h->"))
        .cloned()
        .unwrap_or_else(|| panic!("no edge left `h`: {events:?}"))
}

/// `outcome == "success"` as guard bytecode.
fn on_success(p: &mut Prog) -> Vec<Insn> {
    let success = p.s("success");
    vec![
        Insn::LoadOutcome,
        Insn::Push(Const::Str(success)),
        Insn::Cmp(CmpOp::Eq),
    ]
}

/// `outcome == "fail"` as guard bytecode.
fn on_fail(p: &mut Prog) -> Vec<Insn> {
    let fail = p.s("fail");
    vec![
        Insn::LoadOutcome,
        Insn::Push(Const::Str(fail)),
        Insn::Cmp(CmpOp::Eq),
    ]
}

/// `h` with edges to: `by_cond` (guarded `outcome == success`), `by_label`
/// (label `[A] Approve`), `by_weight` (weight 5), `aaa` (first by id).
fn contested() -> IrProgram {
    let mut p = Prog::new();
    let w = p.wf("main");
    for n in ["h", "by_cond", "by_label", "by_weight", "aaa", "zzz"] {
        p.node(w, n, Opcode::Step);
    }
    let cond = p.edge(w, "h", "by_cond");
    let guard = on_success(&mut p);
    p.guard(w, cond, guard);
    let label = p.edge(w, "h", "by_label");
    p.label(w, label, "[A] Approve");
    let weight = p.edge(w, "h", "by_weight");
    p.em(w, weight).weight = 5;
    p.edge(w, "h", "zzz");
    p.edge(w, "h", "aaa");
    p.build()
}

#[test]
fn step_1_a_matching_condition_wins_over_label_suggestion_and_weight() {
    let mut outcome = Outcome::success();
    outcome.preferred_label = Some("Approve".into());
    outcome.suggested_next = vec!["aaa".into()];
    assert_eq!(picked(&contested(), outcome), "edge h->by_cond");
}

#[test]
fn step_1_among_several_matching_conditions_weight_then_target_id_decides() {
    let mut p = Prog::new();
    let w = p.wf("main");
    for n in ["h", "b", "a", "heavy", "other"] {
        p.node(w, n, Opcode::Step);
    }
    for target in ["b", "a"] {
        let e = p.edge(w, "h", target);
        let guard = on_success(&mut p);
        p.guard(w, e, guard);
    }
    p.edge(w, "h", "other");
    let program = p.build();
    assert_eq!(picked(&program, Outcome::success()), "edge h->a");

    let mut p = Prog::new();
    let w = p.wf("main");
    for n in ["h", "a", "heavy"] {
        p.node(w, n, Opcode::Step);
    }
    let a = p.edge(w, "h", "a");
    let guard = on_success(&mut p);
    p.guard(w, a, guard);
    let heavy = p.edge(w, "h", "heavy");
    let guard = on_success(&mut p);
    p.guard(w, heavy, guard);
    p.em(w, heavy).weight = 2;
    assert_eq!(picked(&p.build(), Outcome::success()), "edge h->heavy");
}

#[test]
fn step_2_the_preferred_label_matches_after_normalisation() {
    // The condition does not hold, so step 1 selects nothing.
    let mut outcome = Outcome::success();
    outcome.status = wf_vm::Status::PartialSuccess;
    for spelling in [
        "Approve",
        "  APPROVE ",
        "[A] Approve",
        "A) approve",
        "A - Approve",
    ] {
        outcome.preferred_label = Some(spelling.into());
        outcome.suggested_next = vec!["aaa".into()];
        assert_eq!(
            picked(&contested(), outcome.clone()),
            "edge h->by_label",
            "{spelling:?}"
        );
    }
}

#[test]
fn step_2_a_label_on_an_edge_whose_condition_fails_is_not_taken() {
    let mut p = Prog::new();
    let w = p.wf("main");
    for n in ["h", "guarded", "plain"] {
        p.node(w, n, Opcode::Step);
    }
    let guarded = p.edge(w, "h", "guarded");
    let guard = on_fail(&mut p);
    p.guard(w, guarded, guard);
    p.label(w, guarded, "Retry");
    p.edge(w, "h", "plain");
    let mut outcome = Outcome::success();
    outcome.preferred_label = Some("retry".into());
    assert_eq!(picked(&p.build(), outcome), "edge h->plain");
}

#[test]
fn step_3_suggested_next_ids_are_tried_in_order() {
    let mut outcome = Outcome::success();
    outcome.status = wf_vm::Status::PartialSuccess;
    outcome.preferred_label = Some("no such label".into());
    outcome.suggested_next = vec!["missing".into(), "zzz".into(), "aaa".into()];
    assert_eq!(picked(&contested(), outcome), "edge h->zzz");
}

#[test]
fn step_4_the_highest_weight_wins_among_the_rest() {
    let mut outcome = Outcome::success();
    outcome.status = wf_vm::Status::PartialSuccess;
    assert_eq!(picked(&contested(), outcome), "edge h->by_weight");
}

#[test]
fn step_5_equal_weights_go_to_the_lexically_first_target() {
    let mut p = Prog::new();
    let w = p.wf("main");
    for n in ["h", "zeta", "alpha", "mid"] {
        p.node(w, n, Opcode::Step);
    }
    // Source order is not lexical order, so only the tiebreak explains it.
    p.edge(w, "h", "zeta");
    p.edge(w, "h", "mid");
    p.edge(w, "h", "alpha");
    assert_eq!(picked(&p.build(), Outcome::success()), "edge h->alpha");
}
