use wf_diagnostics::FileId;

use super::*;

fn tokens(src: &str) -> Vec<Token<'_>> {
    let lexed = lex(src, FileId(0));
    assert!(
        lexed.diagnostics.is_empty(),
        "unexpected diagnostics: {:?}",
        lexed.diagnostics
    );
    lexed.tokens.into_iter().map(|(t, _)| t).collect()
}

/// `(code, span, message)` of each diagnostic.
fn errors(src: &str) -> Vec<(&'static str, std::ops::Range<usize>, String)> {
    lex(src, FileId(0))
        .diagnostics
        .into_iter()
        .map(|d| (d.code.code, d.primary.location.span.range(), d.message))
        .collect()
}

#[test]
fn identifiers_and_keywords() {
    use Token::*;
    assert_eq!(
        tokens("import as workflow needs gives step human tool call branch parallel join exit"),
        vec![
            Import, As, Workflow, Needs, Gives, Step, Human, Tool, Call, Branch, Parallel, Join,
            Exit
        ]
    );
    assert_eq!(
        tokens("reads writes when true false null in contains matches exists"),
        vec![
            Reads, Writes, When, True, False, Null, In, Contains, Matches, Exists
        ]
    );
    assert_eq!(
        tokens("a _b B9_x steps exists_flag"),
        vec![
            Ident("a"),
            Ident("_b"),
            Ident("B9_x"),
            Ident("steps"),
            Ident("exists_flag")
        ]
    );
}

#[test]
fn keywords_after_a_dot_in_a_key_are_identifiers() {
    use Token::*;
    assert_eq!(
        tokens("result.exit git.step.in x.when.true"),
        vec![
            Ident("result"),
            Dot,
            Ident("exit"),
            Ident("git"),
            Dot,
            Ident("step"),
            Dot,
            Ident("in"),
            Ident("x"),
            Dot,
            Ident("when"),
            Dot,
            Ident("true"),
        ]
    );
    // Only directly after the `.`, and only when an identifier precedes it:
    // a `.` left at the end of a line does not take the keyword starting
    // the next statement.
    assert_eq!(
        tokens("x. in x .in \"s\".in 1.in x.\nstep x./**/in"),
        vec![
            Ident("x"),
            Dot,
            In,
            Ident("x"),
            Dot,
            Ident("in"),
            Str("\"s\""),
            Dot,
            In,
            Int(1),
            Dot,
            In,
            Ident("x"),
            Dot,
            Step,
            Ident("x"),
            Dot,
            In,
        ]
    );
}

#[test]
fn a_key_starting_with_a_keyword_is_reported_and_read_as_an_identifier() {
    use Token::*;
    let lexed = lex("tool.output == exit._x in.", FileId(0));
    let tokens: Vec<_> = lexed.tokens.iter().map(|(t, _)| *t).collect();
    assert_eq!(
        tokens,
        vec![
            Ident("tool"),
            Dot,
            Ident("output"),
            EqEq,
            Ident("exit"),
            Dot,
            Ident("_x"),
            In,
            Dot
        ]
    );
    let found: Vec<_> = lexed
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.code.code,
                d.primary.location.span.range(),
                d.message.as_str(),
                d.help.as_deref().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "WF0001",
                0..4,
                "a key cannot start with the keyword `tool`",
                "keywords may follow a `.` but not start a key: quote it, \"tool.output\" \
                 (in a guard, in backticks: `tool.output`), or rename it"
            ),
            (
                "WF0001",
                15..19,
                "a key cannot start with the keyword `exit`",
                "keywords may follow a `.` but not start a key: quote it, \"exit._x\" \
                 (in a guard, in backticks: `exit._x`), or rename it"
            ),
        ]
    );
}

#[test]
fn punctuation_and_operators() {
    use Token::*;
    assert_eq!(
        tokens("{ } [ ] ( ) , ; : = . ? -> <- == != < <= > >= && || !"),
        vec![
            LBrace, RBrace, LBracket, RBracket, LParen, RParen, Comma, Semi, Colon, Eq, Dot,
            Question, Arrow, LArrow, EqEq, NotEq, Lt, Le, Gt, Ge, AndAnd, OrOr, Bang
        ]
    );
    assert_eq!(tokens("a<-b"), vec![Ident("a"), LArrow, Ident("b")]);
    assert_eq!(tokens("a->b"), vec![Ident("a"), Arrow, Ident("b")]);
    assert_eq!(tokens("!x!=y"), vec![Bang, Ident("x"), NotEq, Ident("y")]);
}

#[test]
fn numbers_and_durations() {
    use Token::*;
    assert_eq!(tokens("0 42 1_000"), vec![Int(0), Int(42), Int(1000)]);
    assert_eq!(
        tokens("0.5 1.5e-3 2.0E+10 3.25e2"),
        vec![Float(0.5), Float(0.0015), Float(2e10), Float(325.0)]
    );
    assert_eq!(
        tokens("250ms 15s 15m 2h 1d 1_500ms"),
        vec![
            Duration(250),
            Duration(15_000),
            Duration(900_000),
            Duration(7_200_000),
            Duration(86_400_000),
            Duration(1_500)
        ]
    );
    assert_eq!(tokens("1.x"), vec![Int(1), Dot, Ident("x")]);
}

#[test]
fn strings_text_blocks_and_backticks() {
    assert_eq!(
        tokens(r#""a \"b\" \u{1F600}""#),
        vec![Token::Str(r#""a \"b\" \u{1F600}""#)]
    );
    assert_eq!(tokens("\"\""), vec![Token::Str("\"\"")]);
    let block = "\"\"\"\n  x \"\" y \\\"\"\"\n  \"\"\"";
    assert_eq!(tokens(block), vec![Token::TextBlock(block)]);
    assert_eq!(
        tokens("\"\"\"\"\"\""),
        vec![Token::TextBlock("\"\"\"\"\"\"")]
    );
    assert_eq!(
        tokens("`Part Concept`"),
        vec![Token::Backtick("`Part Concept`")]
    );
}

#[test]
fn comments_and_blank_lines_are_trivia() {
    let src = "// line\n/// doc\n//// not doc\n/* block\n */ x\n\n\n  y /**/\n";
    let lexed = lex(src, FileId(0));
    assert!(lexed.diagnostics.is_empty());
    let toks: Vec<_> = lexed.tokens.iter().map(|(t, _)| *t).collect();
    assert_eq!(toks, vec![Token::Ident("x"), Token::Ident("y")]);
    let trivia: Vec<_> = lexed
        .trivia
        .iter()
        .map(|t| (t.kind, &src[t.span.range()]))
        .collect();
    assert_eq!(
        trivia,
        vec![
            (TriviaKind::LineComment, "// line"),
            (TriviaKind::DocComment, "/// doc"),
            (TriviaKind::LineComment, "//// not doc"),
            (TriviaKind::BlockComment, "/* block\n */"),
            (TriviaKind::BlankLines, "\n\n"),
            (TriviaKind::BlockComment, "/**/"),
        ]
    );
}

#[test]
fn blank_lines_at_the_start_of_the_file() {
    let lexed = lex("\n  \nx", FileId(0));
    assert_eq!(
        lexed.trivia,
        vec![Trivia {
            kind: TriviaKind::BlankLines,
            span: Span::new(0, 4)
        }]
    );
    assert!(lex("x\ny", FileId(0)).trivia.is_empty());
}

#[test]
fn spans_are_byte_offsets() {
    let lexed = lex("é = \"ü\"", FileId(0));
    let spans: Vec<_> = lexed.tokens.iter().map(|(_, s)| s.range()).collect();
    assert_eq!(spans, vec![0..2, 3..4, 5..9]);
}

#[test]
fn unterminated_string_resumes_on_the_next_line() {
    let src = "a = \"open\nb = 1";
    assert_eq!(
        errors(src),
        vec![("WF0002", 4..9, "unterminated string".to_string())]
    );
    let toks: Vec<_> = lex(src, FileId(0))
        .tokens
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    assert_eq!(
        toks,
        vec![
            Token::Ident("a"),
            Token::Eq,
            Token::Str("\"open"),
            Token::Ident("b"),
            Token::Eq,
            Token::Int(1)
        ]
    );
    // A CRLF line ending is not part of the reported span.
    assert_eq!(
        errors("\"x\r\n"),
        vec![("WF0002", 0..2, "unterminated string".to_string())]
    );
    // A trailing backslash stays inside the string (and is an invalid escape).
    let found = errors("\"x\\\ny");
    assert_eq!(
        found[0],
        ("WF0002", 0..3, "unterminated string".to_string())
    );
    assert_eq!(found[1].0, "WF0003");
}

#[test]
fn unterminated_text_block_and_backtick() {
    assert_eq!(
        errors("x = \"\"\"\nabc"),
        vec![("WF0002", 4..7, "unterminated text block".to_string())]
    );
    assert_eq!(
        errors("`abc\nx"),
        vec![("WF0002", 0..4, "unterminated backtick key".to_string())]
    );
}

#[test]
fn invalid_escapes() {
    assert_eq!(
        errors(r#""a\qb" "\u{D800}" "\u{}" "\u12""#),
        vec![
            ("WF0003", 2..4, "invalid escape `\\q`".to_string()),
            (
                "WF0003",
                8..16,
                "invalid escape `\\u{D800}`: U+D800 is a surrogate, not a character".to_string()
            ),
            (
                "WF0003",
                19..23,
                "invalid escape `\\u{}`: no hex digits".to_string()
            ),
            (
                "WF0003",
                26..28,
                "invalid escape `\\u`: missing `{`".to_string()
            ),
        ]
    );
    assert_eq!(errors("\"\"\"\n a\\\n b\"\"\"")[0].1, 6..7);
}

#[test]
fn invalid_characters_are_grouped() {
    assert_eq!(
        errors("a @#% b ¿ c & d"),
        vec![
            ("WF0005", 2..5, "invalid characters `@#%`".to_string()),
            ("WF0005", 8..10, "invalid character `¿`".to_string()),
            ("WF0005", 13..14, "invalid character `&`".to_string()),
        ]
    );
    let toks: Vec<_> = lex("a @#% b", FileId(0))
        .tokens
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    assert_eq!(
        toks,
        vec![Token::Ident("a"), Token::Error, Token::Ident("b")]
    );
    assert_eq!(errors("_")[0].0, "WF0005");
}

#[test]
fn unterminated_block_comment() {
    assert_eq!(
        errors("x /* never\nclosed"),
        vec![("WF0006", 2..4, "unterminated block comment".to_string())]
    );
    assert_eq!(errors("/*/")[0].0, "WF0006");
}

#[test]
fn invalid_numbers() {
    let found = errors("15min 1x 1.5h 1e5 99999999999999999999 99999999999999999999d 1.0e999");
    let codes: Vec<_> = found.iter().map(|(c, r, _)| (*c, r.clone())).collect();
    assert_eq!(
        codes,
        vec![
            ("WF0007", 0..5),
            ("WF0007", 6..8),
            ("WF0007", 9..13),
            ("WF0007", 14..17),
            ("WF0007", 18..38),
            ("WF0007", 39..60),
            ("WF0007", 61..68),
        ]
    );
    assert_eq!(found[0].2, "invalid number `15min`");
    assert_eq!(found[4].2, "integer out of range: `99999999999999999999`");
    assert_eq!(found[5].2, "duration out of range: `99999999999999999999d`");
    let toks: Vec<_> = lex("15min", FileId(0))
        .tokens
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    assert_eq!(toks, vec![Token::BadNumber]);
    // The largest duration that fits in u64 milliseconds.
    assert_eq!(
        tokens("213503982334d"),
        vec![Token::Duration(213_503_982_334 * 86_400_000)]
    );
    assert_eq!(errors("213503982335d")[0].0, "WF0007");
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let lexed = lex("\u{FEFF}x", FileId(0));
    assert!(lexed.diagnostics.is_empty());
    assert_eq!(lexed.tokens, vec![(Token::Ident("x"), Span::new(3, 4))]);
    assert_eq!(errors("x\u{FEFF}")[0].0, "WF0005");
}
