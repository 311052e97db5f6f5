; Highlighting for .wf (nvim-treesitter capture names).
; Patterns are written so that no two of them capture the same node, so the
; result does not depend on whether an editor lets the first or the last
; match win. editors/helix/sync-queries.sh makes Helix's copy from this
; file, renaming the captures whose names differ there.

; ---------- comments ----------

(line_comment) @comment
(block_comment) @comment
(doc_comment) @comment.documentation

; ---------- keywords ----------

["import" "as"] @keyword.import
"workflow" @keyword.function
["needs" "gives" "reads" "writes"] @keyword
(node_kind) @keyword.type
"when" @keyword.conditional
["in" "contains" "matches"] @keyword.operator

; ---------- items and nodes ----------
; Quoted names and keys stay strings.

(workflow name: (identifier) @function)
(call_declaration callee: (identifier) @function.call)
(import alias: (identifier) @module)

(node_declaration name: (identifier) @label)
(call_declaration name: (identifier) @label)
(edge_chain node: (identifier) @label)

; ---------- keys, attributes, types ----------

(attribute key: (key_path) @property)
(map_entry key: (key_path) @property)

(typed_key key: (key_path) @variable)
(read_key key: (key_path) @variable)
(return_entry parent: (key_path) @variable)
(return_entry child: (key_path) @variable)

((type (identifier) @type.builtin)
  (#any-of? @type.builtin "string" "int" "float" "number" "bool" "list" "map" "any"))
((type (identifier) @type)
  (#not-any-of? @type "string" "int" "float" "number" "bool" "list" "map" "any"))

; A bare name as a value: a node (`entry = plan`) or an enumeration member.
(attribute value: (key_path) @constant)
(map_entry value: (key_path) @constant)
(list (key_path) @constant)

; ---------- guards ----------

"exists" @function.builtin

([(guard (key_path) @variable.builtin)
  (comparison (key_path) @variable.builtin)
  (unary_expression (key_path) @variable.builtin)
  (binary_expression (key_path) @variable.builtin)
  (list_expression (key_path) @variable.builtin)
  (parenthesized_expression (key_path) @variable.builtin)]
  (#any-of? @variable.builtin "outcome" "label"))

([(guard (key_path) @constant.builtin)
  (comparison (key_path) @constant.builtin)
  (unary_expression (key_path) @constant.builtin)
  (binary_expression (key_path) @constant.builtin)
  (list_expression (key_path) @constant.builtin)
  (parenthesized_expression (key_path) @constant.builtin)]
  (#any-of? @constant.builtin "success" "partial_success" "retry" "fail" "skipped"))

([(guard (key_path) @variable)
  (comparison (key_path) @variable)
  (unary_expression (key_path) @variable)
  (binary_expression (key_path) @variable)
  (list_expression (key_path) @variable)
  (parenthesized_expression (key_path) @variable)]
  (#not-any-of? @variable
    "outcome" "label" "success" "partial_success" "retry" "fail" "skipped"))

(exists_expression key: (key_path) @variable)
(backtick_key) @variable

; ---------- literals ----------

(string) @string
(text_block) @string
(escape_sequence) @string.escape
(interpolation) @string.special
(integer) @number
(float) @number.float
(duration) @number
(boolean) @boolean
(null) @constant.builtin

; ---------- punctuation ----------

["->" "<-"] @operator
["=" "==" "!=" "<" "<=" ">" ">=" "&&" "||" "!"] @operator
["{" "}" "[" "]" "(" ")"] @punctuation.bracket
["," ";" ":" "."] @punctuation.delimiter
"?" @punctuation.special
