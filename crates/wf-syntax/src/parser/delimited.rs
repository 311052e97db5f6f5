//! Bracketed groups: `{ … }`, `[ … ]`, `( … )` with every delimiter
//! problem recovered from, driven by the [`Groups`](crate::groups::Groups)
//! pre-pass.

use chumsky::input::InputRef;
use chumsky::prelude::*;
use wf_diagnostics::codes;

use super::recovery::{expected, pos, skip_to, span_at, token_at};
use super::{CSpan, Custom, Extra, In, MAX_DEPTH, P, custom_error, sp};
use crate::groups::{Closing, closer};
use crate::token::Token;

type Inp<'a, 'p> = InputRef<'a, 'p, In<'a>, Extra<'a>>;

/// How a bracketed group treats junk before its closing bracket.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Flavour {
    /// Values and expressions: any error inside makes the whole group an
    /// error node (`None`).
    Strict,
    /// Bodies: entries recover one by one, so whatever parsed is kept.
    Block,
}

/// Parses `open inner close`, recovering from every delimiter problem:
///
/// - an error inside a closed group is reported, the rest of the group is
///   skipped and parsing resumes after its closer;
/// - a group the pre-pass found closed by the wrong kind of bracket is
///   reported as mismatched (WF0004), and that bracket taken as its closer;
/// - a group the pre-pass found unclosed is reported (WF0004, pointing at the
///   opener) where its closer was expected, and parsing resumes there;
/// - a stray closer where an unclosed group's closer was expected is
///   likewise reported as mismatched and taken as its closer;
/// - a group nested deeper than [`MAX_DEPTH`] is reported and skipped
///   without parsing its contents.
///
/// Only a missing opener fails. The output is `None` when the contents
/// were skipped, with the span of the whole group.
pub(super) fn group<'a, O: 'a>(
    open: Token<'static>,
    close: Token<'static>,
    flavour: Flavour,
    inner: impl P<'a, O>,
) -> impl P<'a, (Option<O>, CSpan)> {
    custom(move |inp: &mut Inp<'a, '_>| {
        let start = pos(inp);
        if token_at(inp, start) != Some(open) {
            return Err(expected(inp, start, &[open]));
        }
        let before = inp.cursor();
        let open_span = span_at(inp, start);
        inp.next();
        let n = inp.state().tokens.len();
        let (end, closing) = inp
            .state()
            .groups
            .end(start)
            .unwrap_or((n, Closing::Unclosed));

        if inp.state().depth >= MAX_DEPTH {
            let error = Custom {
                code: &codes::UNEXPECTED_TOKEN,
                message: format!("brackets are nested more than {MAX_DEPTH} levels deep"),
                label: "this bracket is too deep to parse".into(),
                secondary: Vec::new(),
                help: Some("flatten the value or expression".into()),
            };
            inp.emit(custom_error(open_span, error));
            skip_to(inp, end);
            if closing != Closing::Unclosed {
                inp.next();
            }
            return Ok((None, inp.span_since(&before)));
        }

        inp.state().depth += 1;
        let checkpoint = inp.save();
        let mut output = match inp.parse(&inner) {
            Ok(output) => Some(output),
            Err(error) => {
                inp.rewind(checkpoint);
                inp.emit(error);
                if closing != Closing::Unclosed {
                    skip_to(inp, end);
                }
                None
            }
        };
        inp.state().depth -= 1;

        let at = pos(inp);
        let found = token_at(inp, at);
        if found == Some(close) {
            inp.next();
            return Ok((output, inp.span_since(&before)));
        }
        if closing != Closing::Unclosed && at < end {
            // Junk between the contents and the group's closer.
            let checkpoint = inp.save();
            let error = inp.parse(just(close)).err();
            inp.rewind(checkpoint);
            if let Some(error) = error {
                inp.emit(error);
            }
            skip_to(inp, end);
            if flavour == Flavour::Strict {
                output = None;
            }
        }
        let at = pos(inp);
        let found = token_at(inp, at);
        let found_span = span_at(inp, at);
        let is_stray =
            found.is_some_and(|t| closer(&t).is_some()) && inp.state().groups.is_stray(at);
        if found == Some(close) {
            inp.next();
        } else if closing == Closing::Mismatched || is_stray {
            let error = Custom {
                code: &codes::UNCLOSED_DELIMITER,
                message: format!(
                    "mismatched closing delimiter: expected `{close}`, found `{}`",
                    found.map(|t| t.to_string()).unwrap_or_default()
                ),
                label: format!("expected `{close}`"),
                secondary: vec![(
                    sp(open_span),
                    format!("this `{open}` is closed by the wrong bracket"),
                )],
                help: None,
            };
            inp.emit(custom_error(found_span, error));
            inp.next();
        } else {
            let label = match found {
                None => format!("expected `{close}` before the end of the file"),
                Some(t) => format!("expected `{close}` before `{t}`"),
            };
            let error = Custom {
                code: &codes::UNCLOSED_DELIMITER,
                message: format!("unclosed `{open}`"),
                label,
                secondary: vec![(sp(open_span), format!("this `{open}` is never closed"))],
                help: Some(format!("add `{close}` where the group should end")),
            };
            inp.emit(custom_error(found_span, error));
        }
        Ok((output, inp.span_since(&before)))
    })
}
