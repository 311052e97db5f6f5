//! The grammar with full errors, for diagnostics.

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

grammar!(super::Error<'a>);

/// One of our own errors.
pub(crate) fn custom_error<'a>(span: CSpan, error: Custom) -> Error<'a> {
    Rich::custom(span, error)
}
