//! The front end never panics, never hangs and keeps every span inside the
//! text, whatever the input: arbitrary strings, DOT token soup, mutated
//! pipelines, and pathological nesting and length.

use proptest::prelude::*;
use wf_diagnostics::FileId;

fn check(text: &str) {
    let parsed = wf_dot::parse(text, FileId(0));
    let lowered = wf_dot::lower(&parsed, text, FileId(0));
    let len = text.len() as u32;
    let spans = parsed
        .diagnostics
        .iter()
        .chain(&lowered.diagnostics)
        .map(|d| d.primary.location.span)
        .chain(parsed.comments.iter().map(|c| c.span));
    for span in spans {
        assert!(
            span.start <= span.end && span.end <= len,
            "span {span:?} outside 0..{len}"
        );
        assert!(
            text.is_char_boundary(span.start as usize) && text.is_char_boundary(span.end as usize)
        );
    }
    for w in &lowered.program.workflows {
        for e in &w.edges {
            assert!(e.from.index() < w.nodes.len() && e.to.index() < w.nodes.len());
        }
    }
}

const FRAGMENTS: &[&str] = &[
    "digraph",
    "graph",
    "strict",
    "subgraph",
    "node",
    "edge",
    "G",
    "a",
    "b",
    "start",
    "exit",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "=",
    "->",
    "--",
    "+",
    ":",
    "\"",
    "\"x\"",
    "\"a\\\"b\"",
    "<",
    ">",
    "<b>",
    "//c\n",
    "/*",
    "*/",
    "#x\n",
    "\n",
    " ",
    "shape=Mdiamond",
    "shape",
    "Msquare",
    "condition=\"outcome=success && context.x!=y\"",
    "condition",
    "\"outcome=\"",
    "&&",
    "||",
    "model_stylesheet=\"* { llm_model: x; } .c { \"",
    "timeout=300",
    "timeout",
    "15m",
    "-1",
    "gpt-5.4",
    "a:n",
    "\\",
    "é",
    "label=\"Loop A\"",
    "class=\"c\"",
    "$goal",
    "prompt",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..80).prop_map(|parts| parts.join(" "))
}

fn examples() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lower");
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_strings(text in "\\PC*") {
        check(&text);
    }

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup(text in soup()) {
        check(&text);
        check(&format!("digraph G {{ {text} }}"));
    }

    #[test]
    fn mutated_examples(which in 0usize..64, cuts in prop::collection::vec((any::<prop::sample::Index>(), 0usize..12, prop::sample::select(FRAGMENTS)), 1..6)) {
        let all = examples();
        let mut text = all[which % all.len()].clone();
        for (at, len, insert) in cuts {
            let mut start = at.index(text.len() + 1);
            while !text.is_char_boundary(start) { start -= 1; }
            let mut end = (start + len).min(text.len());
            while !text.is_char_boundary(end) { end -= 1; }
            text.replace_range(start..end.max(start), insert);
        }
        check(&text);
    }
}

#[test]
fn pathological_inputs() {
    let n = 100_000;
    check(&"{".repeat(n));
    check(&format!("digraph G {{ {} }}", "subgraph { ".repeat(n)));
    check(&format!("digraph G {{ {} }}", "{ ".repeat(n)));
    check(&format!("digraph G {{ a{} }}", " -> a".repeat(n)));
    check(&format!("digraph G {{ a [{}] }}", "x=1 ".repeat(n)));
    check(&"[".repeat(n));
    check(&"\"".repeat(n));
    check(&"<".repeat(n));
    check(&format!(
        "digraph G {{ a -> b [condition=\"{}\"] }}",
        "x=1 && ".repeat(n)
    ));
    check(&format!(
        "digraph G {{ graph [model_stylesheet=\"{}\"] a }}",
        "* { llm_model: x; } ".repeat(n / 10)
    ));
}

#[test]
fn deep_nesting_is_reported_not_overflowed() {
    let depth = wf_dot::MAX_DEPTH + 5;
    let text = format!(
        "digraph G {{ {} a {} }}",
        "subgraph { ".repeat(depth),
        "} ".repeat(depth)
    );
    let parsed = wf_dot::parse(&text, FileId(0));
    assert!(
        parsed
            .diagnostics
            .iter()
            .any(|d| d.message.contains("nested more than"))
    );
}
