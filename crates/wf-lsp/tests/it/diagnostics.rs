//! Scripted sessions: diagnostics published on open, cleared when fixed,
//! refreshed in importers, with related information and codes.

use crate::common;

use common::{Session, cursor};

const LIB: &str = "/// Reviews a plan.
workflow Review {
  needs plan: string
  gives verdict: string
  step judge { reads plan  writes verdict: string }
  start -> judge -> done
}
";

const BROKEN: &str = "import \"lib.wf\"

/// Ships a ticket.
workflow Ship {
  needs ticket: string
  step plan \"Plan it\" {
    reads draft
    writes plan: string
  }
  call review = Review { decision <- verdict }
  start -> plan -> review -> done
}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_file_gets_diagnostics_then_they_clear() {
    let mut s = Session::start(&[("lib.wf", LIB), ("main.wf", BROKEN)]).await;
    s.open("main.wf", BROKEN).await;
    let broken = s.diagnostics("main.wf").await;
    insta::assert_json_snapshot!("broken", s.normalize(&broken));
    // Fix it: `draft` → `ticket`.
    let (line, col) = cursor(BROKEN, "draft", 0);
    s.edit("main.wf", 2, (line, col), (line, col + 5), "ticket")
        .await;
    let fixed = s.diagnostics("main.wf").await;
    assert_eq!(fixed, serde_json::json!([]), "cleared once fixed");
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn importers_are_refreshed_when_an_import_changes() {
    let main = BROKEN.replace("draft", "ticket");
    let mut s = Session::start(&[("lib.wf", LIB), ("main.wf", &main)]).await;
    s.open("main.wf", &main).await;
    s.open("lib.wf", LIB).await;
    // Rename the callee's output: the caller's return map breaks.
    let (line, col) = cursor(LIB, "gives verdict", 6);
    s.edit("lib.wf", 2, (line, col), (line, col + 7), "outcome_text")
        .await;
    let (line, col) = cursor(LIB, "writes verdict", 7);
    s.edit("lib.wf", 3, (line, col), (line, col + 7), "outcome_text")
        .await;
    let importer = s.diagnostics("main.wf").await;
    insta::assert_json_snapshot!("importer_refreshed", s.normalize(&importer));
    assert!(!importer.as_array().unwrap().is_empty());
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utf16_incremental_edits_land_where_the_client_meant() {
    let text = "workflow W {\n  step a \"é𝄞\" { writes x: string }\n  start -> a -> done\n}\n";
    let mut s = Session::start(&[]).await;
    s.open("w.wf", text).await;
    // Replace `a` after the label (UTF-16 column past the astral char).
    let (line, col) = cursor(text, "{ writes", 0);
    s.edit("w.wf", 2, (line, col), (line, col + 1), "{ reads nope ")
        .await;
    let diagnostics = s.diagnostics("w.wf").await;
    insta::assert_json_snapshot!("utf16", s.normalize(&diagnostics));
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attractor_dot_files_get_diagnostics_too() {
    let dot = "digraph Pipeline {\n  start [shape=Mdiamond]\n  again [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> done\n  again -> done\n}\n";
    let mut s = Session::start(&[]).await;
    s.open("p.dot", dot).await;
    let diagnostics = s.diagnostics("p.dot").await;
    insta::assert_json_snapshot!("attractor_dot", s.normalize(&diagnostics));
    assert!(!diagnostics.as_array().unwrap().is_empty());
    // The model is format-neutral: navigation works on DOT too.
    let (line, col) = cursor(dot, "again -> done", 1);
    let definition = s.at("textDocument/definition", "p.dot", line, col).await;
    insta::assert_json_snapshot!("attractor_dot_definition", s.normalize(&definition));
    let hover = s.at("textDocument/hover", "p.dot", line, col).await;
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("again"),
        "{hover}"
    );
    s.shutdown().await;
}
