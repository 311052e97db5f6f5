//! Where the cursor is, lexically: the brackets still open before it and
//! whether it is inside a string. Completion works on half-typed text, so
//! this reads the characters rather than the parse tree: strings (`"…"`
//! with escapes, `"""…"""`) and comments (`//`, `#` lines in DOT, `/* */`)
//! are skipped, so a brace in a prompt never opens a block.

/// The lexical state at the cursor.
#[derive(Debug, Default, PartialEq)]
pub struct Scan {
    /// Byte offsets of the brackets (`{` or `[`) still open, outermost
    /// first.
    pub open: Vec<(usize, char)>,
    /// When the cursor is inside a string: the offset just after its
    /// opening quote.
    pub in_string: Option<usize>,
}

impl Scan {
    /// The innermost open bracket of kind `bracket`, if it is the innermost
    /// bracket of any kind.
    pub fn innermost(&self, bracket: char) -> Option<usize> {
        self.open
            .last()
            .filter(|(_, c)| *c == bracket)
            .map(|(at, _)| *at)
    }
}

/// Scans `text[..offset]`; `hash_comments` treats `#` at a line start as a
/// comment (DOT's preprocessor lines).
pub fn scan(text: &str, offset: usize, hash_comments: bool) -> Scan {
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut out = Scan::default();
    let mut i = 0;
    let mut line_start = true;
    while i < end {
        let b = bytes[i];
        if bytes[i..].starts_with(b"\"\"\"") {
            let body = i + 3;
            match text[body..].find("\"\"\"") {
                Some(close) if body + close + 3 <= end => i = body + close + 3,
                _ => {
                    out.in_string = Some(body);
                    return out;
                }
            }
        } else if b == b'"' {
            let body = i + 1;
            let mut j = body;
            let mut closed = false;
            while j < end {
                match bytes[j] {
                    b'\\' => j += 2,
                    b'"' => {
                        closed = true;
                        break;
                    }
                    b'\n' if !hash_comments => break, // `.wf` strings end at a newline
                    _ => j += 1,
                }
            }
            if !closed && j >= end {
                out.in_string = Some(body);
                return out;
            }
            i = j + 1;
        } else if bytes[i..].starts_with(b"//") || (hash_comments && line_start && b == b'#') {
            i = text[i..].find('\n').map_or(end, |n| i + n);
        } else if bytes[i..].starts_with(b"/*") {
            i = text[i + 2..].find("*/").map_or(end, |n| i + 2 + n + 2);
        } else {
            match b {
                b'{' => out.open.push((i, '{')),
                b'[' => out.open.push((i, '[')),
                b'}' | b']' => {
                    out.open.pop();
                }
                _ => {}
            }
            i += 1;
        }
        line_start = b == b'\n' || (line_start && (b == b' ' || b == b'\t'));
    }
    out
}

/// The statement an opening bracket at `open` belongs to: the text before
/// it on its line, back to the previous `;`, `{`, `}` or `]` (the line
/// before when the bracket opens a line), trimmed.
pub fn header(text: &str, open: usize) -> &str {
    let mut before = &text[..open.min(text.len())];
    loop {
        let start = before
            .rfind(['{', '}', ';', ']', '\n'])
            .map_or(0, |i| i + 1);
        let header = before[start..].trim();
        let at_line_start = start > 0 && before.as_bytes()[start - 1] == b'\n';
        if !header.is_empty() || !at_line_start {
            return header;
        }
        before = &before[..start - 1];
    }
}

/// The part of the current statement before the cursor, from the last
/// `separators` character (or line start) to `offset`.
pub fn statement<'t>(text: &'t str, offset: usize, separators: &[char]) -> &'t str {
    let before = &text[..offset.min(text.len())];
    let start = before
        .rfind(|c: char| c == '\n' || separators.contains(&c))
        .map_or(0, |i| i + 1);
    &before[start..]
}

/// `statement` without the word being typed (letters, digits, `_`, `.`).
pub fn stem(statement: &str) -> &str {
    statement.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let text = "workflow W { // {\n  step a { prompt = \"{ [\" \n";
        let s = scan(text, text.len(), false);
        assert_eq!(s.open.len(), 2);
        assert_eq!(s.in_string, None);
        assert_eq!(header(text, s.open[1].0), "step a");
    }

    #[test]
    fn an_unclosed_string_is_reported() {
        let text = "a -> b [condition=\"outcome=";
        let s = scan(text, text.len(), true);
        assert_eq!(s.innermost('['), Some(7));
        assert_eq!(s.in_string, Some(19));
        let closed = "a [label=\"x\", ";
        assert_eq!(scan(closed, closed.len(), true).in_string, None);
    }

    #[test]
    fn triple_quoted_strings_span_lines() {
        let text = "step a { prompt = \"\"\"\n { \n\"\"\" ";
        let s = scan(text, text.len(), false);
        assert_eq!(s.open.len(), 1);
        let open = "step a { prompt = \"\"\"\n { ";
        assert!(scan(open, open.len(), false).in_string.is_some());
    }

    #[test]
    fn statement_and_stem() {
        assert_eq!(statement("x\n  a; time", 11, &[';']), " time");
        assert_eq!(stem("  retries = 2  tim"), "  retries = 2  ");
    }
}
