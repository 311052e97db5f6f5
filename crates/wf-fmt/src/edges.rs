//! Edge chains and guard expressions.

use wf_syntax::ast::{Attribute, AttributeBlock, BinOp, EdgeChain, Expr, Statement};

use crate::align::Columns;
use crate::printer::{INDENT, Printer, pad, width};

/// A line of a wrapped edge: indentation, code, source offset reached.
type Wrapped = (usize, String, u32);

impl Printer<'_> {
    /// An edge on one line, when its attribute block can be flat (a comment
    /// elsewhere inside the edge moves to the end of the line).
    pub(crate) fn edge_parts(&self, edge: &EdgeChain) -> Option<EdgeFlat> {
        if let Some(block) = &edge.attributes
            && self.has_comments(block.span.start, block.span.end)
        {
            return None;
        }
        let mut rest: Vec<String> = Vec::new();
        if let Some(guard) = &edge.guard {
            rest.push(format!("when {}", self.flat_expr(guard)));
        }
        if let Some(block) = &edge.attributes {
            rest.push(self.flat_attributes(block)?);
        }
        Some(EdgeFlat {
            chain: self.chain(edge),
            label: edge.label.as_ref().map(|l| self.text(l.span).to_string()),
            rest: (!rest.is_empty()).then(|| rest.join("  ")),
        })
    }

    fn chain(&self, edge: &EdgeChain) -> String {
        let names: Vec<&str> = edge.nodes.iter().map(|n| self.text(n.span)).collect();
        names.join(" -> ")
    }

    /// `{ a = 1  b = 2 }`, when written on one line without comments.
    fn flat_attributes(&self, block: &AttributeBlock) -> Option<String> {
        let Some(first) = block.attributes.first() else {
            return Some("{}".into());
        };
        if self.breaks_between(block.span.start, first.span.start) {
            return None;
        }
        let attrs: Option<Vec<String>> = block
            .attributes
            .iter()
            .map(|a| {
                Some(format!(
                    "{} = {}",
                    self.key(&a.key),
                    self.flat_value(&a.value)?
                ))
            })
            .collect();
        Some(format!("{{ {} }}", attrs?.join("  ")))
    }

    /// The columns of a run of one-line edges: what follows the chains
    /// starts two spaces after the longest chain that has something after
    /// it, and guards after labels two spaces after the longest such label;
    /// when all still fit.
    pub(crate) fn edge_alignment(&self, run: &[Statement]) -> Option<Columns> {
        let flat: Vec<EdgeFlat> = run
            .iter()
            .filter_map(|s| match s {
                Statement::Edge(edge) => self.edge_parts(edge),
                _ => None,
            })
            .collect();
        let first = flat
            .iter()
            .filter(|f| f.label.is_some() || f.rest.is_some())
            .map(|f| width(&f.chain))
            .max()?;
        let second = flat
            .iter()
            .filter_map(|f| f.label.as_deref().filter(|_| f.rest.is_some()))
            .map(width)
            .max()
            .unwrap_or(0);
        let columns = Columns { first, second };
        flat.iter()
            .all(|f| self.fits(&f.line(Some(columns))))
            .then_some(columns)
    }

    /// One edge statement: on one line (aligned with its run) when it fits,
    /// else wrapped: the chain (one `-> node` per line when it is too long
    /// itself) with the label, then `when …` one level deeper (broken
    /// before `||` or `&&` when too long), then the attribute block.
    pub(crate) fn edge(&mut self, edge: &EdgeChain, align: Option<Columns>) {
        if let Some(flat) = self.edge_parts(edge) {
            let line = flat.line(align);
            if self.fits(&line) {
                return self.push(line, edge.span.end);
            }
        }
        let base = self.indent;
        let inner = base + INDENT;
        let mut lines: Vec<Wrapped> = Vec::new();
        let label = edge.label.as_ref().map(|l| (self.text(l.span), l.span.end));
        let chain = self.chain(edge);
        let last_name = edge.nodes.last().map_or(edge.span.end, |n| n.span.end);
        let one_line = match label {
            Some((label, _)) => format!("{chain}  {label}"),
            None => chain,
        };
        if self.fits_at(base, &one_line) || edge.nodes.len() < 2 {
            lines.push((base, one_line, label.map_or(last_name, |l| l.1)));
        } else {
            for (i, name) in edge.nodes.iter().enumerate() {
                let text = self.text(name.span);
                if i == 0 {
                    lines.push((base, text.to_string(), name.span.end));
                } else {
                    lines.push((inner, format!("-> {text}"), name.span.end));
                }
            }
            if let (Some((label, end)), Some(last)) = (label, lines.last_mut()) {
                last.1 = format!("{}  {label}", last.1);
                last.2 = end;
            }
        }
        if let Some(guard) = &edge.guard {
            let flat = format!("when {}", self.flat_expr(guard));
            if self.fits_at(inner, &flat) {
                lines.push((inner, flat, guard.span().end));
            } else {
                self.break_expr(guard, "when ", inner, &mut lines);
            }
        }
        let block = edge.attributes.as_ref();
        if let (Some(block), Some(last)) = (block, lines.last_mut())
            && !self.has_comments(block.span.start, block.span.end)
            && let Some(flat) = self.flat_attributes(block)
            && self.fits_at(last.0, &format!("{}  {flat}", last.1))
        {
            last.1 = format!("{}  {flat}", last.1);
            last.2 = block.span.end;
            return self.push_wrapped(lines, edge.span.end, None);
        }
        self.push_wrapped(lines, edge.span.end, block);
    }

    /// Pushes the lines of a wrapped edge; the last one opens the attribute
    /// block when there is one left to write one entry per line.
    fn push_wrapped(&mut self, mut lines: Vec<Wrapped>, end: u32, block: Option<&AttributeBlock>) {
        let base = self.indent;
        let Some(mut last) = lines.pop() else {
            return;
        };
        for (indent, code, line_end) in lines {
            self.indent = indent;
            self.push(code, line_end);
        }
        self.indent = last.0;
        match block {
            None => self.push(last.1, end),
            Some(block) => {
                last.1.push_str(" {");
                self.push(last.1, block.span.start + 1);
                let close = block.span.end.saturating_sub(1);
                self.block(
                    &block.attributes,
                    close,
                    |a: &Attribute| a.span,
                    |p, _, a| p.attribute(a),
                );
                self.push("}", end);
            }
        }
        self.indent = base;
    }

    /// A guard broken before each operator of its loosest `||` or `&&`
    /// chain, the operators one level deeper; an operand that is itself a
    /// chain and still too long breaks the same way, one level deeper again.
    fn break_expr(&self, expr: &Expr, prefix: &str, indent: usize, out: &mut Vec<Wrapped>) {
        let Expr::Binary(_, op @ (BinOp::Or | BinOp::And), _, _) = expr else {
            out.push((
                indent,
                format!("{prefix}{}", self.flat_expr(expr)),
                expr.span().end,
            ));
            return;
        };
        for (i, operand) in operands(expr, *op).into_iter().enumerate() {
            let (prefix, at) = if i == 0 {
                (prefix.to_string(), indent)
            } else {
                (format!("{} ", op.as_str()), indent + INDENT)
            };
            let flat = format!("{prefix}{}", self.flat_expr(operand));
            let is_chain = matches!(operand, Expr::Binary(_, BinOp::Or | BinOp::And, _, _));
            if self.fits_at(at, &flat) || !is_chain {
                out.push((at, flat, operand.span().end));
            } else {
                self.break_expr(operand, &prefix, at, out);
            }
        }
    }

    /// A guard on one line: operators between single spaces, operands as
    /// written, parentheses kept.
    pub(crate) fn flat_expr(&self, expr: &Expr) -> String {
        match expr {
            Expr::Literal(value) => self.text(value.span()).to_string(),
            Expr::Key(key) => self.key(key),
            Expr::List(items, _) => {
                let items: Vec<String> = items.iter().map(|e| self.flat_expr(e)).collect();
                format!("[{}]", items.join(", "))
            }
            Expr::Exists(key, _) => format!("exists({})", self.key(key)),
            Expr::Not(inner, _) => format!("!{}", self.flat_expr(inner)),
            Expr::Binary(lhs, op, _, rhs) => {
                format!(
                    "{} {} {}",
                    self.flat_expr(lhs),
                    op.as_str(),
                    self.flat_expr(rhs)
                )
            }
            Expr::Paren(inner, _) => format!("({})", self.flat_expr(inner)),
            Expr::Error(span) => self.text(*span).to_string(),
        }
    }
}

/// The operands of a left-nested chain of `op` (`a || b || c` is
/// `(a || b) || c`); a right operand using `op` is parenthesised in the
/// source, so the chain never continues there.
fn operands(expr: &Expr, op: BinOp) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut current = expr;
    while let Expr::Binary(lhs, o, _, rhs) = current
        && *o == op
    {
        out.push(rhs.as_ref());
        current = lhs;
    }
    out.push(current);
    out.reverse();
    out
}

/// An edge laid out on one line: the chain, the label, and the guard and
/// attribute block, each part two spaces from the one before.
pub(crate) struct EdgeFlat {
    chain: String,
    label: Option<String>,
    rest: Option<String>,
}

impl EdgeFlat {
    /// The line, with the chain and label padded to `columns` (or not).
    pub(crate) fn line(&self, columns: Option<Columns>) -> String {
        let first = columns.map_or(width(&self.chain), |c| c.first);
        let second = columns.map_or(0, |c| c.second);
        match (&self.label, &self.rest) {
            (None, None) => self.chain.clone(),
            (Some(label), Some(rest)) => {
                format!(
                    "{}  {}  {rest}",
                    pad(&self.chain, first),
                    pad(label, second)
                )
            }
            (Some(part), None) | (None, Some(part)) => {
                format!("{}  {part}", pad(&self.chain, first))
            }
        }
    }
}
