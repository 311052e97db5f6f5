//! The grammar with empty errors: only whether the input is well formed.

#[path = "atoms.rs"]
mod atoms;
#[path = "delimited.rs"]
mod delimited;
#[path = "expr.rs"]
mod expr;
#[path = "items.rs"]
mod items;
#[path = "lookahead.rs"]
mod lookahead;
#[path = "recovery.rs"]
mod recovery;

use chumsky::input::Input as _;
use chumsky::prelude::*;

pub(crate) use super::{CSpan, Custom, In, MAX_DEPTH, State, sp};
use crate::ast::File;
use crate::groups::Groups;
use crate::token::Token;

grammar!(EmptyErr);

/// One of our own errors (its content is not needed: any error makes
/// the caller parse again with [`rich`](super::rich)).
pub(crate) fn custom_error<'a>(_: CSpan, _: Custom) -> Error<'a> {
    EmptyErr::default()
}
