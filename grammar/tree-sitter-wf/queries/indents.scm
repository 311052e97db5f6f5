; nvim-treesitter indent captures.
[
  (workflow_body)
  (node_body)
  (attribute_block)
  (list)
  (map)
  (list_expression)
  (parenthesized_expression)
] @indent.begin

["}" "]" ")"] @indent.branch
["}" "]" ")"] @indent.end

[(text_block) (block_comment)] @indent.auto
