//! Nodes: classes, the model stylesheet, `$goal`, typing, handler kinds,
//! and start and exit resolution.

use wf_diagnostics::{Diagnostic, FileId, FileSpan};
use wf_model::{Attribute, Node, NodeKind, Value};

use super::attribute;
use super::collect::{RawAttr, RawNode};
use super::handlers::{handler_type, kind_of_handler};
use super::values::Place;
use crate::stylesheet::{Declaration, Rule, Selector};

/// The lowered nodes (declared ones in declaration order, then implicit
/// ones in order of first mention), the map from collected index to model
/// index, and the entry (start node), when one is found.
pub fn lower_nodes(
    raw: &[RawNode<'_>],
    rules: &[Rule],
    goal: &str,
    file: FileId,
    out: &mut Vec<Diagnostic>,
) -> (Vec<Node>, Vec<usize>, Option<(String, FileSpan)>) {
    let mut order: Vec<usize> = (0..raw.len()).collect();
    order.sort_by_key(|&i| (!raw[i].declared, raw[i].order));
    let mut remap = vec![0; raw.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }
    let mut nodes = Vec::with_capacity(raw.len());
    let mut handlers = Vec::with_capacity(raw.len());
    for &i in &order {
        let (node, handler) = lower_node(&raw[i], rules, goal, file, out);
        nodes.push(node);
        handlers.push(handler);
    }
    // Start: by handler (shape `Mdiamond` or `type=start`), else by id.
    let start = handlers
        .iter()
        .position(|&h| h == "start")
        .or_else(|| nodes.iter().position(|n| n.name == "start"))
        .or_else(|| nodes.iter().position(|n| n.name == "Start"));
    let entry = start.map(|i| (nodes[i].name.clone(), nodes[i].name_span));
    // Exits: by handler, else by id.
    if !handlers.contains(&"exit") {
        for node in &mut nodes {
            if matches!(node.name.as_str(), "exit" | "Exit" | "end" | "End") {
                node.kind = NodeKind::Exit;
            }
        }
    }
    (nodes, remap, entry)
}

fn text_of<'a>(attrs: &[RawAttr<'a>], key: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|a| a.key == key)
        .map(|a| a.value.text.as_str())
}

/// The stylesheet slot a property or attribute fills: `model` and
/// `llm_model` are one setting, as are `provider` and `llm_provider`.
fn slot(key: &str) -> Option<&'static str> {
    match key {
        "llm_model" | "model" => Some("model"),
        "llm_provider" | "provider" => Some("provider"),
        "reasoning_effort" => Some("reasoning_effort"),
        _ => None,
    }
}

fn matches(selector: &Selector, name: &str, shape: &str, classes: &[&str]) -> bool {
    match selector {
        Selector::Universal => true,
        Selector::Shape(s) => s == shape,
        Selector::Class(c) => classes.iter().any(|k| k == c),
        Selector::Id(id) => id == name,
    }
}

/// The stylesheet declarations that apply to a node, one per slot: the
/// most specific rule wins, and the later of equally specific rules.
fn styled<'r>(
    rules: &'r [Rule],
    name: &str,
    shape: &str,
    classes: &[&str],
) -> Vec<(&'static str, &'r Declaration)> {
    if rules.is_empty() {
        return Vec::new();
    }
    let mut matching: Vec<(usize, &Rule)> = rules
        .iter()
        .enumerate()
        .filter(|(_, r)| matches(&r.selector, name, shape, classes))
        .collect();
    matching.sort_by_key(|(i, r)| (r.selector.specificity(), *i));
    let mut chosen: Vec<(&'static str, &Declaration)> = Vec::new();
    for (_, rule) in matching {
        for d in &rule.declarations {
            let Some(s) = slot(&d.property) else { continue };
            match chosen.iter_mut().find(|(k, _)| *k == s) {
                Some(entry) => entry.1 = d,
                None => chosen.push((s, d)),
            }
        }
    }
    chosen
}

fn lower_node<'a>(
    raw: &RawNode<'a>,
    rules: &[Rule],
    goal: &str,
    file: FileId,
    out: &mut Vec<Diagnostic>,
) -> (Node, &'a str) {
    let attrs = &raw.attrs;
    // Classes: the `class` attribute's, then those of enclosing subgraphs.
    let mut classes: Vec<&str> = text_of(attrs, "class")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    let explicit = classes.len();
    for (class, _) in &raw.classes {
        if !classes.contains(&&**class) {
            classes.push(class);
        }
    }
    // With subgraph classes, the `class` attribute's value becomes the
    // joined list: in place when the node has one, else appended (as an
    // untyped string either way).
    let joined = (classes.len() > explicit).then(|| classes.join(","));
    let shape = text_of(attrs, "shape").unwrap_or("box");
    let handler = handler_type(Some(shape), text_of(attrs, "type"));

    let mut label = None;
    let mut attributes = Vec::with_capacity(attrs.len() + 4);
    for a in attrs {
        if a.key == "label" {
            label = Some(a.value.text.clone());
            continue;
        }
        if a.key == "class"
            && let Some(joined) = &joined
        {
            attributes.push(Attribute {
                key: a.key.to_string(),
                key_span: a.key_span.in_file(file),
                value: Value::String(joined.clone()),
                value_span: a.value.span.in_file(file),
            });
            continue;
        }
        let mut attr = attribute(Place::Node, a, file, out);
        if attr.key == "prompt"
            && let Value::String(s) = &mut attr.value
            && has_goal(s)
        {
            *s = s.replace("$goal", goal);
        }
        attributes.push(attr);
    }
    if let Some(joined) = joined
        && !attrs.iter().any(|a| a.key == "class")
    {
        let span = raw.classes[0].1.in_file(file);
        attributes.push(Attribute {
            key: "class".into(),
            key_span: span,
            value: Value::String(joined),
            value_span: span,
        });
    }
    for (slot_key, d) in styled(rules, raw.name, shape, &classes) {
        if attrs.iter().any(|a| slot(a.key) == Some(slot_key)) {
            continue;
        }
        attributes.push(Attribute {
            key: d.property.clone(),
            key_span: d.property_span,
            value: Value::String(d.value.clone()),
            value_span: d.value_span,
        });
    }
    let node = Node {
        name: raw.name.to_string(),
        kind: kind_of_handler(handler),
        name_span: raw.name_span.in_file(file),
        span: raw.span.in_file(file),
        implicit: !raw.declared,
        label,
        docs: None,
        attributes,
        reads: Vec::new(),
        writes: Vec::new(),
        interpolated_reads: Vec::new(),
        call: None,
    };
    (node, handler)
}

/// Whether a prompt mentions `$goal`. Prompts are long and `$` is rare:
/// `memchr` for it is cheaper than setting up a substring search.
fn has_goal(prompt: &str) -> bool {
    memchr::memchr_iter(b'$', prompt.as_bytes())
        .any(|i| prompt.as_bytes()[i..].starts_with(b"$goal"))
}
