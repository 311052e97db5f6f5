//! Guard expressions, loosest first: `||`, `&&`, comparisons (including
//! `in`, `contains`, `matches`; non-associative), prefix `!`, operands.
//!
//! Every sub-expression is built together with the depth of its tree. A
//! tree that would grow deeper than [`MAX_DEPTH`] (`!!!!…x` or a very long
//! `a || b || …` chain) is reported once and replaced by an error node, so
//! nothing that later walks the tree recursively can overflow the stack.

use chumsky::input::MapExtra;
use chumsky::prelude::*;
use wf_diagnostics::codes;

use super::atoms::{backtick_key, key_path, str_lit};
use super::delimited::{Flavour, group};
use super::lookahead::not_statement_start;
use super::recovery::{expected, pos, span_at, token_at};
use super::{CSpan, Custom, Extra, In, MAX_DEPTH, P, custom_error, sp};
use crate::ast::{BinOp, Expr, Value};
use crate::token::Token;

/// Depth marker of a subtree already replaced because it was too deep: its
/// parents become error nodes silently, so the problem is reported once.
const CAPPED: u32 = u32::MAX;

/// An expression with the depth of its tree.
type Deep = (Expr, u32);

fn too_deep<'a>(span: CSpan, e: &mut MapExtra<'a, '_, In<'a>, Extra<'a>>) {
    e.emit(custom_error(
        span,
        Custom {
            code: &codes::UNEXPECTED_TOKEN,
            message: format!("guard expression is nested more than {MAX_DEPTH} levels deep"),
            label: "this expression is too deep to parse".into(),
            secondary: Vec::new(),
            help: Some("split the condition or use fewer operators".into()),
        },
    ));
}

/// Wraps a node around children of depth `child_depth`, enforcing the limit.
fn wrap<'a>(expr: Expr, child_depth: u32, e: &mut MapExtra<'a, '_, In<'a>, Extra<'a>>) -> Deep {
    let span = expr.span();
    if child_depth == CAPPED {
        (Expr::Error(span), CAPPED)
    } else if child_depth + 1 > MAX_DEPTH {
        too_deep(CSpan::from(span.range()), e);
        (Expr::Error(span), CAPPED)
    } else {
        (expr, child_depth + 1)
    }
}

fn binary<'a>(
    (lhs, ld): Deep,
    op: BinOp,
    op_span: CSpan,
    (rhs, rd): Deep,
    e: &mut MapExtra<'a, '_, In<'a>, Extra<'a>>,
) -> Deep {
    let depth = if ld == CAPPED || rd == CAPPED {
        CAPPED
    } else {
        ld.max(rd)
    };
    wrap(
        Expr::Binary(Box::new(lhs), op, sp(op_span), Box::new(rhs)),
        depth,
        e,
    )
}

/// One or more `!`, with their spans.
/// (Hand-written so that the `!` it stops before is not listed as
/// "expected" in the error for a missing operand.)
fn bangs<'a>() -> impl P<'a, Vec<CSpan>> {
    custom(|inp| {
        let start = pos(inp);
        let mut spans = Vec::new();
        while token_at(inp, pos(inp)) == Some(Token::Bang) {
            spans.push(span_at(inp, pos(inp)));
            inp.next();
        }
        if spans.is_empty() {
            Err(expected(inp, start, &[Token::Bang]))
        } else {
            Ok(spans)
        }
    })
}

/// Stands in for a missing operand without consuming anything: an error
/// node at the next token.
fn missing<'a>() -> impl P<'a, Deep> {
    custom(|inp| {
        let at = span_at(inp, pos(inp)).start;
        Ok((Expr::Error(wf_diagnostics::Span::new(at, at)), 1))
    })
}

/// A guard expression.
pub(super) fn guard<'a>() -> impl P<'a, Expr> {
    let expr = recursive(|expr| {
        let literal = select! {
            Token::Str(raw) = e => Expr::Literal(Value::String(str_lit(raw, e.span(), false))),
            Token::Int(n) = e => Expr::Literal(Value::Int(n, sp(e.span()))),
            Token::Float(x) = e => Expr::Literal(Value::Float(x, sp(e.span()))),
            Token::Duration(ms) = e => Expr::Literal(Value::Duration(ms, sp(e.span()))),
            Token::True = e => Expr::Literal(Value::Bool(true, sp(e.span()))),
            Token::False = e => Expr::Literal(Value::Bool(false, sp(e.span()))),
            Token::Null = e => Expr::Literal(Value::Null(sp(e.span()))),
            // Already reported by the lexer.
            Token::BadNumber = e => Expr::Error(sp(e.span())),
        }
        .map(|expr| (expr, 1));

        let key = key_path().or(backtick_key()).map(|k| (Expr::Key(k), 1));

        let exists = just(Token::Exists)
            .ignore_then(group(
                Token::LParen,
                Token::RParen,
                Flavour::Strict,
                not_statement_start()
                    .ignore_then(key_path().or(backtick_key()))
                    .labelled("a key"),
            ))
            .map_with(|(key, _), e| {
                let span = sp(e.span());
                (key.map_or(Expr::Error(span), |k| Expr::Exists(k, span)), 1)
            });

        let list = group(
            Token::LBracket,
            Token::RBracket,
            Flavour::Strict,
            expr.clone()
                .separated_by(just(Token::Comma))
                .allow_trailing()
                .collect::<Vec<Deep>>(),
        )
        .map_with(|(items, span), e| match items {
            Some(items) => {
                let depth = items.iter().map(|(_, d)| *d).max().unwrap_or(0);
                let items = items.into_iter().map(|(x, _)| x).collect();
                wrap(Expr::List(items, sp(span)), depth, e)
            }
            None => (Expr::Error(sp(span)), 1),
        });

        let paren = group(Token::LParen, Token::RParen, Flavour::Strict, expr.clone()).map_with(
            |(inner, span), e| match inner {
                Some((inner, depth)) => wrap(Expr::Paren(Box::new(inner), sp(span)), depth, e),
                None => (Expr::Error(sp(span)), 1),
            },
        );

        // `a -> b when x ==` (newline) `c -> d`: the start of the next
        // statement is never the missing right-hand side.
        let operand = not_statement_start()
            .ignore_then(choice((literal, exists, key, list, paren)))
            .labelled("an expression");

        // Prefix `!` is collected, not recursed into: `!!!!…` cannot deepen
        // the parser's stack. After a `!` the operand is required; when it
        // is missing the error is reported and an error node stands in, so
        // the edge keeps its guard.
        let negated = bangs().then(operand.clone().recover_with(via_parser(missing())));
        let unary = negated
            .or(operand.map(|operand| (Vec::new(), operand)))
            .map_with(|(bangs, mut operand), e| {
                for bang in bangs.into_iter().rev() {
                    let span = sp(bang).to(operand.0.span());
                    operand = wrap(Expr::Not(Box::new(operand.0), span), operand.1, e);
                }
                operand
            })
            .labelled("an expression");
        // The right-hand side of a binary operator, likewise required.
        let rhs = unary.clone().recover_with(via_parser(missing()));

        let compare_op = select! {
            Token::EqEq => BinOp::Eq,
            Token::NotEq => BinOp::Ne,
            Token::Lt => BinOp::Lt,
            Token::Le => BinOp::Le,
            Token::Gt => BinOp::Gt,
            Token::Ge => BinOp::Ge,
            Token::In => BinOp::In,
            Token::Contains => BinOp::Contains,
            Token::Matches => BinOp::Matches,
        }
        .map_with(|op, e| (op, e.span()));

        // Comparisons do not chain; a chain is still parsed (left to right)
        // so that one clear error is reported instead of a cascade.
        let comparison = unary
            .clone()
            .then(compare_op.then(rhs.clone()).repeated().collect::<Vec<_>>())
            .map_with(|(first, rest), e| {
                // After a missing operand (`a == == b`) the second operator
                // is part of the same mistake, already reported.
                let missing_operand =
                    matches!(&rest[..], [(_, (Expr::Error(s), _)), ..] if s.is_empty());
                if let (Some(((op, span), _)), false) = (rest.get(1), missing_operand) {
                    e.emit(custom_error(
                        *span,
                        Custom {
                            code: &codes::UNEXPECTED_TOKEN,
                            message: format!(
                                "comparison operators cannot be chained: unexpected `{}`",
                                op.as_str()
                            ),
                            label: "a second comparison operator".into(),
                            secondary: Vec::new(),
                            help: Some(
                                "combine comparisons with `&&` or `||`, or add parentheses".into(),
                            ),
                        },
                    ));
                }
                rest.into_iter().fold(first, |lhs, ((op, span), rhs)| {
                    binary(lhs, op, span, rhs, e)
                })
            });

        let and = comparison.clone().foldl_with(
            just(Token::AndAnd)
                .map_with(|_, e| e.span())
                .then(comparison.clone().recover_with(via_parser(missing())))
                .repeated(),
            |lhs, (span, rhs), e| binary(lhs, BinOp::And, span, rhs, e),
        );

        and.clone()
            .foldl_with(
                just(Token::OrOr)
                    .map_with(|_, e| e.span())
                    .then(and.clone().recover_with(via_parser(missing())))
                    .repeated(),
                |lhs, (span, rhs), e| binary(lhs, BinOp::Or, span, rhs, e),
            )
            .boxed()
    });
    expr.map(|(expr, _)| expr).labelled("a guard expression")
}
