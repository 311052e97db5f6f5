//! The model stylesheet (Attractor spec section 8), one test per selector
//! kind and per precedence rule: universal < shape < class < id, the later
//! rule wins a tie, and an attribute written on the node wins over every
//! rule.

use wf_diagnostics::FileId;
use wf_model::Value;

/// Lowers a pipeline whose graph carries `stylesheet` and whose body is
/// `nodes`, and returns the string value of `key` on node `node`.
fn styled(stylesheet: &str, nodes: &str, node: &str, key: &str) -> Option<String> {
    let src = format!(
        "digraph P {{\n  graph [model_stylesheet=\"{stylesheet}\"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n{nodes}\n}}\n"
    );
    let lowered = wf_dot::parse_and_lower(&src, FileId(0));
    assert!(
        lowered.diagnostics.iter().all(|d| d.code.code != "WF0605"),
        "the stylesheet should parse: {:?}",
        lowered.diagnostics
    );
    let workflow = &lowered.program.workflows[0];
    let node = workflow
        .nodes
        .iter()
        .find(|n| n.name == node)
        .unwrap_or_else(|| panic!("no node `{node}`"));
    node.attributes
        .iter()
        .find(|a| a.key == key)
        .map(|a| match &a.value {
            Value::String(s) | Value::Ref(s) => s.clone(),
            other => panic!("`{key}` is not a string: {other:?}"),
        })
}

#[test]
fn universal_selector_applies_to_every_node() {
    let nodes = "  a [prompt=\"x\"]\n  b [shape=parallelogram, tool_command=\"make\"]";
    let sheet = "* { llm_model: base; }";
    assert_eq!(
        styled(sheet, nodes, "a", "llm_model").as_deref(),
        Some("base")
    );
    assert_eq!(
        styled(sheet, nodes, "b", "llm_model").as_deref(),
        Some("base")
    );
}

#[test]
fn shape_selector_applies_to_that_shape_only() {
    let nodes = "  a [prompt=\"x\"]\n  t [shape=parallelogram, tool_command=\"make\"]";
    let sheet = "parallelogram { llm_model: tooly; }";
    assert_eq!(
        styled(sheet, nodes, "t", "llm_model").as_deref(),
        Some("tooly")
    );
    assert_eq!(styled(sheet, nodes, "a", "llm_model"), None);
}

#[test]
fn class_selector_applies_to_members_of_the_class() {
    let nodes = "  a [prompt=\"x\", class=\"code\"]\n  b [prompt=\"y\"]";
    let sheet = ".code { llm_model: coder; }";
    assert_eq!(
        styled(sheet, nodes, "a", "llm_model").as_deref(),
        Some("coder")
    );
    assert_eq!(styled(sheet, nodes, "b", "llm_model"), None);
}

#[test]
fn class_selector_matches_one_of_several_classes() {
    let nodes = "  a [prompt=\"x\", class=\"fast,code\"]";
    let sheet = ".code { llm_model: coder; }";
    assert_eq!(
        styled(sheet, nodes, "a", "llm_model").as_deref(),
        Some("coder")
    );
}

#[test]
fn class_selector_matches_classes_derived_from_subgraph_labels() {
    let nodes = "  subgraph cluster_x {\n    label=\"Loop A\"\n    a [prompt=\"x\"]\n  }";
    let sheet = ".loop-a { llm_model: looper; }";
    assert_eq!(
        styled(sheet, nodes, "a", "llm_model").as_deref(),
        Some("looper")
    );
}

#[test]
fn id_selector_applies_to_that_node_only() {
    let nodes = "  a [prompt=\"x\"]\n  b [prompt=\"y\"]";
    let sheet = "#b { llm_model: special; }";
    assert_eq!(
        styled(sheet, nodes, "b", "llm_model").as_deref(),
        Some("special")
    );
    assert_eq!(styled(sheet, nodes, "a", "llm_model"), None);
}

#[test]
fn specificity_is_universal_then_shape_then_class_then_id_whatever_the_order() {
    let nodes = "  a [prompt=\"x\", class=\"code\"]\n  b [prompt=\"y\", class=\"code\"]\n  c [prompt=\"z\"]\n  d [shape=parallelogram, tool_command=\"make\"]";
    // Written most specific first, so source order cannot explain the result.
    let sheet = "#a { llm_model: by-id; } .code { llm_model: by-class; } parallelogram { llm_model: by-shape; } * { llm_model: by-all; }";
    assert_eq!(
        styled(sheet, nodes, "a", "llm_model").as_deref(),
        Some("by-id")
    );
    assert_eq!(
        styled(sheet, nodes, "b", "llm_model").as_deref(),
        Some("by-class")
    );
    assert_eq!(
        styled(sheet, nodes, "d", "llm_model").as_deref(),
        Some("by-shape")
    );
    assert_eq!(
        styled(sheet, nodes, "c", "llm_model").as_deref(),
        Some("by-all")
    );
}

#[test]
fn the_later_rule_wins_a_tie() {
    let nodes = "  a [prompt=\"x\", class=\"code\"]";
    let sheet = ".code { llm_model: first; } .code { llm_model: second; }";
    assert_eq!(
        styled(sheet, nodes, "a", "llm_model").as_deref(),
        Some("second")
    );
}

#[test]
fn an_attribute_written_on_the_node_wins_over_every_rule() {
    let nodes = "  a [prompt=\"x\", class=\"code\", llm_model=\"pinned\"]";
    let sheet = "#a { llm_model: by-id; reasoning_effort: high; }";
    assert_eq!(
        styled(sheet, nodes, "a", "llm_model").as_deref(),
        Some("pinned")
    );
    // Properties the node does not set still come from the rule.
    assert_eq!(
        styled(sheet, nodes, "a", "reasoning_effort").as_deref(),
        Some("high")
    );
}
