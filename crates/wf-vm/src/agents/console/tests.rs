use std::io;
use std::time::Duration;

use serde_json::json;
use wf_ir::{KeyType, StrId};

use super::*;
use crate::tools::fixture::{Board, all_edges, context, program};

/// Runs the console agent at `node` of the fixture program with `input`
/// typed; returns the decision and everything shown.
fn at(node: u32, input: &str, edit: impl FnOnce(&mut wf_ir::IrProgram)) -> (Decision, String) {
    let mut program = program();
    edit(&mut program);
    let board = Board(Vec::new());
    let valid = all_edges(&program, node);
    let mut agent = ConsoleAgent::new(input.as_bytes(), Vec::new());
    let decision = agent
        .decide(&context(&program, node, &board, &valid))
        .unwrap();
    let (_, shown) = agent.into_inner();
    (decision, String::from_utf8(shown).unwrap())
}

fn chose(decision: &Decision) -> Option<&str> {
    match decision {
        Decision::Advance(o) => o.edge.as_deref(),
        _ => None,
    }
}

#[test]
fn human_choices_are_numbered_with_their_keys() {
    let (decision, shown) = at(1, "2\n", |_| {});
    assert_eq!(chose(&decision), Some("ask->stop"));
    assert_eq!(
        shown,
        "\n[step 8] ask (human): Ship it?\n  | Ship?\n  1. [A] Approve  -> done\n  2. [R] Reject  -> stop\nChoose 1-2, a key (A, R) or `suspend`: "
    );
}

#[test]
fn accelerator_keys_and_labels_choose_too() {
    assert_eq!(chose(&at(1, "a\n", |_| {}).0), Some("ask->done"));
    assert_eq!(chose(&at(1, "R\n", |_| {}).0), Some("ask->stop"));
    assert_eq!(chose(&at(1, "approve\n", |_| {}).0), Some("ask->done"));
    let Decision::Advance(o) = at(1, "A\n", |_| {}).0 else {
        panic!()
    };
    assert_eq!(o.preferred_label.as_deref(), Some("[A] Approve"));
    assert_eq!(o.status, Status::Success);
}

#[test]
fn a_wrong_answer_asks_again() {
    let (decision, shown) = at(1, "7\nmaybe\nr\n", |_| {});
    assert_eq!(chose(&decision), Some("ask->stop"));
    assert!(shown.contains("  `7` is not one of the choices.\n"));
    assert!(shown.contains("  `maybe` is not one of the choices.\n"));
}

#[test]
fn end_of_input_suspends_instead_of_hanging() {
    for input in ["", "nonsense\n"] {
        let (decision, _) = at(1, input, |_| {});
        assert_eq!(
            decision,
            Decision::Suspend {
                reason: "no answer at the console (end of input)".into()
            }
        );
    }
    // In the middle of typing the writes, too.
    let (decision, _) = at(0, "1\n", |p| {
        p.workflows[0].nodes[0].op = Opcode::Step;
        p.workflows[0].nodes[0].writes = vec![KeyType {
            key: StrId(5),
            ty: ValueType::String,
        }];
    });
    assert!(matches!(decision, Decision::Suspend { .. }));
}

#[test]
fn suspend_is_an_answer() {
    let (decision, _) = at(1, "suspend\n", |_| {});
    assert_eq!(
        decision,
        Decision::Suspend {
            reason: "suspended at the console".into()
        }
    );
}

#[test]
fn steps_answer_success_with_typed_writes() {
    let (decision, shown) = at(0, "\nhello\nx\n3\n", |p| {
        let node = &mut p.workflows[0].nodes[0];
        node.op = Opcode::Step;
        // Keys from the string table: "Ship it?" and "Demo".
        node.writes = vec![
            KeyType {
                key: StrId(5),
                ty: ValueType::String,
            },
            KeyType {
                key: StrId(0),
                ty: ValueType::Int,
            },
        ];
    });
    assert_eq!(
        decision,
        Decision::Advance(Outcome {
            writes: vec![
                Write {
                    key: "Ship it?".into(),
                    value: json!("hello")
                },
                Write {
                    key: "Demo".into(),
                    value: json!(3)
                },
            ],
            ..Outcome::success()
        })
    );
    assert!(shown.contains("  Demo (int) = "));
    assert!(shown.contains("`x` is not a int value"));
}

#[test]
fn steps_can_fail_with_a_reason() {
    let (decision, _) = at(0, "fail\ndisk full\n", |p| {
        p.workflows[0].nodes[0].op = Opcode::Step;
    });
    let Decision::Advance(o) = decision else {
        panic!()
    };
    assert_eq!(o.status, Status::Fail);
    assert_eq!(o.failure_reason.as_deref(), Some("disk full"));
}

#[test]
fn terminals_complete() {
    assert_eq!(at(2, "", |_| {}).0, Decision::Complete { writes: vec![] });
    let (decision, _) = at(2, "\n", |p| p.workflows[0].nodes[2].op = Opcode::Step);
    assert_eq!(decision, Decision::Complete { writes: vec![] });
}

/// An `exit` that declares writes asks for them: completing without them
/// would fail the node (docs/runtime.md, section 5).
#[test]
fn an_exit_with_declared_writes_asks_for_them() {
    let (decision, shown) = at(2, "\n3\n", |p| {
        let node = &mut p.workflows[0].nodes[2];
        node.op = Opcode::Exit;
        node.writes = vec![KeyType {
            key: StrId(0),
            ty: ValueType::Int,
        }];
    });
    assert_eq!(
        decision,
        Decision::Complete {
            writes: vec![Write {
                key: "Demo".into(),
                value: json!(3)
            }]
        }
    );
    assert!(shown.contains("  Demo (int) = "), "{shown}");
}

#[test]
fn accelerators_follow_attractor() {
    assert_eq!(accelerator("[Y] Yes, deploy"), Some('Y'));
    assert_eq!(accelerator("y) Yes, deploy"), Some('Y'));
    assert_eq!(accelerator("Y - Yes, deploy"), Some('Y'));
    assert_eq!(accelerator("yes, deploy"), Some('Y'));
    assert_eq!(accelerator(""), None);
    // Not an explicit key (no space after it): the first letter.
    assert_eq!(accelerator("[Y]es"), Some('Y'));
    assert_eq!(accelerator("- dash"), Some('D'));
}

#[test]
fn a_key_shared_by_two_choices_is_not_offered() {
    let (decision, shown) = at(1, "A\n1\n", |p| {
        p.strings[7] = "Abort".into();
    });
    assert!(shown.contains("Choose 1-2 or `suspend`: "), "{shown}");
    assert!(shown.contains("`A` is not one of the choices."), "{shown}");
    assert_eq!(chose(&decision), Some("ask->done"));
}

/// Never answers: the node's timeout passes at once.
struct Silent;

impl LineSource for Silent {
    fn next_line(&mut self, wait: Option<Duration>) -> io::Result<Option<String>> {
        assert!(wait.is_some(), "asked without a deadline");
        Err(io::ErrorKind::TimedOut.into())
    }
}

/// The fixture's `ask` with a 30 s timeout and `default`.
fn timed(default: Option<&str>) -> wf_ir::IrProgram {
    let mut program = program();
    let default = default.map(|d| {
        program.strings.push(d.to_string());
        StrId(program.strings.len() as u32 - 1)
    });
    let ask = &mut program.workflows[0].nodes[1].engine;
    ask.timeout_ms = Some(30_000);
    ask.default_choice = default;
    program
}

#[test]
fn a_human_timeout_takes_the_default_choice() {
    // By label, and by target id (as Attractor's `human.default_choice`).
    for default in ["[R] Reject", "stop"] {
        let program = timed(Some(default));
        let board = Board(Vec::new());
        let valid = all_edges(&program, 1);
        let mut agent = ConsoleAgent::new(Silent, Vec::new());
        let decision = agent.decide(&context(&program, 1, &board, &valid)).unwrap();
        let Decision::Advance(o) = decision else {
            panic!("{decision:?}")
        };
        assert_eq!(o.edge.as_deref(), Some("ask->stop"));
        assert_eq!(
            o.notes.unwrap(),
            format!("no answer within 30s: took the default choice `{default}`")
        );
        let (_, shown) = agent.into_inner();
        let shown = String::from_utf8(shown).unwrap();
        assert!(
            shown.contains(&format!(
                "  (answer within 30s; then the default `{default}` is taken)\n"
            )),
            "{shown}"
        );
        assert!(
            shown.contains(&format!(
                "  No answer within 30s: taking the default `{default}`.\n"
            )),
            "{shown}"
        );
    }
}

#[test]
fn a_human_timeout_without_a_default_fails_the_node() {
    let program = timed(None);
    let board = Board(Vec::new());
    let valid = all_edges(&program, 1);
    let mut agent = ConsoleAgent::new(Silent, Vec::new());
    let decision = agent.decide(&context(&program, 1, &board, &valid)).unwrap();
    let Decision::Advance(o) = decision else {
        panic!("{decision:?}")
    };
    assert_eq!(o.status, Status::Fail);
    assert_eq!(
        o.failure_reason.as_deref(),
        Some("timed out: no answer at the console within 30s")
    );
}
