//! Every code's explanation must tell the truth: the ```wf blocks under its
//! `## Example` heading must produce that code when checked, and the blocks
//! under `## How to fix` must check clean.

use wf_diagnostics::{Sources, codes};

/// The ```wf blocks of one `## Heading` section of a Markdown text.
fn blocks_in_section(markdown: &str, heading: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut in_section = false;
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        if current.is_none() && line.starts_with("## ") {
            in_section = line.trim() == heading;
            continue;
        }
        match &mut current {
            None if in_section && line.trim() == "```wf" => current = Some(String::new()),
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

fn check(text: &str) -> Vec<String> {
    let mut sources = Sources::new();
    sources.add("example.wf", text);
    wf_analysis::check_sources(&sources)
        .iter()
        .map(|d| format!("{}: {}", d.code.code, d.message))
        .collect()
}

#[test]
fn examples_trigger_their_code_and_fixes_are_clean() {
    let mut failures = Vec::new();
    for code in codes::ALL {
        let examples = blocks_in_section(code.explanation, "## Example");
        let fixes = blocks_in_section(code.explanation, "## How to fix");
        if examples.is_empty() || fixes.is_empty() {
            failures.push(format!(
                "{}: needs a ```wf example and a ```wf fix",
                code.code
            ));
        }
        for example in examples {
            let found = check(&example);
            if !found.iter().any(|d| d.starts_with(code.code)) {
                failures.push(format!(
                    "{}: the example does not produce it; got {found:?}",
                    code.code
                ));
            }
        }
        for fix in fixes {
            let found = check(&fix);
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
