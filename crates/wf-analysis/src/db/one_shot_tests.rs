//! What a one-shot check (`wfc check`) does differently: files lowered
//! before the database exists ([`super::lower_early`]), used when they are
//! what the database would lower and ignored otherwise, and workflows read
//! as their own shapes ([`Database::set_one_shot`]).

use std::sync::Arc;

use wf_diagnostics::FileId;

use super::{Database, Early, lower_early, queries};

/// A pipeline with a lowering diagnostic (a bad condition), so that the
/// comparisons below compare diagnostics too.
const PIPELINE: &str = "digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit [condition=\"outcome=\"]\n}\n";

/// A database of the one file `/p/a.dot` with `text`, lowered early as the
/// file `id` from that very string when `early` is set.
fn database(text: &str, early: Option<FileId>) -> (Database, Option<Arc<queries::LoweredFile>>) {
    let text = text.to_string();
    let early: Option<Early> =
        early.map(|id| lower_early("/p/a.dot".as_ref(), id, &text).expect("a DOT file"));
    let lowered = early.as_ref().map(|e| Arc::clone(&e.lowered));
    let mut db = Database::new("/p");
    db.set_files_early([("/p/a.dot", "a.dot".to_string(), text, early)]);
    (db, lowered)
}

fn lowered(db: &Database) -> &Arc<queries::LoweredFile> {
    queries::lower_file(db, db.files[0])
}

#[test]
fn a_file_lowered_early_is_not_lowered_again() {
    let (db, early) = database(PIPELINE, Some(FileId(0)));
    let early = early.unwrap();
    assert!(Arc::ptr_eq(lowered(&db), &early));
    let (plain, _) = database(PIPELINE, None);
    assert_eq!(**lowered(&plain), *early);
    assert!(!early.diagnostics.is_empty());
    assert_eq!(db.diagnostics(), plain.diagnostics());
}

#[test]
fn a_file_lowered_under_another_id_is_lowered_again() {
    let (db, early) = database(PIPELINE, Some(FileId(1)));
    assert!(!Arc::ptr_eq(lowered(&db), &early.unwrap()));
    let (plain, _) = database(PIPELINE, None);
    assert_eq!(lowered(&db), lowered(&plain));
}

#[test]
fn a_file_lowered_from_a_copy_of_its_text_is_lowered_again() {
    let text = PIPELINE.to_string();
    let early = lower_early("/p/a.dot".as_ref(), FileId(0), &text).unwrap();
    let early_lowered = Arc::clone(&early.lowered);
    let mut db = Database::new("/p");
    // Equal text, but not the string the early lowering read.
    db.set_files_early([("/p/a.dot", "a.dot".to_string(), text.clone(), Some(early))]);
    assert!(!Arc::ptr_eq(lowered(&db), &early_lowered));
    let (plain, _) = database(PIPELINE, None);
    assert_eq!(lowered(&db), lowered(&plain));
}

#[test]
fn editing_a_file_lowered_early_lowers_the_new_text() {
    let (mut db, early) = database(PIPELINE, Some(FileId(0)));
    let fixed = PIPELINE.replace("outcome=\"", "outcome=success\"");
    db.set_file("/p/a.dot", "a.dot", fixed.clone());
    assert!(!Arc::ptr_eq(lowered(&db), &early.unwrap()));
    let (plain, _) = database(&fixed, None);
    assert_eq!(lowered(&db), lowered(&plain));
    assert_eq!(db.diagnostics(), plain.diagnostics());
}

#[test]
fn wf_files_are_left_to_the_database() {
    assert!(lower_early("/p/a.wf".as_ref(), FileId(0), "workflow w {}").is_none());
}

#[test]
fn a_one_shot_database_reads_workflows_as_their_shapes() {
    for one_shot in [false, true] {
        let (mut db, _) = database(PIPELINE, None);
        if one_shot {
            db.set_one_shot();
        }
        let file = db.files[0];
        let id = queries::file_workflows(&db, file)[0];
        let shape = queries::workflow_shape(&db, id);
        let model = queries::workflow_model(&db, id);
        assert_eq!(Arc::ptr_eq(shape, model), one_shot);
    }
}
