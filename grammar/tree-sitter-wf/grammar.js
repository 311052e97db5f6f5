/**
 * @file Tree-sitter grammar for the `.wf` workflow language of wfc.
 * @license MIT
 *
 * The reference grammar is `grammar/wf.ebnf`; the lexer in
 * `crates/wf-syntax/src/lexer.rs` is the authority where it is vague. This
 * grammar is for editors (highlighting, folding, indentation, outlines): it
 * accepts every valid file and keeps the structure `wfc` sees, but it does
 * not repeat the checker's semantic limits (escape values, number ranges,
 * nesting depth).
 *
 * Statements need no separators, so a string after a node's name or an
 * edge's last node is ambiguous between a label and the start of the next
 * statement; the EBNF's disambiguation (a string followed by `->` or `=`
 * starts a statement) falls out of GLR: the label reading dies on the `->`
 * or `=`. The same holds for `,` after a key list, which continues the list
 * unless an attribute or a return-map entry follows.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check


const NODE_KINDS = ['step', 'human', 'tool', 'branch', 'parallel', 'join', 'exit'];

const PREC = {
  or: 1,
  and: 2,
  compare: 3,
  not: 4,
};

/** An interpolated key path: `ticket`, `build.log`, `tool.output`. */
const INTERP_PATH = '[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*';

/**
 * One or more `rule`, separated by `,`.
 * @param {RuleOrLiteral} rule
 */
function commaSep1(rule) {
  return seq(rule, repeat(seq(',', rule)));
}

/**
 * Zero or more `rule`, separated by `,`, with an optional trailing `,`.
 * @param {RuleOrLiteral} rule
 */
function commaSepTrailing(rule) {
  return optional(seq(rule, repeat(seq(',', rule)), optional(',')));
}

/**
 * Entries of a block, each optionally followed by `,` or `;`.
 * @param {RuleOrLiteral} rule
 */
function separated(rule) {
  return repeat(seq(rule, optional(choice(',', ';'))));
}

module.exports = grammar({
  name: 'wf',

  extras: $ => [/\s/, $.line_comment, $.block_comment, $.doc_comment],

  word: $ => $.identifier,

  conflicts: $ => [
    // A string after a node or an edge: label, or the next statement.
    [$.node_declaration],
    [$.edge_chain],
    // `,` after a key list: continuation, or an entry separator.
    [$.needs_statement],
    [$.gives_statement],
    [$.reads_clause],
    [$.writes_clause],
  ],

  rules: {
    source_file: $ => repeat(choice($.import, $.workflow)),

    // ---------- comments ----------

    // Exactly two slashes, or four and more: `///` is a doc comment.
    line_comment: _ => token(choice(
      /\/\/([^\/\n][^\n]*)?/,
      /\/\/\/\/[^\n]*/,
    )),
    doc_comment: _ => token(/\/\/\/([^\/\n][^\n]*)?/),
    // Not nested: the first `*/` ends it.
    block_comment: _ => token(seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/')),

    // ---------- items ----------

    import: $ => seq(
      'import',
      field('path', $.string),
      optional(seq('as', field('alias', $.identifier))),
    ),

    workflow: $ => seq(
      'workflow',
      field('name', $._name),
      field('body', $.workflow_body),
    ),

    workflow_body: $ => seq('{', separated($._statement), '}'),

    _statement: $ => choice(
      $.attribute,
      $.needs_statement,
      $.gives_statement,
      $.node_declaration,
      $.call_declaration,
      $.edge_chain,
    ),

    attribute: $ => seq(field('key', $._key), '=', field('value', $._value)),

    needs_statement: $ => seq('needs', commaSep1($.typed_key)),
    gives_statement: $ => seq('gives', commaSep1($.typed_key)),

    typed_key: $ => seq(field('key', $._key), optional(seq(':', field('type', $.type)))),

    type: $ => $.identifier,

    // ---------- nodes ----------

    node_declaration: $ => seq(
      field('kind', $.node_kind),
      field('name', $._name),
      optional(field('label', $.string)),
      optional(field('body', $.node_body)),
    ),

    node_kind: _ => choice(...NODE_KINDS),

    call_declaration: $ => seq(
      field('kind', alias('call', $.node_kind)),
      field('name', $._name),
      optional(field('label', $.string)),
      '=',
      field('callee', $._name),
      optional(field('body', $.node_body)),
    ),

    node_body: $ => seq('{', separated($._body_item), '}'),

    _body_item: $ => choice(
      $.attribute,
      $.reads_clause,
      $.writes_clause,
      $.return_entry,
    ),

    reads_clause: $ => seq('reads', commaSep1($.read_key)),
    read_key: $ => seq(field('key', $._key), optional(field('optional', '?'))),
    writes_clause: $ => seq('writes', commaSep1($.typed_key)),

    // parent <- child
    return_entry: $ => seq(field('parent', $._key), '<-', field('child', $._key)),

    // ---------- edges ----------

    edge_chain: $ => seq(
      field('node', $._name),
      repeat1(seq('->', field('node', $._name))),
      optional(field('label', $.string)),
      optional(field('guard', $.guard)),
      optional(field('attributes', $.attribute_block)),
    ),

    guard: $ => seq('when', $._expression),

    attribute_block: $ => seq('{', separated($.attribute), '}'),

    // ---------- names, keys, values ----------

    _name: $ => choice($.identifier, $.string),

    _key: $ => choice($.key_path, $.string),

    // After a `.`, with nothing between, any word is a segment, keywords
    // included (`result.exit`); a `.` at the end of a line never takes the
    // keyword that starts the next statement.
    key_path: $ => prec.right(seq(
      $.identifier,
      repeat(seq(token.immediate('.'), alias($._segment, $.identifier))),
    )),

    _segment: _ => token.immediate(/[A-Za-z][A-Za-z0-9_]*|_[A-Za-z0-9_]+/),

    _value: $ => choice(
      $.string,
      $.text_block,
      $.integer,
      $.float,
      $.duration,
      $.boolean,
      $.null,
      $.key_path,
      $.list,
      $.map,
    ),

    list: $ => seq('[', commaSepTrailing($._value), ']'),

    map: $ => seq('{', commaSepTrailing($.map_entry), '}'),

    map_entry: $ => seq(field('key', $._key), ':', field('value', $._value)),

    // ---------- guard expressions ----------

    _expression: $ => choice(
      $.binary_expression,
      $.comparison,
      $._unary,
    ),

    binary_expression: $ => choice(
      prec.left(PREC.or, seq(
        field('left', $._expression), field('operator', '||'), field('right', $._expression))),
      prec.left(PREC.and, seq(
        field('left', $._expression), field('operator', '&&'), field('right', $._expression))),
    ),

    // Non-associative: both sides are unary-level, so `a == b == c` is an error.
    comparison: $ => prec(PREC.compare, seq(
      field('left', $._unary),
      field('operator', choice('==', '!=', '<', '<=', '>', '>=', 'in', 'contains', 'matches')),
      field('right', $._unary),
    )),

    _unary: $ => choice($.unary_expression, $._operand),

    // `!` binds tighter than comparisons: `!a == b` is `(!a) == b`.
    unary_expression: $ => prec(PREC.not, seq(
      field('operator', '!'), field('operand', $._unary))),

    _operand: $ => choice(
      $.string,
      $.integer,
      $.float,
      $.duration,
      $.boolean,
      $.null,
      $.key_path,
      $.backtick_key,
      $.exists_expression,
      $.list_expression,
      $.parenthesized_expression,
    ),

    exists_expression: $ => seq(
      'exists', '(', field('key', choice($.key_path, $.backtick_key)), ')'),

    list_expression: $ => seq('[', commaSepTrailing($._expression), ']'),

    parenthesized_expression: $ => seq('(', $._expression, ')'),

    backtick_key: _ => token(/`[^`\n]*`/),

    // ---------- literals ----------

    identifier: _ => /[A-Za-z][A-Za-z0-9_]*|_[A-Za-z0-9_]+/,

    integer: _ => token(/[0-9][0-9_]*/),
    float: _ => token(/[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9]+)?/),
    duration: _ => token(/[0-9][0-9_]*(ms|s|m|h|d)/),

    boolean: _ => choice('true', 'false'),
    null: _ => 'null',

    string: $ => seq(
      '"',
      repeat(choice(
        $.string_content,
        $.escape_sequence,
        $.interpolation,
        alias(token.immediate('$'), $.string_content),
      )),
      token.immediate('"'),
    ),

    string_content: _ => token.immediate(prec(1, /[^"\\\n$]+/)),

    // The checker reports escapes it does not know (WF0003); the grammar
    // takes any, so one bad escape does not break the highlighting of the
    // rest of the file.
    escape_sequence: _ => token.immediate(/\\(u\{[^}\n]*\}|[^\n])/),

    // `$key`, `$key.path` or `${key.path}`: a `.` not followed by a word
    // ends the short form.
    interpolation: _ => choice(
      token.immediate(new RegExp('\\$' + INTERP_PATH)),
      token.immediate(new RegExp('\\$\\{' + INTERP_PATH + '\\}')),
    ),

    // Ends at the first `"""`: one or two quotes inside are text.
    text_block: $ => seq(
      '"""',
      repeat(choice(
        alias($._text_block_content, $.string_content),
        alias(token.immediate(/""?/), $.string_content),
        alias(token.immediate('$'), $.string_content),
        $.escape_sequence,
        $.interpolation,
      )),
      token.immediate('"""'),
    ),

    _text_block_content: _ => token.immediate(prec(1, /[^"\\$]+/)),
  },
});
