//! The explanations of the DOT front end's codes tell the truth: every
//! ```dot block under `## Example` produces the code when parsed and
//! lowered, and every block under `## How to fix` produces nothing.
//!
//! This checks them against the front end alone; `crates/wfc/tests/
//! explanations.rs` runs them through the whole checker too.

use wf_diagnostics::{Family, FileId, codes};

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
            None if in_section && line.trim() == "```dot" => current = Some(String::new()),
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
    wf_dot::parse_and_lower(text, FileId(0))
        .diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.code.code, d.message))
        .collect()
}

#[test]
fn dot_examples_trigger_their_code_and_fixes_are_clean() {
    let mut failures = Vec::new();
    let dot_codes: Vec<_> = codes::ALL
        .iter()
        .filter(|c| c.family == Family::Dot)
        .collect();
    assert!(dot_codes.len() >= 7);
    for code in dot_codes {
        let examples = blocks_in_section(wf_render::explanation(code), "## Example");
        let fixes = blocks_in_section(wf_render::explanation(code), "## How to fix");
        if examples.is_empty() || fixes.is_empty() {
            failures.push(format!(
                "{}: needs a ```dot example and a ```dot fix",
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
