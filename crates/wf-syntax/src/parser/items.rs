//! Files, items, workflow statements, nodes and edges.

use chumsky::input::InputRef;
use chumsky::prelude::*;
use wf_diagnostics::Span;

use super::atoms::{
    attribute, ident_name, key, name, read_key_list, str_lit, string, typed_key_list, value,
};
use super::delimited::{Flavour, group};
use super::expr::guard;
use super::lookahead::opt_label;
use super::recovery::{Level, expected, pos, skip, skip_guard, skip_to, span_at};
use super::{Extra, In, P, State, sp};
use crate::ast::{
    Attribute, AttributeBlock, BodyItem, Docs, EdgeChain, Expr, File, Import, Item, Key, Name,
    Node, NodeBody, NodeKind, ReturnMapEntry, Signature, Statement, Value, Workflow,
};
use crate::groups::{Closing, closer, opener};
use crate::token::Token;

type Inp<'a, 'p> = InputRef<'a, 'p, In<'a>, Extra<'a>>;

/// An optional `,` or `;` after a statement or entry.
fn separator<'a>() -> impl P<'a, ()> {
    just(Token::Comma)
        .or(just(Token::Semi))
        .ignored()
        .or_not()
        .ignored()
}

/// A whole file: items until the end of input, each failed item skipped up
/// to the next `workflow` or `import`.
pub(super) fn file<'a>(len: usize) -> impl P<'a, File> {
    let value = value().boxed();
    choice((import(), workflow(value)))
        .recover_with(via_parser(skip(Level::Top).map(Item::Error)))
        .repeated()
        .collect::<Vec<_>>()
        .then_ignore(end())
        .map(move |items| File {
            items,
            span: Span::new(0, len),
        })
}

/// `import "path" [as alias]`
fn import<'a>() -> impl P<'a, Item> {
    just(Token::Import)
        .ignore_then(string().labelled("an import path (a string)"))
        .then(
            just(Token::As)
                .ignore_then(ident_name().labelled("an alias name"))
                .or_not(),
        )
        .map_with(|(path, alias), e| {
            Item::Import(Import {
                docs: Docs::default(),
                path,
                alias,
                span: sp(e.span()),
            })
        })
}

/// `workflow Name { statements }`
fn workflow<'a>(value: impl P<'a, Value>) -> impl P<'a, Item> {
    let statements = statement(value)
        .recover_with(via_parser(skip(Level::Workflow).map(Statement::Error)))
        .then_ignore(separator())
        .repeated()
        .collect::<Vec<_>>();
    just(Token::Workflow)
        .ignore_then(workflow_name())
        .then(group(
            Token::LBrace,
            Token::RBrace,
            Flavour::Block,
            statements,
        ))
        .map_with(|(name, (body, _)), e| {
            Item::Workflow(Workflow {
                docs: Docs::default(),
                name,
                body: body.unwrap_or_default(),
                span: sp(e.span()),
            })
        })
}

/// The name after `workflow`, recovering from a broken header so that the
/// body is still parsed: when the name is missing or malformed (`workflow {`,
/// `workflow 123 {`), or junk follows it (`workflow Deploy now {`), and the
/// body's `{` comes next or later on the header's line, the first problem
/// is reported and parsing resumes at the `{`. A missing or malformed name
/// becomes a [missing](Name::is_missing) one. Otherwise the header fails as
/// usual and the whole item is skipped.
fn workflow_name<'a>() -> impl P<'a, Name> {
    let name = name().labelled("a workflow name");
    custom(move |inp: &mut Inp<'a, '_>| {
        let checkpoint = inp.save();
        let (name, error) = match inp.parse(&name) {
            Ok(name) => (Some(name), None),
            Err(error) => {
                inp.rewind(checkpoint);
                (None, Some(error))
            }
        };
        let at = pos(inp);
        let Some(brace) = header_brace(inp.state(), at) else {
            // No body to resume at: fail as before (after a good name, the
            // body's group reports the missing `{`).
            return match (name, error) {
                (Some(name), _) => Ok(name),
                (None, Some(error)) => Err(error),
                (None, None) => Err(expected(inp, at, &[])),
            };
        };
        let error = match error {
            Some(error) => Some(error),
            None if brace > at => Some(expected(inp, at, &[Token::LBrace])),
            None => None,
        };
        if let Some(error) = error {
            inp.emit(error);
        }
        let junk = if brace > at {
            let (first, last) = (span_at(inp, at), span_at(inp, brace - 1));
            Span::new(first.start, last.end)
        } else {
            let start = span_at(inp, at).start;
            Span::new(start, start)
        };
        skip_to(inp, brace);
        Ok(name.unwrap_or_else(|| Name::missing(junk)))
    })
}

/// The index of the `{` opening a workflow body, when it is the token at
/// `at` or only junk on the header's line stands before it: tokens not
/// starting a line, no `workflow` or `import`, and brackets only in closed
/// `( … )` or `[ … ]` groups.
fn header_brace(state: &State<'_>, at: usize) -> Option<usize> {
    let mut open_ends = Vec::new();
    let mut i = at;
    loop {
        let (token, _) = state.tokens.get(i)?;
        if *token == Token::LBrace && open_ends.is_empty() {
            return Some(i);
        }
        if state.boundary.get(i).copied().unwrap_or(true)
            || matches!(token, Token::Workflow | Token::Import | Token::LBrace)
        {
            return None;
        }
        if opener(token).is_some() {
            match state.groups.end(i) {
                Some((end, Closing::Matched)) => open_ends.push(end),
                _ => return None,
            }
        } else if closer(token).is_some() && open_ends.pop() != Some(i) {
            return None;
        }
        i += 1;
    }
}

/// One statement of a workflow body.
fn statement<'a>(value: impl P<'a, Value>) -> impl P<'a, Statement> {
    let needs = just(Token::Needs)
        .ignore_then(typed_key_list())
        .map_with(|keys, e| {
            Statement::Needs(Signature {
                keys,
                span: sp(e.span()),
            })
        });
    let gives = just(Token::Gives)
        .ignore_then(typed_key_list())
        .map_with(|keys, e| {
            Statement::Gives(Signature {
                keys,
                span: sp(e.span()),
            })
        });
    choice((
        needs,
        gives,
        node(value.clone()).map(Statement::Node),
        edge_chain(value.clone()).map(Statement::Edge),
        attribute(value).map(Statement::Attribute),
    ))
    .labelled("a statement")
    .boxed()
}

/// `KIND name ["label"] [{ body }]` or `call name ["label"] = Workflow [{ body }]`.
fn node<'a>(value: impl P<'a, Value>) -> impl P<'a, Node> {
    let kind = select! {
        Token::Step => NodeKind::Step,
        Token::Human => NodeKind::Human,
        Token::Tool => NodeKind::Tool,
        Token::Branch => NodeKind::Branch,
        Token::Parallel => NodeKind::Parallel,
        Token::Join => NodeKind::Join,
        Token::Exit => NodeKind::Exit,
    }
    .map_with(|kind, e| (kind, e.span()));
    let body = node_body(value);
    let plain = kind
        .then(name().labelled("a node name"))
        .then(opt_label())
        .then(body.clone().or_not())
        .map_with(|((((kind, kind_span), name), label), body), e| Node {
            docs: Docs::default(),
            kind,
            kind_span: sp(kind_span),
            name,
            label: label.map(|(raw, span)| str_lit(raw, span, false)),
            callee: None,
            body,
            span: sp(e.span()),
        });
    let call = just(Token::Call)
        .map_with(|_, e| e.span())
        .then(name().labelled("a node name"))
        .then(string().or_not())
        .then_ignore(just(Token::Eq))
        .then(name().labelled("a workflow name"))
        .then(body.or_not())
        .map_with(|((((kind_span, name), label), callee), body), e| Node {
            docs: Docs::default(),
            kind: NodeKind::Call,
            kind_span: sp(kind_span),
            name,
            label,
            callee: Some(callee),
            body,
            span: sp(e.span()),
        });
    plain.or(call)
}

/// One entry of a node body, before recovery.
enum Entry {
    Value(Value),
    Return(Key),
}

/// `{ attributes, reads, writes, return entries }`
fn node_body<'a>(value: impl P<'a, Value>) -> impl P<'a, NodeBody> {
    let reads = just(Token::Reads)
        .ignore_then(read_key_list())
        .map_with(|keys, e| BodyItem::Reads(keys, sp(e.span())));
    let writes = just(Token::Writes)
        .ignore_then(typed_key_list())
        .map_with(|keys, e| BodyItem::Writes(keys, sp(e.span())));
    let entry = key()
        .then(choice((
            just(Token::Eq).ignore_then(value).map(Entry::Value),
            just(Token::LArrow).ignore_then(key()).map(Entry::Return),
        )))
        .map_with(|(key, entry), e| {
            let span = sp(e.span());
            match entry {
                Entry::Value(value) => BodyItem::Attribute(Attribute { key, value, span }),
                Entry::Return(child) => BodyItem::ReturnMap(ReturnMapEntry {
                    parent: key,
                    child,
                    span,
                }),
            }
        });
    let items = choice((reads, writes, entry))
        .labelled("a node body entry")
        .recover_with(via_parser(skip(Level::Body).map(BodyItem::Error)))
        .then_ignore(separator())
        .repeated()
        .collect::<Vec<_>>();
    group(Token::LBrace, Token::RBrace, Flavour::Block, items)
        .map(|(items, span)| NodeBody {
            items: items.unwrap_or_default(),
            span: sp(span),
        })
        .boxed()
}

/// `a -> b -> c ["label"] [when EXPR] [{ attributes }]`
fn edge_chain<'a>(value: impl P<'a, Value>) -> impl P<'a, EdgeChain> {
    let hop = just(Token::Arrow)
        .map_with(|_, e| e.span())
        .then(name().labelled("a node name"));
    let when = just(Token::When)
        .ignore_then(guard().recover_with(via_parser(skip_guard().map(Expr::Error))));
    name()
        .then(hop.repeated().at_least(1).collect::<Vec<_>>())
        .then(opt_label())
        .then(when.or_not())
        .then(attribute_block(value).or_not())
        .map_with(|((((first, hops), label), guard), attributes), e| {
            let mut nodes = vec![first];
            let mut arrows = Vec::with_capacity(hops.len());
            for (arrow, name) in hops {
                arrows.push(sp(arrow));
                nodes.push(name);
            }
            EdgeChain {
                docs: Docs::default(),
                nodes,
                arrows,
                label: label.map(|(raw, span)| str_lit(raw, span, false)),
                guard,
                attributes,
                span: sp(e.span()),
            }
        })
}

/// `{ key = value … }` after an edge. Failed attributes are reported and
/// dropped (the block has no error variant).
fn attribute_block<'a>(value: impl P<'a, Value>) -> impl P<'a, AttributeBlock> {
    let items = attribute(value)
        .map(Some)
        .labelled("an attribute")
        .recover_with(via_parser(skip(Level::Attrs).map(|_| None)))
        .then_ignore(separator())
        .repeated()
        .collect::<Vec<_>>();
    group(Token::LBrace, Token::RBrace, Flavour::Block, items).map(|(items, span)| AttributeBlock {
        attributes: items.unwrap_or_default().into_iter().flatten().collect(),
        span: sp(span),
    })
}
