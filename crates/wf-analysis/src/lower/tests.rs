//! Lowering tests, through the real parser.

use wf_model::{BinOp, Expr, NodeId, NodeKind, Value};

use crate::test_support::{codes, lower, text_at};

#[test]
fn chain_expands_to_edges_sharing_label_guard_and_attributes() {
    let src = r#"workflow W {
  step a
  a -> b -> c "go" when x == 1 { weight = 2 }
}"#;
    let lowered = lower(src);
    assert!(lowered.diagnostics.is_empty());
    let wf = &lowered.program.workflows[0];
    assert_eq!(wf.edges.len(), 2);
    let (ab, bc) = (&wf.edges[0], &wf.edges[1]);
    assert_eq!((ab.from, ab.to), (NodeId(0), NodeId(1)));
    assert_eq!((bc.from, bc.to), (NodeId(1), NodeId(2)));
    assert_eq!(text_at(src, ab.span), "a -> b");
    assert_eq!(text_at(src, bc.span), "b -> c");
    assert_eq!(text_at(src, bc.from_span), "b");
    assert_eq!(text_at(src, bc.to_span), "c");
    for edge in [ab, bc] {
        assert_eq!(edge.label.as_deref(), Some("go"));
        assert_eq!(text_at(src, edge.label_span.unwrap()), "\"go\"");
        let guard = edge.guard.as_ref().unwrap();
        assert_eq!(text_at(src, guard.span), "x == 1");
        assert!(matches!(&guard.expr, Expr::Binary(l, BinOp::Eq, r, _)
            if matches!(&**l, Expr::Name(n, _) if n == "x") && matches!(&**r, Expr::Literal(Value::Int(1), _))));
        assert_eq!(edge.attributes.len(), 1);
        assert_eq!(edge.attributes[0].key, "weight");
        assert_eq!(edge.attributes[0].value, Value::Int(2));
    }
}

#[test]
fn implicit_nodes_follow_declared_ones_in_order_of_first_mention() {
    let src = "workflow W {\n  x -> a -> y\n  step a\n  y -> x\n}";
    let wf = &lower(src).program.workflows[0];
    let names: Vec<_> = wf
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.implicit))
        .collect();
    assert_eq!(names, [("a", false), ("x", true), ("y", true)]);
    let x = &wf.nodes[1];
    assert_eq!(x.kind, NodeKind::Step);
    // The span of an implicit node is its first mention.
    assert_eq!(x.name_span.span.start as usize, src.find("x ->").unwrap());
}

#[test]
fn workflow_attributes_entry_and_signature() {
    let src = r#"/// Docs here.
workflow W {
  goal = "Ship"
  entry = plan
  max_steps = 500
  needs ticket: string, other
  gives url: string
  step plan
  plan -> done
}"#;
    let wf = &lower(src).program.workflows[0];
    assert_eq!(wf.docs.as_deref(), Some("Docs here."));
    let (entry, span) = wf.entry.as_ref().unwrap();
    assert_eq!(entry, "plan");
    assert_eq!(text_at(src, *span), "plan");
    let keys: Vec<_> = wf.attributes.iter().map(|a| a.key.as_str()).collect();
    assert_eq!(keys, ["goal", "max_steps"]);
    assert_eq!(wf.needs.len(), 2);
    assert_eq!(wf.needs[0].ty.as_deref(), Some("string"));
    assert_eq!(wf.needs[1].ty, None);
    assert_eq!(text_at(src, wf.gives[0].span), "url");
}

#[test]
fn node_contract_and_call() {
    let src = r#"workflow W {
  /// Plans.
  step plan "Plan it" {
    model = "m"
    reads ticket, notes?
    writes plan: string
    timeout = 15m
  }
  call review = Review { verdict <- decision }
  start -> plan -> review
}
workflow Review { start -> done }"#;
    let wf = &lower(src).program.workflows[0];
    let plan = &wf.nodes[0];
    assert_eq!(plan.label.as_deref(), Some("Plan it"));
    assert_eq!(plan.docs.as_deref(), Some("Plans."));
    assert_eq!(plan.attributes.len(), 2);
    assert_eq!(plan.attributes[1].value, Value::Duration(15 * 60 * 1000));
    assert_eq!(plan.reads.len(), 2);
    assert!(plan.reads[1].optional);
    assert_eq!(plan.writes[0].key, "plan");
    let review = &wf.nodes[1];
    assert_eq!(review.kind, NodeKind::Call);
    let call = review.call.as_ref().unwrap();
    assert_eq!(call.workflow, "Review");
    assert_eq!(text_at(src, call.workflow_span), "Review");
    assert_eq!(call.return_map.len(), 1);
    assert_eq!(
        (
            call.return_map[0].parent.as_str(),
            call.return_map[0].child.as_str()
        ),
        ("verdict", "decision")
    );
}

#[test]
fn duplicate_nodes_keep_the_first() {
    let src = "workflow W {\n  step plan \"First\"\n  tool plan\n  start -> plan\n}";
    let lowered = lower(src);
    let wf = &lowered.program.workflows[0];
    assert_eq!(wf.nodes.iter().filter(|n| n.name == "plan").count(), 1);
    assert_eq!(wf.nodes[0].label.as_deref(), Some("First"));
    assert_eq!(codes(&lowered.diagnostics), ["WF0102"]);
    let d = &lowered.diagnostics[0];
    assert_eq!(
        d.message,
        "node `plan` is defined more than once in workflow `W`"
    );
    assert_eq!(
        d.primary.location.span.start as usize,
        src.find("plan\n  start").unwrap()
    );
    assert_eq!(d.labels[0].message, "first defined here");
}

#[test]
fn parenthesised_guards_lower_to_their_inner_expression() {
    let src = "workflow W { a -> b when (x && !exists(y)) }";
    let wf = &lower(src).program.workflows[0];
    let guard = wf.edges[0].guard.as_ref().unwrap();
    assert!(matches!(&guard.expr, Expr::Binary(_, BinOp::And, r, _)
        if matches!(&**r, Expr::Not(inner, _) if matches!(&**inner, Expr::Exists(k, _) if k == "y"))));
}
