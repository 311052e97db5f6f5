use std::time::Duration;

use super::*;
use crate::attractor::interviewer::{AutoApprove, Queue};

fn choices() -> Vec<Choice> {
    vec![
        Choice::new("gate->ship", Some("[S] Ship it"), "ship"),
        Choice::new("gate->fix", Some("F) Fix first"), "fix"),
        Choice::new("gate->drop", None, "drop"),
    ]
}

fn gate() -> Gate<'static> {
    Gate {
        node: "gate",
        text: Some("Release?"),
        ..Gate::default()
    }
}

fn write<'o>(o: &'o Outcome, key: &str) -> Option<&'o str> {
    o.writes
        .iter()
        .find(|w| w.key == key)
        .and_then(|w| w.value.as_str())
}

#[test]
fn choices_come_from_edges_with_accelerator_keys() {
    let c = choices();
    assert_eq!(
        c.iter().map(|c| c.key.as_str()).collect::<Vec<_>>(),
        ["S", "F", "D"]
    );
    assert_eq!(
        c[2].label, "drop",
        "an edge without a label shows its target"
    );
}

#[test]
fn the_chosen_edge_routes_and_is_recorded() {
    let o = run_gate(&gate(), &choices(), &mut Queue::from_lines(["f"]));
    assert_eq!(o.status, Status::Success);
    assert_eq!(o.edge.as_deref(), Some("gate->fix"));
    assert_eq!(o.preferred_label.as_deref(), Some("F) Fix first"));
    assert_eq!(o.suggested_next, ["fix"]);
    assert_eq!(write(&o, "human.gate.selected"), Some("F"));
    assert_eq!(write(&o, "human.gate.label"), Some("F) Fix first"));
}

#[test]
fn auto_approve_takes_the_first_choice() {
    let o = run_gate(&gate(), &choices(), &mut AutoApprove);
    assert_eq!(o.suggested_next, ["ship"]);
}

#[test]
fn timeout_uses_the_default_choice_by_target_key_or_label() {
    for d in ["drop", "D", "drop "] {
        let g = Gate {
            default_choice: Some(d),
            timeout: Some(Duration::from_secs(1)),
            ..gate()
        };
        let o = run_gate(&g, &choices(), &mut Queue::from_lines(["!timeout"]));
        assert_eq!(o.status, Status::Success, "{d}");
        assert_eq!(o.suggested_next, ["drop"], "{d}");
    }
}

#[test]
fn timeout_without_default_asks_for_a_retry() {
    let o = run_gate(&gate(), &choices(), &mut Queue::from_lines(["!timeout"]));
    assert_eq!(o.status, Status::Retry);
    assert_eq!(
        o.failure_reason.as_deref(),
        Some("human gate timeout, no default")
    );
}

#[test]
fn a_default_naming_no_choice_fails_clearly() {
    let g = Gate {
        default_choice: Some("nowhere"),
        ..gate()
    };
    let o = run_gate(&g, &choices(), &mut Queue::from_lines(["!timeout"]));
    assert_eq!(o.status, Status::Fail);
    let r = o.failure_reason.unwrap();
    assert!(
        r.contains("`nowhere` names none of the choices ([S] Ship it, F) Fix first, [D] drop)"),
        "{r}"
    );
}

#[test]
fn skipped_and_unmatched_answers_fail() {
    let o = run_gate(&gate(), &choices(), &mut Queue::from_lines(["!skip"]));
    assert_eq!(o.status, Status::Fail);
    assert_eq!(
        o.failure_reason.as_deref(),
        Some("human skipped interaction")
    );
    // Nobody there (an empty queue) is no answer, not a skip (17.2).
    let o = run_gate(&gate(), &choices(), &mut Queue::from_lines([]));
    assert_eq!(o.status, Status::Fail);
    assert!(
        o.failure_reason.unwrap().contains(
            "no answer to the question of gate `gate` (nobody is there to answer: end of input, or the answers file is used up); run it with --run-dir DIR"
        )
    );
    let o = run_gate(&gate(), &choices(), &mut Queue::from_lines(["maybe"]));
    assert_eq!(o.status, Status::Fail);
    assert!(o.failure_reason.unwrap().contains("`maybe` names none"));
}

#[test]
fn no_edges_fails() {
    let o = run_gate(&gate(), &[], &mut AutoApprove);
    assert_eq!(o.status, Status::Fail);
    assert_eq!(
        o.failure_reason.as_deref(),
        Some("No outgoing edges for human gate")
    );
}

#[test]
fn a_multiple_gate_writes_every_chosen_option() {
    let options: Vec<QuestionOption> = ["[L] Linux", "[M] Mac", "[W] Windows"]
        .iter()
        .map(|l| QuestionOption {
            key: crate::attractor::interviewer::parse_accelerator_key(l),
            label: (*l).into(),
        })
        .collect();
    let g = Gate {
        multiple: Some(&options),
        ..gate()
    };
    let o = run_gate(&g, &choices(), &mut Queue::from_lines(["w, l, w"]));
    assert_eq!(o.status, Status::Success);
    assert_eq!(write(&o, "human.gate.selected"), Some("W,L"));
    let all = o
        .writes
        .iter()
        .find(|w| w.key == "human.gate.selections")
        .map(|w| w.value.clone());
    assert_eq!(all, Some(serde_json::json!(["[W] Windows", "[L] Linux"])));
    assert_eq!(o.suggested_next, ["ship"]);
    // One name that is not an option fails the gate, naming them.
    let o = run_gate(&g, &choices(), &mut Queue::from_lines(["l, beos"]));
    assert_eq!(o.status, Status::Fail);
    assert!(o.failure_reason.unwrap().contains(
        "the answer `l, beos` does not name the options ([L] Linux, [M] Mac, [W] Windows)"
    ));
    // No options at all is a clear failure.
    let g = Gate {
        multiple: Some(&[]),
        ..gate()
    };
    let o = run_gate(&g, &choices(), &mut Queue::from_lines(["l"]));
    assert!(o.failure_reason.unwrap().contains("no `options`"));
}
