use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;

fn choice(labels: &[&str]) -> Question {
    Question {
        text: "Ship it?".into(),
        ty: QuestionType::MultipleChoice,
        options: labels
            .iter()
            .map(|l| QuestionOption {
                key: parse_accelerator_key(l),
                label: (*l).into(),
            })
            .collect(),
        default: None,
        timeout: None,
        stage: "gate".into(),
        id: None,
    }
}

fn picked(a: &Answer) -> Option<&str> {
    a.selected_option.as_ref().map(|o| o.label.as_str())
}

/// A writer tests can read back.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

#[test]
fn accelerator_keys_follow_the_seed_table() {
    assert_eq!(parse_accelerator_key("[Y] Yes, deploy"), "Y");
    assert_eq!(parse_accelerator_key("Y) Yes, deploy"), "Y");
    assert_eq!(parse_accelerator_key("Y - Yes, deploy"), "Y");
    assert_eq!(parse_accelerator_key("Yes, deploy"), "Y");
    assert_eq!(parse_accelerator_key("reject"), "R");
    assert_eq!(parse_accelerator_key("[a] approve"), "a");
    // No whitespace after the prefix: not an accelerator.
    assert_eq!(parse_accelerator_key("[x]y"), "[");
    assert_eq!(parse_accelerator_key(""), "");
}

#[test]
fn options_match_by_key_label_or_position() {
    let q = choice(&["[A] Approve", "[R] Reject"]);
    assert_eq!(find_matching_option("a", &q.options).unwrap().key, "A");
    assert_eq!(
        find_matching_option(" reject ", &q.options).unwrap().key,
        "R"
    );
    assert_eq!(find_matching_option("2", &q.options).unwrap().key, "R");
    assert!(find_matching_option("3", &q.options).is_none());
    assert!(find_matching_option("maybe", &q.options).is_none());
    assert!(find_matching_option("", &q.options).is_none());
}

#[test]
fn auto_approve_picks_the_first_option_and_yes() {
    let mut i = AutoApprove;
    assert_eq!(
        picked(&i.ask(&choice(&["[A] Approve", "[R] Reject"]))),
        Some("[A] Approve")
    );
    let mut yn = choice(&[]);
    yn.ty = QuestionType::YesNo;
    assert_eq!(i.ask(&yn).value, AnswerValue::Yes);
    yn.ty = QuestionType::Freeform;
    assert_eq!(i.ask(&yn).text.as_deref(), Some("auto-approved"));
}

#[test]
fn queue_answers_in_order_then_skips() {
    let mut i = Queue::from_lines(["# comment", "", "r", "!timeout", "approve", "!skip", "nope"]);
    let q = choice(&["[A] Approve", "[R] Reject"]);
    assert_eq!(picked(&i.ask(&q)), Some("[R] Reject"));
    assert_eq!(i.ask(&q).value, AnswerValue::Timeout);
    assert_eq!(picked(&i.ask(&q)), Some("[A] Approve"));
    assert_eq!(i.ask(&q).value, AnswerValue::Skipped);
    let bad = i.ask(&q);
    assert_eq!(bad.value, AnswerValue::Value("nope".into()));
    assert!(bad.selected_option.is_none());
    assert_eq!(i.remaining(), 0);
    // Used up: no answer (a durable run waits), not a skip (17.2).
    assert_eq!(i.ask(&q).value, AnswerValue::Pending);
}

#[test]
fn answers_file_is_read_and_a_missing_one_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("wf-vm-answers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("answers.txt");
    std::fs::write(&path, "R\n").unwrap();
    let mut i = from_spec(&format!("answers:{}", path.display())).unwrap();
    assert_eq!(
        picked(&i.ask(&choice(&["[A] Approve", "[R] Reject"]))),
        Some("[R] Reject")
    );
    let missing = dir.join("nope.txt");
    let err = from_spec(&format!("answers:{}", missing.display()))
        .err()
        .unwrap();
    assert!(err.contains("cannot read the answers file"), "{err}");
    assert!(
        from_spec("answers:")
            .err()
            .unwrap()
            .contains("needs a file")
    );
    assert!(
        from_spec("slack")
            .err()
            .unwrap()
            .contains("unknown interviewer")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn recording_keeps_every_exchange_and_logs_json_lines() {
    let log = Shared::default();
    let mut i = Recording::new(Queue::from_lines(["A", "R"])).with_log(log.clone());
    let q = choice(&["[A] Approve", "[R] Reject"]);
    i.ask(&q);
    i.ask(&q);
    let ex = i.exchanges();
    assert_eq!(ex.len(), 2);
    assert_eq!(picked(&ex[1].answer), Some("[R] Reject"));
    let text = log.text();
    assert_eq!(text.lines().count(), 2);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["question"]["stage"], "gate");
    assert_eq!(first["answer"]["selected_option"]["key"], "A");
}

#[test]
fn callback_delegates() {
    let mut i = Callback(|q: &Question| Answer::choose(q.options.last().unwrap()));
    assert_eq!(picked(&i.ask(&choice(&["a", "b"]))), Some("b"));
}

#[test]
fn console_shows_options_reprompts_and_reads_an_answer() {
    let out = Shared::default();
    let mut i = Console::new(Cursor::new("maybe\nr\n"), out.clone());
    let a = i.ask(&choice(&["[A] Approve", "[R] Reject"]));
    assert_eq!(picked(&a), Some("[R] Reject"));
    let text = out.text();
    assert!(text.contains("[?] Ship it?"), "{text}");
    assert!(text.contains("\n  [A] Approve\n"), "{text}");
    assert!(
        text.contains("`maybe` is not an answer: type one of A, R"),
        "{text}"
    );
}

#[test]
fn console_end_of_input_is_no_answer() {
    let mut i = Console::new(Cursor::new(""), Shared::default());
    assert_eq!(i.ask(&choice(&["a"])).value, AnswerValue::Pending);
}

#[test]
fn console_timeout_uses_the_default_or_reports_timeout() {
    // A reader that never yields a line: the pipe's writer stays open.
    let (reader, _writer) = std::io::pipe().unwrap();
    let mut i = Console::new(std::io::BufReader::new(reader), Shared::default());
    let mut q = choice(&["[A] Approve", "[R] Reject"]);
    q.timeout = Some(Duration::from_millis(30));
    assert_eq!(i.ask(&q).value, AnswerValue::Timeout);
    q.default = Some(Answer::choose(&q.options[1]));
    assert_eq!(picked(&i.ask(&q)), Some("[R] Reject"));
}
