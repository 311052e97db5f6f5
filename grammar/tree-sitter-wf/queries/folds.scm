[
  (workflow_body)
  (node_body)
  (attribute_block)
  (list)
  (map)
  (list_expression)
  (text_block)
  (block_comment)
] @fold
