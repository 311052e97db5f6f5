//! Unit tests of the contracts family.

use wf_diagnostics::Sources;

use crate::test_support::{check, codes, with_code};

const RELEASE: &str = include_str!("../../../../examples/release.wf");
const REVIEW: &str = include_str!("../../../../examples/lib/review.wf");

fn check_release(release: &str) -> Vec<wf_diagnostics::Diagnostic> {
    let mut sources = Sources::new();
    sources.add("release.wf", release);
    sources.add("lib/review.wf", REVIEW);
    crate::check_sources(&sources)
}

#[test]
fn design_release_example_is_clean() {
    assert!(check_release(RELEASE).is_empty());
}

#[test]
fn release_without_plan_write_has_one_error_with_the_witness_path() {
    let broken = RELEASE.replace("    writes plan: string\n", "");
    assert_ne!(broken, RELEASE);
    let diags = check_release(&broken);
    assert_eq!(codes(&diags), ["WF0301"], "{diags:#?}");
    let d = &diags[0];
    assert_eq!(&broken[d.primary.location.span.range()], "plan");
    assert!(d.message.contains("node `deploy` reads `plan`"));
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("start -> plan -> build -> review -> approve -> deploy")),
        "{:?}",
        d.notes
    );
}

#[test]
fn witness_path_avoids_writers() {
    let src = r#"
workflow W {
  branch pick
  step a { writes k: string }
  step b
  step use { reads k }
  start -> pick
  pick -> a when outcome == success
  pick -> b when outcome != success
  a -> use
  b -> use
  use -> done
}
"#;
    let diags = check(src);
    let d = with_code(&diags, "WF0301");
    assert_eq!(d.len(), 1);
    assert!(
        d[0].notes[0].contains("start -> pick -> b -> use"),
        "{:?}",
        d[0].notes
    );
}

#[test]
fn needs_and_return_maps_provide_keys() {
    let src = r#"
workflow Caller {
  needs ticket: string
  call r = Callee { verdict <- decision }
  step use { reads ticket, verdict }
  start -> r -> use -> done
}
workflow Callee {
  needs ticket: string
  gives decision: string
  step d { reads ticket  writes decision: string }
  start -> d -> done
}
"#;
    assert!(check(src).is_empty(), "{:#?}", check(src));
}

#[test]
fn cycles_do_not_hang_or_report_garbage() {
    let src = r#"
workflow W {
  step a { reads x }
  step b { reads y  writes x: string }
  start -> a -> b -> a
  b -> done
}
"#;
    let diags = check(src);
    // The cycle is reported; nothing on or after it is analysed.
    assert!(with_code(&diags, "WF0201").len() == 1);
    assert!(with_code(&diags, "WF0301").is_empty(), "{diags:#?}");
}

#[test]
fn interpolations_are_lowered_with_key_spans() {
    let src = "workflow W {\n  goal = \"Ship $ticket\"\n  step s \"for ${who}\" { p = [\"a $x.y\"] }\n  start -> s -> done\n}\n";
    let lowered = crate::test_support::lower(src);
    let w = &lowered.program.workflows[0];
    let keys: Vec<&str> = w
        .interpolated_reads
        .iter()
        .map(|r| r.key.as_str())
        .collect();
    assert_eq!(keys, ["ticket"]);
    let node = &w.nodes[0];
    let keys: Vec<(&str, &str)> = node
        .interpolated_reads
        .iter()
        .map(|r| (r.key.as_str(), &src[r.span.span.range()]))
        .collect();
    assert_eq!(keys, [("who", "who"), ("x.y", "x.y")]);
}

#[test]
fn recursion_through_a_completing_callee_is_fine() {
    let src = r#"
workflow A {
  call b = B
  start -> b -> done
}
workflow B {
  branch pick
  call a = A
  start -> pick
  pick -> a when outcome == success
  pick -> done when outcome != success
}
"#;
    assert!(with_code(&check(src), "WF0308").is_empty());
}

/// A 20,000-node chain where every node reads the key its predecessor
/// writes (20,000 tracked keys), plus a diamond every 100 nodes: the
/// analysis stays fast and iterative, and one missing key is found.
#[test]
fn long_chain_with_many_keys() {
    const N: usize = 20_000;
    let mut src = String::from("workflow Big {\n");
    for i in 0..N {
        let read = if i == 0 {
            String::new()
        } else {
            format!("reads k{} ", i - 1)
        };
        let write = if i == N / 2 {
            String::new()
        } else {
            format!("writes k{i}: string")
        };
        src.push_str(&format!("  step n{i} {{ {read}{write} }}\n"));
    }
    for i in 0..N - 1 {
        src.push_str(&format!("  n{i} -> n{}\n", i + 1));
    }
    src.push_str(&format!("  n{} -> done\n}}\n", N - 1));
    let diags = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || check(&src))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(codes(&diags), ["WF0301"]);
    assert!(
        diags[0]
            .message
            .contains(&format!("`n{}` reads `k{}`", N / 2 + 1, N / 2))
    );
}

/// Issue 14 leftover: a workflow that `needs x` and `gives x` must still
/// write `x` on every path; the runtime fails a call that completes
/// without it ("would complete without `x`"), so the checker reports it.
#[test]
fn a_need_does_not_satisfy_a_gives() {
    let src = r#"
workflow Caller {
  needs x: string
  call p = Pass { y <- x }
  step use { reads y }
  start -> p -> use -> done
}
workflow Pass {
  needs x: string
  gives x: string
  step s
  start -> s -> done
}
"#;
    let diags = check(src);
    let d = with_code(&diags, "WF0303");
    assert_eq!(d.len(), 1, "{diags:#?}");
    assert!(d[0].message.contains("workflow `Pass` gives `x`"), "{d:#?}");
    assert!(
        d[0].notes
            .iter()
            .any(|n| n.contains("a need is the caller's value")),
        "{:?}",
        d[0].notes
    );
    // Written on every path, it is fine.
    let fixed = src.replace("step s\n", "step s { writes x: string }\n");
    assert!(
        with_code(&check(&fixed), "WF0303").is_empty(),
        "{:#?}",
        check(&fixed)
    );
}
