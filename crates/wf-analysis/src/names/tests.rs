//! Names checks, through the real parser and the whole pipeline.

use wf_diagnostics::{Applicability, FileId};

use crate::test_support::{check, check_all, codes, text_at, with_code};

#[test]
fn sketch_produces_no_diagnostics() {
    assert!(check("workflow Hello {\n  start -> greet -> done\n}\n").is_empty());
}

#[test]
fn duplicate_workflows_across_files() {
    let a = "workflow Review { start -> done }";
    let b = "workflow Other { start -> done }\nworkflow Review { start -> done }";
    let diags = check_all(&[a, b]);
    assert_eq!(codes(&diags), ["WF0101"]);
    let d = &diags[0];
    assert_eq!(d.message, "workflow `Review` is defined more than once");
    assert_eq!(d.primary.location.file, FileId(1));
    assert_eq!(text_at(b, d.primary.location), "Review");
    assert_eq!(d.labels[0].location.file, FileId(0));
    assert_eq!(d.labels[0].message, "first defined here");
}

#[test]
fn unknown_entry_with_suggestion_and_fix() {
    let src = "workflow W {\n  step kickoff\n  entry = kickof\n  kickoff -> work -> done\n}";
    let diags = check(src);
    assert_eq!(codes(&diags), ["WF0103"]);
    let d = &diags[0];
    assert_eq!(d.message, "unknown entry node `kickof` in workflow `W`");
    assert_eq!(text_at(src, d.primary.location), "kickof");
    assert_eq!(d.help.as_deref(), Some("did you mean `kickoff`?"));
    let fix = d.fix.as_ref().unwrap();
    assert_eq!(fix.applicability, Applicability::MaybeIncorrect);
    assert_eq!(fix.edits.len(), 1);
    assert_eq!(fix.edits[0].replacement, "kickoff");
    assert_eq!(text_at(src, fix.edits[0].location), "kickof");
}

#[test]
fn unknown_entry_without_suggestion() {
    let diags = check("workflow W {\n  entry = begin\n  plan -> done\n}");
    assert_eq!(codes(&diags), ["WF0103"]);
    assert!(diags[0].fix.is_none());
}

#[test]
fn unknown_workflow_lists_known_ones_and_suggests() {
    let src = "workflow Main {\n  call lint = Linter\n  call review = Reviw\n  start -> lint -> review -> done\n}\nworkflow Review { start -> done }";
    let diags = check(src);
    assert_eq!(codes(&diags), ["WF0104", "WF0104"]);
    assert_eq!(
        diags[0].message,
        "unknown workflow `Linter` (known workflows: Main, Review)"
    );
    assert!(diags[0].fix.is_none());
    assert_eq!(
        diags[1].message,
        "unknown workflow `Reviw` (known workflows: Main, Review)"
    );
    assert_eq!(diags[1].help.as_deref(), Some("did you mean `Review`?"));
    let fix = diags[1].fix.as_ref().unwrap();
    assert_eq!(text_at(src, fix.edits[0].location), "Reviw");
    assert_eq!(fix.edits[0].replacement, "Review");
}

#[test]
fn call_finds_a_workflow_in_another_file() {
    // A call sees its own file and the files it imports (file1.wf here).
    let main = "import \"file1.wf\"\nworkflow Main {\n  call r = Review\n  start -> r -> done\n}";
    let lib = "workflow Review { start -> done }";
    assert!(check_all(&[main, lib]).is_empty());
    let alone = "workflow Main {\n  call r = Review\n  start -> r -> done\n}";
    assert_eq!(codes(&check(alone)), ["WF0104"]);
}

#[test]
fn known_workflow_list_is_truncated() {
    let mut src = String::from("workflow Main {\n  call x = Nope\n  start -> x -> done\n}\n");
    for i in 0..12 {
        src.push_str(&format!("workflow W{i:02} {{ start -> done }}\n"));
    }
    let diags = check(&src);
    assert_eq!(codes(&diags), ["WF0104"]);
    assert_eq!(
        diags[0].message,
        "unknown workflow `Nope` (known workflows: Main, W00, W01, W02, W03, W04, W05, W06 and 5 more)"
    );
}

#[test]
fn undeclared_typo_with_fix_renaming_every_mention() {
    let src = "workflow W {\n  step review\n  exit done\n  start -> review -> done\n  start -> reveiw\n  reveiw -> done\n}";
    let diags = check(src);
    assert_eq!(codes(&diags), ["WF0105"]);
    let d = &diags[0];
    assert_eq!(
        d.message,
        "`reveiw` is not declared; did you mean `review`?"
    );
    assert_eq!(d.severity, wf_diagnostics::Severity::Warning);
    assert_eq!(
        d.primary.location.span.start as usize,
        src.find("reveiw").unwrap()
    );
    assert_eq!(d.labels[0].message, "`review` is declared here");
    assert_eq!(d.labels[1].message, "also used here");
    let fix = d.fix.as_ref().unwrap();
    assert_eq!(fix.edits.len(), 2);
    assert!(
        fix.edits
            .iter()
            .all(|e| text_at(src, e.location) == "reveiw" && e.replacement == "review")
    );
}

#[test]
fn undeclared_names_far_from_declared_ones_are_fine() {
    let src = "workflow W {\n  step compile\n  exit finished\n  start -> fetch_sources -> compile -> package -> finished\n}";
    assert!(check(src).is_empty());
}

#[test]
fn quoted_suggestions_are_written_quoted() {
    let src = "workflow W {\n  step \"Part Concept\"\n  start -> \"Part Concep\" -> done\n  start -> \"Part Concept\" -> done\n}";
    let diags = check(src);
    assert_eq!(codes(&diags), ["WF0105"]);
    let fix = diags[0].fix.as_ref().unwrap();
    assert_eq!(fix.edits[0].replacement, "\"Part Concept\"");
    assert_eq!(text_at(src, fix.edits[0].location), "\"Part Concep\"");
}

#[test]
fn reserved_names_and_keys() {
    let src = r#"workflow W {
  needs ticket: string, _secret: string
  gives internal.trace: list
  step _scratch { reads internal, x.internal?  writes internals: string }
  call sub = Helper { _raw <- decision  ok <- internal.result }
  start -> _scratch -> sub -> _tmp -> done
}
workflow Helper { gives decision  exit done { writes decision }  start -> done }"#;
    let diags = check(src);
    let reserved: Vec<_> = with_code(&diags, "WF0106")
        .iter()
        .map(|d| d.message.clone())
        .collect();
    assert_eq!(
        reserved,
        [
            "key `_secret` uses the reserved `_` prefix",
            "key `internal.trace` is in the reserved `internal` namespace",
            "node id `_scratch` uses the reserved `_` prefix",
            "key `internal` is in the reserved `internal` namespace",
            "key `_raw` uses the reserved `_` prefix",
            "key `internal.result` is in the reserved `internal` namespace",
            "node id `_tmp` uses the reserved `_` prefix",
        ]
    );
    assert_eq!(codes(&diags).len(), reserved.len());
}

#[test]
fn diagnostics_are_sorted_by_file_offset_and_code() {
    let src = "workflow W {\n  entry = nope\n}\nworkflow W { a -> b  c -> d }";
    let diags = check(src);
    assert_eq!(codes(&diags), ["WF0103", "WF0101", "WF0203"]);
    let starts: Vec<_> = diags
        .iter()
        .map(|d| d.primary.location.span.start)
        .collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn syntax_errors_silence_absence_checks() {
    // The broken statement may have held the edge to `orphan`.
    let src = "workflow W {\n  step orphan\n  start -> -> orphan\n  start -> done\n}";
    let diags = check(src);
    assert!(
        diags.iter().all(|d| d.code.code.starts_with("WF00")),
        "{:?}",
        codes(&diags)
    );
    assert!(!diags.is_empty());
}

#[test]
fn an_unclosed_workflow_reports_only_the_syntax_error() {
    let diags = check("workflow Draft {\n  goal = \"Notes\"\n");
    assert_eq!(codes(&diags), ["WF0004"]);
    let diags = check("workflow Draft {\n  human ask\n  start -> ask\n");
    assert_eq!(codes(&diags), ["WF0004"]);
}
