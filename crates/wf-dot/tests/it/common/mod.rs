//! A compact text dump of a lowered program and its diagnostics, for
//! snapshots. Spans are shown as `@start..end` byte ranges.

#![allow(dead_code)] // each test module uses its own subset

use std::fmt::Write;

use wf_diagnostics::{Diagnostic, FileSpan};
use wf_model::{Expr, Program, Value};

fn at(span: FileSpan) -> String {
    format!("@{}..{}", span.span.start, span.span.end)
}

fn value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Duration(ms) => format!("{ms}ms"),
        Value::Int(i) => format!("int {i}"),
        Value::Bool(b) => format!("bool {b}"),
        other => format!("{other:?}"),
    }
}

/// An s-expression of a guard.
pub fn expr(e: &Expr) -> String {
    match e {
        Expr::Literal(v, s) => format!("{}{}", value(v), at(*s)),
        Expr::Name(n, s) => format!("name:{n}{}", at(*s)),
        Expr::Key(k, s) => format!("key:{k}{}", at(*s)),
        Expr::List(items, s) => format!(
            "[{}]{}",
            items.iter().map(expr).collect::<Vec<_>>().join(" "),
            at(*s)
        ),
        Expr::Exists(k, s) => format!("(exists {k}){}", at(*s)),
        Expr::Not(inner, s) => format!("(! {}){}", expr(inner), at(*s)),
        Expr::Binary(l, op, r, s) => {
            format!("({} {} {}){}", op.as_str(), expr(l), expr(r), at(*s))
        }
        Expr::Error(s) => format!("<error>{}", at(*s)),
    }
}

/// The whole program, then the diagnostics.
pub fn dump(program: &Program, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for w in &program.workflows {
        let entry = match &w.entry {
            Some((name, span)) => format!("{name}{}", at(*span)),
            None => "none".into(),
        };
        writeln!(
            out,
            "workflow {}{} {:?} entry={entry} incomplete={}",
            w.name,
            at(w.name_span),
            w.format,
            w.incomplete
        )
        .unwrap();
        for a in &w.attributes {
            writeln!(
                out,
                "  {}{} = {}{}",
                a.key,
                at(a.key_span),
                value(&a.value),
                at(a.value_span)
            )
            .unwrap();
        }
        for n in &w.nodes {
            let label = n
                .label
                .as_deref()
                .map_or(String::new(), |l| format!(" label={l:?}"));
            let implicit = if n.implicit { " implicit" } else { "" };
            writeln!(
                out,
                "  node {}{} {}{implicit}{label}",
                n.name,
                at(n.name_span),
                n.kind.as_str()
            )
            .unwrap();
            for a in &n.attributes {
                writeln!(
                    out,
                    "    {}{} = {}{}",
                    a.key,
                    at(a.key_span),
                    value(&a.value),
                    at(a.value_span)
                )
                .unwrap();
            }
        }
        for e in &w.edges {
            let from = &w.node(e.from).name;
            let to = &w.node(e.to).name;
            let label = match (&e.label, e.label_span) {
                (Some(l), Some(s)) => format!(" label={l:?}{}", at(s)),
                _ => String::new(),
            };
            writeln!(out, "  edge {from} -> {to}{}{label}", at(e.span)).unwrap();
            if let Some(g) = &e.guard {
                writeln!(out, "    when {}", expr(&g.expr)).unwrap();
            }
            for a in &e.attributes {
                writeln!(
                    out,
                    "    {}{} = {}{}",
                    a.key,
                    at(a.key_span),
                    value(&a.value),
                    at(a.value_span)
                )
                .unwrap();
            }
        }
    }
    if !diagnostics.is_empty() {
        out.push_str("diagnostics:\n");
    }
    for d in diagnostics {
        writeln!(
            out,
            "  {}[{}]{} {} ({})",
            d.severity.as_str(),
            d.code.code,
            at(d.primary.location),
            d.message,
            d.primary.message
        )
        .unwrap();
    }
    out
}
