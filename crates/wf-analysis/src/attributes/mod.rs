//! The `attributes` family (WF05xx): engine attributes are typed.
//!
//! [`schema`] lists every workflow, node and edge attribute the runtime
//! understands, with its type and range; [`check_workflow`] checks one
//! workflow's attributes against it. Attributes the schema does not know
//! form the opaque spec and are never reported, unless they are a near miss
//! of a known name (`spelling`, WF0515). The check is a pure
//! function of one [`Workflow`] and runs in O(nodes + edges + size of the
//! attribute values): schema look-ups scan a constant table, node names are
//! indexed once when some attribute names a node, and the adjacency is
//! built only when some `human` node has a `default`.
//!
//! [`shell`] (WF0511–WF0513) is the exception: it checks where each
//! interpolation of a tool's `command` sits in the shell script, on the
//! syntax tree and source text, and runs per file.

mod durations;
mod placement;
pub(crate) mod references;
pub mod schema;
pub mod shell;
mod spelling;
mod stylesheet;
mod values;

use rustc_hash::FxHashSet as HashSet;

use wf_diagnostics::{Diagnostic, FileSpan};
use wf_model::{Attribute, Node, NodeId, Workflow};

use references::Nodes;
use schema::{Place, Ty, applies_to, lookup};
use values::Site;

/// Runs every attribute check on one workflow.
pub fn check_workflow(workflow: &Workflow) -> Vec<Diagnostic> {
    let mut checker = Checker {
        format: workflow.format,
        spelt: HashSet::default(),
        nodes: Nodes::new(workflow),
        defaults: Vec::new(),
        out: Vec::new(),
    };
    checker.block(Place::Workflow, None, &workflow.attributes);
    for (i, node) in workflow.nodes.iter().enumerate() {
        checker.block(
            Place::Node,
            Some((NodeId(i as u32), node)),
            &node.attributes,
        );
        checker.out.extend(placement::tool_command(node));
    }
    // The edges of a chain `a -> b -> c { … }` share one attribute block:
    // check each block once, by the span of its first key.
    let mut seen: HashSet<FileSpan> = HashSet::default();
    for edge in &workflow.edges {
        let Some(first) = edge.attributes.first() else {
            continue;
        };
        if seen.insert(first.key_span) {
            checker.block(Place::Edge, None, &edge.attributes);
            checker.out.extend(placement::edge_condition(edge));
        }
    }
    let Checker {
        defaults, mut out, ..
    } = checker;
    references::human_defaults(workflow, &defaults, &mut out);
    out
}

/// State shared by the checks of one workflow.
struct Checker<'w> {
    /// The source format, which decides the names known besides the schema.
    format: wf_model::SourceFormat,
    /// Attribute names checked for spelling, by span: a DOT default
    /// (`node [timout=5m]`) is copied to every node, and is reported once.
    spelt: HashSet<FileSpan>,
    /// Node look-ups for retry targets.
    nodes: Nodes<'w>,
    /// `default` attributes of `human` nodes, checked once all are known.
    defaults: Vec<(NodeId, &'w Attribute)>,
    /// The diagnostics so far.
    out: Vec<Diagnostic>,
}

impl<'w> Checker<'w> {
    /// Checks one block of attributes written at `place` (on `node` when
    /// `place` is [`Place::Node`]).
    fn block(
        &mut self,
        place: Place,
        node: Option<(NodeId, &'w Node)>,
        attributes: &'w [Attribute],
    ) {
        for attribute in attributes {
            let Some(spec) = lookup(place, &attribute.key) else {
                if self.spelt.insert(attribute.key_span) {
                    self.out
                        .extend(spelling::check(place, self.format, attribute));
                }
                continue;
            };
            if let Some((id, node)) = node {
                if !applies_to(spec, node.kind) {
                    let diagnostic = placement::misplaced_on_node(node, attribute, spec);
                    self.out.push(diagnostic);
                    continue;
                }
                if matches!(spec.ty, Ty::Choice) {
                    self.defaults.push((id, attribute));
                }
            }
            let site = Site {
                key: &attribute.key,
                span: attribute.value_span,
                fixable: true,
            };
            values::check(site, spec.ty, &attribute.value, &mut self.out);
            if matches!(spec.ty, Ty::Stylesheet) {
                self.out.extend(stylesheet::check(attribute));
            }
            if matches!(spec.ty, Ty::NodeRef) && attribute.key != "entry" {
                self.out
                    .extend(references::retry_target(&mut self.nodes, attribute));
            }
            if attribute.key == "compensate"
                && let Some((_, node)) = node
            {
                self.out
                    .extend(references::compensation(&mut self.nodes, node, attribute));
            }
        }
        placement::aliases(place, attributes, &mut self.out);
    }
}

#[cfg(test)]
mod tests;
