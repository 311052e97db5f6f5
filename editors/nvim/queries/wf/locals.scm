; Scopes: a workflow's nodes and keys are local to it.
(workflow) @local.scope

; Nodes: declared by a node declaration (or implicitly by an edge), referred
; to by edges and by `entry = node`.
(node_declaration name: (identifier) @local.definition.label)
(call_declaration name: (identifier) @local.definition.label)
(edge_chain node: (identifier) @local.reference)
((attribute
  key: (key_path) @_key
  value: (key_path) @local.reference)
  (#any-of? @_key "entry" "retry_target"))

; Blackboard keys: declared by needs, gives and writes (and the parent side
; of a return map); read by reads, guards and the child side of a return map.
(needs_statement (typed_key key: (key_path) @local.definition.parameter))
(gives_statement (typed_key key: (key_path) @local.definition.var))
(writes_clause (typed_key key: (key_path) @local.definition.var))
(return_entry parent: (key_path) @local.definition.var)
(read_key key: (key_path) @local.reference)
(exists_expression key: (key_path) @local.reference)
([(guard (key_path) @local.reference)
  (comparison (key_path) @local.reference)
  (unary_expression (key_path) @local.reference)
  (binary_expression (key_path) @local.reference)
  (list_expression (key_path) @local.reference)
  (parenthesized_expression (key_path) @local.reference)]
  (#not-any-of? @local.reference
    "outcome" "label" "success" "partial_success" "retry" "fail" "skipped"))
