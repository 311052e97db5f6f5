//! Hover: what a node, key, workflow, import or diagnostic code is.

use std::fmt::Write;

use wf_analysis::Database;
use wf_diagnostics::FileId;
use wf_model::{Node, SourceFormat, Value, Workflow};

use super::resolve::Target;

/// The Markdown shown for a target.
pub fn markdown(db: &Database, from: FileId, target: &Target) -> Option<String> {
    let mut out = String::new();
    match target {
        Target::Node(workflow, id) => {
            let node = workflow.node(*id);
            out.push_str(&node_header(workflow, node));
            if node.implicit {
                let _ = writeln!(out, "_implicit node (declared by its edges)_\n");
            }
            if let Some(label) = &node.label {
                let _ = writeln!(out, "**{label}**\n");
            }
            if let Some(docs) = &node.docs {
                let _ = writeln!(out, "{}\n", docs.trim());
            }
            if let Some(call) = &node.call {
                let _ = writeln!(out, "calls `{}`\n", call.workflow);
            }
            // A DOT value is text whatever it means (`timeout=900` is read
            // as 15 minutes): show what was written beside what it means.
            let text = (workflow.format == SourceFormat::Dot)
                .then(|| db.file_text(workflow.file))
                .flatten();
            for attribute in &node.attributes {
                let read = value(&attribute.value);
                let written = text
                    .as_deref()
                    .filter(|_| attribute.value_span.file == workflow.file)
                    .and_then(|t| t.get(attribute.value_span.span.range()))
                    .map(|w| w.trim_matches('"'))
                    .filter(|w| !w.is_empty() && *w != read.trim_matches('"'));
                match written {
                    Some(w) => {
                        let (shown, cut) = excerpt(w);
                        let _ = writeln!(
                            out,
                            "- `{}` = `{shown}{cut}` (read as `{read}`)",
                            attribute.key
                        );
                    }
                    None => {
                        let _ = writeln!(out, "- `{}` = `{read}`", attribute.key);
                    }
                }
            }
            let reads: Vec<String> = node
                .reads
                .iter()
                .map(|r| format!("`{}`{}", r.key, if r.optional { "?" } else { "" }))
                .collect();
            if !reads.is_empty() {
                let _ = writeln!(out, "\nreads {}", reads.join(", "));
            }
            let writes: Vec<String> = node
                .writes
                .iter()
                .map(|d| format!("`{}`", key_decl(d)))
                .collect();
            if !writes.is_empty() {
                let _ = writeln!(out, "\nwrites {}", writes.join(", "));
            }
        }
        Target::Workflow(name) => {
            // The declaration a call from this file resolves to.
            let workflow = db.workflow_declarations(from, name).into_iter().next()?;
            out.push_str(&signature(&workflow));
            if let Some(docs) = &workflow.docs {
                let _ = write!(out, "\n{}\n", docs.trim());
            }
        }
        Target::Import(target) => match target.and_then(|f| db.file_display(f)) {
            Some(path) => {
                let _ = write!(out, "imports `{path}`");
            }
            None => out.push_str("import target not found in the project"),
        },
        Target::Key(workflow, key) => {
            let ty = key_type(workflow, key);
            let _ = writeln!(
                out,
                "```wf\n{key}{}\n```",
                ty.map(|t| format!(": {t}")).unwrap_or_default()
            );
            let _ = writeln!(out, "blackboard key of `{}`\n", workflow.name);
            if workflow.needs.iter().any(|d| &d.key == key) {
                let _ = writeln!(out, "- needed by the workflow (an input)");
            }
            if workflow.gives.iter().any(|d| &d.key == key) {
                let _ = writeln!(out, "- given by the workflow (an output)");
            }
            let writers = nodes_where(workflow, |n| n.writes.iter().any(|d| &d.key == key));
            let readers = nodes_where(workflow, |n| {
                n.reads
                    .iter()
                    .chain(&n.interpolated_reads)
                    .any(|r| &r.key == key)
            });
            let _ = writeln!(out, "- written by: {}", list(&writers));
            let _ = writeln!(out, "- read by: {}", list(&readers));
        }
        Target::Code(code) => {
            let _ = write!(
                out,
                "**{}** `{}` ({}, {})\n\n{}",
                code.code,
                code.name,
                code.family.as_str(),
                code.severity.as_str(),
                code.summary
            );
        }
    }
    Some(out)
}

/// The first lines of a node's hover, in the language of its file: the
/// `.wf` declaration; for a DOT node its id and the Attractor handler it
/// runs; for a Reflex node its id.
fn node_header(workflow: &Workflow, node: &Node) -> String {
    match workflow.format {
        SourceFormat::Wf => format!("```wf\n{} {}\n```\n", node.kind.as_str(), node.name),
        SourceFormat::Dot => {
            let is_start = workflow
                .entry
                .as_ref()
                .is_some_and(|(e, _)| *e == node.name);
            let handler = wf_dot::node_handler(node, is_start);
            format!(
                "```dot\n{}\n```\nruns the `{handler}` handler\n\n",
                wf_dot::ast::id_source_text(&node.name)
            )
        }
        SourceFormat::ReflexJson => format!("```json\n{:?}\n```\nReflex node\n", node.name),
    }
}

/// `workflow Name` with its `needs` and `gives`, in a code block.
pub fn signature(workflow: &Workflow) -> String {
    let mut out = format!("```wf\nworkflow {}", workflow.name);
    if !workflow.needs.is_empty() {
        let needs: Vec<String> = workflow.needs.iter().map(key_decl).collect();
        let _ = write!(out, "\n  needs {}", needs.join(", "));
    }
    if !workflow.gives.is_empty() {
        let gives: Vec<String> = workflow.gives.iter().map(key_decl).collect();
        let _ = write!(out, "\n  gives {}", gives.join(", "));
    }
    out.push_str("\n```\n");
    out
}

fn key_decl(decl: &wf_model::KeyDecl) -> String {
    match &decl.ty {
        Some(ty) => format!("{}: {ty}", decl.key),
        None => decl.key.clone(),
    }
}

/// The declared type of a key in a workflow (from `needs`, `gives` or a
/// `writes`).
fn key_type<'a>(workflow: &'a Workflow, key: &str) -> Option<&'a str> {
    workflow
        .needs
        .iter()
        .chain(&workflow.gives)
        .chain(workflow.nodes.iter().flat_map(|n| &n.writes))
        .find(|d| d.key == key && d.ty.is_some())
        .and_then(|d| d.ty.as_deref())
}

fn nodes_where(workflow: &Workflow, keep: impl Fn(&wf_model::Node) -> bool) -> Vec<String> {
    workflow
        .nodes
        .iter()
        .filter(|n| keep(n))
        .map(|n| format!("`{}`", n.name))
        .collect()
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

/// An attribute value as written.
fn value(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::String(s) => {
            let (shown, cut) = excerpt(s);
            format!("{shown:?}{cut}")
        }
        Value::Duration(ms) => duration(*ms),
        Value::Ref(r) => r.clone(),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(self::value).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{k}: {}", self::value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The first line of `text`, at most 60 characters, and `…` when that is
/// not all of it (else an empty marker).
fn excerpt(text: &str) -> (String, &'static str) {
    let first = text.lines().next().unwrap_or("");
    let shown: String = first.chars().take(60).collect();
    let cut = if shown.len() < text.len() { "…" } else { "" };
    (shown, cut)
}

/// A duration in the largest unit that divides it (`15m`, `90s`).
fn duration(ms: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(3_600_000, "h"), (60_000, "m"), (1_000, "s"), (1, "ms")];
    let (size, unit) = UNITS
        .iter()
        .find(|(size, _)| ms.is_multiple_of(*size) && ms >= *size)
        .copied()
        .unwrap_or((1, "ms"));
    format!("{}{unit}", ms / size)
}
