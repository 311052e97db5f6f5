//! `parse` never panics and never hangs, whatever it is given.

use crate::common;

use common::{DESIGN_PRODUCTION, DESIGN_SKETCH, check_invariants, parsed};
use proptest::prelude::*;
use proptest::sample::select;
use wf_diagnostics::FileId;

/// Token-ish fragments, valid and invalid, to build and mutate inputs from.
const FRAGMENTS: &[&str] = &[
    "workflow",
    "import",
    "as",
    "needs",
    "gives",
    "step",
    "human",
    "tool",
    "call",
    "branch",
    "parallel",
    "join",
    "exit",
    "reads",
    "writes",
    "when",
    "true",
    "false",
    "null",
    "in",
    "contains",
    "matches",
    "exists",
    "x",
    "a.b",
    "_k",
    "\"s\"",
    "\"$k ${a.b}\"",
    "\"\\q\"",
    "\"open",
    "\"\"\"\n  t\n  \"\"\"",
    "\"\"\"",
    "`k`",
    "`open",
    "1",
    "1_000",
    "1.5",
    "2.0e3",
    "15m",
    "250ms",
    "15min",
    "1e5",
    "99999999999999999999",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ";",
    ":",
    "=",
    ".",
    "?",
    "->",
    "<-",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "&&",
    "||",
    "!",
    "// c\n",
    "/// d\n",
    "/* b */",
    "/*",
    "\n",
    "\n\n",
    " ",
    "@",
    "&",
    "é",
    "\u{0}",
    "\r\n",
];

fn check(src: &str) {
    let result = parsed(src);
    check_invariants(src, &result);
}

/// Byte offsets where the example can be cut without splitting a token:
/// the boundaries of its tokens.
fn cut_points(src: &str) -> Vec<usize> {
    let lexed = wf_syntax::lexer::lex(src, FileId(0));
    let mut points = vec![0, src.len()];
    for (_, span) in &lexed.tokens {
        points.push(span.start as usize);
        points.push(span.end as usize);
    }
    points.sort_unstable();
    points.dedup();
    points
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Delete the text between two cut points.
    Delete(usize, usize),
    /// Duplicate the text between two cut points.
    Duplicate(usize, usize),
    /// Insert a fragment at a cut point.
    Insert(usize, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0usize..12).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 0usize..12).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        (any::<usize>(), select(FRAGMENTS)).prop_map(|(a, f)| Mutation::Insert(a, f)),
    ]
}

fn mutate(src: &str, mutations: &[Mutation]) -> String {
    let mut text = src.to_string();
    for m in mutations {
        let points = cut_points(&text);
        let pick = |i: usize| points[i % points.len()];
        let range = |a: usize, n: usize| {
            let start = a % points.len();
            let end = (start + n).min(points.len() - 1);
            points[start]..points[end]
        };
        match *m {
            Mutation::Delete(a, n) => {
                text.replace_range(range(a, n), "");
            }
            Mutation::Duplicate(a, n) => {
                let r = range(a, n);
                let copy = text[r.clone()].to_string();
                text.insert_str(r.end, &copy);
            }
            Mutation::Insert(a, fragment) => {
                text.insert_str(pick(a), &format!(" {fragment} "));
            }
        }
    }
    text
}

// 256 cases per property by default; set PROPTEST_CASES for a longer hunt.
proptest! {
    #[test]
    fn arbitrary_strings(src in any::<String>()) {
        check(&src);
    }

    #[test]
    fn arbitrary_bytes_read_lossily(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn fragment_soup(parts in proptest::collection::vec(select(FRAGMENTS), 0..150)) {
        check(&parts.join(" "));
        check(&parts.concat());
    }

    #[test]
    fn mutated_design_examples(
        mutations in proptest::collection::vec(mutation(), 1..8),
        production in any::<bool>(),
    ) {
        let base = if production { DESIGN_PRODUCTION } else { DESIGN_SKETCH };
        check(&mutate(base, &mutations));
    }
}

#[test]
fn every_prefix_of_the_design_example() {
    for end in (0..=DESIGN_PRODUCTION.len()).filter(|&i| DESIGN_PRODUCTION.is_char_boundary(i)) {
        check(&DESIGN_PRODUCTION[..end]);
        check(&DESIGN_PRODUCTION[end..]);
    }
}

#[test]
fn pathological_nesting_and_repetition() {
    let n = 50_000;
    let cases = [
        "{".repeat(n),
        "}".repeat(n),
        "[".repeat(n),
        format!("workflow W {{ x = {} }}", "[".repeat(n)),
        format!("workflow W {{ x = {} }}", "{".repeat(n)),
        format!("workflow W {{ x = {}", "{a:".repeat(n)),
        format!("workflow W {{ a -> b when {} }}", "(".repeat(n)),
        format!("workflow W {{ a -> b when {}x }}", "[".repeat(n)),
        format!("workflow W {{ a -> b when {}x }}", "!(".repeat(n)),
        format!("workflow W {{ a -> b when x{} }}", " == x".repeat(n)),
        "workflow ".repeat(n),
        "step x ".repeat(n),
        "/// doc\n".repeat(n),
        "\"".repeat(n),
        "`".repeat(n),
        "-".repeat(n),
        format!("workflow W {{ {} }}", "a -> ".repeat(n)),
        format!("workflow W {{ step s {{ {} }} }}", "reads a, ".repeat(n)),
    ];
    for src in &cases {
        check(src);
    }
}

#[test]
fn large_generated_file_parses_cleanly() {
    let mut src = String::from("workflow Big {\n");
    for i in 0..5_000 {
        src.push_str(&format!(
            "  step n{i} \"Node {i}\" {{ timeout = 15m  writes k{i}: string }}\n"
        ));
    }
    for i in 0..4_999 {
        src.push_str(&format!("  n{i} -> n{} when outcome == success\n", i + 1));
    }
    src.push_str("}\n");
    let result = parsed(&src);
    assert!(result.diagnostics.is_empty());
    let wf_syntax::ast::Item::Workflow(w) = &result.file.items[0] else {
        panic!()
    };
    assert_eq!(w.body.len(), 9_999);
}
