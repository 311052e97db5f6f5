#!/bin/sh
# A custom handler process (`wfc run --handler my.custom=exec:…`): speaks the
# `exec:` agent protocol, version 2, and succeeds with a note naming the
# node's `type`, writing `custom.seen`.
read -r hello
echo '{"type":"hello","protocol":"wfc-agent","version":2}'
while read -r line; do
    id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/')
    ty=$(printf '%s' "$line" | sed 's/.*"type":"\(my\.[a-z]*\)".*/\1/')
    echo "{\"id\":$id,\"type\":\"advance\",\"status\":\"success\",\"notes\":\"ran $ty\",\"writes\":[{\"key\":\"custom.seen\",\"value\":\"$ty\"}]}"
done
