//! Reflex files in the analysis database: implied `<workflowId>.json`
//! files are loaded like imports, invocations see every workflow of the
//! project (Reflex's flat registry), and edits re-check.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use wf_analysis::Database;
use wf_analysis::imports::LoadFailure;

const PARENT: &str = r#"{
  "id": "parent",
  "entry": "START",
  "nodes": {
    "START": { "id": "START", "spec": {} },
    "CHILD": {
      "id": "CHILD", "spec": {},
      "invokes": { "workflowId": "child", "returnMap": [{ "parentKey": "result", "childKey": "out" }] }
    },
    "DONE": { "id": "DONE", "spec": {}, "inputs": [{ "key": "result", "required": true }] }
  },
  "edges": [
    { "id": "e1", "from": "START", "to": "CHILD", "event": "NEXT" },
    { "id": "e2", "from": "CHILD", "to": "DONE", "event": "NEXT" }
  ]
}"#;

const CHILD: &str = r#"{
  "id": "child",
  "entry": "WORK",
  "nodes": { "WORK": { "id": "WORK", "spec": { "writes": [{ "key": "out", "value": 42 }] } } },
  "edges": []
}"#;

fn codes(db: &Database) -> Vec<&'static str> {
    db.diagnostics().iter().map(|d| d.code.code).collect()
}

/// Loads from an in-memory file system, recording what was asked for.
fn load(db: &mut Database, files: &HashMap<PathBuf, &str>, asked: &mut Vec<PathBuf>) {
    db.load_imports(|path: &Path| {
        asked.push(path.to_path_buf());
        match files.get(path) {
            Some(text) => Ok((path.display().to_string(), text.to_string())),
            None => Err(LoadFailure::NotFound),
        }
    });
}

#[test]
fn an_invoked_workflow_is_loaded_from_the_file_beside() {
    let mut db = Database::new("/p");
    db.set_file("/p/flows/parent.json", "flows/parent.json", PARENT);
    let files = HashMap::from([(PathBuf::from("/p/flows/child.json"), CHILD)]);
    let mut asked = Vec::new();
    load(&mut db, &files, &mut asked);
    assert_eq!(asked, [PathBuf::from("/p/flows/child.json")]);
    assert_eq!(db.file_count(), 2);
    assert!(codes(&db).is_empty(), "{:#?}", db.diagnostics());
}

#[test]
fn a_missing_file_makes_the_call_an_unknown_workflow() {
    let mut db = Database::new("/p");
    db.set_file("/p/parent.json", "parent.json", PARENT);
    let mut asked = Vec::new();
    load(&mut db, &HashMap::new(), &mut asked);
    assert_eq!(asked, [PathBuf::from("/p/child.json")]);
    assert_eq!(codes(&db), ["WF0104"]);
}

#[test]
fn invocations_see_every_workflow_checked_together() {
    // The callee is in another directory under another file name: no
    // import could find it, the registry does.
    let mut db = Database::new("/p");
    db.set_file("/p/a/parent.json", "a/parent.json", PARENT);
    db.set_file("/p/b/lib.json", "b/lib.json", CHILD);
    assert!(codes(&db).is_empty(), "{:#?}", db.diagnostics());
    // A `.wf` workflow can be the callee too.
    let mut db = Database::new("/p");
    db.set_file("/p/parent.json", "parent.json", PARENT);
    db.set_file(
        "/p/child.wf",
        "child.wf",
        "workflow child {\n  step work { writes out: int }\n  gives out: int\n}\n",
    );
    assert!(codes(&db).is_empty(), "{:#?}", db.diagnostics());
}

#[test]
fn editing_a_reflex_file_re_checks_it() {
    let mut db = Database::new("/p");
    db.set_file("/p/parent.json", "parent.json", PARENT);
    db.set_file("/p/child.json", "child.json", CHILD);
    assert!(codes(&db).is_empty());
    // The child no longer writes `out`: the return map is not guaranteed.
    db.set_file(
        "/p/child.json",
        "child.json",
        CHILD.replace(
            r#""writes": [{ "key": "out", "value": 42 }]"#,
            r#""prompt": "x""#,
        ),
    );
    assert_eq!(codes(&db), ["WF0304"]);
    db.set_file("/p/child.json", "child.json", "{ \"id\": ");
    assert!(codes(&db).contains(&"WF0701"), "{:?}", codes(&db));
}

#[test]
fn fixes_in_wf_syntax_are_not_offered_for_json() {
    // WF0104's did-you-mean would replace the name with `.wf` source text.
    let mut db = Database::new("/p");
    db.set_file(
        "/p/parent.json",
        "parent.json",
        PARENT.replace(
            "\"workflowId\": \"child\"",
            "\"workflowId\": \"Child Flow\"",
        ),
    );
    db.set_file(
        "/p/lib.wf",
        "lib.wf",
        "workflow \"Child Flows\" {\n  step work { writes out: int }\n  gives out: int\n}\n",
    );
    let diagnostics = db.diagnostics();
    let unknown = diagnostics
        .iter()
        .find(|d| d.code.code == "WF0104")
        .expect("an unknown workflow");
    assert!(
        unknown
            .help
            .as_deref()
            .unwrap_or("")
            .contains("Child Flows"),
        "{unknown:#?}"
    );
    assert!(unknown.fix.is_none(), "{unknown:#?}");
}
