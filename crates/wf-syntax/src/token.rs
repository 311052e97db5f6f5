//! The tokens the parser sees.
//!
//! Comments, doc comments and whitespace never become tokens: the lexer puts
//! them in the trivia side table. Literal tokens carry their raw source text
//! (strings) or their already-checked value (numbers), so the parser never
//! re-reports a lexical error.

use std::fmt;

/// One token of a `.wf` file. String payloads borrow the source text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Token<'src> {
    /// `import`
    Import,
    /// `as`
    As,
    /// `workflow`
    Workflow,
    /// `needs`
    Needs,
    /// `gives`
    Gives,
    /// `step`
    Step,
    /// `human`
    Human,
    /// `tool`
    Tool,
    /// `call`
    Call,
    /// `branch`
    Branch,
    /// `parallel`
    Parallel,
    /// `join`
    Join,
    /// `exit`
    Exit,
    /// `reads`
    Reads,
    /// `writes`
    Writes,
    /// `when`
    When,
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
    /// `in`
    In,
    /// `contains`
    Contains,
    /// `matches`
    Matches,
    /// `exists`
    Exists,
    /// An identifier (never a keyword).
    Ident(&'src str),
    /// A `"…"` string, raw source text including the quotes. An
    /// unterminated string (already reported) lacks the closing quote.
    Str(&'src str),
    /// A `"""…"""` text block, raw source text including the quotes.
    TextBlock(&'src str),
    /// A `` `…` `` key, raw source text including the backticks.
    Backtick(&'src str),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A duration literal, in milliseconds.
    Duration(u64),
    /// A malformed or out-of-range number (already reported as WF0007).
    BadNumber,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `,`
    Comma,
    /// `;`
    Semi,
    /// `:`
    Colon,
    /// `=`
    Eq,
    /// `.`
    Dot,
    /// `?`
    Question,
    /// `->`
    Arrow,
    /// `<-`
    LArrow,
    /// `==`
    EqEq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`
    AndAnd,
    /// `||`
    OrOr,
    /// `!`
    Bang,
    /// Characters that start no token (already reported as WF0005).
    Error,
}

impl Token<'_> {
    /// The fixed spelling of keywords and punctuation; `None` for tokens
    /// with a payload.
    pub fn fixed_text(&self) -> Option<&'static str> {
        use Token::*;
        Some(match self {
            Import => "import",
            As => "as",
            Workflow => "workflow",
            Needs => "needs",
            Gives => "gives",
            Step => "step",
            Human => "human",
            Tool => "tool",
            Call => "call",
            Branch => "branch",
            Parallel => "parallel",
            Join => "join",
            Exit => "exit",
            Reads => "reads",
            Writes => "writes",
            When => "when",
            True => "true",
            False => "false",
            Null => "null",
            In => "in",
            Contains => "contains",
            Matches => "matches",
            Exists => "exists",
            LBrace => "{",
            RBrace => "}",
            LBracket => "[",
            RBracket => "]",
            LParen => "(",
            RParen => ")",
            Comma => ",",
            Semi => ";",
            Colon => ":",
            Eq => "=",
            Dot => ".",
            Question => "?",
            Arrow => "->",
            LArrow => "<-",
            EqEq => "==",
            NotEq => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            AndAnd => "&&",
            OrOr => "||",
            Bang => "!",
            Ident(_) | Str(_) | TextBlock(_) | Backtick(_) | Int(_) | Float(_) | Duration(_)
            | BadNumber | Error => return None,
        })
    }

    /// Whether this is a keyword (`workflow`, `step`, `true`, …).
    pub fn is_keyword(&self) -> bool {
        self.fixed_text()
            .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_alphabetic()))
    }

    /// How the token is described when the parser expected it
    /// ("`{`", "an identifier").
    pub fn expected_description(&self) -> String {
        match self.fixed_text() {
            Some(text) => format!("`{text}`"),
            None => match self {
                Token::Ident(_) => "an identifier".into(),
                Token::Str(_) => "a string".into(),
                Token::TextBlock(_) => "a text block".into(),
                Token::Backtick(_) => "a backtick key".into(),
                Token::Int(_) | Token::BadNumber => "a number".into(),
                Token::Float(_) => "a float".into(),
                Token::Duration(_) => "a duration".into(),
                _ => "a valid token".into(),
            },
        }
    }
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.fixed_text() {
            Some(text) => f.write_str(text),
            None => match self {
                Token::Ident(s) | Token::Str(s) | Token::TextBlock(s) | Token::Backtick(s) => {
                    f.write_str(s)
                }
                Token::Int(n) => write!(f, "{n}"),
                Token::Float(x) => write!(f, "{x}"),
                Token::Duration(ms) => write!(f, "{ms}ms"),
                _ => f.write_str("<invalid>"),
            },
        }
    }
}

/// Maps an identifier-shaped word to its keyword token, if it is one.
pub(crate) fn keyword(word: &str) -> Option<Token<'static>> {
    use Token::*;
    Some(match word {
        "import" => Import,
        "as" => As,
        "workflow" => Workflow,
        "needs" => Needs,
        "gives" => Gives,
        "step" => Step,
        "human" => Human,
        "tool" => Tool,
        "call" => Call,
        "branch" => Branch,
        "parallel" => Parallel,
        "join" => Join,
        "exit" => Exit,
        "reads" => Reads,
        "writes" => Writes,
        "when" => When,
        "true" => True,
        "false" => False,
        "null" => Null,
        "in" => In,
        "contains" => Contains,
        "matches" => Matches,
        "exists" => Exists,
        _ => return None,
    })
}
