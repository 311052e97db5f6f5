//! Lowering the `nodes` object: ids, labels, specs, invocations and
//! contracts.

use std::collections::HashMap;

use wf_diagnostics::{Diagnostic, FileSpan, Label, codes};
use wf_model::{Call, KeyDecl, Node, NodeId, NodeKind, ReadDecl, ReturnMapEntry, Workflow};

use super::attribute;
use crate::conventions;
use crate::json::{Json, Member};
use crate::schema::{Reader, inner};

const NODE_MEMBERS: &[&str] = &["id", "description", "spec", "invokes", "inputs", "outputs"];

pub(super) fn lower_nodes(
    reader: &mut Reader,
    json: &Json,
    workflow: &mut Workflow,
    index: &mut HashMap<String, NodeId>,
) {
    let Some(members) = reader.object(json, "the workflow `nodes`") else {
        return;
    };
    for member in members {
        let name_span = reader.at(inner(member.key_span));
        if let Some(&first) = index.get(&member.key) {
            let first_span = workflow.node(first).name_span;
            reader.diagnostics.push(
                Diagnostic::new(
                    &codes::DUPLICATE_NODE,
                    format!(
                        "node `{}` is defined more than once in workflow `{}`",
                        member.key, workflow.name
                    ),
                    name_span,
                )
                .with_primary_label(format!("`{}` redefined here", member.key))
                .with_label(first_span, "first defined here")
                .with_help("rename one of them: node ids must be unique within a workflow (only the first definition is used)"),
            );
            continue;
        }
        let node = lower_node(reader, member);
        index.insert(member.key.clone(), NodeId(workflow.nodes.len() as u32));
        workflow.nodes.push(node);
    }
}

fn lower_node(reader: &mut Reader, member: &Member) -> Node {
    let name = &member.key;
    let mut node = Node {
        name: name.clone(),
        kind: NodeKind::Step,
        name_span: reader.at(inner(member.key_span)),
        span: reader.at(member.key_span.to(member.value.span)),
        implicit: false,
        label: None,
        docs: None,
        attributes: Vec::new(),
        reads: Vec::new(),
        writes: Vec::new(),
        interpolated_reads: Vec::new(),
        call: None,
    };
    let what = format!("node `{name}`");
    let Some(members) = reader.object(&member.value, &what) else {
        return node;
    };
    let fields = reader.members(members, &what, NODE_MEMBERS);
    match fields.get("id") {
        Some(m) => {
            let id = reader.string(&m.value, &format!("the `id` of {what}"));
            if let Some(id) = id.filter(|id| id != name) {
                let key = reader.at(member.key_span);
                reader
                    .schema_error(
                        m.value.span,
                        format!("node `{name}` has the id `{id}`: a node's `id` must equal its key in `nodes`"),
                        "differs from the key",
                    )
                    .labels
                    .push(Label::new(key, "the node's key"));
            }
        }
        None => reader.missing(&member.value, &what, "id"),
    }
    if let Some(m) = fields.get("description") {
        let text = reader.string(&m.value, &format!("the `description` of {what}"));
        node.label = text.map(str::to_string);
    }
    match fields.get("spec") {
        Some(m) => {
            if let Some(spec) = reader.object(&m.value, &format!("the `spec` of {what}")) {
                // The spec is opaque: any member is allowed, once.
                reader.repeats(spec, &format!("the `spec` of {what}"));
                node.attributes = spec.iter().map(|m| attribute(reader, m)).collect();
            }
        }
        None => reader.missing(&member.value, &what, "spec"),
    }
    if let Some(m) = fields.get("invokes") {
        node.call = lower_invokes(reader, &m.value, &what);
        if node.call.is_some() {
            node.kind = NodeKind::Call;
        }
    }
    if let Some(m) = fields.get("inputs") {
        for item in reader
            .array(&m.value, &format!("the `inputs` of {what}"))
            .unwrap_or(&[])
        {
            if let Some((key, span, required)) = key_flag(reader, item, "an input", "required") {
                node.reads.push(ReadDecl {
                    key,
                    optional: !required,
                    span,
                });
            }
        }
    }
    // The spec's rule-agent writes first, so that `emit` (which writes as
    // `outputs` only what the spec does not list) reads back the same.
    if let Some(spec) = fields.get("spec") {
        conventions::spec_writes_as_contract(reader, &spec.value, &mut node.writes);
    }
    if let Some(m) = fields.get("outputs") {
        let spec_keys: Vec<String> = node.writes.iter().map(|w| w.key.clone()).collect();
        for item in reader
            .array(&m.value, &format!("the `outputs` of {what}"))
            .unwrap_or(&[])
        {
            // A conditional output is no contract write: the data-flow
            // checks need keys written on every run of the node.
            match key_flag(reader, item, "an output", "guaranteed") {
                Some((key, span, true)) if !spec_keys.contains(&key) => node.writes.push(KeyDecl {
                    key,
                    ty: None,
                    span,
                    ty_span: None,
                }),
                _ => {}
            }
        }
    }
    conventions::node_kind(&mut node);
    conventions::type_durations(&mut node.attributes, conventions::NODE_DURATIONS);
    node
}

/// An `inputs` / `outputs` item: `{"key": …, flag: bool, "description"?}`.
fn key_flag(
    reader: &mut Reader,
    item: &Json,
    what: &str,
    flag: &str,
) -> Option<(String, FileSpan, bool)> {
    let members = reader.object(item, what)?;
    let fields = reader.members(members, what, &["key", flag, "description"]);
    if let Some(m) = fields.get("description") {
        reader.string(&m.value, "a `description`");
    }
    let value = match fields.get(flag) {
        Some(m) => reader.boolean(&m.value, &format!("`{flag}`")),
        None => {
            reader.missing(item, what, flag);
            None
        }
    };
    let key = match fields.get("key") {
        Some(m) => reader
            .string(&m.value, "`key`")
            .map(|k| (k.to_string(), reader.at(inner(m.value.span)))),
        None => {
            reader.missing(item, what, "key");
            None
        }
    };
    let (key, span) = key?;
    Some((key, span, value?))
}

fn lower_invokes(reader: &mut Reader, json: &Json, node: &str) -> Option<Call> {
    let what = format!("the `invokes` of {node}");
    let members = reader.object(json, &what)?;
    let fields = reader.members(members, &what, &["workflowId", "returnMap"]);
    let mut return_map = Vec::new();
    match fields.get("returnMap") {
        Some(m) => {
            for item in reader.array(&m.value, "`returnMap`").unwrap_or(&[]) {
                if let Some(entry) = return_entry(reader, item) {
                    return_map.push(entry);
                }
            }
        }
        None => reader.missing(json, &what, "returnMap"),
    }
    let Some(m) = fields.get("workflowId") else {
        reader.missing(json, &what, "workflowId");
        return None;
    };
    let workflow = reader.string(&m.value, "`workflowId`")?.to_string();
    Some(Call {
        workflow,
        workflow_span: reader.at(inner(m.value.span)),
        return_map,
    })
}

fn return_entry(reader: &mut Reader, item: &Json) -> Option<ReturnMapEntry> {
    let what = "a `returnMap` entry";
    let members = reader.object(item, what)?;
    let fields = reader.members(members, what, &["parentKey", "childKey"]);
    let mut key = |name: &str| match fields.get(name) {
        Some(m) => reader
            .string(&m.value, &format!("`{name}`"))
            .map(|k| (k.to_string(), reader.at(inner(m.value.span)))),
        None => {
            reader.missing(item, what, name);
            None
        }
    };
    let parent = key("parentKey");
    let child = key("childKey");
    let ((parent, parent_span), (child, child_span)) = (parent?, child?);
    Some(ReturnMapEntry {
        parent,
        parent_span,
        child,
        child_span,
    })
}
