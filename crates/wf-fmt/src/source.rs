//! Questions about the source around a node: where comments, blank lines,
//! line breaks and syntax errors are.

use wf_diagnostics::Span;
use wf_syntax::TriviaKind;

use crate::printer::Printer;

impl Printer<'_> {
    /// Index of the first trivia entry starting at or after `pos`.
    pub(crate) fn trivia_from(&self, pos: u32) -> usize {
        self.trivia.partition_point(|t| t.span.start < pos)
    }

    /// Whether a comment starts in `start..end`.
    pub(crate) fn has_comments(&self, start: u32, end: u32) -> bool {
        self.trivia[self.trivia_from(start)..]
            .iter()
            .take_while(|t| t.span.start < end)
            .any(|t| t.kind != TriviaKind::BlankLines)
    }

    /// Whether a doc comment (`///`) lies strictly inside `span`. Laying out
    /// such a statement could move the comment to the end of a line, where
    /// it would document the next statement instead of nothing.
    pub(crate) fn has_doc_comment_inside(&self, span: Span) -> bool {
        self.trivia[self.trivia_from(span.start)..]
            .iter()
            .take_while(|t| t.span.start < span.end)
            .any(|t| t.kind == TriviaKind::DocComment)
    }

    /// Whether the line of a statement spanning `span` would carry a line
    /// comment followed by another comment (its interior comments move to
    /// its end, before its trailing ones): the later ones then go on lines
    /// of their own, which ends an aligned run just as a comment line does.
    pub(crate) fn overflows(&self, span: Span) -> bool {
        let mut line_comment_seen = false;
        let mut pos = span.end;
        for t in &self.trivia[self.trivia_from(span.start)..] {
            if t.kind == TriviaKind::BlankLines {
                if t.span.start >= span.end {
                    break;
                }
                continue;
            }
            if t.span.start >= span.end {
                let gap = self.src.get(pos as usize..t.span.start as usize);
                if !gap.is_some_and(|g| g.bytes().all(|b| matches!(b, b' ' | b'\t' | b',' | b';')))
                {
                    break;
                }
                pos = t.span.end;
            }
            if line_comment_seen {
                return true;
            }
            line_comment_seen = self.text(t.span).starts_with("//");
        }
        false
    }

    /// Whether nothing but same-line comments (no blank line, no comment on
    /// a line of its own) lies between two statements: they can be aligned.
    pub(crate) fn adjacent(&self, prev_end: u32, next_start: u32) -> bool {
        self.trivia[self.trivia_from(prev_end)..]
            .iter()
            .take_while(|t| t.span.start < next_start)
            .all(|t| {
                t.kind != TriviaKind::BlankLines
                    && !self
                        .src
                        .get(prev_end as usize..t.span.start as usize)
                        .is_none_or(|gap| gap.contains('\n'))
            })
    }

    /// Whether the source has a line break between `start` and `end`.
    pub(crate) fn breaks_between(&self, start: u32, end: u32) -> bool {
        self.src
            .get(start as usize..end as usize)
            .is_some_and(|s| s.contains('\n'))
    }

    /// Whether a syntax error (forced mode) starts inside `span` or right at
    /// its end.
    pub(crate) fn has_error(&self, span: Span) -> bool {
        self.errors_in(span).next().is_some()
    }

    /// The syntax errors starting in `span` (its end included). `errors`
    /// is sorted by start, as the parser reports them.
    pub(crate) fn errors_in(&self, span: Span) -> impl Iterator<Item = &Span> {
        let from = self.errors.partition_point(|e| e.start < span.start);
        self.errors[from..]
            .iter()
            .take_while(move |e| e.start <= span.end)
    }

    /// Whether a syntax error inside `span` lies outside all of `inner`
    /// (spans in source order, not overlapping).
    pub(crate) fn has_error_outside(&self, span: Span, inner: &[Span]) -> bool {
        self.errors_in(span).any(|e| {
            let before = inner.partition_point(|s| s.start <= e.start);
            !(before > 0 && e.start <= inner[before - 1].end)
        })
    }

    /// The first offset at or after `pos` that is not whitespace or a comment.
    pub(crate) fn skip_trivia(&self, mut pos: u32) -> u32 {
        let bytes = self.src.as_bytes();
        loop {
            while (pos as usize) < bytes.len() && bytes[pos as usize].is_ascii_whitespace() {
                pos += 1;
            }
            let i = self.trivia_from(pos);
            match self.trivia.get(i) {
                Some(t) if t.span.start == pos && t.kind != TriviaKind::BlankLines => {
                    pos = t.span.end;
                }
                _ => return pos,
            }
        }
    }

    /// The offset of `byte` when it is the next token after `pos`.
    pub(crate) fn next_is(&self, pos: u32, byte: u8) -> Option<u32> {
        let at = self.skip_trivia(pos);
        (self.src.as_bytes().get(at as usize) == Some(&byte)).then_some(at)
    }
}
