//! Delimiter matching over the whole token stream, done before parsing.
//!
//! Knowing up front where every `{ [ (` group ends lets error recovery skip
//! a bracketed region in one step (so a `}` inside a skipped value never
//! ends the enclosing body), tell an unclosed delimiter from a mismatched
//! one, and do all of it iteratively: no recursion, however deep the input
//! nests.
//!
//! The matching follows the usual token-tree rules: a closer matching the
//! innermost open delimiter closes it; a closer matching a delimiter further
//! out closes that one and leaves every delimiter opened inside it
//! unclosed. A closer matching nothing open is either a typo for the
//! innermost group's closer (a *mismatched* closer) or *stray*: it is taken
//! as mismatched when it is on the opener's line with no proper closer
//! after it on that line (`[1, 2)`, `{ timeout = 5m )`), or when it starts a
//! line indented like the opener's line; otherwise it is stray (`{ x ) }`).

use crate::parser::CSpan;
use crate::token::Token;

/// Which kind of bracket a token is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delim {
    Brace,
    Bracket,
    Paren,
}

impl Delim {
    fn index(self) -> usize {
        self as usize
    }
}

/// The bracket kind of an opening delimiter token.
pub(crate) fn opener(token: &Token<'_>) -> Option<Delim> {
    match token {
        Token::LBrace => Some(Delim::Brace),
        Token::LBracket => Some(Delim::Bracket),
        Token::LParen => Some(Delim::Paren),
        _ => None,
    }
}

/// The bracket kind of a closing delimiter token.
pub(crate) fn closer(token: &Token<'_>) -> Option<Delim> {
    match token {
        Token::RBrace => Some(Delim::Brace),
        Token::RBracket => Some(Delim::Bracket),
        Token::RParen => Some(Delim::Paren),
        _ => None,
    }
}

/// How a group ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Closing {
    /// By its own closer.
    Matched,
    /// By a closer of the wrong kind, taken as its closer.
    Mismatched,
    /// Not at all: the group stops before an outer closer or the end.
    Unclosed,
}

const NONE: u32 = u32::MAX;
const MATCHED: u8 = 1;
const MISMATCHED: u8 = 2;
const STRAY: u8 = 4;

/// The matching of every delimiter in a token stream.
#[derive(Debug, Default)]
pub(crate) struct Groups {
    /// For an opener: the index of its closer, or of the token (or the end of
    /// the stream) at which it was left unclosed. `NONE` for other tokens.
    end: Vec<u32>,
    /// `MATCHED` / `MISMATCHED` for an opener, `STRAY` for a closer.
    flags: Vec<u8>,
}

/// Where each token sits in the text's lines.
struct Lines {
    line: Vec<u32>,
    first_on_line: Vec<bool>,
    /// Bytes before the first token of the token's line.
    indent: Vec<u32>,
    /// Bit set of the closer kinds that follow the token on its line.
    later_closers: Vec<u8>,
}

impl Lines {
    fn new(tokens: &[(Token<'_>, CSpan)], text: &str) -> Lines {
        let n = tokens.len();
        let mut lines = Lines {
            line: Vec::with_capacity(n),
            first_on_line: Vec::with_capacity(n),
            indent: Vec::with_capacity(n),
            later_closers: vec![0; n],
        };
        let (mut line, mut indent, mut prev_start) = (0u32, 0u32, 0usize);
        for (i, (_, span)) in tokens.iter().enumerate() {
            // From the previous token's start, so line breaks inside a
            // multi-line token (a text block) count too.
            let gap = text.get(prev_start..span.start).unwrap_or("");
            let breaks = gap.bytes().filter(|&b| b == b'\n').count() as u32;
            let first = i == 0 || breaks > 0;
            if first {
                line += breaks;
                let line_start = gap.rfind('\n').map_or(prev_start, |p| prev_start + p + 1);
                indent = span.start.saturating_sub(line_start) as u32;
            }
            lines.line.push(line);
            lines.first_on_line.push(first);
            lines.indent.push(indent);
            prev_start = span.start;
        }
        let mut mask = 0u8;
        for i in (0..n).rev() {
            if i + 1 < n && lines.line[i + 1] != lines.line[i] {
                mask = 0;
            }
            lines.later_closers[i] = mask;
            if let Some(kind) = closer(&tokens[i].0) {
                mask |= 1 << kind.index();
            }
        }
        lines
    }

    /// Whether the closer at `close`, matching nothing open, is a typo for
    /// the closer of the group opened at `open` (of kind `kind`).
    fn is_mismatch(&self, open: usize, kind: Delim, close: usize) -> bool {
        if self.line[open] == self.line[close] {
            self.later_closers[close] & (1 << kind.index()) == 0
        } else {
            self.first_on_line[close] && self.indent[close] == self.indent[open]
        }
    }
}

impl Groups {
    /// Matches the delimiters of `tokens`, spans being byte offsets in `text`.
    pub(crate) fn new(tokens: &[(Token<'_>, CSpan)], text: &str) -> Groups {
        let n = tokens.len();
        // Line facts only matter for a closer that matches nothing (an
        // error): computed then, so well-formed input never pays for them.
        let mut lines: Option<Lines> = None;
        let mut groups = Groups {
            end: vec![NONE; n],
            flags: vec![0; n],
        };
        let mut stack: Vec<(usize, Delim)> = Vec::new();
        // How many delimiters of each kind are open: lets a closer matching
        // nothing be recognised without scanning the stack (keeps this linear).
        let mut open = [0usize; 3];
        for (i, (token, _)) in tokens.iter().enumerate() {
            if let Some(kind) = opener(token) {
                stack.push((i, kind));
                open[kind.index()] += 1;
            } else if let Some(kind) = closer(token) {
                if open[kind.index()] == 0 {
                    match stack.last() {
                        Some(&(o, k))
                            if lines
                                .get_or_insert_with(|| Lines::new(tokens, text))
                                .is_mismatch(o, k, i) =>
                        {
                            stack.pop();
                            open[k.index()] -= 1;
                            groups.end[o] = i as u32;
                            groups.flags[o] = MISMATCHED;
                        }
                        _ => groups.flags[i] = STRAY,
                    }
                    continue;
                }
                while let Some((o, k)) = stack.pop() {
                    open[k.index()] -= 1;
                    groups.end[o] = i as u32;
                    if k == kind {
                        groups.flags[o] = MATCHED;
                        break;
                    }
                }
            }
        }
        for (o, _) in stack {
            groups.end[o] = n as u32;
        }
        groups
    }

    /// For the opener at `index`: where its group ends and how.
    pub(crate) fn end(&self, index: usize) -> Option<(usize, Closing)> {
        let end = *self.end.get(index)?;
        let closing = match self.flags[index] {
            MATCHED => Closing::Matched,
            MISMATCHED => Closing::Mismatched,
            _ => Closing::Unclosed,
        };
        (end != NONE).then_some((end as usize, closing))
    }

    /// Whether the closer at `index` closes nothing.
    pub(crate) fn is_stray(&self, index: usize) -> bool {
        self.flags.get(index).is_some_and(|&f| f == STRAY)
    }
}

#[cfg(test)]
mod tests {
    use wf_diagnostics::FileId;

    use super::*;

    fn groups(src: &str) -> Groups {
        let tokens: Vec<_> = crate::lexer::lex(src, FileId(0))
            .tokens
            .into_iter()
            .map(|(t, s)| (t, CSpan::from(s.range())))
            .collect();
        Groups::new(&tokens, src)
    }

    #[test]
    fn matched_unclosed_and_stray() {
        // Tokens: 0 `{`, 1 `[`, 2 x, 3 `}`, 4 `]`, 5 `)`.
        let g = groups("{[x }\n] )");
        assert_eq!(g.end(0), Some((3, Closing::Matched)));
        assert_eq!(g.end(1), Some((3, Closing::Unclosed)));
        assert!(g.is_stray(4) && g.is_stray(5));
        assert!(!g.is_stray(3));
        assert_eq!(g.end(2), None);
    }

    #[test]
    fn mismatched_on_the_same_line() {
        // `{ t = 5m )` then the real closer of the outer group.
        let g = groups("{\n  s { t = 5m )\n  a\n}");
        assert_eq!(g.end(2), Some((6, Closing::Mismatched)));
        assert_eq!(g.end(0), Some((8, Closing::Matched)));
        // A proper closer later on the line makes the wrong one stray.
        let g = groups("{ x ) }");
        assert!(g.is_stray(2));
        assert_eq!(g.end(0), Some((3, Closing::Matched)));
    }

    #[test]
    fn mismatched_by_indentation() {
        let g = groups("  s {\n    x\n  )\n");
        assert_eq!(g.end(1), Some((3, Closing::Mismatched)));
        let g = groups("w {\n  s\n  )\n}");
        assert!(g.is_stray(3));
        assert_eq!(g.end(1), Some((4, Closing::Matched)));
    }

    #[test]
    fn unclosed_at_end_of_input() {
        let g = groups("{(x");
        assert_eq!(g.end(0), Some((3, Closing::Unclosed)));
        assert_eq!(g.end(1), Some((3, Closing::Unclosed)));
    }

    #[test]
    fn deep_nesting_is_linear_and_iterative() {
        let src = "(".repeat(200_000) + &"]".repeat(200_000);
        let g = groups(&src);
        // The first `]` closes the innermost `(` as a typo; the rest close
        // the next ones out.
        assert_eq!(g.end(199_999), Some((200_000, Closing::Mismatched)));
        assert_eq!(g.end(0), Some((399_999, Closing::Mismatched)));
        let src = "(\n".repeat(100_000) + &"]".repeat(100_000);
        let g = groups(&src);
        assert!(g.is_stray(100_001));
        assert_eq!(g.end(0), Some((200_000, Closing::Unclosed)));
    }
}
