//! Snapshot tests of the three renderers over one fixture.
//!
//! The fixture covers every part of the model: primary and secondary labels,
//! a label in another file, notes, help, a fix, an empty span at EOF, and
//! each severity. Snapshots live in `tests/snapshots/`; after an intended
//! change, regenerate them with `INSTA_UPDATE=always cargo test -p
//! wf-diagnostics` and review the diff.

use wf_diagnostics::FileId;
use wf_diagnostics::render::{self, Format, RenderOptions, json};
use wf_diagnostics::{Applicability, Diagnostic, Fix, Severity, Sources, Span, TextEdit, codes};

const MAIN: &str = "\
import \"lib/review.wf\"

workflow Release {
  start -> plan -> revew
  plan -> deploy
  deploy -> plan
  call check = Review
}
";

const LIB: &str = "\
workflow Review {
  start -> review -> done
}
";

const BROKEN: &str = "workflow Broken {\n  start -> a";

const PIPELINE: &str = "\
digraph fix_loop {
  test -> fix -> test
}
";

/// Byte span of the `nth` (0-based) occurrence of `needle` in `text`.
fn find(text: &str, needle: &str, nth: usize) -> Span {
    let start = text
        .match_indices(needle)
        .nth(nth)
        .expect("needle in fixture")
        .0;
    Span::new(start, start + needle.len())
}

fn fixture() -> (Sources, Vec<Diagnostic>) {
    let mut sources = Sources::new();
    let main = sources.add("flows/release.wf", MAIN);
    let lib = sources.add("flows/lib/review.wf", LIB);
    let broken = sources.add("flows/broken.wf", BROKEN);
    let pipeline = sources.add("flows/fix_loop.dot", PIPELINE);

    let cycle = Diagnostic::new(
        &codes::CYCLE,
        "workflow `Release` has a cycle: plan -> deploy -> plan",
        find(MAIN, "deploy -> plan", 0).in_file(main),
    )
    .with_primary_label("this edge closes the cycle")
    .with_label(
        find(MAIN, "plan -> deploy", 0).in_file(main),
        "the cycle starts here",
    )
    .with_note("a `.wf` workflow must be acyclic; repeat work with a recursive `call`")
    .with_help("remove one edge of the cycle")
    .with_fix(Fix {
        message: "remove the edge `deploy -> plan`".into(),
        edits: vec![TextEdit {
            location: Span::new(
                find(MAIN, "  deploy -> plan\n", 0).start as usize,
                find(MAIN, "  deploy -> plan\n", 0).end as usize,
            )
            .in_file(main),
            replacement: String::new(),
        }],
        applicability: Applicability::MaybeIncorrect,
    });

    let typo = Diagnostic::new(
        &codes::UNDECLARED_NODE,
        "`revew` is not declared; it becomes an implicit step",
        find(MAIN, "revew", 0).in_file(main),
    )
    .with_primary_label("used only in this edge")
    .with_label(
        find(LIB, "review", 0).in_file(lib),
        "a node named `review` is declared here",
    )
    .with_fix(Fix {
        message: "rename to `review`".into(),
        edits: vec![TextEdit {
            location: find(MAIN, "revew", 0).in_file(main),
            replacement: "review".into(),
        }],
        applicability: Applicability::MaybeIncorrect,
    });

    let eof = Diagnostic::new(
        &codes::UNCLOSED_DELIMITER,
        "this `{` is never closed",
        Span::new(BROKEN.len(), BROKEN.len()).in_file(broken),
    )
    .with_primary_label("the file ends here")
    .with_label(find(BROKEN, "{", 0).in_file(broken), "opened here")
    .with_fix(Fix {
        message: "close the workflow".into(),
        edits: vec![TextEdit {
            location: Span::new(BROKEN.len(), BROKEN.len()).in_file(broken),
            replacement: "\n}\n".into(),
        }],
        applicability: Applicability::MachineApplicable,
    });

    // A cycle is only an info in a `.dot` pipeline, which may loop.
    let info = Diagnostic::new(
        &codes::CYCLE,
        "pipeline `fix_loop` loops: test -> fix -> test",
        find(PIPELINE, "fix -> test", 0).in_file(pipeline),
    )
    .with_severity(Severity::Info)
    .with_note("the runtime bounds loops in `.dot` pipelines by `max_steps`");

    // No primary label message: the span is still underlined.
    let warning = Diagnostic::new(
        &codes::UNREACHABLE_NODE,
        "node `done` cannot be reached from the entry `start`",
        find(LIB, "done", 0).in_file(lib),
    );

    // Deliberately out of order: rendering sorts.
    let diags = vec![warning, info, eof, typo, cycle];
    (sources, diags)
}

fn render(format: Format) -> String {
    let (sources, diags) = fixture();
    render::render(&diags, &sources, format, &RenderOptions { color: false })
}

#[test]
fn human() {
    insta::assert_snapshot!(render(Format::Human));
}

#[test]
fn concise() {
    insta::assert_snapshot!(render(Format::Concise));
}

#[test]
fn json() {
    insta::assert_snapshot!(render(Format::Json));
}

#[test]
fn json_reads_back_as_the_typed_report() {
    let (sources, mut diags) = fixture();
    let text = render::render(&diags, &sources, Format::Json, &RenderOptions::default());
    let parsed: json::JsonReport = serde_json::from_str(&text).expect("valid JSON");
    render::sort_diagnostics(&mut diags, &sources);
    assert_eq!(parsed, json::report(&diags, &sources));
    assert_eq!(parsed.version, json::JSON_VERSION);
    assert_eq!(
        (
            parsed.summary.files,
            parsed.summary.errors,
            parsed.summary.warnings,
            parsed.summary.infos
        ),
        (4, 2, 2, 1)
    );
}

#[test]
fn colour_is_a_parameter() {
    let (sources, diags) = fixture();
    let plain = render::render(
        &diags,
        &sources,
        Format::Human,
        &RenderOptions { color: false },
    );
    assert!(
        !plain.contains('\x1b'),
        "colour off must mean no escape codes"
    );
    let coloured = render::render(
        &diags,
        &sources,
        Format::Human,
        &RenderOptions { color: true },
    );
    assert!(coloured.contains("\x1b["), "colour on must colour");
    for format in [Format::Concise, Format::Json] {
        let out = render::render(&diags, &sources, format, &RenderOptions { color: true });
        assert!(!out.contains('\x1b'), "{format} output is never coloured");
    }
}

#[test]
fn no_diagnostics_render_as_nothing_or_an_empty_report() {
    let (sources, _) = fixture();
    let options = RenderOptions::default();
    assert_eq!(render::render(&[], &sources, Format::Human, &options), "");
    assert_eq!(render::render(&[], &sources, Format::Concise, &options), "");
    let json = render::render(&[], &sources, Format::Json, &options);
    let parsed: json::JsonReport = serde_json::from_str(&json).unwrap();
    assert!(parsed.diagnostics.is_empty());
    assert_eq!(parsed.summary.files, 4);
}

/// Spans that checks should never produce but might: past the end, reversed,
/// inside a multi-byte character, into an empty file, into a file id that
/// does not exist. Every format must render them without panicking.
#[test]
fn odd_spans() {
    let mut sources = Sources::new();
    let text = "workflow \u{e9}t\u{e9} {\n  a -> b\n}";
    let file = sources.add("odd.wf", text);
    let empty = sources.add("empty.wf", "");
    let nowhere = FileId(99);
    let diags = vec![
        Diagnostic::new(
            &codes::UNEXPECTED_TOKEN,
            "expected a workflow",
            Span::new(0, 0).in_file(empty),
        )
        .with_primary_label("the file is empty")
        .with_label(
            Span::new(3, 8).in_file(empty),
            "past the end of an empty file",
        ),
        Diagnostic::new(
            &codes::UNEXPECTED_TOKEN,
            "span past the end",
            Span::new(30, 500).in_file(file),
        )
        .with_label(Span::new(10, 10).in_file(file), "inside `\u{e9}`")
        .with_label(Span::new(5, 2).in_file(file), "reversed"),
        Diagnostic::new(
            &codes::UNKNOWN_WORKFLOW,
            "label into an unknown file",
            Span::new(0, 8).in_file(file),
        )
        .with_label(Span::new(0, 1).in_file(nowhere), "not drawn"),
        Diagnostic::new(
            &codes::UNKNOWN_WORKFLOW,
            "primary in an unknown file",
            Span::new(4, 2).in_file(nowhere),
        )
        .with_note("rendered without a snippet")
        .with_help("fix the check that produced it"),
    ];
    let options = RenderOptions::default();
    let all = Format::ALL
        .into_iter()
        .map(|f| format!("=== {f}\n{}", render::render(&diags, &sources, f, &options)))
        .collect::<String>();
    insta::assert_snapshot!(all);
}

/// Every span over a few awkward texts, in every format: nothing panics.
#[test]
fn every_span_renders_without_panicking() {
    let texts = [
        "",
        "a",
        "\n",
        "ab\n",
        "\u{e9}\n\nx",
        "a\r\nb",
        "\t{\n",
        "\n\n",
    ];
    let options = RenderOptions { color: true };
    for text in texts {
        let mut sources = Sources::new();
        let file = sources.add("t.wf", text);
        let other = sources.add("u.wf", "x\n");
        let max = text.len() + 2;
        for start in 0..=max {
            for end in 0..=max {
                let d = Diagnostic::new(&codes::CYCLE, "m", Span::new(start, end).in_file(file))
                    .with_primary_label("p")
                    .with_label(Span::new(end, start).in_file(file), "s")
                    .with_label(Span::new(start, end).in_file(other), "o")
                    .with_fix(Fix {
                        message: "f".into(),
                        edits: vec![TextEdit {
                            location: Span::new(start, end).in_file(file),
                            replacement: "r".into(),
                        }],
                        applicability: Applicability::MachineApplicable,
                    });
                for format in Format::ALL {
                    let out = render::render(std::slice::from_ref(&d), &sources, format, &options);
                    assert!(
                        out.ends_with('\n'),
                        "{format} output for {text:?} {start}..{end}"
                    );
                }
            }
        }
    }
}

/// The example in `docs/json-output.md` is real output: rebuild it here and
/// compare, so the documentation cannot drift from the renderer.
#[test]
fn json_output_doc_example_is_current() {
    let text =
        "workflow Release {\n  step deploy { timeout = 10m }\n  start -> deplyo -> done\n}\n";
    let mut sources = Sources::new();
    let file = sources.add("flows/release.wf", text);
    let diag = Diagnostic::new(
        &codes::UNDECLARED_NODE,
        "`deplyo` is not declared; it becomes an implicit step",
        find(text, "deplyo", 0).in_file(file),
    )
    .with_primary_label("used only in edges")
    .with_label(
        find(text, "deploy", 0).in_file(file),
        "did you mean `deploy`?",
    )
    .with_note("names used only in edges become implicit `step` nodes")
    .with_fix(Fix {
        message: "rename to `deploy`".into(),
        edits: vec![TextEdit {
            location: find(text, "deplyo", 0).in_file(file),
            replacement: "deploy".into(),
        }],
        applicability: Applicability::MaybeIncorrect,
    });
    let rendered = render::render(&[diag], &sources, Format::Json, &RenderOptions::default());

    let doc_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/json-output.md");
    let doc = std::fs::read_to_string(doc_path).expect("docs/json-output.md exists");
    let example = doc
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/json-output.md has a ```json example");
    let documented: serde_json::Value = serde_json::from_str(example).expect("the example is JSON");
    let actual: serde_json::Value = serde_json::from_str(&rendered).unwrap();
    assert_eq!(
        documented, actual,
        "update the example in docs/json-output.md to:\n{rendered}"
    );
}
