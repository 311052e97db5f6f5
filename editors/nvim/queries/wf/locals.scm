; Scopes: a workflow's nodes and keys are local to it.
(workflow) @local.scope

; Nodes: declared by a node declaration, referred to by edges and `entry`.
(node_declaration name: (identifier) @local.definition.label)
(call_declaration name: (identifier) @local.definition.label)
(edge_chain node: (identifier) @local.reference)

; Blackboard keys: declared by needs, gives and writes (and the parent side
; of a return map); read by reads, guards and the child side of a return map.
(needs_statement (typed_key key: (key_path) @local.definition.parameter))
(gives_statement (typed_key key: (key_path) @local.definition.var))
(writes_clause (typed_key key: (key_path) @local.definition.var))
(return_entry parent: (key_path) @local.definition.var)
(read_key key: (key_path) @local.reference)
(guard (_ (key_path) @local.reference))
(guard (key_path) @local.reference)
(exists_expression key: (key_path) @local.reference)
