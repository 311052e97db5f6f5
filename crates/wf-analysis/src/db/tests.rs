//! The database: incrementality (through salsa's event log) and imports.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use wf_diagnostics::{Applicability, Diagnostic, FileId, Sources};

use super::Database;
use crate::imports::LoadFailure;

/// A database that records the name of every query it executes.
fn logged_db(root: &str) -> (Database, Arc<Mutex<Vec<String>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    let db = Database::with_event_callback(
        root,
        Box::new(move |event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind {
                // The callback runs with the database attached, so the key
                // prints as `query_name(Id(n))`.
                sink.lock().unwrap().push(format!("{database_key:?}"));
            }
        }),
    );
    (db, log)
}

/// Opens `path` for editing (see [`Database::open_for_editing`]: files are
/// loaded with high durability, and the drop to low durability re-runs
/// once what depends on the file, as a first edit would), checks, and
/// clears the log, so that what the test measures next is a typical edit.
fn opened(db: &mut Database, log: &Mutex<Vec<String>>, path: &str) {
    db.open_for_editing(path);
    db.diagnostics();
    log.lock().unwrap().clear();
}

/// How many times each query ran since the last call, by query name.
fn executed(log: &Mutex<Vec<String>>) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for entry in log.lock().unwrap().drain(..) {
        let name = entry.split('(').next().unwrap().to_string();
        *counts.entry(name).or_default() += 1;
    }
    counts
}

fn count(counts: &HashMap<String, usize>, query: &str) -> usize {
    counts.get(query).copied().unwrap_or(0)
}

fn codes(diagnostics: &[Diagnostic]) -> Vec<&'static str> {
    diagnostics.iter().map(|d| d.code.code).collect()
}

/// What a fresh database says about the same texts: incremental results
/// must not differ from a from-scratch check.
fn fresh(files: &[(&str, &str)]) -> Vec<Diagnostic> {
    let mut db = Database::new("p");
    for (path, text) in files {
        db.set_file(path, *path, *text);
    }
    db.diagnostics()
}

const MAIN: &str =
    "import \"lib.wf\"\nworkflow Main {\n  call r = Review\n  start -> r -> done\n}\n";
const LIB: &str = "workflow Review {\n  step read\n  start -> read -> done\n}\n";
const OTHER: &str = "workflow Other {\n  step a\n  step b\n  start -> a -> b -> done\n}\n";

#[test]
fn editing_one_file_reruns_only_its_queries() {
    let (mut db, log) = logged_db("p");
    db.set_file("p/main.wf", "p/main.wf", MAIN);
    db.set_file("p/lib.wf", "p/lib.wf", LIB);
    db.set_file("p/other.wf", "p/other.wf", OTHER);
    assert!(db.diagnostics().is_empty(), "{:?}", db.diagnostics());
    let first = executed(&log);
    assert_eq!(count(&first, "parse_file"), 3);
    assert_eq!(count(&first, "graph_facts"), 3);
    opened(&mut db, &log, "p/other.wf");

    // A structural edit of `other.wf`: a new step.
    let edited = OTHER.replace("step b\n", "step b\n  step c\n  b -> c\n");
    db.set_file("p/other.wf", "p/other.wf", edited.as_str());
    let diagnostics = db.diagnostics();
    let counts = executed(&log);
    // Only `other.wf` is parsed, lowered, analysed and checked again.
    for query in [
        "parse_file",
        "lower_file",
        "workflow_model",
        "graph_facts",
        "workflow_diagnostics",
        "file_diagnostics",
        "import_diagnostics",
    ] {
        assert_eq!(count(&counts, query), 1, "{query}: {counts:?}");
    }
    // The names of its workflows did not change, so nothing that depends
    // on names (other files' call resolution, duplicates) runs again.
    assert_eq!(count(&counts, "visible_workflows"), 0, "{counts:?}");
    assert_eq!(count(&counts, "name_diagnostics"), 1, "{counts:?}");
    assert_eq!(count(&counts, "project_workflows"), 0, "{counts:?}");
    assert_eq!(
        diagnostics,
        fresh(&[
            ("p/main.wf", MAIN),
            ("p/lib.wf", LIB),
            ("p/other.wf", &edited)
        ])
    );
}

#[test]
fn editing_an_imported_file_rechecks_its_importer_only_when_names_change() {
    let (mut db, log) = logged_db("p");
    db.set_file("p/main.wf", "p/main.wf", MAIN);
    db.set_file("p/lib.wf", "p/lib.wf", LIB);
    db.diagnostics();
    opened(&mut db, &log, "p/lib.wf");

    // A body edit in the library: the importer's call still resolves.
    let body = LIB.replace("step read\n", "step read\n  step note\n  read -> note\n");
    db.set_file("p/lib.wf", "p/lib.wf", body.as_str());
    db.diagnostics();
    let counts = executed(&log);
    assert_eq!(count(&counts, "parse_file"), 1, "{counts:?}");
    assert_eq!(count(&counts, "file_diagnostics"), 1, "{counts:?}");
    assert_eq!(count(&counts, "visible_workflows"), 0, "{counts:?}");

    // Renaming the workflow changes what `main.wf` sees: its names check
    // runs again and reports the call.
    let renamed = LIB.replace("Review", "Reviews");
    db.set_file("p/lib.wf", "p/lib.wf", renamed.as_str());
    let diagnostics = db.diagnostics();
    let counts = executed(&log);
    assert_eq!(count(&counts, "parse_file"), 1, "{counts:?}");
    assert_eq!(codes(&diagnostics), ["WF0104"]);
    assert!(diagnostics[0].message.contains("Review"));
    assert_eq!(
        diagnostics,
        fresh(&[("p/main.wf", MAIN), ("p/lib.wf", &renamed)])
    );
}

#[test]
fn whitespace_edit_does_not_rerun_graph_analysis() {
    let text = "workflow A {\n  step plan { reads ticket }\n  start -> plan -> done\n}\n\
                workflow B {\n  step x\n  start -> x -> done\n}\n";
    let (mut db, log) = logged_db("p");
    db.set_file("p/one.wf", "p/one.wf", text);
    db.set_file("p/two.wf", "p/two.wf", OTHER);
    let before = db.diagnostics();
    opened(&mut db, &log, "p/one.wf");

    // Whitespace inside a node body of `A`: every span of `B` moves.
    let spaced = text.replace("{ reads ticket }", "{   reads ticket   }");
    db.set_file("p/one.wf", "p/one.wf", spaced.as_str());
    let after = db.diagnostics();
    let counts = executed(&log);
    assert_eq!(count(&counts, "parse_file"), 1, "{counts:?}");
    // Both workflows of the edited file have new spans, so their cheap
    // span-mapping query runs; their shapes are unchanged, so salsa
    // backdates them and no graph analysis runs, for `B` nor for `A`.
    assert_eq!(count(&counts, "workflow_shape"), 2, "{counts:?}");
    assert_eq!(count(&counts, "graph_facts"), 0, "{counts:?}");
    // The other file is untouched.
    assert_eq!(count(&counts, "file_diagnostics"), 1, "{counts:?}");
    assert_eq!(before.len(), after.len());
    assert_eq!(after, fresh(&[("p/one.wf", &spaced), ("p/two.wf", OTHER)]));
}

#[test]
fn setting_the_same_text_runs_nothing() {
    let (mut db, log) = logged_db("p");
    db.set_file("p/main.wf", "p/main.wf", OTHER);
    db.diagnostics();
    executed(&log);
    db.set_file("p/main.wf", "p/main.wf", OTHER);
    db.diagnostics();
    assert!(executed(&log).is_empty());
}

#[test]
fn a_clone_is_a_snapshot() {
    let mut db = Database::new("p");
    db.set_file(
        "p/a.wf",
        "p/a.wf",
        "workflow A { start -> a -> b -> a\n b -> done }",
    );
    let before = db.diagnostics();
    let snapshot = db.clone();
    assert!(codes(&before).contains(&"WF0201"));
    assert_eq!(snapshot.diagnostics(), before);
    drop(snapshot);
    db.set_file("p/a.wf", "p/a.wf", "workflow A { start -> done }");
    assert!(db.diagnostics().is_empty());
}

#[test]
fn strip_spans_leaves_no_span() {
    // Every span-bearing part of the model, so that a new span field that
    // `strip_spans` forgets shows up here.
    let text = r#"workflow W {
  goal = "Ship $ticket"
  entry = start
  needs ticket: string
  gives url: string
  step start "Begin ${ticket}" { reads ticket, extra?  writes url: string  timeout = 5m }
  call sub = Sub { x <- y }
  start -> sub "go" when outcome == success && `k` > 1 && !exists(z) && label in ["a"] [weight = 2]
  sub -> done
}
workflow Sub { start -> done }
"#;
    let parsed = wf_syntax::parse(text, FileId(0));
    let lowered = crate::lower::lower_files(&[(FileId(0), &parsed.file)]);
    let shape = super::strip_spans(&lowered.program.workflows[0]);
    let debug = format!("{shape:?}");
    let moved: Vec<&str> = debug
        .match_indices("start: ")
        .map(|(i, _)| &debug[i..(i + 12).min(debug.len())])
        .filter(|s| !s.starts_with("start: 0,"))
        .collect();
    assert!(moved.is_empty(), "spans left in the shape: {moved:?}");
    assert!(debug.contains("Span { start: 0, end: 0 }"));
}

/// Checks in-memory files (paths relative to `p`, the root) and returns
/// the diagnostics with the sources to read them.
fn check(files: &[(&str, &str)]) -> (Vec<Diagnostic>, Sources) {
    let mut db = Database::new("p");
    for (path, text) in files {
        db.set_file(Path::new("p").join(path), *path, *text);
    }
    (db.diagnostics(), db.sources())
}

fn text_at<'a>(sources: &'a Sources, d: &Diagnostic) -> &'a str {
    let at = d.primary.location;
    &sources.get(at.file).text[at.span.range()]
}

#[test]
fn import_cycles_are_fine() {
    let a = "import \"b.wf\"\nworkflow A {\n  call b = B\n  start -> b -> done\n}\n";
    let b = "import \"a.wf\"\nworkflow B {\n  call a = Leaf\n  start -> a -> done\n}\nworkflow Leaf { start -> done }\n";
    let (diagnostics, _) = check(&[("a.wf", a), ("b.wf", b)]);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
}

#[test]
fn imports_are_not_transitive() {
    let a = "import \"b.wf\"\nworkflow A {\n  call c = C\n  start -> c -> done\n}\n";
    let b = "import \"c.wf\"\nworkflow B { start -> done }\n";
    let c = "workflow C { start -> done }\n";
    let (diagnostics, sources) = check(&[("a.wf", a), ("b.wf", b), ("c.wf", c)]);
    assert_eq!(codes(&diagnostics), ["WF0104"]);
    let d = &diagnostics[0];
    assert_eq!(
        d.message,
        "workflow `C` is defined in `c.wf`, which this file does not import"
    );
    assert_eq!(text_at(&sources, d), "C");
    let fix = d.fix.as_ref().unwrap();
    assert_eq!(fix.applicability, Applicability::MachineApplicable);
    assert_eq!(fix.edits[0].replacement, "\nimport \"c.wf\"");
    assert_eq!(
        fix.edits[0].location.span.start,
        "import \"b.wf\"".len() as u32
    );
}

#[test]
fn not_imported_fix_uses_a_relative_path() {
    let main = "workflow Main {\n  call r = Review\n  start -> r -> done\n}\n";
    let lib = "workflow Review { start -> done }\n";
    let (diagnostics, _) = check(&[("app/main.wf", main), ("lib/review.wf", lib)]);
    assert_eq!(codes(&diagnostics), ["WF0104"]);
    let fix = diagnostics[0].fix.as_ref().unwrap();
    assert_eq!(fix.edits[0].replacement, "import \"../lib/review.wf\"\n\n");
    assert_eq!(fix.edits[0].location.span.start, 0);
}

#[test]
fn import_errors_point_at_the_path() {
    let main = "import \"lib/missing.wf\"\nimport \"../../out.wf\"\nimport \"/abs.wf\"\nimport \"notes.txt\"\nworkflow Main { start -> done }\n";
    let (diagnostics, sources) = check(&[("app/main.wf", main)]);
    assert_eq!(
        codes(&diagnostics),
        ["WF0107", "WF0108", "WF0108", "WF0109"]
    );
    assert_eq!(text_at(&sources, &diagnostics[0]), "\"lib/missing.wf\"");
    assert_eq!(
        diagnostics[0].message,
        "imported file `lib/missing.wf` not found"
    );
    assert_eq!(
        diagnostics[0].primary.message,
        "no file at `app/lib/missing.wf`"
    );
    // `../out.wf` from `app/` stays inside the root `p`.
    let (diagnostics, _) = check(&[
        (
            "app/main.wf",
            "import \"../out.wf\"\nworkflow M { start -> done }",
        ),
        ("out.wf", "workflow O { start -> done }"),
    ]);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let (diagnostics, _) = check(&[(
        "main.wf",
        "import \"../out.wf\"\nworkflow M { start -> done }",
    )]);
    assert_eq!(codes(&diagnostics), ["WF0108"]);
    assert_eq!(diagnostics[0].notes, ["the project root is `p`"]);
}

#[test]
fn duplicate_workflows_across_files_show_both_locations() {
    let (diagnostics, sources) = check(&[
        ("a.wf", "workflow Deploy { start -> done }"),
        (
            "b.wf",
            "workflow X { start -> done }\nworkflow Deploy { start -> done }",
        ),
    ]);
    assert_eq!(codes(&diagnostics), ["WF0101"]);
    let d = &diagnostics[0];
    assert_eq!(d.primary.location.file, FileId(1));
    assert_eq!(text_at(&sources, d), "Deploy");
    assert_eq!(d.labels[0].location.file, FileId(0));
    assert_eq!(d.labels[0].message, "first defined here");
}

#[test]
fn load_imports_reaches_a_fixpoint() {
    // A fake file system: main imports lib, lib imports deep and a missing
    // file, and a directory.
    let disk: HashMap<PathBuf, &str> = [
        (
            PathBuf::from("p/lib/review.wf"),
            "import \"deep.wf\"\nimport \"gone.wf\"\nworkflow Review { start -> done }",
        ),
        (
            PathBuf::from("p/lib/deep.wf"),
            "import \"review.wf\"\nworkflow Deep { start -> done }",
        ),
    ]
    .into_iter()
    .collect();
    let mut db = Database::new("p");
    db.set_file(
        "p/main.wf",
        "main.wf",
        "import \"lib/review.wf\"\nimport \"dir.wf\"\nworkflow Main {\n  call r = Review\n  start -> r -> done\n}",
    );
    let mut asked = Vec::new();
    db.load_imports(|path| {
        asked.push(path.to_path_buf());
        if path == Path::new("p/dir.wf") {
            return Err(LoadFailure::Directory);
        }
        match disk.get(path) {
            Some(text) => Ok((path.display().to_string(), text.to_string())),
            None => Err(LoadFailure::NotFound),
        }
    });
    asked.sort();
    assert_eq!(
        asked,
        [
            "p/dir.wf",
            "p/lib/deep.wf",
            "p/lib/gone.wf",
            "p/lib/review.wf"
        ]
        .map(PathBuf::from)
    );
    assert_eq!(db.file_count(), 3);
    assert!(db.unresolved_imports().is_empty());
    let diagnostics = db.diagnostics();
    assert_eq!(codes(&diagnostics), ["WF0107", "WF0107"]);
    assert_eq!(
        diagnostics[0].message,
        "import path `dir.wf` names a directory"
    );
    assert_eq!(diagnostics[1].message, "imported file `gone.wf` not found");
    assert_eq!(diagnostics[1].primary.location.file, FileId(1));
}

#[test]
fn a_symlink_outside_the_root_is_reported_by_the_loader() {
    let mut db = Database::new("p");
    db.set_file(
        "p/main.wf",
        "main.wf",
        "import \"link.wf\"\nworkflow M { start -> done }",
    );
    db.load_imports(|_| Err(LoadFailure::OutsideRoot(PathBuf::from("/elsewhere/x.wf"))));
    let diagnostics = db.diagnostics();
    assert_eq!(codes(&diagnostics), ["WF0108"]);
    assert_eq!(
        diagnostics[0].notes,
        ["the link resolves to `/elsewhere/x.wf`"]
    );
}

#[test]
fn check_sources_keeps_the_given_ids() {
    let mut sources = Sources::new();
    // The same path twice (`wfc check a.wf a.wf`): each keeps its id.
    sources.add("x/a.wf", "workflow A { start -> a -> b -> a\n b -> done }");
    sources.add("x/a.wf", "workflow B { start -> a -> b -> a\n b -> done }");
    let diagnostics = crate::check_sources(&sources);
    let cycles: Vec<FileId> = diagnostics
        .iter()
        .filter(|d| d.code.code == "WF0201")
        .map(|d| d.primary.location.file)
        .collect();
    assert_eq!(cycles, [FileId(0), FileId(1)]);
}

/// The log entry of `query` run for the first workflow named `name` of the
/// file at `path`, as [`logged_db`] records it.
fn run_for(db: &Database, query: &str, path: &str, name: &str) -> String {
    use salsa::plumbing::AsId;
    let file = db.by_path[Path::new(path)];
    let id = super::queries::WorkflowId::new(db, file, name.to_string(), 0);
    format!("{query}({:?})", id.as_id())
}

/// The entries of the log since the last call.
fn drain(log: &Mutex<Vec<String>>) -> Vec<String> {
    log.lock().unwrap().drain(..).collect()
}

fn ran(entries: &[String], entry: &str) -> usize {
    entries.iter().filter(|e| *e == entry).count()
}

const TWO: &str = "workflow A {\n  needs ticket: string\n  step plan { reads ticket  writes plan: string }\n  step build { reads plan }\n  start -> plan -> build -> done\n}\n\
workflow B {\n  step x { writes note: string }\n  step y { reads note }\n  start -> x -> y -> done\n}\n";
const THIRD: &str = "workflow C {\n  step c { writes out: string }\n  step d { reads out }\n  start -> c -> d -> done\n}\n";

#[test]
fn editing_a_node_body_reruns_only_that_workflows_data_flow() {
    let (mut db, log) = logged_db("p");
    db.set_file("p/x.wf", "p/x.wf", TWO);
    db.set_file("p/y.wf", "p/y.wf", THIRD);
    assert!(db.diagnostics().is_empty(), "{:?}", db.diagnostics());
    let first = drain(&log);
    for (path, name) in [("p/x.wf", "A"), ("p/x.wf", "B"), ("p/y.wf", "C")] {
        assert_eq!(ran(&first, &run_for(&db, "flow_analysis", path, name)), 1);
    }
    opened(&mut db, &log, "p/x.wf");

    // A body edit in `A` that changes its data flow: `build` now reads a
    // key nothing writes. Every span of `B` below moves.
    let edited = TWO.replace(
        "step build { reads plan }",
        "step build { reads plan, tests }",
    );
    db.set_file("p/x.wf", "p/x.wf", edited.as_str());
    let diagnostics = db.diagnostics();
    let entries = drain(&log);
    assert_eq!(codes(&diagnostics), ["WF0301"]);
    assert_eq!(
        ran(&entries, &run_for(&db, "flow_analysis", "p/x.wf", "A")),
        1
    );
    assert_eq!(
        ran(&entries, &run_for(&db, "workflow_dataflow", "p/x.wf", "A")),
        1
    );
    // `B` only moved: its shape is unchanged, so its analysis is not
    // re-run; only the cheap span mapping is.
    assert_eq!(
        ran(&entries, &run_for(&db, "flow_analysis", "p/x.wf", "B")),
        0,
        "{entries:?}"
    );
    assert_eq!(
        ran(&entries, &run_for(&db, "graph_facts", "p/x.wf", "B")),
        0
    );
    // The other file: nothing of its data flow runs.
    assert_eq!(
        ran(&entries, &run_for(&db, "flow_analysis", "p/y.wf", "C")),
        0
    );
    assert_eq!(
        ran(&entries, &run_for(&db, "workflow_dataflow", "p/y.wf", "C")),
        0
    );
    let counts = executed(&Mutex::new(entries));
    assert_eq!(count(&counts, "flow_analysis"), 1, "{counts:?}");
    // No call changed: the call graph is backdated and the recursion check
    // does not run.
    assert_eq!(count(&counts, "call_graph"), 0, "{counts:?}");
    assert_eq!(count(&counts, "recursion_diagnostics"), 0, "{counts:?}");
    assert_eq!(
        diagnostics,
        fresh(&[("p/x.wf", &edited), ("p/y.wf", THIRD)])
    );
}

const CALLER: &str = "import \"lib.wf\"\nworkflow Main {\n  call r = Review { verdict <- verdict }\n  step ship { reads verdict }\n  start -> r -> ship -> done\n}\n";
const CALLEE: &str = "workflow Review {\n  gives verdict: string\n  branch pick\n  step approve { writes verdict: string }\n  step reject\n  start -> pick\n  pick -> approve when outcome == success\n  pick -> reject when outcome != success\n  approve -> done\n  reject -> done\n}\n";

#[test]
fn editing_a_callees_gives_reruns_its_callers_data_flow() {
    let (mut db, log) = logged_db("p");
    db.set_file("p/main.wf", "p/main.wf", CALLER);
    db.set_file("p/lib.wf", "p/lib.wf", CALLEE);
    // The callee promises `verdict` but `reject` completes without it.
    let before = db.diagnostics();
    assert_eq!(codes(&before), ["WF0303"]);
    opened(&mut db, &log, "p/lib.wf");
    let main_dataflow = run_for(&db, "workflow_dataflow", "p/main.wf", "Main");
    let main_flow = run_for(&db, "flow_analysis", "p/main.wf", "Main");

    // Without the promise, the caller's return map is what is wrong.
    let edited = CALLEE.replace("  gives verdict: string\n", "");
    db.set_file("p/lib.wf", "p/lib.wf", edited.as_str());
    let after = db.diagnostics();
    let entries = drain(&log);
    assert_eq!(codes(&after), ["WF0304"]);
    assert_eq!(after[0].primary.location.file, FileId(0));
    assert_eq!(ran(&entries, &main_dataflow), 1, "{entries:?}");
    // The callee's `needs` and the keys requested from `Main` are the
    // same: the caller's own must-analysis is not re-run.
    assert_eq!(ran(&entries, &main_flow), 0, "{entries:?}");
    assert_eq!(
        after,
        fresh(&[("p/main.wf", CALLER), ("p/lib.wf", &edited)])
    );
}

#[test]
fn a_whitespace_edit_in_a_callee_does_not_rerun_its_callers_data_flow() {
    let (mut db, log) = logged_db("p");
    db.set_file("p/main.wf", "p/main.wf", CALLER);
    db.set_file("p/lib.wf", "p/lib.wf", CALLEE);
    db.diagnostics();
    opened(&mut db, &log, "p/lib.wf");
    let spaced = CALLEE.replace(
        "{ writes verdict: string }",
        "{    writes verdict: string    }",
    );
    db.set_file("p/lib.wf", "p/lib.wf", spaced.as_str());
    let after = db.diagnostics();
    let entries = drain(&log);
    // The callee's own diagnostics move with its text …
    assert_eq!(
        ran(
            &entries,
            &run_for(&db, "workflow_dataflow", "p/lib.wf", "Review")
        ),
        1
    );
    // … but nothing of it is re-analysed, and nothing of its caller runs.
    let counts = executed(&Mutex::new(entries.clone()));
    assert_eq!(count(&counts, "flow_analysis"), 0, "{counts:?}");
    assert_eq!(count(&counts, "workflow_guarantees"), 0, "{counts:?}");
    assert_eq!(count(&counts, "call_requests"), 0, "{counts:?}");
    for query in [
        "workflow_dataflow",
        "flow_analysis",
        "workflow_calls",
        "file_diagnostics",
    ] {
        assert_eq!(
            ran(&entries, &run_for(&db, query, "p/main.wf", "Main")),
            0,
            "{query}"
        );
    }
    assert_eq!(
        after,
        fresh(&[("p/main.wf", CALLER), ("p/lib.wf", &spaced)])
    );
}

#[test]
fn adding_a_recursive_call_reruns_the_recursion_check() {
    let text = "workflow Loop {\n  step a\n  start -> a -> done\n}\n";
    let (mut db, log) = logged_db("p");
    db.set_file("p/loop.wf", "p/loop.wf", text);
    assert!(db.diagnostics().is_empty());
    opened(&mut db, &log, "p/loop.wf");
    // Every path to the terminal now recurses.
    let recursive = "workflow Loop {\n  call again = Loop\n  start -> again -> done\n}\n";
    db.set_file("p/loop.wf", "p/loop.wf", recursive);
    let diagnostics = db.diagnostics();
    let counts = executed(&log);
    assert_eq!(count(&counts, "call_graph"), 1, "{counts:?}");
    assert_eq!(count(&counts, "recursion_diagnostics"), 1, "{counts:?}");
    assert_eq!(codes(&diagnostics), ["WF0308"]);
    assert_eq!(diagnostics, fresh(&[("p/loop.wf", recursive)]));
}

#[test]
fn a_call_that_is_not_visible_gets_no_data_flow_diagnostics() {
    // `Review` needs a key the caller lacks and does not give the key the
    // return map takes, but the caller cannot see it: WF0104 only.
    let main = "workflow Main {\n  call r = Review { out <- result }\n  start -> r -> done\n}\n";
    let lib = "workflow Review {\n  needs ticket: string\n  step s { reads ticket }\n  start -> s -> done\n}\n";
    let (diagnostics, _) = check(&[("main.wf", main), ("lib.wf", lib)]);
    assert_eq!(codes(&diagnostics), ["WF0104"], "{diagnostics:#?}");
    // With the import, the data-flow checks see the callee.
    let imported = format!("import \"lib.wf\"\n{main}");
    let (diagnostics, _) = check(&[("main.wf", &imported), ("lib.wf", lib)]);
    assert_eq!(
        codes(&diagnostics),
        ["WF0302", "WF0304"],
        "{diagnostics:#?}"
    );
}

#[test]
fn a_new_return_map_key_reaches_the_callee_through_the_published_requests() {
    let callee = "workflow Review {\n  gives verdict: string\n  step a { writes verdict: string, note: string }\n  step b { writes verdict: string }\n  start -> a -> done\n  start -> b -> done\n}\n";
    let (mut db, log) = logged_db("p");
    db.set_file("p/main.wf", "p/main.wf", CALLER);
    db.set_file("p/lib.wf", "p/lib.wf", callee);
    opened(&mut db, &log, "p/main.wf");
    assert!(db.diagnostics().is_empty(), "{:?}", db.diagnostics());
    // The caller now also takes `note`, which `b` does not write: the
    // callee's completion summary must cover the new key.
    let edited = CALLER.replace(
        "{ verdict <- verdict }",
        "{ verdict <- verdict  n <- note }",
    );
    db.set_file("p/main.wf", "p/main.wf", edited.as_str());
    let diagnostics = db.diagnostics();
    let entries = drain(&log);
    assert_eq!(codes(&diagnostics), ["WF0304"]);
    assert_eq!(
        ran(
            &entries,
            &run_for(&db, "flow_analysis", "p/lib.wf", "Review")
        ),
        1,
        "{entries:?}"
    );
    assert_eq!(
        diagnostics,
        fresh(&[("p/main.wf", &edited), ("p/lib.wf", callee)])
    );
    // Adding a file forgets the published aggregates; results stay right.
    db.set_file("p/extra.wf", "p/extra.wf", THIRD);
    assert_eq!(
        db.diagnostics(),
        fresh(&[
            ("p/main.wf", &edited),
            ("p/lib.wf", callee),
            ("p/extra.wf", THIRD)
        ])
    );
}

/// Attractor pipelines are programs of their own: two `.dot` files may use
/// the same graph name, and a `.wf` workflow may share it too, while two
/// `.wf` files still may not.
#[test]
fn dot_graph_names_do_not_clash_across_files() {
    let dot =
        "digraph Review {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> done\n}\n";
    let wf = "workflow Review {\n  start -> done\n  exit done\n}\n";
    let found = fresh(&[("p/a.dot", dot), ("p/b.dot", dot), ("p/c.wf", wf)]);
    assert!(!codes(&found).contains(&"WF0101"), "{:?}", codes(&found));
    let found = fresh(&[("p/c.wf", wf), ("p/d.wf", wf)]);
    assert_eq!(codes(&found), ["WF0101"]);
}

/// A front end's own fix speaks its format and survives; the analysis's
/// `.wf`-syntax fixes are dropped on other formats.
#[test]
fn dot_front_end_fixes_survive() {
    let dot = "digraph P {\n  start [shape=Mdiamond]\n  work [timeout=300, prompt=\"x\"]\n  done [shape=Msquare]\n  start -> work -> done\n}\n";
    let found = fresh(&[("p/a.dot", dot)]);
    let unit = found
        .iter()
        .find(|d| d.code.code == "WF0605")
        .expect("a bare-number timeout is WF0605");
    assert!(unit.fix.is_some(), "{unit:?}");
}

/// Issue 14, item 2: a manager node's child pipeline is loaded like an
/// import (so `wfc check` and the language server check it), is reported
/// where it is named when it cannot be, and stays out of the program: it
/// runs in its own engine, and may share its parent's graph name.
#[test]
fn child_pipelines_load_like_imports_and_stay_out_of_the_program() {
    let pipeline = |child: &str| {
        format!(
            "digraph G {{\n  start [shape=Mdiamond]\n  m [shape=house, stack.child_dotfile=\"{child}\"]\n  done [shape=Msquare]\n  start -> m -> done\n}}\n"
        )
    };
    let mut db = Database::new("p");
    db.set_file("p/main.dot", "main.dot", pipeline("sub/child.dot"));
    db.set_file("p/other.dot", "other.dot", pipeline("gone.dot"));
    db.set_file("p/link.dot", "link.dot", pipeline("sub/link.dot"));
    assert_eq!(
        db.unresolved_imports(),
        ["p/gone.dot", "p/sub/child.dot", "p/sub/link.dot"].map(PathBuf::from)
    );
    db.load_imports(|path| match path.to_str() {
        Some("p/sub/child.dot") => Ok((
            "sub/child.dot".into(),
            "digraph G {\n  start [shape=Mdiamond]\n  orphan [prompt=\"x\"]\n  done [shape=Msquare]\n  start -> done\n}\n".into(),
        )),
        Some("p/sub/link.dot") => Err(LoadFailure::OutsideRoot(PathBuf::from("/etc/passwd"))),
        _ => Err(LoadFailure::NotFound),
    });
    let diagnostics = db.diagnostics();
    let found: Vec<_> = diagnostics
        .iter()
        .map(|d| (d.primary.location.file.0, d.code.code))
        .collect();
    // other.dot (1), link.dot (2), and the child's orphan (3); not the
    // duplicate graph name `G`.
    assert_eq!(
        found,
        [(1, "WF0107"), (2, "WF0108"), (3, "WF0205")],
        "{diagnostics:#?}"
    );
    assert_eq!(db.program().workflows.len(), 3);
}

/// Issue 14 leftover: a missing child pipeline is reported once, as the
/// import it is (WF0107, with its help), not again as WF0815; WF0815 keeps
/// the prompt files only it checks.
#[test]
fn a_missing_child_pipeline_is_reported_once() {
    // Absolute, as `wfc check` sees a project on disk (WF0815 runs then);
    // the directory need not exist.
    let root = std::env::temp_dir().join("wf-analysis-missing-child-no-such-dir");
    let mut db = Database::new(&root);
    db.set_file(
        root.join("main.dot"),
        "main.dot",
        "digraph G {\n  start [shape=Mdiamond]\n  m [shape=house, stack.child_dotfile=\"gone.dot\"]\n  p [prompt=\"@gone.md\"]\n  done [shape=Msquare]\n  start -> m -> p -> done\n}\n",
    );
    db.load_imports(|_| Err(LoadFailure::NotFound));
    let diagnostics = db.diagnostics();
    let found: Vec<_> = diagnostics
        .iter()
        .map(|d| (d.code.code, d.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("WF0107", "child pipeline `gone.dot` not found"),
            ("WF0815", "the prompt file `gone.md` does not exist"),
        ],
        "{diagnostics:#?}"
    );
}
