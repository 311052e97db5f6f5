//! Lowering a parsed graph to a [`wf_model::Workflow`].
//!
//! Order of the transforms, as spec section 9 prescribes: collect (defaults,
//! subgraphs, chains), then the model stylesheet, then `$goal` expansion,
//! then typing; then handler kinds, start and exit resolution, and edges
//! with their guards.

mod collect;
pub mod handlers;
mod nodes;
mod values;

use wf_diagnostics::{Diagnostic, FileId};
use wf_model::{Attribute, Edge, Guard, NodeId, SourceFormat, Workflow};

use crate::ast::{Graph, Id, IdKind};
use crate::strings::{Decoded, verbatim};
use collect::{Collector, RawAttr};
use values::Place;

/// The decoded text of an id, with its map back to the source.
pub(crate) fn decoded(id: &Id, text: &str) -> Decoded {
    match id.kind {
        IdKind::Quoted => {
            let mut d = Decoded::default();
            let single = [id.span];
            let pieces = if id.pieces.is_empty() {
                &single[..]
            } else {
                &id.pieces
            };
            for piece in pieces {
                let raw = text.get(piece.range()).unwrap_or("\"");
                d.push_piece(raw, piece.start as usize);
            }
            d
        }
        IdKind::Bare | IdKind::Html => verbatim(&id.text, id.span.start as usize),
    }
}

/// A model attribute from a raw one, typed for `place`.
fn attribute(place: Place, a: &RawAttr, file: FileId, out: &mut Vec<Diagnostic>) -> Attribute {
    Attribute {
        key: a.key.to_string(),
        key_span: a.key_span.in_file(file),
        value: values::typed(place, a.key, a.value, file, out),
        value_span: a.value.span.in_file(file),
    }
}

/// Lowers one graph. `text` is the file's source text (for spans inside
/// strings).
pub fn lower_graph(graph: &Graph, text: &str, file: FileId, out: &mut Vec<Diagnostic>) -> Workflow {
    let mut collector = Collector::new(file, out);
    collector.graph(&graph.stmts);
    let collected = collector.out;

    let attributes: Vec<Attribute> = collected
        .graph_attrs
        .iter()
        .map(|a| attribute(Place::Graph, a, file, out))
        .collect();
    let goal = collected
        .graph_attrs
        .iter()
        .find(|a| a.key == "goal")
        .map_or("", |a| a.value.text.as_str());
    let rules = match collected
        .graph_attrs
        .iter()
        .find(|a| a.key == "model_stylesheet")
    {
        Some(a) => {
            let (rules, diagnostics) = crate::stylesheet::parse(&decoded(a.value, text), file);
            out.extend(diagnostics);
            rules
        }
        None => Vec::new(),
    };

    let (nodes, remap, entry) = nodes::lower_nodes(&collected.nodes, &rules, goal, file, out);

    let edges = collected
        .edges
        .iter()
        .map(|e| {
            let mut edge = Edge {
                from: NodeId(remap[e.from] as u32),
                to: NodeId(remap[e.to] as u32),
                span: e.from_span.to(e.to_span).in_file(file),
                from_span: e.from_span.in_file(file),
                to_span: e.to_span.in_file(file),
                label: None,
                label_span: None,
                guard: None,
                attributes: Vec::new(),
            };
            for a in &e.attrs {
                match a.key {
                    "label" => {
                        edge.label = Some(a.value.text.clone());
                        edge.label_span = Some(a.value.span.in_file(file));
                    }
                    "condition" => {
                        let (expr, diagnostics) =
                            crate::condition::parse(&decoded(a.value, text), file);
                        out.extend(diagnostics);
                        edge.guard = expr.map(|expr| Guard {
                            expr,
                            span: a.value.span.in_file(file),
                        });
                    }
                    _ => edge.attributes.push(attribute(Place::Edge, a, file, out)),
                }
            }
            edge
        })
        .collect();

    let (name, name_span) = match &graph.name {
        Some(id) => (id.text.clone(), id.span),
        None => ("pipeline".to_string(), graph.keyword),
    };
    Workflow {
        name,
        name_span: name_span.in_file(file),
        span: graph.span.in_file(file),
        file,
        format: SourceFormat::Dot,
        docs: None,
        attributes,
        entry,
        needs: Vec::new(),
        gives: Vec::new(),
        interpolated_reads: Vec::new(),
        nodes,
        edges,
        incomplete: graph.incomplete,
    }
}
