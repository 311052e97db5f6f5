//! Snapshot tests of the renderers over one fixture.
//!
//! The fixture covers every part of the model: primary and secondary labels,
//! a label in another file, notes, help, a fix, an empty span at EOF, and
//! each severity. Snapshots live in `tests/it/snapshots/`; after an intended
//! change, regenerate them with `INSTA_UPDATE=always cargo test -p
//! wf-render` and review the diff.

use wf_diagnostics::FileId;
use wf_diagnostics::{Applicability, Diagnostic, Fix, Severity, Sources, Span, TextEdit, codes};
use wf_render::{self as render, Format, RenderOptions, explanation, json, sarif};

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
fn github() {
    insta::assert_snapshot!(render(Format::Github));
}

#[test]
fn sarif() {
    insta::assert_snapshot!(redact_sarif(&render(Format::Sarif)));
}

/// SARIF output with the tool version and the rules' long texts replaced by
/// placeholders, so the snapshot changes neither with every release nor with
/// every edit of an explanation (`sarif_rules_describe_every_code` checks
/// those texts). Other output passes through unchanged.
fn redact_sarif(text: &str) -> String {
    let Ok(log) = serde_json::from_str::<sarif::SarifLog>(text) else {
        return text.to_owned();
    };
    let quoted = |s: &str| serde_json::to_string(s).unwrap();
    let mut out = text.replace(
        &format!("\"version\": {}", quoted(sarif::TOOL_VERSION)),
        "\"version\": \"[version]\"",
    );
    for rule in &log.runs[0].tool.driver.rules {
        out = out.replace(
            &quoted(&rule.help.text),
            &quoted(&format!("[explanation of {}]", rule.id)),
        );
        out = out.replace(
            &quoted(&rule.full_description.text),
            &quoted(&format!("[what {} does]", rule.id)),
        );
    }
    out
}

/// SARIF output without `tool.driver.rules` (the `sarif` snapshot shows
/// them), rendered again from the typed log, which gives the same bytes
/// (`sarif_reads_back_as_the_typed_log`). Other output passes through.
fn sarif_without_rules(text: &str) -> String {
    let Ok(mut log) = serde_json::from_str::<sarif::SarifLog>(text) else {
        return text.to_owned();
    };
    log.runs[0].tool.driver.rules.clear();
    redact_sarif(&(serde_json::to_string_pretty(&log).unwrap() + "\n"))
}

#[test]
fn sarif_reads_back_as_the_typed_log() {
    let (sources, mut diags) = fixture();
    let text = render::render(&diags, &sources, Format::Sarif, &RenderOptions::default());
    let parsed: sarif::SarifLog = serde_json::from_str(&text).expect("valid JSON");
    render::sort_diagnostics(&mut diags, &sources);
    assert_eq!(parsed, sarif::log(&diags, &sources));
    // Typed structs serialise in a fixed field order: rendering the parsed
    // log again gives the same bytes.
    assert_eq!(serde_json::to_string_pretty(&parsed).unwrap() + "\n", text);
    assert_eq!(
        parsed.schema,
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    assert_eq!(parsed.version, "2.1.0");
    assert_eq!(parsed.runs.len(), 1);
    let run = &parsed.runs[0];
    assert_eq!(run.column_kind, "utf16CodeUnits");
    assert_eq!(run.results.len(), diags.len());
    for result in &run.results {
        let rule = &run.tool.driver.rules[result.rule_index.expect("a registered code")];
        assert_eq!(rule.id, result.rule_id);
    }
}

#[test]
fn sarif_rules_describe_every_code() {
    let (sources, _) = fixture();
    let text = render::render(&[], &sources, Format::Sarif, &RenderOptions::default());
    let log: sarif::SarifLog = serde_json::from_str(&text).unwrap();
    let driver = &log.runs[0].tool.driver;
    assert_eq!(driver.name, "wfc");
    assert_eq!(driver.version, env!("CARGO_PKG_VERSION"));
    assert_eq!(driver.rules.len(), codes::ALL.len());
    for (rule, code) in driver.rules.iter().zip(codes::ALL) {
        assert_eq!(rule.id, code.code);
        assert_eq!(rule.name, code.name);
        assert_eq!(rule.short_description.text, code.summary);
        let full = &rule.full_description.text;
        assert!(!full.is_empty() && !full.contains('\n'), "{}", code.code);
        let flat = explanation(code).split_whitespace().collect::<Vec<_>>();
        assert!(flat.join(" ").contains(full.as_str()), "{}", code.code);
        assert_eq!(rule.help.markdown.as_deref(), Some(explanation(code)));
        assert_eq!(rule.help.text, explanation(code));
        let level = match code.severity {
            Severity::Error => sarif::SarifLevel::Error,
            Severity::Warning => sarif::SarifLevel::Warning,
            Severity::Info => sarif::SarifLevel::Note,
        };
        assert_eq!(rule.default_configuration.level, level);
        assert_eq!(rule.properties.tags, [code.family.as_str()]);
    }
    assert!(log.runs[0].results.is_empty());
}

/// `tool.driver.informationUri` is the workspace's `repository` URL.
#[test]
fn sarif_information_uri_is_the_workspace_repository() {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let manifest = std::fs::read_to_string(manifest).unwrap();
    let expected = format!("repository = \"{}\"", sarif::INFORMATION_URI);
    assert!(
        manifest.lines().any(|line| line.trim() == expected),
        "update sarif::INFORMATION_URI to the workspace's `repository`"
    );
}

/// SARIF columns count UTF-16 code units; the other formats count characters.
#[test]
fn sarif_columns_are_utf16_code_units() {
    let text = "workflow \u{1d11e}\u{e9} {\n  a -> b\n}\n";
    let mut sources = Sources::new();
    let file = sources.add("clef.wf", text);
    let diag = Diagnostic::new(
        &codes::UNEXPECTED_TOKEN,
        "m",
        find(text, "{", 0).in_file(file),
    );
    let options = RenderOptions::default();
    let out = render::render(
        std::slice::from_ref(&diag),
        &sources,
        Format::Sarif,
        &options,
    );
    let log: sarif::SarifLog = serde_json::from_str(&out).unwrap();
    let region = log.runs[0].results[0].locations[0].physical_location.region;
    // `workflow ` is 9 units, the clef 2, `é` 1, the space 1: `{` is at 14.
    assert_eq!((region.start_line, region.start_column), (1, 14));
    assert_eq!((region.end_line, region.end_column), (1, 15));
    let concise = render::render(&[diag], &sources, Format::Concise, &options);
    assert_eq!(concise, "clef.wf:1:13: error[WF0001] m\n");
}

/// Properties and messages are escaped as the Actions toolkit escapes them,
/// and a span over several lines gives no columns (the runner rejects them).
#[test]
fn github_escapes_and_multi_line_spans() {
    let text = "workflow A {\n  a -> b\n}\n";
    let mut sources = Sources::new();
    let file = sources.add("dir,x/a:b%.wf", text);
    let diags = [Diagnostic::new(
        &codes::CYCLE,
        "50% done\r\nnext: a,b",
        Span::new(0, 20).in_file(file),
    )
    .with_help("line one\nline two")];
    let out = render::render(&diags, &sources, Format::Github, &RenderOptions::default());
    assert_eq!(
        out,
        "::error file=dir%2Cx/a%3Ab%25.wf,line=1,endLine=2,title=WF0201 cycle\
         ::50%25 done%0D%0Anext: a,b%0Ahelp: line one%0Aline two\n"
    );
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
    for format in [Format::Concise, Format::Json, Format::Github, Format::Sarif] {
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
    assert_eq!(render::render(&[], &sources, Format::Github, &options), "");
    let sarif = render::render(&[], &sources, Format::Sarif, &options);
    let parsed: sarif::SarifLog = serde_json::from_str(&sarif).unwrap();
    assert!(parsed.runs[0].results.is_empty());
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
        .map(|f| {
            let out = render::render(&diags, &sources, f, &options);
            format!("=== {f}\n{}", sarif_without_rules(&out))
        })
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

/// The diagnostic of the examples in `docs/json-output.md` and
/// `docs/output-formats.md`.
fn doc_example() -> (Sources, Diagnostic) {
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
    (sources, diag)
}

/// The text of the `nth` (0-based) fenced block of this language in a doc.
fn doc_block(doc: &str, lang: &str, nth: usize) -> String {
    let path = format!("{}/../../docs/{doc}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{path} exists"));
    text.split(&format!("```{lang}\n"))
        .nth(nth + 1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_else(|| panic!("docs/{doc} has a ```{lang} block number {nth}"))
        .to_owned()
}

/// The example in `docs/json-output.md` is real output: rebuild it here and
/// compare, so the documentation cannot drift from the renderer.
#[test]
fn json_output_doc_example_is_current() {
    let (sources, diag) = doc_example();
    let rendered = render::render(&[diag], &sources, Format::Json, &RenderOptions::default());
    let example = doc_block("json-output.md", "json", 0);
    let documented: serde_json::Value =
        serde_json::from_str(&example).expect("the example is JSON");
    let actual: serde_json::Value = serde_json::from_str(&rendered).unwrap();
    assert_eq!(
        documented, actual,
        "update the example in docs/json-output.md to:\n{rendered}"
    );
}

/// The GitHub and SARIF examples in `docs/output-formats.md` are real output
/// for the same diagnostic.
#[test]
fn output_formats_doc_examples_are_current() {
    let (sources, diag) = doc_example();
    let options = RenderOptions::default();
    let github = render::render(
        std::slice::from_ref(&diag),
        &sources,
        Format::Github,
        &options,
    );
    assert_eq!(
        doc_block("output-formats.md", "text", 0),
        github,
        "update the GitHub example in docs/output-formats.md to:\n{github}"
    );
    let sarif = render::render(&[diag], &sources, Format::Sarif, &options);
    let log: sarif::SarifLog = serde_json::from_str(&sarif).unwrap();
    let result = &log.runs[0].results[0];
    let example = doc_block("output-formats.md", "json", 0);
    let documented: serde_json::Value =
        serde_json::from_str(&example).expect("the SARIF example is JSON");
    assert_eq!(
        documented,
        serde_json::to_value(result).unwrap(),
        "update the SARIF example in docs/output-formats.md to:\n{}",
        serde_json::to_string_pretty(result).unwrap()
    );
}

/// A report on a very long line shows a window of it around the label,
/// with `…` where text is left out (issue 14, item 14).
#[test]
fn human_long_line_window() {
    let line = format!("{}needle{}", "a, ".repeat(700), " b,".repeat(700));
    let mut sources = Sources::new();
    sources.add("long.wf", format!("{line}\n"));
    let at = find(&line, "needle", 0).in_file(FileId(0));
    let diags = [
        Diagnostic::new(&codes::INVALID_CHARACTER, "invalid character", at)
            .with_primary_label("here")
            .with_fix(Fix::replace(
                "drop the line",
                Span::new(0, line.len()).in_file(FileId(0)),
                "",
                Applicability::MaybeIncorrect,
            )),
    ];
    let out = render::render(
        &diags,
        &sources,
        Format::Human,
        &RenderOptions { color: false },
    );
    assert!(out.lines().all(|l| l.chars().count() < 260), "{out}");
    insta::assert_snapshot!(out);
}

/// Human output shows at most `MAX_HUMAN_REPORTS_PER_FILE` reports per
/// file, then counts the rest; the other formats list every one.
#[test]
fn human_reports_per_file_are_bounded() {
    let limit = render::MAX_HUMAN_REPORTS_PER_FILE;
    let mut sources = Sources::new();
    sources.add("many.wf", "@ ".repeat(limit + 50));
    sources.add("few.wf", "@");
    let mut diags: Vec<Diagnostic> = (0..limit + 50)
        .map(|i| {
            let at = Span::new(2 * i, 2 * i + 1).in_file(FileId(0));
            Diagnostic::new(&codes::INVALID_CHARACTER, "invalid character", at)
        })
        .collect();
    diags.push(Diagnostic::new(
        &codes::INVALID_CHARACTER,
        "invalid character",
        Span::new(0, 1).in_file(FileId(1)),
    ));
    let options = RenderOptions { color: false };
    let human = render::render(&diags, &sources, Format::Human, &options);
    assert_eq!(human.matches("error[WF0005]").count(), limit + 1);
    assert!(
        human.contains("note: 50 more diagnostics in `many.wf` not shown"),
        "{human}"
    );
    assert!(!human.contains("more diagnostics in `few.wf`"));
    // Written as it is rendered, the report is the same.
    let mut streamed = Vec::new();
    render::render_to(&diags, &sources, Format::Human, &options, &mut streamed).unwrap();
    assert_eq!(String::from_utf8(streamed).unwrap(), human);
    let concise = render::render(&diags, &sources, Format::Concise, &options);
    assert_eq!(concise.lines().count(), limit + 51);
}
