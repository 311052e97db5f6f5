//! Differential tests of the hand-written parser against the chumsky
//! grammar: whenever [`hand::parse`] returns a tree, chumsky must parse the
//! same input without any error into the same tree; and on well-formed
//! files it must not give up. Inputs: every `.wf` file of the repository's
//! tests and examples, a few thousand mutations of them (a token deleted,
//! doubled, or swapped with the next), and the files under the directory in
//! `WF_HAND_DIFF_DIR` when set (for example a generated project).

use std::path::{Path, PathBuf};

use wf_diagnostics::FileId;

use super::{CSpan, fast, hand};
use crate::ast::File;
use crate::groups::Groups;

/// What both parsers make of `text`: the hand parser's tree, and chumsky's
/// tree if it reported no error.
fn both(text: &str) -> (Option<File>, Option<File>) {
    let lexed = crate::lexer::lex(text, FileId(0));
    let tokens: Vec<_> = lexed
        .tokens
        .iter()
        .map(|&(token, span)| (token, CSpan::from(span.range())))
        .collect();
    let groups = Groups::new(&tokens, text);
    let boundary = crate::boundaries(&tokens, text);
    let hand = hand::parse(&tokens, &groups, &boundary, text.len());
    let (tree, errors) = fast::parse_tokens(&tokens, &groups, &boundary, text.len());
    (hand, tree.filter(|_| errors.is_empty()))
}

/// Checks the contract on one input; returns whether chumsky found it
/// well formed.
fn check(name: &str, text: &str) -> bool {
    let (hand, chumsky) = both(text);
    if let Some(hand) = &hand {
        assert_eq!(
            Some(hand),
            chumsky.as_ref(),
            "the hand parser accepted {name} differently from chumsky:\n{text}"
        );
    }
    if chumsky.is_some() {
        assert!(
            hand.is_some(),
            "the hand parser gave up on well-formed {name}:\n{text}"
        );
    }
    chumsky.is_some()
}

fn wf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            wf_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "wf") {
            out.push(path);
        }
    }
}

fn repository_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths = Vec::new();
    for dir in ["tests", "examples", "docs"] {
        wf_files(&root.join(dir), &mut paths);
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(&p).ok()?)))
        .collect()
}

#[test]
fn agrees_with_chumsky_on_repository_files() {
    let files = repository_files();
    assert!(files.len() > 100, "found {} files", files.len());
    let well_formed = files
        .iter()
        .filter(|(name, text)| check(name, text))
        .count();
    // Most test files are well formed; the fast path must cover them.
    assert!(
        well_formed > files.len() / 2,
        "{well_formed} of {}",
        files.len()
    );
}

#[test]
fn agrees_with_chumsky_on_mutations() {
    let mut checked = 0;
    let mut accepted = 0;
    for (name, text) in repository_files() {
        let lexed = crate::lexer::lex(&text, FileId(0));
        let spans: Vec<_> = lexed.tokens.iter().map(|(_, s)| s.range()).collect();
        // A bounded sample of positions per file keeps the test quick.
        let stride = spans.len().div_ceil(40).max(1);
        for i in (0..spans.len()).step_by(stride) {
            let here = spans[i].clone();
            let deleted = format!("{}{}", &text[..here.start], &text[here.end..]);
            let doubled = format!("{}{}", &text[..here.end], &text[here.start..]);
            let mut variants = vec![deleted, doubled];
            if let Some(next) = spans.get(i + 1) {
                variants.push(format!(
                    "{}{}{}{}{}",
                    &text[..here.start],
                    &text[next.clone()],
                    &text[here.end..next.start],
                    &text[here.clone()],
                    &text[next.end..]
                ));
            }
            for (kind, variant) in variants.into_iter().enumerate() {
                checked += 1;
                let mut end = (here.end + 30).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                let at = &text[here.start..end];
                let what = format!("{name} (mutation {kind} at token {i}: {at:?})");
                if check(&what, &variant) {
                    accepted += 1;
                }
            }
        }
    }
    eprintln!("{checked} mutations, {accepted} well formed");
    assert!(checked > 5_000, "{checked} mutations");
    // Both outcomes occur, so the test exercises both directions.
    assert!(
        accepted > 100 && accepted < checked,
        "{accepted} of {checked}"
    );
}

#[test]
fn agrees_with_chumsky_on_a_directory_from_the_environment() {
    let Some(dir) = std::env::var_os("WF_HAND_DIFF_DIR") else {
        return;
    };
    let mut paths = Vec::new();
    wf_files(Path::new(&dir), &mut paths);
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        check(&path.display().to_string(), &text);
    }
}

#[test]
fn hand_parser_edge_cases() {
    for text in [
        "",
        "workflow A { }",
        "import \"a.wf\" as b\nworkflow A { a -> b }",
        "workflow A { needs a: string, b\n step s \"label\" { reads x?, y, timeout = 5s } }",
        "workflow A { step a \"b\" -> c }",
        "workflow A { step a\n \"k\" = 1 }",
        "workflow A { call c \"l\" = B { x <- y, z = [1, 2,], m = {a: 1, b: \"x\",} } }",
        "workflow A { a -> b when !(x == 1) && y in [1, 2] || exists(z) || `q q` matches \"r\" { weight = 2 } }",
        "workflow A { a -> b when x == y == z }",
        "workflow A { a -> b when }",
        "workflow A { reads a, }",
        "workflow A { step s { reads a, b = 1 } }",
        "workflow A { step s { reads a, } }",
        "workflow A { x = a.b.c, y = a. }",
        "workflow A { x = }",
        "workflow A { x = [a -> b] }",
        "workflow A { a -> b when [] == [x,] }",
        "workflow A { a -> b when exists x }",
        "workflow { }",
        "workflow A B { }",
        "workflow A { ( }",
        "workflow A { x = ((((((1)))))) }",
        "workflow A { a -> b when ((((((((x)))))))) }",
    ] {
        check(&format!("{text:?}"), text);
    }
}
