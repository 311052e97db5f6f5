//! Alignment of runs of similar statements: edges whose labels and guards
//! line up, and one-line node declarations whose bodies do.

use wf_syntax::ast::{NodeKind, Statement};

use crate::items::{node_line, statement_span};
use crate::printer::{Printer, width};

impl Printer<'_> {
    /// Alignment columns for the statements of a workflow body: in a run of
    /// consecutive edges (or node declarations of one kind) that each fit on one line,
    /// with nothing but same-line comments between them, what follows the
    /// node chain (or the `{` of a one-line body) starts in one column.
    pub(crate) fn alignments(&self, body: &[Statement]) -> Vec<Option<Columns>> {
        let mut out = vec![None; body.len()];
        let mut i = 0;
        while i < body.len() {
            let Some(kind) = self.alignable(&body[i]) else {
                i += 1;
                continue;
            };
            let mut j = i + 1;
            while j < body.len()
                && self.alignable(&body[j]) == Some(kind)
                && !self.overflows(statement_span(&body[j - 1]))
                && self.adjacent(
                    statement_span(&body[j - 1]).end,
                    statement_span(&body[j]).start,
                )
            {
                j += 1;
            }
            let column = match kind {
                Alignable::Edge => self.edge_alignment(&body[i..j]),
                Alignable::Node(_) => self.node_alignment(&body[i..j]),
            };
            for slot in &mut out[i..j] {
                *slot = column;
            }
            i = j;
        }
        out
    }

    fn alignable(&self, statement: &Statement) -> Option<Alignable> {
        let span = statement_span(statement);
        if self.has_error(span) || self.has_doc_comment_inside(span) {
            return None;
        }
        match statement {
            Statement::Edge(edge) => {
                // Comments inside move to the end of the line: they do not
                // keep an edge out of its run (or the next pass would differ).
                let flat = self.edge_parts(edge)?;
                self.fits(&flat.line(None)).then_some(Alignable::Edge)
            }
            Statement::Node(node) => {
                let (head, body) = self.node_flat(node)?;
                self.fits(&node_line(&head, body.as_deref(), width(&head)))
                    .then_some(Alignable::Node(node.kind))
            }
            _ => None,
        }
    }

    /// The column of `{` in a run of one-line node declarations, when all
    /// still fit aligned.
    fn node_alignment(&self, run: &[Statement]) -> Option<Columns> {
        let flat: Vec<(String, Option<String>)> = run
            .iter()
            .filter_map(|s| match s {
                Statement::Node(node) => self.node_flat(node),
                _ => None,
            })
            .collect();
        let column = flat
            .iter()
            .filter(|(_, body)| body.is_some())
            .map(|(head, _)| width(head))
            .max()?;
        flat.iter()
            .all(|(head, body)| self.fits(&node_line(head, body.as_deref(), column)))
            .then_some(Columns {
                first: column,
                second: 0,
            })
    }
}

/// What a run of aligned statements is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Alignable {
    Edge,
    /// Declarations of one kind (a run of `exit`s, say).
    Node(NodeKind),
}

/// Alignment columns of a statement in an aligned run: for an edge, where
/// what follows the chain starts and how wide the label column is (when a
/// guard follows it); for a node, where the `{` of its body goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Columns {
    /// Width the chain (or node head) is padded to.
    pub(crate) first: usize,
    /// Width the label is padded to before a guard.
    pub(crate) second: usize,
}
