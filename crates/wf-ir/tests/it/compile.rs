//! Lowering `.wf` programs to the IR.

use crate::support;

use serde_json::json;
use support::compile;
use wf_ir::{Backoff, CmpOp, Const, Insn, IrNode, IrProgram, IrWorkflow, NodeIdx, Opcode};
use wf_ir::{StrId, load, to_json};

fn node<'w>(p: &IrProgram, w: &'w IrWorkflow, name: &str) -> (NodeIdx, &'w IrNode) {
    let i = w.nodes.iter().position(|n| p.str(n.id) == name).unwrap();
    (NodeIdx(i as u32), &w.nodes[i])
}

fn id(p: &IrProgram, text: &str) -> StrId {
    StrId(p.strings.iter().position(|s| s == text).unwrap() as u32)
}

/// The guard of the edge with this id.
fn guard(p: &IrProgram, w: &IrWorkflow, edge: &str) -> Vec<Insn> {
    let e = w.edges.iter().find(|e| p.str(e.id) == edge).unwrap();
    e.guard.clone().unwrap()
}

#[test]
fn strings_are_interned_in_order_of_first_use() {
    let p = compile(support::SAMPLE);
    assert_eq!(p.strings[..5], ["Main", "ticket", "plan", "score", "plan2"]);
    let mut unique = p.strings.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), p.strings.len(), "each string once");
}

#[test]
fn entry_nodes_and_grouped_edges() {
    let p = compile(support::SAMPLE);
    let main = &p.workflows[0];
    assert_eq!(p.str(main.nodes[main.entry.0 as usize].id), "start");
    let (plan2, _) = node(&p, main, "plan2");
    let (_, plan) = node(&p, main, "plan");
    assert_eq!(plan.engine.retry_target, Some(plan2));
    let mut next = 0;
    for (i, n) in main.nodes.iter().enumerate() {
        assert_eq!(n.edges.start, next, "ranges are consecutive");
        for e in main.outgoing(NodeIdx(i as u32)) {
            assert_eq!(e.from.0 as usize, i);
        }
        next += n.edges.len;
    }
    assert_eq!(next as usize, main.edges.len());
    let (start, _) = node(&p, main, "start");
    let ids: Vec<&str> = main.outgoing(start).iter().map(|e| p.str(e.id)).collect();
    assert_eq!(
        ids,
        ["start->plan", "start->plan2"],
        "source order within a node"
    );
    let (_, sub) = node(&p, main, "sub");
    let call = sub.call.as_ref().unwrap();
    assert_eq!(sub.op, Opcode::Call);
    assert_eq!(p.str(p.workflows[call.workflow.0 as usize].name), "Sub");
    assert_eq!(p.str(call.return_map[0].parent), "verdict");
    assert_eq!(p.str(call.return_map[0].child), "decision");
}

#[test]
fn and_short_circuits_forward() {
    let p = compile(support::SAMPLE);
    let main = &p.workflows[0];
    let expected = vec![
        Insn::Load(id(&p, "score")),
        Insn::Push(Const::Int(3)),
        Insn::Cmp(CmpOp::Gt),
        Insn::JumpIfFalse(7),
        Insn::Load(id(&p, "verdict")),
        Insn::Push(Const::Str(id(&p, "^ok"))),
        Insn::Matches,
    ];
    assert_eq!(guard(&p, main, "route->done"), expected);
    let mut negated = expected;
    negated.push(Insn::Not);
    assert_eq!(guard(&p, main, "route->other"), negated);
}

const NAMES: &str = r#"
workflow Names {
  step a { writes outcome: string, n: any }
  exit b
  exit c
  exit d
  start -> a
  a -> b when outcome == success || `outcome` == fail
  a -> c when label == "x" && exists(n) && n in [1, 2s, skipped]
  a -> d when !exists(n) && [1, 2] contains n
}
"#;

#[test]
fn names_resolve_like_the_checker() {
    let p = compile(NAMES);
    let w = &p.workflows[0];
    let s = |t: &str| Const::Str(id(&p, t));
    assert_eq!(
        guard(&p, w, "a->b"),
        [
            Insn::LoadOutcome,
            Insn::Push(s("success")),
            Insn::Cmp(CmpOp::Eq),
            Insn::JumpIfTrue(7),
            Insn::Load(id(&p, "outcome")),
            Insn::Push(s("fail")),
            Insn::Cmp(CmpOp::Eq),
        ]
    );
    // `&&` is left-associative: ((label == "x") && exists(n)) && (n in …).
    assert_eq!(
        guard(&p, w, "a->c"),
        [
            Insn::LoadLabel,
            Insn::Push(s("x")),
            Insn::Cmp(CmpOp::Eq),
            Insn::JumpIfFalse(5),
            Insn::Exists(id(&p, "n")),
            Insn::JumpIfFalse(12),
            Insn::Load(id(&p, "n")),
            Insn::Push(Const::Int(1)),
            Insn::Push(Const::Int(2000)),
            Insn::Push(s("skipped")),
            Insn::List(3),
            Insn::In,
        ]
    );
    assert_eq!(
        guard(&p, w, "a->d"),
        [
            Insn::Exists(id(&p, "n")),
            Insn::Not,
            Insn::JumpIfFalse(8),
            Insn::Push(Const::Int(1)),
            Insn::Push(Const::Int(2)),
            Insn::List(2),
            Insn::Load(id(&p, "n")),
            Insn::Contains,
        ]
    );
    load(&to_json(&p)).expect("the compiled guards verify");
}

const ATTRS: &str = r#"
workflow Attrs {
  goal = "Ship $ticket"
  label = "Attributes"
  max_steps = 10
  wall_clock = 1h
  default_max_retry = 2
  default_fidelity = "full"
  retry_target = fix
  tier = premium

  step work "Work" {
    prompt = "Do it"
    llm_model = "m-1"
    max_retries = 3
    timeout = 15m
    backoff = patient
    custom = { wait: 2s, xs: [a, 1, 0.5, null] }
    command = "echo misplaced"
  }
  tool build { command = "make"  backoff = { initial_delay: 1s, factor: 3, jitter: false } }
  human ask { default = "[Y] Yes" }
  step fix
  exit done

  start -> work -> build -> ask
  ask -> done "[Y] Yes" { weight = 5  event = "approved"  fidelity = "compact" }
  ask -> fix "[N] No" { id = "ask-no" }
  fix -> done
}
"#;

#[test]
fn engine_attributes_and_specs() {
    let p = compile(ATTRS);
    let w = &p.workflows[0];
    assert_eq!(w.goal.map(|g| p.str(g)), Some("Ship $ticket"));
    assert_eq!(w.label.map(|g| p.str(g)), Some("Attributes"));
    assert_eq!(w.limits.max_steps, Some(10));
    assert_eq!(w.limits.wall_clock_ms, Some(3_600_000));
    assert_eq!(w.limits.default_retries, Some(2), "the alias folds");
    assert_eq!(w.retry_target, Some(node(&p, w, "fix").0));
    assert_eq!(
        serde_json::Value::Object(w.spec.clone()),
        json!({"default_fidelity": "full", "tier": "premium"})
    );

    let (_, work) = node(&p, w, "work");
    assert_eq!(work.label.map(|l| p.str(l)), Some("Work"));
    assert_eq!(work.engine.retries, Some(3));
    assert_eq!(work.engine.timeout_ms, Some(900_000));
    assert_eq!(
        work.engine.backoff,
        Some(Backoff {
            initial_delay_ms: 2_000,
            factor: 3.0,
            max_delay_ms: 60_000,
            jitter: true
        })
    );
    assert_eq!(
        work.engine.command, None,
        "`command` does nothing on a step"
    );
    assert_eq!(
        serde_json::Value::Object(work.spec.clone()),
        json!({
            "command": "echo misplaced",
            "custom": {"wait": 2000, "xs": ["a", 1, 0.5, null]},
            "model": "m-1",
            "prompt": "Do it",
        })
    );
    let keys: Vec<&String> = work.spec.keys().collect();
    assert!(keys.is_sorted(), "spec keys are sorted");

    let (_, build) = node(&p, w, "build");
    assert_eq!(build.engine.command.map(|c| p.str(c)), Some("make"));
    assert_eq!(
        build.engine.backoff,
        Some(Backoff {
            initial_delay_ms: 1_000,
            factor: 3.0,
            max_delay_ms: 60_000,
            jitter: false
        })
    );
    let (_, ask) = node(&p, w, "ask");
    assert_eq!(ask.engine.default_choice.map(|c| p.str(c)), Some("[Y] Yes"));
}

#[test]
fn edges_get_ids_labels_weights_and_specs() {
    let p = compile(ATTRS);
    let w = &p.workflows[0];
    let (ask, _) = node(&p, w, "ask");
    let out = w.outgoing(ask);
    assert_eq!(p.str(out[0].id), "ask->done");
    assert_eq!(out[0].label.map(|l| p.str(l)), Some("[Y] Yes"));
    assert_eq!(out[0].weight, 5);
    assert_eq!(
        serde_json::Value::Object(out[0].spec.clone()),
        json!({"event": "approved", "fidelity": "compact"})
    );
    assert_eq!(
        p.str(out[1].id),
        "ask-no",
        "an `id` attribute names the edge"
    );
    assert!(out[1].spec.is_empty());
    assert_eq!(out[1].weight, 0);
}

#[test]
fn repeated_edges_are_numbered() {
    let mut model = support::model("workflow R { start -> a -> done }");
    let w = &mut model.workflows[0];
    let mut again = w.edges[0].clone();
    again.label = Some("second".into());
    w.edges.push(again.clone());
    w.edges.push(again);
    let p = wf_compile::compile(&model).unwrap();
    let ids: Vec<&str> = p.workflows[0].edges.iter().map(|e| p.str(e.id)).collect();
    assert_eq!(ids, ["start->a", "start->a#2", "start->a#3", "a->done"]);
    load(&to_json(&p)).unwrap();
}

#[test]
fn output_is_deterministic_and_round_trips() {
    for src in [support::SAMPLE, NAMES, ATTRS] {
        let first = to_json(&compile(src));
        assert_eq!(first, to_json(&compile(src)));
        assert!(first.ends_with("}\n"));
        assert_eq!(to_json(&load(&first).unwrap()), first);
    }
}

#[test]
fn models_the_ir_cannot_hold_are_refused() {
    let mut model = support::model("workflow C { start -> a -> done }");
    let w = &mut model.workflows[0];
    let mut back = w.edges[1].clone();
    std::mem::swap(&mut back.from, &mut back.to);
    w.edges.push(back);
    let err = wf_compile::compile(&model).unwrap_err();
    assert!(err.message.contains("cycle (a -> done -> a)"), "{err}");
    assert!(err.to_string().starts_with("in workflow `C`: "), "{err}");

    let mut model = support::model("workflow D { start -> done }");
    let twin = model.workflows[0].clone();
    model.workflows.push(twin);
    let err = wf_compile::compile(&model).unwrap_err();
    assert!(err.message.contains("defined more than once"), "{err}");

    let mut model = support::model("workflow E { start -> done }");
    let span = model.workflows[0].name_span;
    model.workflows[0].entry = Some(("nowhere".into(), span));
    let err = wf_compile::compile(&model).unwrap_err();
    assert!(err.message.contains("no entry node"), "{err}");
}

/// Guards compile iteratively: a deeply nested one does not exhaust the
/// stack, and its bytecode verifies.
#[test]
fn deep_guards_compile_and_verify() {
    let mut model = support::model("workflow G { start -> done when ok }");
    let guard = model.workflows[0].edges[0].guard.as_mut().unwrap();
    let span = guard.span;
    let mut expr = guard.expr.clone();
    for i in 0..5_000 {
        expr = if i % 2 == 0 {
            wf_model::Expr::Not(Box::new(expr), span)
        } else {
            let key = wf_model::Expr::Exists("k".into(), span);
            wf_model::Expr::Binary(Box::new(key), wf_model::BinOp::Or, Box::new(expr), span)
        };
    }
    guard.expr = expr;
    let p = wf_compile::compile(&model).unwrap();
    let code = p.workflows[0].edges[0].guard.as_ref().unwrap();
    assert_eq!(code.len(), 1 + 2_500 + 2 * 2_500);
    load(&to_json(&p)).unwrap();
}

/// Interpolated strings get templates; an escaped `\$` stays literal text,
/// and a string without interpolations gets none.
#[test]
fn interpolations_become_templates() {
    use wf_ir::Part::{Key, Text};
    let p = compile(
        r#"
workflow W {
  goal = "Ship $ticket"
  needs ticket: string, env: string
  tool run {
    command = "deploy ${env} \$HOME"
    prompt = "plain \$text"
    label = "Run for $env"
  }
  step ask { prompt = "Review ${ticket}." }
  run -> ask
}
"#,
    );
    let w = &p.workflows[0];
    assert_eq!(
        w.templates["goal"],
        vec![Text(id(&p, "Ship ")), Key(id(&p, "ticket"))]
    );
    let (_, run) = node(&p, w, "run");
    assert_eq!(
        run.templates["command"],
        vec![
            Text(id(&p, "deploy ")),
            Key(id(&p, "env")),
            Text(id(&p, " $HOME"))
        ]
    );
    assert_eq!(p.str(run.engine.command.unwrap()), "deploy ${env} $HOME");
    assert_eq!(
        run.templates["label"],
        vec![Text(id(&p, "Run for ")), Key(id(&p, "env"))]
    );
    assert!(!run.templates.contains_key("prompt"));
    let (_, ask) = node(&p, w, "ask");
    assert_eq!(
        ask.templates["prompt"],
        vec![
            Text(id(&p, "Review ")),
            Key(id(&p, "ticket")),
            Text(id(&p, "."))
        ]
    );
    assert_eq!(load(&to_json(&p)).unwrap(), p);
}

/// Issue 14 leftover: a count the compiler refuses is worded as the
/// checker words it ("a whole number of at least 0"), not "an integer".
#[test]
fn count_errors_say_whole_number_like_the_checker() {
    let mut model = support::model("workflow R { step a { retries = 2 } start -> a -> done }");
    let node = model.workflows[0]
        .nodes
        .iter_mut()
        .find(|n| !n.attributes.is_empty())
        .unwrap();
    node.attributes[0].value = wf_model::Value::Int(-1);
    let err = wf_compile::compile(&model).unwrap_err();
    assert!(
        err.message
            .contains("`retries` must be a whole number of at least 0"),
        "{err}"
    );
}
