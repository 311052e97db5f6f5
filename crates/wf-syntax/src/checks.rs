//! WF0009: an attribute (or map key) given twice in the same block.

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Diagnostic, FileId, codes};

use crate::ast::{Attribute, BodyItem, File, Item, Key, Statement, Value};

/// Reports every repeated key, pointing at the repeat and at the first use.
pub(crate) fn duplicate_attributes(file: &File, fid: FileId, out: &mut Vec<Diagnostic>) {
    for item in &file.items {
        let Item::Workflow(workflow) = item else {
            continue;
        };
        let top = workflow.body.iter().filter_map(|s| match s {
            Statement::Attribute(a) => Some(a),
            _ => None,
        });
        block(top, "workflow", fid, out);
        for statement in &workflow.body {
            match statement {
                Statement::Node(node) => {
                    if let Some(body) = &node.body {
                        let attrs = body.items.iter().filter_map(|i| match i {
                            BodyItem::Attribute(a) => Some(a),
                            _ => None,
                        });
                        block(attrs, "node body", fid, out);
                    }
                }
                Statement::Edge(edge) => {
                    if let Some(attrs) = &edge.attributes {
                        block(attrs.attributes.iter(), "attribute block", fid, out);
                    }
                }
                _ => {}
            }
        }
    }
}

fn block<'t>(
    attrs: impl Iterator<Item = &'t Attribute>,
    what: &str,
    fid: FileId,
    out: &mut Vec<Diagnostic>,
) {
    let mut first: HashMap<&str, &Key> = HashMap::default();
    for attr in attrs {
        report(
            &mut first,
            &attr.key,
            || format!("attribute `{}` is set twice in this {what}", attr.key.text),
            fid,
            out,
        );
        maps(&attr.value, fid, out);
    }
}

/// Checks the maps nested anywhere in a value.
fn maps(value: &Value, fid: FileId, out: &mut Vec<Diagnostic>) {
    match value {
        Value::List(items, _) => items.iter().for_each(|v| maps(v, fid, out)),
        Value::Map(entries, _) => {
            let mut first: HashMap<&str, &Key> = HashMap::default();
            for entry in entries {
                report(
                    &mut first,
                    &entry.key,
                    || format!("key `{}` appears twice in this map", entry.key.text),
                    fid,
                    out,
                );
                maps(&entry.value, fid, out);
            }
        }
        _ => {}
    }
}

/// The message is built only for a repeat: formatting it for every
/// attribute of a clean file was a measurable part of parsing.
fn report<'t>(
    first: &mut HashMap<&'t str, &'t Key>,
    key: &'t Key,
    message: impl FnOnce() -> String,
    fid: FileId,
    out: &mut Vec<Diagnostic>,
) {
    if let Some(earlier) = first.get(key.text.as_str()) {
        out.push(
            Diagnostic::new(
                &codes::DUPLICATE_ATTRIBUTE,
                message(),
                key.span.in_file(fid),
            )
            .with_primary_label("set again here")
            .with_label(earlier.span.in_file(fid), "first set here")
            .with_help("remove one of them"),
        );
    } else {
        first.insert(&key.text, key);
    }
}
