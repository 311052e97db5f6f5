//! Every code's explanation must tell the truth: the ```wf blocks (```json
//! for the Reflex front end's codes, ```dot for the DOT front end's and the
//! Attractor rules') under its
//! `## Example` heading must produce that code when checked, and the blocks
//! under `## How to fix` must check clean.

use wf_diagnostics::{Sources, codes};

/// The blocks of language `lang` (```wf, ```json) of one `## Heading`
/// section of a Markdown text.
fn blocks_in_section(markdown: &str, heading: &str, lang: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut in_section = false;
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        if current.is_none() && line.starts_with("## ") {
            in_section = line.trim() == heading;
            continue;
        }
        match &mut current {
            None if in_section && line.trim().strip_prefix("```") == Some(lang) => {
                current = Some(String::new())
            }
            Some(_) if line.trim_start().starts_with("```") => blocks.push(current.take().unwrap()),
            Some(text) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    blocks
}

fn check(text: &str, lang: &str) -> Vec<String> {
    let found = if lang == "dot" {
        // As `wfc check` checks a file on disk, so that the checks of the
        // files a pipeline names run (WF0815); nothing is written, and the
        // directory need not exist.
        let root = std::env::temp_dir().join("wfc-explanations-no-such-dir");
        let mut db = wf_analysis::Database::new(&root);
        db.set_files([(
            root.join("example.dot"),
            "example.dot".to_string(),
            text.to_string(),
        )]);
        db.diagnostics()
    } else {
        let mut sources = Sources::new();
        sources.add(format!("example.{lang}"), text);
        wf_analysis::check_sources(&sources)
    };
    found
        .iter()
        .map(|d| format!("{}: {}", d.code.code, d.message))
        .collect()
}

#[test]
fn examples_trigger_their_code_and_fixes_are_clean() {
    let mut failures = Vec::new();
    for code in codes::ALL {
        // The Reflex front end's examples are Reflex JSON files; those of
        // the DOT front end and the Attractor rules are `.dot` pipelines.
        // So are those of WF0110, a child pipeline named in a pipeline.
        let lang = match code.family {
            // An IR file, verified by `wfc check` with the IR loader.
            _ if code.code == "WF0011" => "json",
            wf_diagnostics::Family::Reflex => "json",
            wf_diagnostics::Family::Dot | wf_diagnostics::Family::Attractor => "dot",
            _ if code.code == "WF0110" => "dot",
            _ => "wf",
        };
        let examples = blocks_in_section(wf_render::explanation(code), "## Example", lang);
        let fixes = blocks_in_section(wf_render::explanation(code), "## How to fix", lang);
        if examples.is_empty() || fixes.is_empty() {
            failures.push(format!(
                "{}: needs a ```{lang} example and a ```{lang} fix",
                code.code
            ));
        }
        let check = |text: &str, lang: &str| {
            if code.code == "WF0011" {
                return wf_ir::load(text)
                    .err()
                    .map(|e| format!("WF0011: {e}"))
                    .into_iter()
                    .chain(check(text, lang))
                    .collect();
            }
            if code.code == "WF0012" {
                // Only reported for the Reflex target.
                let parsed = wf_syntax::parse(text, wf_diagnostics::FileId(0));
                let lowered =
                    wf_analysis::lower::lower_parsed(&[(wf_diagnostics::FileId(0), &parsed)]);
                let mut found = check(text, lang);
                for workflow in &lowered.program.workflows {
                    found.extend(
                        wf_reflex::guard_problems(workflow)
                            .iter()
                            .map(|d| format!("{}: {}", d.code.code, d.message)),
                    );
                }
                return found;
            }
            check(text, lang)
        };
        // A run failure (WF09xx) is not found by checking: its example is a
        // workflow that checks without errors and fails when run (the
        // `wfc run` tests reach every kind).
        if code.family == wf_diagnostics::Family::Run {
            for text in examples.iter().chain(&fixes) {
                let errors: Vec<_> = check(text, lang)
                    .into_iter()
                    .filter(|d| {
                        wf_diagnostics::codes::lookup(&d[..6])
                            .is_some_and(|c| c.severity == wf_diagnostics::Severity::Error)
                    })
                    .collect();
                if !errors.is_empty() {
                    failures.push(format!(
                        "{}: the workflow does not check: {errors:?}",
                        code.code
                    ));
                }
            }
            continue;
        }
        for example in examples {
            let found = check(&example, lang);
            if !found.iter().any(|d| d.starts_with(code.code)) {
                failures.push(format!(
                    "{}: the example does not produce it; got {found:?}",
                    code.code
                ));
            }
        }
        for fix in fixes {
            let mut found = check(&fix, lang);
            // What a fix keeps on purpose: WF0862's loop (an info note) and
            // the child pipeline WF0861's fix names (a file the example
            // does not have).
            found.retain(|d| {
                !(code.code == "WF0862" && d.starts_with("WF0201")
                    || code.code == "WF0861" && d.starts_with("WF0107"))
            });
            if !found.is_empty() {
                failures.push(format!(
                    "{}: the fixed example is not clean: {found:?}",
                    code.code
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
