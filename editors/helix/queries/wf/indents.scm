; Helix indentation: one level inside every bracketed block.
[
  (workflow_body)
  (node_body)
  (attribute_block)
  (list)
  (map)
  (list_expression)
  (parenthesized_expression)
] @indent

["}" "]" ")"] @outdent
