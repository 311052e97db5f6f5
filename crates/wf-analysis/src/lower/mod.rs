//! Lowering of `.wf` syntax trees to the format-neutral [`wf_model`].
//!
//! Lowering is a pure function of the trees it is given, so it can become a
//! salsa query later. It reports only what it must decide while building
//! the model (duplicate node names, of which it keeps the first); every other
//! check runs on the model, so it applies to all source formats alike.
//! `Error` parts of the tree are skipped silently: the parser reported them.

mod incomplete;
mod interpolations;
mod values;

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Diagnostic, FileId, FileSpan};
use wf_model::{self as model, Program, SourceFormat};
use wf_syntax::ast;

use crate::names;

pub use incomplete::lower_parsed;
pub use values::{lower_attribute, lower_expr, lower_value};

/// The result of lowering: the program and the diagnostics found on the way.
#[derive(Debug, Clone, Default)]
pub struct Lowered {
    /// All workflows of all files, in file order then source order
    /// (duplicated workflow names included; checks report them).
    pub program: Program,
    /// Problems found while lowering (duplicate nodes).
    pub diagnostics: Vec<Diagnostic>,
}

/// Lowers a set of parsed `.wf` files into one [`Program`]. Imports are not
/// resolved: every workflow of every given file simply joins the program.
pub fn lower_files(files: &[(FileId, &ast::File)]) -> Lowered {
    let mut lowered = Lowered::default();
    for &(file, tree) in files {
        for item in &tree.items {
            if let ast::Item::Workflow(workflow) = item {
                let workflow = lower_workflow(workflow, file, &mut lowered.diagnostics);
                lowered.program.workflows.push(workflow);
            }
        }
    }
    lowered
}

/// Lowers one workflow, pushing duplicate-node diagnostics to `diagnostics`.
pub fn lower_workflow(
    wf: &ast::Workflow,
    file: FileId,
    diagnostics: &mut Vec<Diagnostic>,
) -> model::Workflow {
    let mut out = model::Workflow {
        name: wf.name.text.clone(),
        name_span: wf.name.span.in_file(file),
        span: wf.span.in_file(file),
        file,
        format: SourceFormat::Wf,
        docs: wf.docs.text(),
        attributes: Vec::new(),
        entry: None,
        needs: Vec::new(),
        gives: Vec::new(),
        interpolated_reads: Vec::new(),
        nodes: Vec::new(),
        edges: Vec::new(),
        // A workflow whose name did not parse is known only in part.
        incomplete: wf.name.is_missing(),
    };
    // Declared nodes first (so a node declared after the edges that use it
    // is still declared), then edges, which add implicit nodes.
    let mut index: HashMap<String, model::NodeId> = HashMap::default();
    for statement in &wf.body {
        match statement {
            ast::Statement::Attribute(attr) => {
                interpolations::collect_value(&attr.value, file, &mut out.interpolated_reads);
                lower_workflow_attribute(attr, file, &mut out)
            }
            ast::Statement::Needs(sig) => {
                out.needs.extend(sig.keys.iter().map(|k| key_decl(k, file)))
            }
            ast::Statement::Gives(sig) => {
                out.gives.extend(sig.keys.iter().map(|k| key_decl(k, file)))
            }
            ast::Statement::Node(node) => {
                if let Some(&first) = index.get(&node.name.text) {
                    let first_span = out.node(first).name_span;
                    diagnostics.push(names::duplicate_node(
                        &out.name,
                        &node.name.text,
                        node.name.span.in_file(file),
                        first_span,
                    ));
                } else {
                    index.insert(
                        node.name.text.clone(),
                        model::NodeId(out.nodes.len() as u32),
                    );
                    out.nodes.push(lower_node(node, file));
                }
            }
            ast::Statement::Edge(_) => {}
            ast::Statement::Error(_) => out.incomplete = true,
        }
    }
    for statement in &wf.body {
        if let ast::Statement::Edge(chain) = statement {
            lower_chain(chain, file, &mut index, &mut out);
        }
    }
    out
}

/// `entry = x` becomes [`model::Workflow::entry`] (the first one wins; the
/// parser reports repeats); every other attribute is kept as is. An `entry`
/// whose value is not a name stays an attribute for the attribute checks.
fn lower_workflow_attribute(attr: &ast::Attribute, file: FileId, out: &mut model::Workflow) {
    if attr.key.text == "entry" {
        let name = match &attr.value {
            ast::Value::Path(key) => Some((key.text.clone(), key.span)),
            ast::Value::String(s) => Some((s.value.clone(), s.span)),
            _ => None,
        };
        if let Some((name, span)) = name {
            if out.entry.is_none() {
                out.entry = Some((name, span.in_file(file)));
            }
            return;
        }
    }
    out.attributes.extend(lower_attribute(attr, file));
}

fn key_decl(key: &ast::TypedKey, file: FileId) -> model::KeyDecl {
    model::KeyDecl {
        key: key.key.text.clone(),
        ty: key.ty.as_ref().map(|t| t.text.clone()),
        span: key.key.span.in_file(file),
        ty_span: key.ty.as_ref().map(|t| t.span.in_file(file)),
    }
}

fn lower_node(node: &ast::Node, file: FileId) -> model::Node {
    let mut out = model::Node {
        name: node.name.text.clone(),
        kind: values::lower_kind(node.kind),
        name_span: node.name.span.in_file(file),
        span: node.span.in_file(file),
        implicit: false,
        label: node.label.as_ref().map(|l| l.value.clone()),
        docs: node.docs.text(),
        attributes: Vec::new(),
        reads: Vec::new(),
        writes: Vec::new(),
        interpolated_reads: Vec::new(),
        call: None,
    };
    if let Some(label) = &node.label {
        interpolations::collect_str(label, file, &mut out.interpolated_reads);
    }
    let mut return_map = Vec::new();
    for item in node.body.iter().flat_map(|b| &b.items) {
        match item {
            ast::BodyItem::Attribute(attr) => {
                interpolations::collect_value(&attr.value, file, &mut out.interpolated_reads);
                out.attributes.extend(lower_attribute(attr, file))
            }
            ast::BodyItem::Reads(keys, _) => {
                out.reads.extend(keys.iter().map(|k| model::ReadDecl {
                    key: k.key.text.clone(),
                    optional: k.optional,
                    span: k.key.span.in_file(file),
                }))
            }
            ast::BodyItem::Writes(keys, _) => {
                out.writes.extend(keys.iter().map(|k| key_decl(k, file)))
            }
            ast::BodyItem::ReturnMap(entry) => return_map.push(model::ReturnMapEntry {
                parent: entry.parent.text.clone(),
                parent_span: entry.parent.span.in_file(file),
                child: entry.child.text.clone(),
                child_span: entry.child.span.in_file(file),
            }),
            ast::BodyItem::Error(_) => {}
        }
    }
    // A return map outside a `call` node has nowhere to go in the model; the
    // parser accepts it so that a later check can report it precisely.
    if let Some(callee) = &node.callee {
        out.call = Some(model::Call {
            workflow: callee.text.clone(),
            workflow_span: callee.span.in_file(file),
            return_map,
        });
    }
    out
}

/// Expands `a -> b -> c …` into edges a→b and b→c, each carrying the
/// chain's label, guard and attributes. Names not declared become implicit
/// `step` nodes at their first mention.
fn lower_chain(
    chain: &ast::EdgeChain,
    file: FileId,
    index: &mut HashMap<String, model::NodeId>,
    out: &mut model::Workflow,
) {
    if chain.nodes.len() < 2 {
        // Only a broken chain can have fewer than two names.
        out.incomplete = true;
        return;
    }
    let label = chain.label.as_ref().map(|l| l.value.clone());
    let label_span = chain.label.as_ref().map(|l| l.span.in_file(file));
    let guard = chain.guard.as_ref().map(|g| model::Guard {
        expr: lower_expr(g, file),
        span: g.span().in_file(file),
    });
    let attributes: Vec<model::Attribute> = chain
        .attributes
        .iter()
        .flat_map(|b| &b.attributes)
        .filter_map(|a| lower_attribute(a, file))
        .collect();
    let ids: Vec<model::NodeId> = chain
        .nodes
        .iter()
        .map(|name| resolve(name, file, index, out))
        .collect();
    let (mut label, mut guard, mut attributes) = (label, guard, attributes);
    let last = chain.nodes.len() - 2;
    for (i, pair) in chain.nodes.windows(2).enumerate() {
        let (from, to) = (&pair[0], &pair[1]);
        // The last edge takes the originals; earlier ones get copies.
        let (label, guard, attributes) = if i == last {
            (label.take(), guard.take(), std::mem::take(&mut attributes))
        } else {
            (label.clone(), guard.clone(), attributes.clone())
        };
        out.edges.push(model::Edge {
            from: ids[i],
            to: ids[i + 1],
            span: from.span.to(to.span).in_file(file),
            from_span: from.span.in_file(file),
            to_span: to.span.in_file(file),
            label,
            label_span,
            guard,
            attributes,
        });
    }
}

/// The node a name in an edge refers to, declaring it implicitly when new.
fn resolve(
    name: &ast::Name,
    file: FileId,
    index: &mut HashMap<String, model::NodeId>,
    out: &mut model::Workflow,
) -> model::NodeId {
    if let Some(&id) = index.get(&name.text) {
        return id;
    }
    let id = model::NodeId(out.nodes.len() as u32);
    index.insert(name.text.clone(), id);
    out.nodes
        .push(implicit_node(&name.text, name.span.in_file(file)));
    id
}

/// A node that is only mentioned in edges: a plain `step`.
fn implicit_node(name: &str, mention: FileSpan) -> model::Node {
    model::Node {
        name: name.to_string(),
        kind: model::NodeKind::Step,
        name_span: mention,
        span: mention,
        implicit: true,
        label: None,
        docs: None,
        attributes: Vec::new(),
        reads: Vec::new(),
        writes: Vec::new(),
        interpolated_reads: Vec::new(),
        call: None,
    }
}

#[cfg(test)]
mod tests;
