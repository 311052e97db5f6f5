//! Reflex JSON both ways: the corpus fixtures lower to the expected model
//! and survive emit -> parse unchanged; emitted documents validate against
//! the Reflex schema; `.wf` workflows written as Reflex JSON check clean.
//!
//! The corpus (`../shared/corpus/reflex/` next to the repository, or
//! `$WFC_CORPUS/reflex`) is read where it is; the tests that need it skip
//! when it is missing, unless `WFC_REQUIRE_CORPUS` is set (`.ci/run`).

use std::path::{Path, PathBuf};

use wf_test_support::corpus;

use wf_diagnostics::{FileId, Sources};
use wf_model::{BinOp, Expr, NodeKind, Value, Workflow};

fn corpus() -> Option<PathBuf> {
    corpus::shared_corpus("reflex")
}

const FIXTURES: &[&str] = &[
    "greeting.json",
    "define-part-object.json",
    "define-physical-object.json",
];

fn validator(corpus: &Path) -> jsonschema::Validator {
    let schema = std::fs::read_to_string(corpus.join("workflow-schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&schema).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

fn assert_valid(validator: &jsonschema::Validator, doc: &serde_json::Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not validate: {errors:#?}\n{doc:#}"
    );
}

fn parse_one(text: &str, what: &str) -> Workflow {
    let parsed = wf_reflex::parse(text, FileId(0));
    assert!(
        parsed.diagnostics.is_empty(),
        "{what}: {:#?}",
        parsed.diagnostics
    );
    assert_eq!(parsed.workflows.len(), 1);
    parsed.workflows.into_iter().next().unwrap()
}

#[test]
fn physical_object_fixture_lowers_to_the_model() {
    let Some(corpus) = corpus() else { return };
    let text = std::fs::read_to_string(corpus.join("define-physical-object.json")).unwrap();
    let w = parse_one(&text, "define-physical-object");
    assert_eq!(w.name, "define-physical-object");
    assert_eq!(&text[w.name_span.span.range()], "define-physical-object");
    assert_eq!(w.entry.as_ref().unwrap().0, "CLASSIFY");
    let names: Vec<&str> = w.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "CLASSIFY",
            "BASIC_DATA",
            "BRANCH",
            "DEFINE_PART",
            "SPEC_COMPOSE",
            "DONE"
        ]
    );
    let part = &w.nodes[3];
    assert_eq!(part.kind, NodeKind::Call);
    let call = part.call.as_ref().unwrap();
    assert_eq!(call.workflow, "define-part-object");
    assert_eq!(call.return_map[0].parent, "Part Concept");
    assert_eq!(call.return_map[0].child, "partConcept");
    assert_eq!(
        &text[call.return_map[0].parent_span.span.range()],
        "Part Concept"
    );
    // The rule-agent spec stays attributes, and its `writes` are contract writes.
    let basic = &w.nodes[1];
    assert_eq!(basic.attributes[0].key, "writes");
    assert_eq!(basic.attributes[1].key, "edge");
    assert_eq!(
        basic.attributes[1].value,
        Value::String("e-basic-branch".into())
    );
    let writes: Vec<(&str, Option<&str>)> = basic
        .writes
        .iter()
        .map(|k| (k.key.as_str(), k.ty.as_deref()))
        .collect();
    assert_eq!(
        writes,
        [("conceptName", Some("string")), ("needsPart", Some("bool"))]
    );
    assert_eq!(w.edges.len(), 6);
    let to_part = &w.edges[2];
    assert_eq!(to_part.label.as_deref(), Some("DEFINE_PART"));
    let attrs: Vec<(&str, &Value)> = to_part
        .attributes
        .iter()
        .map(|a| (a.key.as_str(), &a.value))
        .collect();
    assert_eq!(
        attrs,
        [
            ("id", &Value::String("e-branch-to-part".into())),
            ("event", &Value::String("DEFINE_PART".into()))
        ]
    );
    assert!(
        matches!(&to_part.guard.as_ref().unwrap().expr, Expr::Exists(k, _) if k == "needsPart")
    );
    let Expr::Not(inner, _) = &w.edges[3].guard.as_ref().unwrap().expr else {
        panic!("not-exists lowers to !exists")
    };
    assert!(matches!(inner.as_ref(), Expr::Exists(k, _) if k == "needsPart"));
}

#[test]
fn equals_guards_compare_a_key_with_a_literal() {
    let text = r#"{"id": "w", "entry": "A", "nodes": {"A": {"id": "A", "spec": {}}, "B": {"id": "B", "spec": {}}},
      "edges": [{"id": "e", "from": "A", "to": "B", "event": "GO",
                 "guard": {"type": "not-equals", "key": "Part Count", "value": 3}}]}"#;
    let w = parse_one(text, "inline");
    let Expr::Binary(lhs, BinOp::Ne, rhs, _) = &w.edges[0].guard.as_ref().unwrap().expr else {
        panic!()
    };
    assert!(matches!(lhs.as_ref(), Expr::Key(k, _) if k == "Part Count"));
    assert!(matches!(rhs.as_ref(), Expr::Literal(Value::Int(3), _)));
}

#[test]
fn fixtures_survive_emit_and_parse_and_validate() {
    let Some(corpus) = corpus() else { return };
    let validator = validator(&corpus);
    for name in FIXTURES {
        let text = std::fs::read_to_string(corpus.join(name)).unwrap();
        let original: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_valid(&validator, &original, name);
        let model = parse_one(&text, name);
        let emitted = wf_reflex::emit(&model).unwrap();
        assert_valid(&validator, &emitted.to_value(), name);
        // The same document, but for the optional `$schema`.
        let mut expected = original.clone();
        expected.as_object_mut().unwrap().remove("$schema");
        assert_eq!(emitted.to_value(), expected, "{name}");
        let again = parse_one(&emitted.to_pretty_string(), name);
        assert_eq!(
            wf_analysis::db::strip_spans(&again),
            wf_analysis::db::strip_spans(&model),
            "{name}"
        );
    }
}

#[test]
fn emitting_is_deterministic_and_ordered_like_the_schema() {
    let Some(corpus) = corpus() else { return };
    let text = std::fs::read_to_string(corpus.join("define-physical-object.json")).unwrap();
    let model = parse_one(&text, "fixture");
    let first = wf_reflex::emit(&model).unwrap().to_pretty_string();
    assert_eq!(first, wf_reflex::emit(&model).unwrap().to_pretty_string());
    let order: Vec<usize> = ["\"id\"", "\"entry\"", "\"nodes\"", "\"edges\""]
        .iter()
        .map(|k| first.find(k).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{first}");
    assert!(first.find("CLASSIFY").unwrap() < first.find("BASIC_DATA").unwrap());
}

/// Every workflow of the `.wf` files, lowered.
fn lower_wf(paths: &[PathBuf]) -> Vec<Workflow> {
    let mut workflows = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap();
        let parsed = wf_syntax::parse(&text, FileId(i as u32));
        assert!(parsed.diagnostics.is_empty(), "{}", path.display());
        let lowered = wf_analysis::lower::lower_parsed(&[(FileId(i as u32), &parsed)]);
        workflows.extend(lowered.program.workflows);
    }
    workflows
}

/// The `.wf` inputs of the round trip, in groups checked together (a file
/// with the files it imports).
fn wf_groups() -> Vec<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut groups = vec![vec![
        root.join("examples/release.wf"),
        root.join("examples/lib/review.wf"),
    ]];
    for dir in ["examples", "tests/check/clean"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "wf"))
            .filter(|p| !p.ends_with("release.wf"))
            .collect();
        files.sort();
        groups.extend(files.into_iter().map(|f| vec![f]));
    }
    groups
}

/// Writes each group as Reflex JSON and checks it: the documents validate
/// and check clean, or the emitter refuses with an error. Returns the
/// outcome per group, for the test below to compare with what it expects.
fn round_trip(group: &[PathBuf], validator: Option<&jsonschema::Validator>) -> Result<(), String> {
    let mut sources = Sources::new();
    for workflow in lower_wf(group) {
        let doc = wf_reflex::emit(&workflow).map_err(|e| format!("refused: {e}"))?;
        if let Some(validator) = validator {
            assert_valid(validator, &doc.to_value(), &workflow.name);
        }
        sources.add(
            format!("out/{}.json", workflow.name),
            doc.to_pretty_string(),
        );
    }
    let diagnostics = wf_analysis::check_sources(&sources);
    if diagnostics.is_empty() {
        return Ok(());
    }
    Err(wf_render::render(
        &diagnostics,
        &sources,
        wf_render::Format::Human,
        &wf_render::RenderOptions { color: false },
    ))
}

/// The groups whose workflows use guards Reflex cannot express (`outcome`,
/// `&&`, `<`, …): the emitter must refuse them.
const REFUSED: &[&str] = &[
    "release.wf",
    "code_review.wf",
    "deploy_runbook.wf",
    "refine.wf",
    "semantic_model.wf",
    "edge_chains.wf",
    "exits.wf",
    "guard_operators.wf",
    "guard_precedence.wf",
    "keyword_prefixes.wf",
    "keywords_after_dot.wf",
    "node_kinds.wf",
    "production.wf",
    "recursive_call.wf",
];

#[test]
fn wf_workflows_written_as_reflex_check_clean() {
    let validator = corpus().map(|c| validator(&c));
    let mut failures = Vec::new();
    let mut clean = 0;
    for group in wf_groups() {
        let name = group[0].file_name().unwrap().to_string_lossy().to_string();
        match (
            round_trip(&group, validator.as_ref()),
            REFUSED.contains(&name.as_str()),
        ) {
            (Ok(()), false) => clean += 1,
            (Err(e), true)
                if e.starts_with("refused: ") && e.contains("has no Reflex equivalent") => {}
            (Ok(()), true) => {
                failures.push(format!("{name}: expected a refusal, but it checks clean"))
            }
            (Err(e), _) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(clean >= 20, "only {clean} groups round-tripped");
}

#[test]
fn all_four_builtin_guards_round_trip_from_wf() {
    let dir = std::env::temp_dir().join(format!("wf-reflex-guards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("route.wf");
    std::fs::write(
        &path,
        r#"workflow Route {
  step classify "Classify the request" {
    writes kind: string, ticket: string, "Part Count": int
    prompt = "Classify"
    timeout = 15m
  }
  human approve { timeout = 1h }
  classify -> bug     when kind == "bug"
  classify -> feature when kind != "bug"
  classify -> triage  when !exists(ticket)
  bug -> approve      when exists(ticket)
  approve -> done "[A] Approve"
  approve -> rework "[R] Rework" when `Part Count` == 2
  rework -> done
  feature -> done
  triage -> done
}
"#,
    )
    .unwrap();
    let validator = corpus().map(|c| validator(&c));
    let mut wf = Sources::new();
    wf.add("route.wf", std::fs::read_to_string(&path).unwrap());
    assert_eq!(
        wf_analysis::check_sources(&wf),
        vec![],
        "the .wf source is clean"
    );
    let workflows = lower_wf(std::slice::from_ref(&path));
    let doc = wf_reflex::emit(&workflows[0]).unwrap();
    let text = doc.to_pretty_string();
    let _ = std::fs::remove_dir_all(&dir);
    for needle in [
        r#""type": "equals""#,
        r#""type": "not-equals""#,
        r#""type": "not-exists""#,
        r#""type": "exists""#,
        r#""kind": "human""#,
        r#""timeout": "15m""#,
        r#""event": "[A] Approve""#,
        r#""description": "Classify the request""#,
    ] {
        assert!(text.contains(needle), "{needle} missing in\n{text}");
    }
    if let Some(validator) = &validator {
        assert_valid(validator, &doc.to_value(), "Route");
    }
    let back = parse_one(&text, "Route");
    assert_eq!(
        back.nodes
            .iter()
            .find(|n| n.name == "approve")
            .unwrap()
            .kind,
        NodeKind::Human
    );
    let mut sources = Sources::new();
    sources.add("Route.json", text);
    assert_eq!(wf_analysis::check_sources(&sources), vec![]);
}

#[test]
fn guards_without_a_reflex_equivalent_are_errors_naming_the_edge() {
    let text = "workflow Pick {\n  step a { writes n: int }\n  a -> big when n > 3\n  a -> small when n <= 3\n}\n";
    let parsed = wf_syntax::parse(text, FileId(0));
    let lowered = wf_analysis::lower::lower_parsed(&[(FileId(0), &parsed)]);
    let err = wf_reflex::emit(&lowered.program.workflows[0]).unwrap_err();
    let message = err.to_string();
    assert!(message.contains("workflow `Pick`"), "{message}");
    assert!(message.contains("`a -> big`"), "{message}");
    assert!(message.contains("`n > 3`"), "{message}");
    assert!(message.contains("no `>`"), "{message}");
    let outcome = "workflow O {\n  a -> b when outcome == success\n}\n";
    let parsed = wf_syntax::parse(outcome, FileId(0));
    let lowered = wf_analysis::lower::lower_parsed(&[(FileId(0), &parsed)]);
    let err = wf_reflex::emit(&lowered.program.workflows[0]).unwrap_err();
    assert!(err.to_string().contains("`outcome == success`"), "{err}");
}
