//! Where each `${key}` of a tool command sits in the POSIX shell script it
//! becomes, so `wfc run` can write a *reference* to the value there.
//!
//! Values never enter the script's text: the runtime passes each one in an
//! environment variable and writes a reference to that variable in place of
//! the interpolation. The reference form depends on the shell context:
//!
//! | context | reference |
//! |---|---|
//! | outside quotes | `"${NAME}"` ([`Slot::Word`]) |
//! | inside `"…"`, or an unquoted here-document body | `${NAME}` ([`Slot::Expanding`]) |
//! | inside `'…'` | `'"${NAME}"'` ([`Slot::SingleQuoted`]) |
//!
//! Each form is balanced in every context (it opens no quote it does not
//! close), so the script's structure does not depend on the values, and a
//! context this scanner gets wrong yields a wrong literal, never code. A
//! few contexts are refused ([`Refusal`]): where the shell never expands a
//! variable, where a backslash or `$` would change how the reference reads,
//! where quoting rules are not tracked, and where bash evaluates a value as
//! code (arithmetic and `[[ … ]]`).
//!
//! The checker (`wf-analysis`, which reports refusals as diagnostics) and
//! the runtime (`wf-vm`, which writes the references) share this crate; it
//! depends on nothing, so the runtime links no front end for it.

/// A piece of a command: literal script text, or an interpolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Script text, as the shell reads it.
    Text(&'a str),
    /// An interpolated value.
    Key,
}

/// How a value can be referenced at an interpolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Outside quotes: a double-quoted reference, one word.
    Word,
    /// Inside `"…"` or an unquoted here-document body: a bare reference.
    Expanding,
    /// Inside `'…'`: close the quote, a double-quoted reference, reopen.
    SingleQuoted,
    /// No reference can be written here.
    Refused(Refusal),
}

/// Why a value cannot be referenced at an interpolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Inside a `#` comment.
    Comment,
    /// Inside a here-document whose delimiter is quoted (`<<'EOF'`).
    QuotedHereDoc,
    /// In the delimiter word of a here-document.
    HereDocDelimiter,
    /// Right after a `\` or a `$`, which would join with the reference.
    Escaped,
    /// Inside backquotes.
    Backquote,
    /// Inside `${…}` or `$'…'`.
    Untracked,
    /// Inside `$((…))`, `((…))` or `[[ … ]]`.
    Evaluated,
}

impl Refusal {
    /// Every refusal.
    pub const ALL: [Refusal; 7] = [
        Refusal::Comment,
        Refusal::QuotedHereDoc,
        Refusal::HereDocDelimiter,
        Refusal::Escaped,
        Refusal::Backquote,
        Refusal::Untracked,
        Refusal::Evaluated,
    ];

    /// The code of the diagnostic that reports it (`WF0511` to `WF0513`,
    /// registered in `wf_diagnostics::codes`, which this crate does not
    /// link).
    pub fn code(self) -> &'static str {
        match self {
            Refusal::Comment | Refusal::QuotedHereDoc => "WF0511",
            Refusal::Evaluated => "WF0513",
            Refusal::HereDocDelimiter
            | Refusal::Escaped
            | Refusal::Backquote
            | Refusal::Untracked => "WF0512",
        }
    }

    /// Where the interpolation is, completing "the interpolation is …".
    pub fn place(self) -> &'static str {
        match self {
            Refusal::Comment => "inside a shell comment, where the shell expands nothing",
            Refusal::QuotedHereDoc => {
                "inside a here-document with a quoted delimiter (`<<'EOF'`), where the shell expands nothing"
            }
            Refusal::HereDocDelimiter => "in a here-document's delimiter word",
            Refusal::Escaped => {
                "right after a `\\` or `$`, which would change how the shell reads it"
            }
            Refusal::Backquote => "inside backquotes (`` `…` ``), whose quoting wfc does not track",
            Refusal::Untracked => "inside `${…}` or `$'…'`, whose quoting wfc does not track",
            Refusal::Evaluated => {
                "inside `$((…))`, `((…))` or `[[ … ]]`, where bash evaluates a value as code"
            }
        }
    }

    /// How to write the command instead, for the interpolation of `key`.
    pub fn help(self, key: &str) -> String {
        self.help_text().replace("${key}", &format!("${{{key}}}"))
    }

    fn help_text(self) -> &'static str {
        match self {
            Refusal::Comment => "move the interpolation out of the comment, or remove it",
            Refusal::QuotedHereDoc => {
                "unquote the delimiter (`<<EOF`) so the body expands, and escape any other `$` in it"
            }
            Refusal::HereDocDelimiter => "write the delimiter as plain text",
            Refusal::Escaped => {
                "put a space or a quote between the `\\` or `$` and the interpolation"
            }
            Refusal::Backquote => "use `$(…)` for command substitution instead of backquotes",
            Refusal::Untracked => {
                "assign the value to a shell variable first (`v=${key}`), then use `${v…}`"
            }
            Refusal::Evaluated => {
                "compare with `[ \"${key}\" -gt 3 ]`, which reads its operands as text, or check the value is a number first"
            }
        }
    }
}

impl Slot {
    /// The text that refers to the variable `name` here.
    pub fn reference(self, name: &str) -> Result<String, Refusal> {
        match self {
            Slot::Word => Ok(format!("\"${{{name}}}\"")),
            Slot::Expanding => Ok(format!("${{{name}}}")),
            Slot::SingleQuoted => Ok(format!("'\"${{{name}}}\"'")),
            Slot::Refused(why) => Err(why),
        }
    }
}

/// The slot of each [`Piece::Key`] of the script made of `pieces`, in order.
/// Linear in the script's length.
pub fn slots<'a>(pieces: impl IntoIterator<Item = Piece<'a>>) -> Vec<Slot> {
    let mut toks = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => toks.extend(text.chars().map(Tok::C)),
            Piece::Key => toks.push(Tok::Key),
        }
    }
    let mut scan = Scan {
        toks,
        i: 0,
        stack: vec![Frame::Cmd(Cmd::new(CmdKind::Root))],
        slots: Vec::new(),
    };
    scan.run();
    scan.slots
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    C(char),
    Key,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CmdKind {
    /// The script itself.
    Root,
    /// `$( … )`.
    Sub,
    /// `[[ … ]]`.
    Test,
}

/// A context where commands are parsed: words, quotes, operators.
#[derive(Debug)]
struct Cmd {
    kind: CmdKind,
    /// Open `(` not yet closed, inside this context.
    parens: u32,
    /// `case` words not yet closed by `esac` (their patterns end in `)`).
    cases: u32,
    /// The unquoted text of the current word, for keywords.
    word: String,
    /// Whether the next character starts a word (`#` then starts a comment).
    word_start: bool,
    /// Here-documents whose body starts at the next newline.
    pending: Vec<HereDoc>,
}

impl Cmd {
    fn new(kind: CmdKind) -> Cmd {
        Cmd {
            kind,
            parens: 0,
            cases: 0,
            word: String::new(),
            word_start: true,
            pending: Vec::new(),
        }
    }
}

#[derive(Debug)]
struct HereDoc {
    delimiter: String,
    quoted: bool,
    strip_tabs: bool,
    /// The current line of the body, and whether no key is on it.
    line: String,
    clean: bool,
}

#[derive(Debug)]
enum Frame {
    Cmd(Cmd),
    Single,
    Double,
    AnsiC,
    Backquote,
    Arith { parens: u32 },
    Param,
    Comment,
    HereDoc(HereDoc),
}

/// A character that ends a word and is an operator or blank.
fn is_break(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
    )
}

struct Scan {
    toks: Vec<Tok>,
    i: usize,
    stack: Vec<Frame>,
    slots: Vec<Slot>,
}

impl Scan {
    fn peek(&self, ahead: usize) -> Option<Tok> {
        self.toks.get(self.i + ahead).copied()
    }

    fn run(&mut self) {
        while let Some(tok) = self.peek(0) {
            let top = self
                .stack
                .last_mut()
                .expect("the root frame is never popped");
            match top {
                Frame::Cmd(_) => self.cmd(tok),
                Frame::Single => {
                    self.i += 1;
                    match tok {
                        Tok::Key => self.slots.push(Slot::SingleQuoted),
                        Tok::C('\'') => self.pop(),
                        Tok::C(_) => {}
                    }
                }
                Frame::Double => self.double(tok),
                Frame::AnsiC => self.quoted_skip(tok, '\'', Refusal::Untracked),
                Frame::Backquote => self.quoted_skip(tok, '`', Refusal::Backquote),
                Frame::Arith { .. } => self.arith(tok),
                Frame::Param => self.param(tok),
                Frame::Comment => match tok {
                    Tok::Key => {
                        self.i += 1;
                        self.slots.push(Slot::Refused(Refusal::Comment));
                    }
                    // The newline ends the comment and is the command's.
                    Tok::C('\n') => self.pop(),
                    Tok::C(_) => self.i += 1,
                },
                Frame::HereDoc(_) => self.here_doc(tok),
            }
        }
    }

    fn pop(&mut self) {
        if self.stack.len() > 1 {
            self.stack.pop();
        }
    }

    fn cmd_mut(&mut self) -> &mut Cmd {
        match self.stack.last_mut() {
            Some(Frame::Cmd(cmd)) => cmd,
            _ => unreachable!("called in a command context"),
        }
    }

    /// `$…` at the current position, in a context where it expands: pushes
    /// the frame it opens, if any.
    fn dollar(&mut self) {
        match (self.peek(1), self.peek(2)) {
            (Some(Tok::C('(')), Some(Tok::C('('))) => {
                self.i += 3;
                self.stack.push(Frame::Arith { parens: 0 });
            }
            (Some(Tok::C('(')), _) => {
                self.i += 2;
                self.stack.push(Frame::Cmd(Cmd::new(CmdKind::Sub)));
            }
            (Some(Tok::C('{')), _) => {
                self.i += 2;
                self.stack.push(Frame::Param);
            }
            (Some(Tok::Key), _) => {
                self.i += 2;
                self.slots.push(Slot::Refused(Refusal::Escaped));
            }
            _ => self.i += 1,
        }
    }

    /// A backslash: the next token is literal. A key right after it is
    /// refused (the reference's first character would be escaped).
    fn backslash(&mut self) -> Option<char> {
        let next = self.peek(1);
        self.i += 2;
        match next {
            Some(Tok::Key) => {
                self.slots.push(Slot::Refused(Refusal::Escaped));
                None
            }
            Some(Tok::C(c)) => Some(c),
            None => None,
        }
    }

    fn cmd(&mut self, tok: Tok) {
        let c = match tok {
            Tok::Key => {
                self.i += 1;
                let cmd = self.cmd_mut();
                cmd.word_start = false;
                cmd.word.push('\0');
                let slot = match cmd.kind {
                    CmdKind::Test => Slot::Refused(Refusal::Evaluated),
                    _ => Slot::Word,
                };
                self.slots.push(slot);
                return;
            }
            Tok::C(c) => c,
        };
        if !is_break(c) {
            let cmd = self.cmd_mut();
            let at_start = cmd.word_start;
            cmd.word_start = false;
            match c {
                '#' if at_start => {
                    self.i += 1;
                    self.stack.push(Frame::Comment);
                }
                '\\' => {
                    if let Some(c) = self.backslash()
                        && c != '\n'
                    {
                        self.cmd_mut().word.push('\0');
                    }
                }
                '\'' => {
                    self.i += 1;
                    self.cmd_mut().word.push('\0');
                    self.stack.push(Frame::Single);
                }
                '"' => {
                    self.i += 1;
                    self.cmd_mut().word.push('\0');
                    self.stack.push(Frame::Double);
                }
                '`' => {
                    self.i += 1;
                    self.cmd_mut().word.push('\0');
                    self.stack.push(Frame::Backquote);
                }
                '$' => {
                    self.cmd_mut().word.push('\0');
                    if self.peek(1) == Some(Tok::C('\'')) {
                        self.i += 2;
                        self.stack.push(Frame::AnsiC);
                    } else {
                        self.dollar();
                    }
                }
                _ => {
                    self.i += 1;
                    self.cmd_mut().word.push(c);
                }
            }
            return;
        }
        // A word ends here.
        self.i += 1;
        self.end_word();
        let next = self.peek(0);
        let Some(Frame::Cmd(cmd)) = self.stack.last_mut() else {
            return; // `]]` closed a test
        };
        let at_start = cmd.word_start;
        cmd.word_start = true;
        match c {
            '\n' => {
                let bodies: Vec<HereDoc> = cmd.pending.drain(..).rev().collect();
                self.stack.extend(bodies.into_iter().map(Frame::HereDoc));
            }
            '(' if at_start && next == Some(Tok::C('(')) => {
                self.i += 1;
                self.stack.push(Frame::Arith { parens: 0 });
            }
            '(' => cmd.parens += 1,
            ')' if cmd.parens > 0 => cmd.parens -= 1,
            // A `case` pattern ends in `)`.
            ')' if cmd.cases > 0 => {}
            ')' if cmd.kind == CmdKind::Sub => self.pop(),
            '<' if next == Some(Tok::C('<')) => {
                if self.peek(1) == Some(Tok::C('<')) {
                    self.i += 2; // `<<<`: a here-string, an ordinary word follows
                } else {
                    self.i += 1;
                    self.here_doc_delimiter();
                }
            }
            _ => {}
        }
    }

    /// The word just ended: keywords that open or close a context.
    fn end_word(&mut self) {
        let cmd = self.cmd_mut();
        let word = std::mem::take(&mut cmd.word);
        match (word.as_str(), cmd.kind) {
            ("case", _) => cmd.cases += 1,
            ("esac", _) => cmd.cases = cmd.cases.saturating_sub(1),
            ("[[", CmdKind::Root | CmdKind::Sub) => {
                self.stack.push(Frame::Cmd(Cmd::new(CmdKind::Test)));
            }
            ("]]", CmdKind::Test) => self.pop(),
            _ => {}
        }
    }

    /// Reads the delimiter word after `<<` or `<<-`, and queues the body.
    fn here_doc_delimiter(&mut self) {
        let strip_tabs = self.peek(0) == Some(Tok::C('-'));
        if strip_tabs {
            self.i += 1;
        }
        while matches!(self.peek(0), Some(Tok::C(' ' | '\t'))) {
            self.i += 1;
        }
        let mut delimiter = String::new();
        let mut quoted = false;
        let mut quote: Option<char> = None;
        while let Some(tok) = self.peek(0) {
            let c = match tok {
                Tok::Key => {
                    self.i += 1;
                    self.slots.push(Slot::Refused(Refusal::HereDocDelimiter));
                    delimiter.push('\0');
                    continue;
                }
                Tok::C(c) => c,
            };
            match (quote, c) {
                (None, c) if is_break(c) => break,
                (None, '\'' | '"') => {
                    quoted = true;
                    quote = Some(c);
                }
                (None, '\\') => {
                    quoted = true;
                    if let Some(Tok::C(next)) = self.peek(1) {
                        delimiter.push(next);
                        self.i += 1;
                    }
                }
                (Some(q), c) if c == q => quote = None,
                (_, c) => delimiter.push(c),
            }
            self.i += 1;
        }
        self.cmd_mut().pending.push(HereDoc {
            delimiter,
            quoted,
            strip_tabs,
            line: String::new(),
            clean: true,
        });
    }

    fn double(&mut self, tok: Tok) {
        match tok {
            Tok::Key => {
                self.i += 1;
                self.slots.push(Slot::Expanding);
            }
            Tok::C('"') => {
                self.i += 1;
                self.pop();
            }
            Tok::C('\\') => {
                self.backslash();
            }
            Tok::C('`') => {
                self.i += 1;
                self.stack.push(Frame::Backquote);
            }
            Tok::C('$') => self.dollar(),
            Tok::C(_) => self.i += 1,
        }
    }

    /// Backquotes and `$'…'`: skip to the closing `close`, refusing keys.
    fn quoted_skip(&mut self, tok: Tok, close: char, refusal: Refusal) {
        match tok {
            Tok::Key => {
                self.i += 1;
                self.slots.push(Slot::Refused(refusal));
            }
            Tok::C('\\') => {
                if self.peek(1) == Some(Tok::Key) {
                    self.i += 2;
                    self.slots.push(Slot::Refused(refusal));
                } else {
                    self.i += 2;
                }
            }
            Tok::C(c) => {
                self.i += 1;
                if c == close {
                    self.pop();
                }
            }
        }
    }

    fn arith(&mut self, tok: Tok) {
        let Some(Frame::Arith { parens }) = self.stack.last_mut() else {
            return;
        };
        match tok {
            Tok::Key => {
                self.i += 1;
                self.slots.push(Slot::Refused(Refusal::Evaluated));
            }
            Tok::C('(') => {
                *parens += 1;
                self.i += 1;
            }
            Tok::C(')') if *parens > 0 => {
                *parens -= 1;
                self.i += 1;
            }
            Tok::C(')') => {
                self.i += if self.peek(1) == Some(Tok::C(')')) {
                    2
                } else {
                    1
                };
                self.pop();
            }
            Tok::C('$') => self.dollar(),
            Tok::C('\\') => {
                self.backslash();
            }
            Tok::C(_) => self.i += 1,
        }
    }

    fn param(&mut self, tok: Tok) {
        match tok {
            Tok::Key => {
                self.i += 1;
                self.slots.push(Slot::Refused(Refusal::Untracked));
            }
            Tok::C('}') => {
                self.i += 1;
                self.pop();
            }
            Tok::C('\\') => {
                self.backslash();
            }
            Tok::C('\'') => {
                self.i += 1;
                self.stack.push(Frame::Single);
            }
            Tok::C('"') => {
                self.i += 1;
                self.stack.push(Frame::Double);
            }
            Tok::C('`') => {
                self.i += 1;
                self.stack.push(Frame::Backquote);
            }
            Tok::C('$') => self.dollar(),
            Tok::C(_) => self.i += 1,
        }
    }

    fn here_doc(&mut self, tok: Tok) {
        let Some(Frame::HereDoc(doc)) = self.stack.last_mut() else {
            return;
        };
        match tok {
            Tok::Key => {
                self.i += 1;
                doc.clean = false;
                self.slots.push(if doc.quoted {
                    Slot::Refused(Refusal::QuotedHereDoc)
                } else {
                    Slot::Expanding
                });
            }
            Tok::C('\n') => {
                self.i += 1;
                let line = if doc.strip_tabs {
                    doc.line.trim_start_matches('\t')
                } else {
                    doc.line.as_str()
                };
                if doc.clean && line == doc.delimiter {
                    self.pop();
                } else {
                    doc.line.clear();
                    doc.clean = true;
                }
            }
            Tok::C(c) if doc.quoted => {
                self.i += 1;
                doc.line.push(c);
            }
            Tok::C(c) => {
                // In an unquoted body, `\`, `$` and backquotes are active;
                // quotes are literal.
                doc.line.push(c);
                match c {
                    '\\' => {
                        if let Some(next) = self.backslash()
                            && let Some(Frame::HereDoc(doc)) = self.stack.last_mut()
                        {
                            doc.line.push(next);
                        }
                    }
                    '$' => self.dollar(),
                    '`' => {
                        self.i += 1;
                        self.stack.push(Frame::Backquote);
                    }
                    _ => self.i += 1,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
