//! The Attractor lint rules (spec section 7.2) and typo checks, one case
//! firing and one not per rule, on `.dot` pipelines checked as `wfc check`
//! checks them (through the database).

use wf_diagnostics::{Diagnostic, Family, Severity, Sources, codes};

/// Every diagnostic of a pipeline: the front end's (annotated with their
/// rule ids) and the checks'.
fn check(src: &str) -> Vec<Diagnostic> {
    let mut sources = Sources::new();
    sources.add("pipeline.dot", src);
    wf_analysis::check_sources(&sources)
}

/// The diagnostics of `code` in `src`.
fn with_code(src: &str, code: &str) -> Vec<Diagnostic> {
    check(src)
        .into_iter()
        .filter(|d| d.code.code == code)
        .collect()
}

/// Asserts `src` gets exactly one `code` at `severity` carrying the note of
/// `rule`, and returns it.
fn fires(src: &str, code: &str, severity: Severity, rule: Option<&str>) -> Diagnostic {
    let found = with_code(src, code);
    assert_eq!(found.len(), 1, "{code} in {src}: {:#?}", check(src));
    let d = found.into_iter().next().unwrap();
    assert_eq!(d.severity, severity, "{code}: {d:#?}");
    if let Some(rule) = rule {
        assert!(
            d.notes.contains(&format!("attractor rule: {rule}")),
            "{code} lacks its rule id: {d:#?}"
        );
    }
    d
}

fn silent(src: &str, code: &str) {
    let found = with_code(src, code);
    assert!(found.is_empty(), "unexpected {code}: {found:#?}");
}

/// A pipeline around `body`, with a start and an exit.
fn pipeline(body: &str) -> String {
    format!(
        "digraph P {{\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  a [prompt=\"do a\"]\n{body}\n}}\n"
    )
}

const OK: &str = "  start -> a -> exit";

#[test]
fn a_correct_pipeline_has_no_findings() {
    let found: Vec<_> = check(&pipeline(OK))
        .into_iter()
        .map(|d| d.code.code)
        .collect();
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn start_node() {
    let none = "digraph P { a [prompt=\"x\"] exit [shape=Msquare] a -> exit }";
    fires(none, "WF0202", Severity::Error, Some("start_node"));
    let two = pipeline("  begin [shape=Mdiamond]\n  start -> a -> exit\n  begin -> a");
    let d = fires(&two, "WF0801", Severity::Error, Some("start_node"));
    assert!(d.message.contains("`begin`"), "{}", d.message);
    silent(&pipeline(OK), "WF0202");
    silent(&pipeline(OK), "WF0801");
    // By id, when no node has the shape.
    let by_id = "digraph P { start exit a [prompt=\"x\"] start -> a -> exit }";
    silent(by_id, "WF0202");
}

#[test]
fn terminal_node() {
    // `done` has no outgoing edges (a terminal for `.wf`) but is no exit.
    let src = "digraph P { start [shape=Mdiamond] done [prompt=\"x\"] start -> done }";
    fires(src, "WF0204", Severity::Error, Some("terminal_node"));
    silent(&pipeline(OK), "WF0204");
    silent(
        "digraph P { start [shape=Mdiamond] end start -> end }",
        "WF0204",
    );
}

#[test]
fn reachability() {
    let src = pipeline("  b [prompt=\"orphan\"]\n  start -> a -> exit");
    fires(&src, "WF0205", Severity::Error, Some("reachability"));
    silent(&pipeline(OK), "WF0205");
}

#[test]
fn edge_target_exists() {
    let src = pipeline(
        "  review [prompt=\"r\"]\n  start -> a -> reveiw\n  review -> exit\n  a -> review",
    );
    let d = fires(&src, "WF0105", Severity::Error, Some("edge_target_exists"));
    assert!(d.message.contains("did you mean `review`"), "{}", d.message);
    silent(
        &pipeline("  review [prompt=\"r\"]\n  start -> a -> review -> exit"),
        "WF0105",
    );
}

#[test]
fn start_no_incoming() {
    fires(
        &pipeline("  start -> a -> exit\n  a -> start"),
        "WF0206",
        Severity::Error,
        Some("start_no_incoming"),
    );
    silent(&pipeline(OK), "WF0206");
}

#[test]
fn exit_no_outgoing() {
    fires(
        &pipeline("  start -> a -> exit\n  exit -> a"),
        "WF0207",
        Severity::Error,
        Some("exit_no_outgoing"),
    );
    silent(&pipeline(OK), "WF0207");
}

#[test]
fn condition_syntax() {
    let src = pipeline("  start -> a\n  a -> exit [condition=\"outcome=success &&\"]");
    fires(&src, "WF0606", Severity::Error, Some("condition_syntax"));
    silent(
        &pipeline("  start -> a\n  a -> exit [condition=\"outcome=success\"]"),
        "WF0606",
    );
}

#[test]
fn stylesheet_syntax() {
    let bad = "digraph P { graph [model_stylesheet=\"* { llm_model gpt }\"] start [shape=Mdiamond] exit [shape=Msquare] start -> exit }";
    fires(bad, "WF0510", Severity::Error, Some("stylesheet_syntax"));
    // fabro's `model` property and shape selectors are the DOT dialect's.
    let good = "digraph P { graph [model_stylesheet=\"* { model: gpt-5; } box { llm_provider: openai; }\"] start [shape=Mdiamond] exit [shape=Msquare] start -> exit }";
    silent(good, "WF0510");
}

#[test]
fn type_known() {
    let d = fires(
        &pipeline("  h [type=\"wait.humna\", label=\"ok?\"]\n  start -> a -> h -> exit"),
        "WF0802",
        Severity::Warning,
        Some("type_known"),
    );
    assert_eq!(
        d.help.as_deref(),
        Some(
            "did you mean `wait.human`? (a custom type runs with `wfc run --handler wait.humna=exec:COMMAND`)"
        )
    );
    silent(
        &pipeline("  h [type=\"wait.human\", label=\"ok?\"]\n  start -> a -> h -> exit"),
        "WF0802",
    );
}

#[test]
fn fidelity_valid() {
    let src = pipeline("  start -> a -> exit [fidelity=\"summary:hihg\"]");
    fires(&src, "WF0504", Severity::Warning, Some("fidelity_valid"));
    silent(
        &pipeline("  start -> a -> exit [fidelity=\"summary:high\"]"),
        "WF0504",
    );
}

#[test]
fn retry_target_exists() {
    let src = pipeline("  b [prompt=\"b\", retry_target=nope]\n  start -> a -> b -> exit");
    fires(
        &src,
        "WF0505",
        Severity::Warning,
        Some("retry_target_exists"),
    );
    silent(
        &pipeline("  b [prompt=\"b\", retry_target=a]\n  start -> a -> b -> exit"),
        "WF0505",
    );
}

#[test]
fn goal_gate_has_retry() {
    let src = pipeline("  g [prompt=\"g\", goal_gate=true]\n  start -> a -> g -> exit");
    fires(
        &src,
        "WF0803",
        Severity::Warning,
        Some("goal_gate_has_retry"),
    );
    silent(
        &pipeline("  g [prompt=\"g\", goal_gate=true, retry_target=a]\n  start -> a -> g -> exit"),
        "WF0803",
    );
    // A graph-level target is where the engine goes next (spec 3.4).
    let graph = "digraph P { graph [retry_target=a] start [shape=Mdiamond] exit [shape=Msquare] a [prompt=\"a\", goal_gate=true] start -> a -> exit }";
    silent(graph, "WF0803");
}

#[test]
fn prompt_on_llm_nodes() {
    fires(
        &pipeline("  b\n  start -> a -> b -> exit"),
        "WF0804",
        Severity::Warning,
        Some("prompt_on_llm_nodes"),
    );
    silent(
        &pipeline("  b [label=\"Build\"]\n  start -> a -> b -> exit"),
        "WF0804",
    );
    // Not an LLM node: a tool, a conditional.
    silent(
        &pipeline("  b [shape=diamond]\n  start -> a -> b -> exit"),
        "WF0804",
    );
}

#[test]
fn outcome_typo() {
    let src = pipeline("  start -> a\n  a -> exit [condition=\"outcome=sucess\"]");
    let d = fires(&src, "WF0805", Severity::Error, None);
    let fix = d.fix.as_ref().expect("a fix");
    assert_eq!(fix.edits[0].replacement, "success");
    assert_eq!(&src[fix.edits[0].location.span.range()], "sucess");
    assert!(
        d.message.contains("did you mean `success`"),
        "{}",
        d.message
    );
    fires(
        &pipeline("  start -> a\n  a -> exit [condition=\"outcome!=Fail\"]"),
        "WF0805",
        Severity::Error,
        None,
    );
    // A quoted value: the span covers the quotes, so no fix is offered.
    let quoted = pipeline("  start -> a\n  a -> exit [condition=\"outcome=\\\"sucess\\\"\"]");
    let d = fires(&quoted, "WF0805", Severity::Error, None);
    if let Some(fix) = &d.fix {
        assert_eq!(&quoted[fix.edits[0].location.span.range()], "sucess");
    }
    for ok in [
        "success",
        "partial_success",
        "fail",
        "retry",
        "skipped",
        "succeeded",
        "failed",
        "port",
        "needs_dod",
    ] {
        silent(
            &pipeline(&format!(
                "  start -> a\n  a -> exit [condition=\"outcome={ok}\"]"
            )),
            "WF0805",
        );
    }
    // Declared by the prompt: a custom outcome, not a typo.
    let declared = "digraph P { start [shape=Mdiamond] exit [shape=Msquare] a [prompt=\"write outcome=fails when broken\"] start -> a a -> exit [condition=\"outcome=fails\"] }";
    silent(declared, "WF0805");
}

#[test]
fn context_key_typo() {
    let src = pipeline(
        "  b [prompt=\"b\"]\n  start -> a\n  a -> exit [condition=\"context.tests_passed=true\"]\n  a -> b [condition=\"context.tests_passed!=true && context.test_passed!=skip\"]\n  b -> exit",
    );
    let d = fires(&src, "WF0806", Severity::Warning, None);
    let fix = d.fix.as_ref().expect("a fix");
    assert_eq!(
        &src[fix.edits[0].location.span.range()],
        "context.test_passed"
    );
    assert_eq!(fix.edits[0].replacement, "context.tests_passed");
    assert!(
        d.message.contains("did you mean `context.tests_passed`"),
        "{}",
        d.message
    );
    // Numbered keys, short keys, and keys used as often are not typos.
    for (x, y) in [
        ("step1_done", "step2_done"),
        ("mode", "node"),
        ("tests_passed", "test_passed"),
    ] {
        let src = pipeline(&format!(
            "  start -> a\n  a -> exit [condition=\"context.{x}=true\"]\n  a -> exit [condition=\"context.{y}=true\"]"
        ));
        silent(&src, "WF0806");
    }
}

#[test]
fn wf_only_checks_are_silent_for_dot() {
    // A key nobody writes (WF0305) and a custom outcome (WF0403).
    let src =
        pipeline("  start -> a\n  a -> exit [condition=\"context.ready=true && outcome=port\"]");
    silent(&src, "WF0305");
    silent(&src, "WF0403");
    // A tool with Attractor's `tool_command`.
    silent(
        &pipeline("  t [shape=parallelogram, tool_command=\"make\"]\n  start -> a -> t -> exit"),
        "WF0507",
    );
    let d = fires(
        &pipeline("  t [shape=parallelogram]\n  start -> a -> t -> exit"),
        "WF0507",
        Severity::Error,
        None,
    );
    assert!(d.message.contains("`tool_command`"), "{}", d.message);
}

#[test]
fn a_loop_is_an_info_note() {
    let src = pipeline("  start -> a -> exit\n  a -> a [condition=\"outcome=retry\"]");
    fires(&src, "WF0201", Severity::Info, None);
}

/// The ```dot blocks of one `## Heading` section of a Markdown text.
fn blocks(markdown: &str, heading: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_section = false;
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        if current.is_none() && line.starts_with("## ") {
            in_section = line.trim() == heading;
            continue;
        }
        match &mut current {
            None if in_section && line.trim() == "```dot" => current = Some(String::new()),
            Some(_) if line.trim_start().starts_with("```") => out.push(current.take().unwrap()),
            Some(text) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

#[test]
fn explanations_tell_the_truth() {
    let mut failures = Vec::new();
    // WF0815 reads the file system: `crates/wfc/tests/explanations.rs`
    // checks its example as `wfc check` does.
    for code in codes::ALL
        .iter()
        .filter(|c| c.family == Family::Attractor && c.code != "WF0815")
    {
        let examples = blocks(wf_render::explanation(code), "## Example");
        let fixes = blocks(wf_render::explanation(code), "## How to fix");
        if examples.is_empty() || fixes.is_empty() {
            failures.push(format!("{}: needs a ```dot example and fix", code.code));
        }
        for example in examples {
            if !check(&example).iter().any(|d| d.code.code == code.code) {
                failures.push(format!("{}: the example does not produce it", code.code));
            }
        }
        for fix in fixes {
            let found: Vec<_> = check(&fix)
                .iter()
                .filter(|d| d.severity != Severity::Info)
                // WF0861's fix names a child pipeline, a file the example
                // does not have.
                .filter(|d| !(code.code == "WF0861" && d.code.code == "WF0107"))
                .map(|d| format!("{}: {}", d.code.code, d.message))
                .collect();
            if !found.is_empty() {
                failures.push(format!("{}: the fix is not clean: {found:?}", code.code));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Attractor defines a gate without choices (the run fails there), and
/// real pipelines use one on purpose to halt loudly: a warning, not an
/// error as in `.wf`.
#[test]
fn a_human_gate_without_choices_is_a_warning() {
    let src = pipeline(
        "  halt [shape=hexagon, label=\"Stop\"]\n  start -> a -> exit\n  a -> halt [condition=\"outcome=fail\"]",
    );
    let d = fires(&src, "WF0208", Severity::Warning, None);
    assert!(d.notes.iter().any(|n| n.contains("fails")), "{d:#?}");
    silent(
        &pipeline("  ask [shape=hexagon]\n  start -> a -> ask\n  ask -> exit [label=\"[O] OK\"]"),
        "WF0208",
    );
}

/// Through the database, as `wfc check` and the language server see a
/// `.dot` file: the Attractor checks' fixes (written in DOT) and renames
/// of identifiers are kept, the other checks' fixes (written in `.wf`
/// syntax) are dropped.
#[test]
fn fixes_in_the_database_keep_only_dot_edits() {
    let src = pipeline(
        "  review [prompt=\"r\"]\n  start -> a -> exit\n  a -> review\n  a -> reveiw [condition=\"outcome=sucess\"]\n  a -> exit [condition=\"context.approved=true\"]\n  a -> exit [condition=\"context.approved!=true && context.aproved!=skip\"]\n  a -> exit [condition=\"context.n>\\\"3\\\"\"]",
    );
    let found = check(&src);
    let fix_of = |code: &str| {
        let d = found
            .iter()
            .find(|d| d.code.code == code)
            .unwrap_or_else(|| panic!("no {code}: {found:#?}"));
        d.fix.as_ref().map(|f| &f.edits[0])
    };
    let outcome = fix_of("WF0805").expect("WF0805 keeps its fix");
    assert_eq!(&src[outcome.location.span.range()], "sucess");
    assert_eq!(outcome.replacement, "success");
    assert!(fix_of("WF0806").is_some(), "WF0806 keeps its fix");
    // WF0105's fix renames the node: the same in DOT, kept.
    let rename = fix_of("WF0105").expect("WF0105 keeps its rename");
    assert_eq!(&src[rename.location.span.range()], "reveiw");
    assert_eq!(rename.replacement, "review");
    // WF0401's unquoting (`3` for `"3"`) is `.wf` syntax: dropped here.
    assert!(fix_of("WF0401").is_none());
}

/// The fix of `d`, applied to `src`.
fn fixed(src: &str, d: &Diagnostic) -> String {
    let fix = d.fix.as_ref().expect("a fix");
    let mut out = src.to_string();
    let mut edits = fix.edits.clone();
    edits.sort_by_key(|e| std::cmp::Reverse(e.location.span.start));
    for e in edits {
        out.replace_range(
            e.location.span.start as usize..e.location.span.end as usize,
            &e.replacement,
        );
    }
    out
}

#[test]
fn a_start_or_exit_found_by_id_with_another_handler_is_reported_with_a_fix() {
    let src = "digraph P {\n  start [shape=box]\n  a [prompt=\"do a\"]\n  exit [type=\"codergen\"]\n  start -> a -> exit\n}\n";
    let found = with_code(src, "WF0807");
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found.iter().all(|d| d.severity == Severity::Warning));
    assert!(
        found[0].message.contains("`shape=box`"),
        "{}",
        found[0].message
    );
    let once = fixed(src, &found[0]);
    let twice = fixed(&once, &with_code(&once, "WF0807")[0]);
    assert!(
        twice.contains("start [shape=Mdiamond]") && twice.contains("exit [type=\"exit\"]"),
        "{twice}"
    );
    silent(&twice, "WF0807");
    // A shape from the defaults: a statement of its own, not the default.
    let src = "digraph P {\n  node [shape=box]\n  start\n  a [prompt=\"do a\"]\n  exit [shape=Msquare]\n  start -> a -> exit\n}\n";
    let d = fires(src, "WF0807", Severity::Warning, None);
    let after = fixed(src, &d);
    assert!(after.contains("node [shape=box]"), "{after}");
    silent(&after, "WF0807");
    // Found by id with no shape at all: the plain start of the spec.
    silent(
        "digraph P {\n  a [prompt=\"do a\"]\n  start -> a -> exit\n}\n",
        "WF0807",
    );
}

#[test]
fn a_key_near_one_the_engine_writes_is_reported_even_alone() {
    let d = fires(
        &pipeline("  start -> a\n  a -> exit [condition=\"outcoe=success\"]\n  a -> exit"),
        "WF0808",
        Severity::Warning,
        None,
    );
    assert!(
        d.message.contains("did you mean `outcome`?"),
        "{}",
        d.message
    );
    assert_eq!(d.fix.as_ref().unwrap().edits[0].replacement, "outcome");
    let d = fires(
        &pipeline("  start -> a\n  a -> exit [condition=\"context.last_stag=a\"]\n  a -> exit"),
        "WF0808",
        Severity::Warning,
        None,
    );
    assert_eq!(
        d.fix.as_ref().unwrap().edits[0].replacement,
        "context.last_stage"
    );
    fires(
        &pipeline("  start -> a\n  a -> exit [condition=\"preferred_lable=Yes\"]\n  a -> exit"),
        "WF0808",
        Severity::Warning,
        None,
    );
    fires(
        &pipeline(
            "  start -> a\n  a -> exit [condition=\"context.human.gate.selectd=A\"]\n  a -> exit",
        ),
        "WF0808",
        Severity::Warning,
        None,
    );
    // The engine's own keys, far keys, and keys the prompts declare.
    silent(
        &pipeline(
            "  start -> a\n  a -> exit [condition=\"context.last_stage=a && context.tool.output=ok\"]\n  a -> exit",
        ),
        "WF0808",
    );
    silent(
        &pipeline("  start -> a\n  a -> exit [condition=\"context.verdict=ok\"]\n  a -> exit"),
        "WF0808",
    );
    silent(
        &pipeline(
            "  b [prompt=\"set last_stages\"]\n  start -> a -> b\n  b -> exit [condition=\"context.last_stages=a\"]\n  b -> exit",
        ),
        "WF0808",
    );
}

#[test]
fn all_conditional_edges_without_a_sure_one_are_reported() {
    let d = fires(
        &pipeline(
            "  start -> a\n  a -> exit [condition=\"context.kind=bug\"]\n  a -> exit [condition=\"context.kind=question\"]",
        ),
        "WF0810",
        Severity::Warning,
        Some("all_conditional_edges"),
    );
    assert_eq!(d.labels.len(), 2, "{d:#?}");
    fires(
        &pipeline("  start -> a\n  a -> exit [condition=\"outcome=fail\"]"),
        "WF0810",
        Severity::Warning,
        None,
    );
    // Sure on success (fabro's spelling too), complementary, or a fallback.
    silent(
        &pipeline(
            "  start -> a\n  a -> exit [condition=\"outcome=success\"]\n  a -> a [condition=\"outcome=fail\"]",
        ),
        "WF0810",
    );
    silent(
        &pipeline("  start -> a\n  a -> exit [condition=\"outcome=succeeded\"]"),
        "WF0810",
    );
    silent(
        &pipeline("  start -> a\n  a -> exit [condition=\"outcome!=fail\"]"),
        "WF0810",
    );
    silent(
        &pipeline(
            "  start -> a\n  a -> exit [condition=\"context.x=1\"]\n  a -> a [condition=\"context.x!=1\"]",
        ),
        "WF0810",
    );
    silent(
        &pipeline(
            "  start -> a\n  a -> exit [condition=\"context.x=1\"]\n  a -> a [condition=\"context.x=2\"]\n  a -> start2 [condition=\"context.x!=1 && context.x!=2\"]\n  start2 [prompt=\"p\"]\n  start2 -> exit",
        ),
        "WF0810",
    );
    silent(
        &pipeline("  start -> a\n  a -> exit [condition=\"context.kind=bug\"]\n  a -> exit"),
        "WF0810",
    );
}

#[test]
fn a_custom_outcome_the_prompt_asks_for_and_no_edge_takes_is_reported() {
    let src = "digraph P {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  a [prompt=\"Write outcome=success, or outcome=needs_review if unsure\"]\n  start -> a\n  a -> exit [condition=\"outcome=success\"]\n  a -> a [condition=\"outcome=fail\"]\n}\n";
    let d = fires(
        src,
        "WF0811",
        Severity::Warning,
        Some("orphan_custom_outcome"),
    );
    assert!(
        d.message.contains("`outcome=needs_review`"),
        "{}",
        d.message
    );
    silent(
        &src.replace("outcome=fail", "outcome=needs_review"),
        "WF0811",
    );
    silent(
        &src.replace("a -> a [condition=\"outcome=fail\"]", "a -> a"),
        "WF0811",
    );
}

#[test]
fn reserved_ids_absolute_cd_and_threads_without_full_fidelity() {
    fires(
        "digraph P {\n  start [shape=Mdiamond]\n  \"node\" [prompt=\"x\"]\n  exit [shape=Msquare]\n  start -> \"node\" -> exit\n}\n",
        "WF0812",
        Severity::Warning,
        Some("reserved_keyword_node_id"),
    );
    silent(&pipeline(OK), "WF0812");
    let tool = |cmd: &str| {
        pipeline(&format!(
            "  t [shape=parallelogram, tool_command=\"{cmd}\"]\n  start -> a -> t -> exit"
        ))
    };
    fires(
        &tool("cd /srv/app && make"),
        "WF0813",
        Severity::Warning,
        Some("script_absolute_cd"),
    );
    silent(&tool("cd app && make"), "WF0813");
    fires(
        &pipeline("  b [prompt=\"b\", thread_id=\"t\"]\n  start -> a -> b -> exit"),
        "WF0814",
        Severity::Warning,
        Some("thread_id_requires_fidelity_full"),
    );
    silent(
        &pipeline(
            "  b [prompt=\"b\", thread_id=\"t\", fidelity=\"full\"]\n  start -> a -> b -> exit",
        ),
        "WF0814",
    );
    silent(
        &pipeline(
            "  graph [default_fidelity=\"full\"]\n  b [prompt=\"b\", thread_id=\"t\"]\n  start -> a -> b -> exit",
        ),
        "WF0814",
    );
    silent(
        &pipeline(
            "  b [prompt=\"b\", thread_id=\"t\"]\n  start -> a\n  a -> b [fidelity=\"full\"]\n  b -> exit",
        ),
        "WF0814",
    );
    fires(
        &pipeline("  b [prompt=\"b\"]\n  start -> a\n  a -> b [thread_id=\"t\"]\n  b -> exit"),
        "WF0814",
        Severity::Warning,
        None,
    );
}

#[test]
fn lenient_values_are_warnings_and_misspelt_attributes_get_a_did_you_mean() {
    let src = pipeline(
        "  b [prompt=\"b\", goal_gate=\"outcome = success\", retry_target=a]\n  start -> a -> b\n  b -> exit [weight=\"2.0\"]",
    );
    let found: Vec<_> = check(&src)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(found.is_empty(), "{found:#?}");
    assert_eq!(with_code(&src, "WF0809").len(), 2);
    let src = pipeline(
        "  b [prompt=\"b\", timout=\"5m\", max_retry=2, default_choice=\"x\"]\n  start -> a -> b -> exit",
    );
    let found: Vec<String> = with_code(&src, "WF0515")
        .into_iter()
        .map(|d| d.message)
        .collect();
    assert_eq!(
        found,
        [
            "unknown attribute `timout`; did you mean `timeout`?",
            "unknown attribute `max_retry`; did you mean `max_retries`?",
            "unknown attribute `default_choice`; did you mean `human.default_choice`?",
        ]
    );
    // A dotted DOT name is quoted in the fix.
    let d = &with_code(&src, "WF0515")[2];
    assert_eq!(
        d.fix.as_ref().unwrap().edits[0].replacement,
        "\"human.default_choice\""
    );
    // One report for a misspelt default, whatever the number of nodes.
    let src = pipeline("  node [timout=\"5m\"]\n  b [prompt=\"b\"]\n  start -> a -> b -> exit");
    assert_eq!(with_code(&src, "WF0515").len(), 1);
    silent(
        &pipeline(
            "  b [prompt=\"b\", xlabel=\"x\", fontname=\"Helvetica\", owner=\"me\"]\n  start -> a -> b -> exit",
        ),
        "WF0515",
    );
}

/// Issue 18 item 5: a reachable node that is not an exit and has no
/// outgoing edge is a dead end (WF0820); an exit, a human gate (WF0208)
/// and an unreachable node (WF0205) are not reported as such.
#[test]
fn dead_ends_are_reported_once() {
    let d = fires(
        &pipeline("  start -> a\n  start -> exit [condition=\"outcome=fail\"]"),
        "WF0820",
        Severity::Warning,
        None,
    );
    assert!(d.message.contains("`a` is a dead end"), "{d:#?}");
    silent(&pipeline(OK), "WF0820");
    silent(
        &pipeline("  start -> a -> exit\n  a -> gate\n  gate [shape=hexagon]"),
        "WF0820",
    );
    silent(
        &pipeline("  start -> a -> exit\n  orphan [prompt=\"x\"]"),
        "WF0820",
    );
}

/// Issue 18 item 5: the help of an unknown handler type names the way to
/// run one, `wfc run --handler`.
#[test]
fn unknown_types_point_at_the_handler_option() {
    let d = fires(
        &pipeline("  start -> a -> exit\n  a [type=\"my.lint\"]"),
        "WF0802",
        Severity::Warning,
        Some("type_known"),
    );
    let help = d.help.unwrap_or_default();
    assert!(
        help.ends_with("; a custom type runs with `wfc run --handler my.lint=exec:COMMAND`"),
        "{help}"
    );
}

#[test]
fn node_model_known() {
    let d = fires(
        &pipeline(
            "  b [prompt=\"b\", llm_provider=anthropic, llm_model=\"claude-sonet-4-6\"]\n  start -> a -> b -> exit",
        ),
        "WF0816",
        Severity::Warning,
        Some("node_model_known"),
    );
    assert_eq!(
        d.message,
        "model `claude-sonet-4-6` is not known for provider `anthropic`"
    );
    assert!(
        d.help
            .as_deref()
            .unwrap_or("")
            .contains("did you mean `claude-sonnet-4-6`?"),
        "{d:?}"
    );
    // From the stylesheet, a model of another provider.
    fires(
        &pipeline(
            "  graph [model_stylesheet=\"* { llm_provider: anthropic; llm_model: gpt-5.4; }\"]\n  b [prompt=\"b\"]\n  start -> a -> b -> exit",
        ),
        "WF0816",
        Severity::Warning,
        Some("node_model_known"),
    );
    silent(
        &pipeline(
            "  b [prompt=\"b\", llm_provider=google, llm_model=\"gemini-3-flash-preview\"]\n  start -> a -> b -> exit",
        ),
        "WF0816",
    );
    // No provider, or a provider the catalog does not cover: not judged.
    silent(
        &pipeline("  b [prompt=\"b\", llm_model=\"whatever\"]\n  start -> a -> b -> exit"),
        "WF0816",
    );
    silent(
        &pipeline(
            "  b [prompt=\"b\", llm_provider=local, llm_model=\"qwen3\"]\n  start -> a -> b -> exit",
        ),
        "WF0816",
    );
}

#[test]
fn node_model_known_skips_patterns_and_dated_snapshots() {
    for model in ["claude-sonnet-*", "gpt-5.2-2025-12-11"] {
        let provider = if model.starts_with("gpt") {
            "openai"
        } else {
            "anthropic"
        };
        silent(
            &pipeline(&format!(
                "  b [prompt=\"b\", llm_provider={provider}, llm_model=\"{model}\"]\n  start -> a -> b -> exit"
            )),
            "WF0816",
        );
    }
}

#[test]
fn llm_budgets_are_typed_and_ranged() {
    let src = |attrs: &str| pipeline(&format!("  graph [{attrs}]\n  start -> a -> exit"));
    silent(&src("max_cost_usd=0.5, max_tokens=1000"), "WF0501");
    silent(&src("max_cost_usd=0.5, max_tokens=1000"), "WF0503");
    fires(&src("max_cost_usd=-1"), "WF0503", Severity::Error, None);
    fires(&src("max_tokens=\"lots\""), "WF0501", Severity::Error, None);
    fires(&src("max_tokens=0"), "WF0503", Severity::Error, None);
}

#[test]
fn tool_hooks_ignored() {
    // On a node that is not a tool node: its model's tool calls are out of
    // wfc's reach.
    let d = fires(
        &pipeline("  b [prompt=\"b\", tool_hooks.pre=\"./guard.sh\"]\n  start -> a -> b -> exit"),
        "WF0860",
        Severity::Warning,
        None,
    );
    assert_eq!(
        d.message,
        "`tool_hooks.pre` on `b` is never run: wfc runs tool hooks around `tool` nodes only"
    );
    // On the graph of a pipeline without a tool node.
    fires(
        &pipeline("  graph [tool_hooks.post=\"./log.sh\"]\n  start -> a -> exit"),
        "WF0860",
        Severity::Warning,
        None,
    );
    // Run: on a tool node, or on a graph that has one.
    silent(
        &pipeline(
            "  graph [tool_hooks.post=\"./log.sh\"]\n  t [shape=parallelogram, tool_command=\"make\", tool_hooks.pre=\"./guard.sh\"]\n  start -> a -> t -> exit",
        ),
        "WF0860",
    );
    // A `node [...]` default that reaches a tool node is run there.
    silent(
        &pipeline(
            "  node [tool_hooks.pre=\"./guard.sh\"]\n  b [prompt=\"b\"]\n  t [shape=parallelogram, tool_command=\"make\"]\n  start -> a -> b -> t -> exit",
        ),
        "WF0860",
    );
    fires(
        &pipeline(
            "  node [tool_hooks.pre=\"./guard.sh\"]\n  b [prompt=\"b\"]\n  c [prompt=\"c\"]\n  start -> a -> b -> c -> exit",
        ),
        "WF0860",
        Severity::Warning,
        None,
    );
}

/// Issue 17 item 7: a loop whose only way out needs an outcome no handler
/// returns (a custom outcome, `retry`) is reported at that edge; a loop
/// another edge leaves, and an edge back into the loop, are not.
#[test]
fn a_loop_left_only_on_an_outcome_no_handler_returns_is_reported() {
    let closed = pipeline(
        "  start -> a -> gate\n  gate [shape=diamond]\n  gate -> exit [condition=\"outcome=process\"]\n  gate -> a",
    );
    let d = fires(&closed, "WF0862", Severity::Warning, None);
    assert!(d.message.contains("`gate -> exit`"), "{d:#?}");
    assert!(
        d.help
            .as_deref()
            .unwrap_or("")
            .contains("context.verdict=done"),
        "{d:#?}"
    );
    for custom in ["done", "retry"] {
        let src = pipeline(&format!(
            "  start -> a\n  a -> exit [condition=\"outcome={custom}\"]\n  a -> a [condition=\"outcome=fail\"]\n  a -> a"
        ));
        fires(&src, "WF0862", Severity::Warning, None);
    }
    let open = pipeline(
        "  start -> a -> gate\n  gate [shape=diamond]\n  gate -> exit [condition=\"outcome=succeeded\"]\n  gate -> exit [condition=\"outcome=success\"]\n  gate -> a",
    );
    assert!(!check(&open).iter().any(|d| d.code.code == "WF0862"));
}

/// Issue 17 item 7: a manager with no child pipeline is reported; one
/// whose graph names the child is not.
#[test]
fn a_manager_without_a_child_pipeline_is_reported() {
    let src = pipeline("  m [shape=house]\n  start -> m -> exit");
    fires(&src, "WF0861", Severity::Warning, None);
    let named = "digraph G {\n  graph [stack.child_dotfile=\"c.dot\"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  m [shape=house]\n  start -> m -> exit\n}\n";
    assert!(!check(named).iter().any(|d| d.code.code == "WF0861"));
}

/// fabro's `outcome=succeeded` and `outcome=failed` are taken by the
/// runtime (read as `success` and `fail`, `wf_ir::PEER_STATUSES`), so a
/// loop left on them is no closed loop and no rule calls them unhandled;
/// the same loop on a case variant (`FAIL`), which the runtime does not
/// fold, is.
#[test]
fn peer_outcome_spellings_leave_a_loop_as_the_runtime_takes_them() {
    for peer in ["succeeded", "failed"] {
        let src = pipeline(&format!(
            "  start -> a -> gate\n  gate [shape=diamond]\n  gate -> exit [condition=\"outcome={peer}\"]\n  gate -> a"
        ));
        let found = check(&src);
        assert!(
            !found
                .iter()
                .any(|d| ["WF0862", "WF0805", "WF0811"].contains(&d.code.code)),
            "{peer}: {found:#?}"
        );
    }
    let upper = pipeline(
        "  start -> a -> gate\n  gate [shape=diamond]\n  gate -> exit [condition=\"outcome=FAIL\"]\n  gate -> a",
    );
    fires(&upper, "WF0862", Severity::Warning, None);
}
