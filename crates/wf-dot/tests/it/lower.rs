//! Snapshot tests of the lowered model: each `tests/lower/*.dot` file is
//! parsed and lowered, and the model and every diagnostic are dumped.

use crate::common;

use std::path::Path;

use wf_diagnostics::FileId;

#[test]
fn lowered_models() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lower");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dot"))
        .collect();
    files.sort();
    assert!(files.len() >= 10);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let lowered = wf_dot::parse_and_lower(&text, FileId(0));
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        insta::with_settings!({ snapshot_suffix => name.clone(), description => format!("tests/lower/{name}.dot"), omit_expression => true }, {
            insta::assert_snapshot!(common::dump(&lowered.program, &lowered.diagnostics));
        });
    }
}
