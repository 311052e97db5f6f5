//! Lowering of attribute values and guard expressions.

use wf_diagnostics::FileId;
use wf_model as model;
use wf_syntax::ast;

/// Lowers an attribute value; `None` for a value that failed to parse (the
/// parser reported it). Failed elements of lists and maps are dropped.
pub fn lower_value(value: &ast::Value) -> Option<model::Value> {
    Some(match value {
        ast::Value::String(s) => model::Value::String(s.value.clone()),
        ast::Value::Int(i, _) => model::Value::Int(*i),
        ast::Value::Float(f, _) => model::Value::Float(*f),
        ast::Value::Duration(ms, _) => model::Value::Duration(*ms),
        ast::Value::Bool(b, _) => model::Value::Bool(*b),
        ast::Value::Null(_) => model::Value::Null,
        ast::Value::Path(key) => model::Value::Ref(key.text.clone()),
        ast::Value::List(items, _) => {
            model::Value::List(items.iter().filter_map(lower_value).collect())
        }
        ast::Value::Map(entries, _) => model::Value::Map(
            entries
                .iter()
                .filter_map(|e| lower_value(&e.value).map(|v| (e.key.text.clone(), v)))
                .collect(),
        ),
        ast::Value::Error(_) => return None,
    })
}

/// Lowers `key = value`; `None` when the value failed to parse.
pub fn lower_attribute(attr: &ast::Attribute, file: FileId) -> Option<model::Attribute> {
    Some(model::Attribute {
        key: attr.key.text.clone(),
        key_span: attr.key.span.in_file(file),
        value: lower_value(&attr.value)?,
        value_span: attr.value.span().in_file(file),
    })
}

/// Lowers a guard expression. Parentheses disappear (the tree shape keeps
/// the grouping); a literal that failed to parse becomes [`model::Expr::Error`].
pub fn lower_expr(expr: &ast::Expr, file: FileId) -> model::Expr {
    match expr {
        ast::Expr::Literal(v) => match lower_value(v) {
            Some(value) => model::Expr::Literal(value, v.span().in_file(file)),
            None => model::Expr::Error(v.span().in_file(file)),
        },
        // A backtick key is always a key, even when spelled like a built-in.
        ast::Expr::Key(k) if k.quoted => model::Expr::Key(k.text.clone(), k.span.in_file(file)),
        ast::Expr::Key(k) => model::Expr::Name(k.text.clone(), k.span.in_file(file)),
        ast::Expr::List(items, span) => model::Expr::List(
            items.iter().map(|e| lower_expr(e, file)).collect(),
            span.in_file(file),
        ),
        ast::Expr::Exists(k, span) => model::Expr::Exists(k.text.clone(), span.in_file(file)),
        ast::Expr::Not(e, span) => {
            model::Expr::Not(Box::new(lower_expr(e, file)), span.in_file(file))
        }
        ast::Expr::Binary(l, op, _, r) => model::Expr::Binary(
            Box::new(lower_expr(l, file)),
            lower_op(*op),
            Box::new(lower_expr(r, file)),
            expr.span().in_file(file),
        ),
        ast::Expr::Paren(e, _) => lower_expr(e, file),
        ast::Expr::Error(span) => model::Expr::Error(span.in_file(file)),
    }
}

fn lower_op(op: ast::BinOp) -> model::BinOp {
    match op {
        ast::BinOp::Or => model::BinOp::Or,
        ast::BinOp::And => model::BinOp::And,
        ast::BinOp::Eq => model::BinOp::Eq,
        ast::BinOp::Ne => model::BinOp::Ne,
        ast::BinOp::Lt => model::BinOp::Lt,
        ast::BinOp::Le => model::BinOp::Le,
        ast::BinOp::Gt => model::BinOp::Gt,
        ast::BinOp::Ge => model::BinOp::Ge,
        ast::BinOp::In => model::BinOp::In,
        ast::BinOp::Contains => model::BinOp::Contains,
        ast::BinOp::Matches => model::BinOp::Matches,
    }
}

/// The model's node kind for a syntax node kind.
pub fn lower_kind(kind: ast::NodeKind) -> model::NodeKind {
    match kind {
        ast::NodeKind::Step => model::NodeKind::Step,
        ast::NodeKind::Human => model::NodeKind::Human,
        ast::NodeKind::Tool => model::NodeKind::Tool,
        ast::NodeKind::Call => model::NodeKind::Call,
        ast::NodeKind::Branch => model::NodeKind::Branch,
        ast::NodeKind::Parallel => model::NodeKind::Parallel,
        ast::NodeKind::Join => model::NodeKind::Join,
        ast::NodeKind::Exit => model::NodeKind::Exit,
    }
}
