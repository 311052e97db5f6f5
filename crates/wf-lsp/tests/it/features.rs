//! Scripted sessions for hover, definition, references, symbols, folding,
//! completion, code actions and formatting, with the cursor marked by a
//! search string in the fixture.

use crate::common;

use common::{Session, cursor};
use serde_json::json;

const LIB: &str = "/// Reviews a plan.
workflow Review {
  needs plan: string
  gives verdict: string
  step judge { reads plan  writes verdict: string }
  start -> judge -> done
}
";

const MAIN: &str = "import \"lib.wf\"

/// Ships a ticket.
workflow Ship {
  needs ticket: string
  /// Plans the work.
  step plan \"Plan it\" {
    reads ticket
    writes plan: string
    timeout = 15m
  }
  call review = Review { decision <- verdict }
  start -> plan -> review -> done  // wfc: allow(WF0205)
  review -> done when outcome == success
}
";

async fn session() -> Session {
    let mut s = Session::start(&[("lib.wf", LIB), ("main.wf", MAIN)]).await;
    s.open("main.wf", MAIN).await;
    s
}

async fn at(s: &mut Session, method: &str, needle: &str, shift: u32) -> serde_json::Value {
    let (line, col) = cursor(MAIN, needle, shift);
    let reply = s.at(method, "main.wf", line, col).await;
    s.normalize(&reply)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover() {
    let mut s = session().await;
    insta::assert_json_snapshot!(
        "hover_node_in_edge",
        at(&mut s, "textDocument/hover", "-> plan", 4).await
    );
    insta::assert_json_snapshot!(
        "hover_key",
        at(&mut s, "textDocument/hover", "reads ticket", 7).await
    );
    insta::assert_json_snapshot!(
        "hover_call_target",
        at(&mut s, "textDocument/hover", "Review {", 1).await
    );
    insta::assert_json_snapshot!(
        "hover_code",
        at(&mut s, "textDocument/hover", "WF0205", 2).await
    );
    let nothing = s.at("textDocument/hover", "main.wf", 1, 0).await;
    assert_eq!(nothing, json!(null));
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definition_and_references() {
    let mut s = session().await;
    insta::assert_json_snapshot!(
        "definition_node",
        at(&mut s, "textDocument/definition", "-> plan", 4).await
    );
    insta::assert_json_snapshot!(
        "definition_workflow_across_files",
        at(&mut s, "textDocument/definition", "Review {", 1).await
    );
    insta::assert_json_snapshot!(
        "definition_import",
        at(&mut s, "textDocument/definition", "lib.wf", 1).await
    );
    insta::assert_json_snapshot!(
        "definition_key_writers",
        at(&mut s, "textDocument/definition", "reads ticket", 8).await
    );
    insta::assert_json_snapshot!(
        "references_node",
        at(&mut s, "textDocument/references", "call review", 6).await
    );
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn symbols_and_folding() {
    let mut s = session().await;
    let uri = s.uri("main.wf");
    let symbols = s
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    insta::assert_json_snapshot!("document_symbols", s.normalize(&symbols));
    let folding = s
        .request(
            "textDocument/foldingRange",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    insta::assert_json_snapshot!("folding", folding);
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion() {
    let mut s = session().await;
    let labels = |v: serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    let after_call = at(&mut s, "textDocument/completion", "review = ", 9).await;
    assert_eq!(labels(after_call), ["Review", "Ship"]);
    let after_outcome = at(&mut s, "textDocument/completion", "success\n", 0).await;
    assert_eq!(
        labels(after_outcome),
        ["success", "partial_success", "retry", "fail", "skipped"]
    );
    let in_reads = at(&mut s, "textDocument/completion", "reads ticket", 6).await;
    // `decision` is written by the call's return map.
    assert_eq!(labels(in_reads), ["decision", "plan", "ticket"]);
    let in_guard = at(&mut s, "textDocument/completion", "outcome ==", 0).await;
    assert_eq!(labels(in_guard), ["decision", "plan", "ticket", "outcome"]);
    let after_arrow = at(&mut s, "textDocument/completion", "plan -> review", 8).await;
    assert_eq!(labels(after_arrow), ["plan", "review", "start", "done"]);
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_action_applies_a_fix_and_formatting_rewrites() {
    // A misspelled callee: WF0104 carries a fix naming the declared one.
    let text = "workflow Review {\n  start -> done\n}\nworkflow W {\n  call r = Reveiw\n  start  ->  r -> done\n}\n";
    let mut s = Session::start(&[]).await;
    s.open("w.wf", text).await;
    let diagnostics = s.diagnostics("w.wf").await;
    let uri = s.uri("w.wf");
    let range = diagnostics
        .as_array()
        .and_then(|d| d.iter().find(|d| d["code"] == "WF0104"))
        .map(|d| d["range"].clone())
        .expect("a WF0104 diagnostic");
    let actions = s
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": []}}),
        )
        .await;
    insta::assert_json_snapshot!("code_action_diagnostics", s.normalize(&diagnostics));
    insta::assert_json_snapshot!("code_actions", s.normalize(&actions));
    let formatted = s
        .request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": true}}),
        )
        .await;
    insta::assert_json_snapshot!("formatting", formatted);
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_typed_files_get_best_effort_answers() {
    let text = "workflow W {\n  step plan { writes x: string }\n  start -> plan -> \n  step ";
    let mut s = Session::start(&[]).await;
    s.open("w.wf", text).await;
    let hover = s.at("textDocument/hover", "w.wf", 2, 12).await;
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("step plan"),
        "{hover}"
    );
    let completion = s.at("textDocument/completion", "w.wf", 3, 7).await;
    assert!(
        completion.as_array().is_some_and(|items| !items.is_empty()),
        "{completion}"
    );
    // Positions past the end of the text are clamped, not errors.
    let far = s.at("textDocument/hover", "w.wf", 99, 99).await;
    assert!(far.is_null(), "{far}");
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_across_files_and_prepare_rename_refusals() {
    let mut s = session().await;
    let (line, col) = cursor(MAIN, "Review {", 2);
    let uri = s.uri("main.wf");
    let position = json!({"line": line, "character": col});
    let prepared = s
        .request(
            "textDocument/prepareRename",
            json!({"textDocument": {"uri": uri}, "position": position}),
        )
        .await;
    insta::assert_json_snapshot!("prepare_rename_workflow", prepared);
    let edit = s
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri}, "position": position, "newName": "Audit"}),
        )
        .await;
    insta::assert_json_snapshot!("rename_workflow_across_files", s.normalize(&edit));
    // Node rename: declaration and every edge.
    let (line, col) = cursor(MAIN, "-> plan", 4);
    let edit = s
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": col}, "newName": "design"}),
        )
        .await;
    let edits = edit["changes"][uri.as_str()].as_array().unwrap();
    assert_eq!(edits.len(), 2, "{edit}");
    // Refusals: the built-in entry, an import, a reserved new name.
    let (line, col) = cursor(MAIN, "start ->", 1);
    let start = s
        .request(
            "textDocument/prepareRename",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}),
        )
        .await;
    assert!(
        start["error"]["message"]
            .as_str()
            .unwrap()
            .contains("built-in entry"),
        "{start}"
    );
    let (line, col) = cursor(MAIN, "lib.wf", 1);
    let import = s
        .request(
            "textDocument/prepareRename",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}),
        )
        .await;
    assert!(import["error"].is_object(), "{import}");
    let (line, col) = cursor(MAIN, "-> plan", 4);
    let reserved = s
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": col}, "newName": "outcome"}),
        )
        .await;
    assert!(
        reserved["error"]["message"]
            .as_str()
            .unwrap()
            .contains("reserved"),
        "{reserved}"
    );
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn highlight_and_inlay_hints() {
    let mut s = session().await;
    let highlight = at(&mut s, "textDocument/documentHighlight", "call review", 6).await;
    insta::assert_json_snapshot!("highlight_node", highlight);
    let uri = s.uri("main.wf");
    let hints = s
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": {
                "start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}}),
        )
        .await;
    insta::assert_json_snapshot!("inlay_hints_implicit_nodes", hints);
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn semantic_tokens_and_workspace_symbols() {
    let mut s = session().await;
    let uri = s.uri("main.wf");
    let tokens = s
        .request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    // Decode to (line, column, length, type) for a readable snapshot.
    let data: Vec<u64> = tokens["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let (mut line, mut column) = (0, 0);
    let mut decoded = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            column = 0;
        }
        line += t[0];
        column += t[1];
        let lines: Vec<&str> = MAIN.lines().collect();
        let text: String = lines[line as usize]
            .chars()
            .skip(column as usize)
            .take(t[2] as usize)
            .collect();
        decoded.push(format!("{line}:{column} {text} {}", t[3]));
    }
    insta::assert_snapshot!("semantic_tokens", decoded.join("\n"));
    let symbols = s.request("workspace/symbol", json!({"query": "re"})).await;
    insta::assert_json_snapshot!("workspace_symbols", s.normalize(&symbols));
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_on_a_dot_node_shows_values_as_written_and_as_read() {
    let text = "digraph P {\n  graph [goal=\"Ship it\"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  a [prompt=\"Do $goal\nwith care\", timeout=90, max_retries=2]\n  start -> a -> exit\n}\n";
    let mut s = Session::start(&[]).await;
    s.open("p.dot", text).await;
    let hover = s.at("textDocument/hover", "p.dot", 4, 2).await;
    let value = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        value.starts_with("```dot\na\n```\nruns the `codergen` handler"),
        "{value}"
    );
    assert!(
        value.contains("- `prompt` = `Do $goal…` (read as `\"Do Ship it\"…`)"),
        "{value}"
    );
    assert!(
        value.contains("- `timeout` = `90` (read as `90s`)"),
        "{value}"
    );
    // Written as read: shown once.
    assert!(value.contains("- `max_retries` = `2`\n"), "{value}");
    s.shutdown().await;
}
