; Helix text objects: `mif`/`maf` select a workflow's body or the whole
; workflow, `mic`/`mac` a node's body or the whole node, `mia` an entry of a
; list or map, `mac` on a comment the comment.
(workflow body: (workflow_body) @function.inside) @function.around

(node_declaration body: (node_body) @class.inside) @class.around
(node_declaration) @class.around
(call_declaration body: (node_body) @class.inside) @class.around
(call_declaration) @class.around

(list (_) @parameter.inside)
(map (map_entry) @parameter.inside)
(list_expression (_) @parameter.inside)

[(line_comment) (block_comment) (doc_comment)] @comment.inside
[(line_comment) (block_comment) (doc_comment)] @comment.around
