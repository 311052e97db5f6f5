//! Guard expressions of the hand-written parser (as `expr.rs` of the
//! chumsky grammar), with the depth of every tree.

use super::atoms::str_lit;
use super::{Deep, Hand, R, Stop, bail};
use crate::ast::{BinOp, Expr, Value};
use crate::parser::{CSpan, MAX_DEPTH, sp};
use crate::token::Token;

impl<'a> Hand<'_, 'a> {
    /// `and { || and }`
    pub(super) fn expr(&mut self) -> R<Deep> {
        let mut lhs = self.and()?;
        while self.peek() == Some(Token::OrOr) {
            let op = self.span();
            self.pos += 1;
            let rhs = self.and().map_err(bail)?;
            lhs = binary(lhs, BinOp::Or, op, rhs)?;
        }
        Ok(lhs)
    }

    /// `comparison { && comparison }`
    pub(super) fn and(&mut self) -> R<Deep> {
        let mut lhs = self.comparison()?;
        while self.peek() == Some(Token::AndAnd) {
            let op = self.span();
            self.pos += 1;
            let rhs = self.comparison().map_err(bail)?;
            lhs = binary(lhs, BinOp::And, op, rhs)?;
        }
        Ok(lhs)
    }

    /// `unary [op unary]`: a second operator is an error (no chaining).
    pub(super) fn comparison(&mut self) -> R<Deep> {
        let lhs = self.unary()?;
        let Some(op) = self.peek().and_then(compare_op) else {
            return Ok(lhs);
        };
        let op_span = self.span();
        self.pos += 1;
        let rhs = self.unary().map_err(bail)?;
        if self.peek().and_then(compare_op).is_some() {
            return Err(Stop::Bail);
        }
        binary(lhs, op, op_span, rhs)
    }

    /// `{ ! } operand`
    pub(super) fn unary(&mut self) -> R<Deep> {
        let mut bangs = Vec::new();
        while self.peek() == Some(Token::Bang) {
            bangs.push(self.span());
            self.pos += 1;
        }
        if bangs.is_empty() {
            return self.operand();
        }
        let mut operand = self.operand().map_err(bail)?;
        for bang in bangs.into_iter().rev() {
            let span = sp(bang).to(operand.0.span());
            operand = wrap(Expr::Not(Box::new(operand.0), span), operand.1)?;
        }
        Ok(operand)
    }

    pub(super) fn operand(&mut self) -> R<Deep> {
        if self.at_statement_start() {
            return Err(Stop::Fail);
        }
        let token = self.peek().ok_or(Stop::Fail)?;
        let span = self.span();
        let literal = match token {
            Token::Str(raw) => Value::String(str_lit(raw, span, false)),
            Token::Int(n) => Value::Int(n, sp(span)),
            Token::Float(x) => Value::Float(x, sp(span)),
            Token::Duration(ms) => Value::Duration(ms, sp(span)),
            Token::True => Value::Bool(true, sp(span)),
            Token::False => Value::Bool(false, sp(span)),
            Token::Null => Value::Null(sp(span)),
            Token::BadNumber => {
                self.pos += 1;
                return Ok((Expr::Error(sp(span)), 1));
            }
            Token::Exists => {
                let start = self.pos;
                self.pos += 1;
                // `exists` not followed by `(` leaves a token no rule takes.
                let (key, _) = self
                    .group(Token::LParen, Token::RParen, |p| {
                        if p.at_statement_start() {
                            return Err(Stop::Fail);
                        }
                        p.key_path().or_else(|_| p.backtick_key())
                    })
                    .map_err(bail)?;
                return Ok((Expr::Exists(key, self.span_from(start)), 1));
            }
            Token::Ident(_) => return Ok((Expr::Key(self.key_path()?), 1)),
            Token::Backtick(_) => return Ok((Expr::Key(self.backtick_key()?), 1)),
            Token::LBracket => {
                let (items, span) = self.group(Token::LBracket, Token::RBracket, |p| {
                    p.comma_list(Self::expr)
                })?;
                let depth = items.iter().map(|(_, d)| *d).max().unwrap_or(0);
                let items = items.into_iter().map(|(x, _)| x).collect();
                return wrap(Expr::List(items, span), depth);
            }
            Token::LParen => {
                let ((inner, depth), span) =
                    self.group(Token::LParen, Token::RParen, Self::expr)?;
                return wrap(Expr::Paren(Box::new(inner), span), depth);
            }
            _ => return Err(Stop::Fail),
        };
        self.pos += 1;
        Ok((Expr::Literal(literal), 1))
    }
}

fn compare_op(token: Token<'_>) -> Option<BinOp> {
    Some(match token {
        Token::EqEq => BinOp::Eq,
        Token::NotEq => BinOp::Ne,
        Token::Lt => BinOp::Lt,
        Token::Le => BinOp::Le,
        Token::Gt => BinOp::Gt,
        Token::Ge => BinOp::Ge,
        Token::In => BinOp::In,
        Token::Contains => BinOp::Contains,
        Token::Matches => BinOp::Matches,
        _ => return None,
    })
}

/// Wraps a node around children of depth `child_depth`; deeper than
/// [`MAX_DEPTH`] is an error.
fn wrap(expr: Expr, child_depth: u32) -> R<Deep> {
    if child_depth + 1 > MAX_DEPTH {
        return Err(Stop::Bail);
    }
    Ok((expr, child_depth + 1))
}

fn binary((lhs, ld): Deep, op: BinOp, op_span: CSpan, (rhs, rd): Deep) -> R<Deep> {
    wrap(
        Expr::Binary(Box::new(lhs), op, sp(op_span), Box::new(rhs)),
        ld.max(rd),
    )
}
