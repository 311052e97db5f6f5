use super::policy::{BranchResult, ErrorPolicy, JoinPolicy, Policy, convergence};
use crate::agent::Status;

fn r(id: &str, outcome: Status, at: Option<&str>) -> BranchResult {
    BranchResult {
        outcome,
        stopped_at: at.map(str::to_owned),
        failure_reason: (outcome == Status::Fail).then(|| format!("{id} broke")),
        ..BranchResult::not_run(id, "")
    }
}

fn p(join: &str, error: &str, n: usize) -> Policy {
    Policy::parse(Some(join), Some(error), None, Some("2"), None, n).unwrap()
}

fn status(policy: &Policy, results: &[BranchResult]) -> (Status, Option<String>) {
    let j = policy.join_outcome(results);
    (j.status, j.reason)
}

const OK: Status = Status::Success;
const FAIL: Status = Status::Fail;

#[test]
fn defaults_are_wait_all_continue_and_four() {
    let d = Policy::parse(None, None, None, None, None, 3).unwrap();
    assert_eq!(d.join, JoinPolicy::WaitAll);
    assert_eq!(d.error, ErrorPolicy::Continue);
    assert_eq!(d.max_parallel, 4);
}

#[test]
fn bad_values_are_named() {
    let e = |j, e, m, k, q| Policy::parse(j, e, m, k, q, 3).unwrap_err();
    assert!(e(Some("all"), None, None, None, None).contains("unknown join_policy `all`"));
    assert!(e(None, Some("panic"), None, None, None).contains("unknown error_policy `panic`"));
    assert!(e(None, None, Some("0"), None, None).contains("max_parallel=`0`"));
    assert!(e(Some("k_of_n"), None, None, None, None).contains("needs `join_k`"));
    assert!(e(Some("k_of_n"), None, None, Some("4"), None).contains("from 1 to 3"));
    assert!(e(Some("quorum"), None, None, None, Some("1.5")).contains("join_quorum=`1.5`"));
}

#[test]
fn wait_all_is_success_or_partial() {
    let pol = p("wait_all", "continue", 2);
    assert_eq!(status(&pol, &[r("a", OK, None), r("b", OK, None)]).0, OK);
    assert_eq!(
        status(&pol, &[r("a", OK, None), r("b", FAIL, None)]).0,
        Status::PartialSuccess
    );
}

#[test]
fn k_of_n_needs_k_successes() {
    let pol = p("k_of_n", "continue", 3);
    assert_eq!(pol.join, JoinPolicy::KOfN(2));
    let two = [r("a", OK, None), r("b", FAIL, None), r("c", OK, None)];
    assert_eq!(status(&pol, &two).0, OK);
    let one = [r("a", OK, None), r("b", FAIL, None), r("c", FAIL, None)];
    let (s, why) = status(&pol, &one);
    assert_eq!(s, FAIL);
    assert_eq!(
        why.unwrap(),
        "1 of 3 branches succeeded; join_policy=k_of_n needs 2"
    );
}

#[test]
fn first_success_stops_after_a_success() {
    let pol = p("first_success", "continue", 3);
    assert!(pol.stop_after(&r("a", FAIL, None)).is_none());
    let why = pol.stop_after(&r("b", OK, None)).unwrap();
    assert!(why.contains("join_policy=first_success"), "{why}");
    assert_eq!(status(&pol, &[r("a", FAIL, None), r("b", OK, None)]).0, OK);
    assert_eq!(
        status(&pol, &[r("a", FAIL, None), r("b", FAIL, None)]).0,
        FAIL
    );
}

#[test]
fn quorum_defaults_to_a_strict_majority() {
    let maj = Policy::parse(Some("quorum"), None, None, None, None, 4).unwrap();
    assert_eq!(maj.join, JoinPolicy::Quorum(3));
    let frac = Policy::parse(Some("quorum"), None, None, None, Some("0.5"), 3).unwrap();
    assert_eq!(frac.join, JoinPolicy::Quorum(2));
    let res = [
        r("a", OK, None),
        r("b", OK, None),
        r("c", FAIL, None),
        r("d", FAIL, None),
    ];
    assert_eq!(status(&maj, &res).0, FAIL);
    assert_eq!(status(&frac, &res[..3]).0, OK);
    assert_eq!(
        status(
            &frac,
            &[r("a", OK, None), r("b", FAIL, None), r("c", FAIL, None)]
        )
        .0,
        FAIL
    );
}

#[test]
fn fail_fast_stops_and_fails() {
    let pol = p("wait_all", "fail_fast", 3);
    assert!(pol.stop_after(&r("a", OK, None)).is_none());
    assert!(
        pol.stop_after(&r("b", FAIL, None))
            .unwrap()
            .contains("fail_fast")
    );
    let res = [
        r("a", OK, None),
        r("b", FAIL, None),
        BranchResult::not_run("c", "x"),
    ];
    let (s, why) = status(&pol, &res);
    assert_eq!(s, FAIL);
    assert_eq!(
        why.unwrap(),
        "branch `b` failed (error_policy=fail_fast): b broke"
    );
}

#[test]
fn ignore_drops_failures_from_wait_all() {
    let pol = p("wait_all", "ignore", 2);
    assert!(pol.stop_after(&r("a", FAIL, None)).is_none());
    assert_eq!(status(&pol, &[r("a", FAIL, None), r("b", OK, None)]).0, OK);
    let (s, why) = status(&pol, &[r("a", FAIL, None), r("b", FAIL, None)]);
    assert_eq!(s, FAIL);
    assert!(why.unwrap().contains("every one of the 2 branches failed"));
}

#[test]
fn branches_must_meet_at_one_node() {
    let meet = [
        r("a", OK, Some("join")),
        r("b", FAIL, None),
        r("c", OK, Some("join")),
    ];
    assert_eq!(convergence(&meet, None).unwrap(), "join");
    let split = [r("a", OK, Some("j1")), r("b", OK, Some("j2"))];
    let e = convergence(&split, Some("x")).unwrap_err();
    assert!(e.contains("`a` at `j1`, `b` at `j2`"), "{e}");
    assert!(
        convergence(&[r("a", OK, None)], None)
            .unwrap_err()
            .contains("no branch reached a fan-in")
    );
}

#[test]
fn a_suspended_fan_out_s_journal_is_read_at_its_resume_step_only() {
    use super::journal::Journal;
    use crate::attractor::RunFiles;
    let root = std::env::temp_dir().join(format!("wf-vm-journal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let files = RunFiles::new(&root);
    let at = |step| Journal::at(Some(&files), "fan", step);
    at(7).record(0, &r("a", OK, Some("join")), 5).unwrap();
    at(7).suspend(8).unwrap();
    // The resumed run asks the node again at step 8: step 7's results.
    assert_eq!(at(8).load(0, "a").unwrap().0.id, "a");
    // Any other step (a later visit) has its own journal.
    assert!(at(9).load(0, "a").is_none());
    assert!(at(6).load(0, "a").is_none());
    // A note naming anything but a sibling `step-N` folder is ignored.
    let note = root.join("fan/branches/suspended.json");
    std::fs::write(&note, r#"{"journal": "../../x", "resume_step": 8}"#).unwrap();
    assert!(at(8).load(0, "a").is_none());
    let _ = std::fs::remove_dir_all(&root);
}
