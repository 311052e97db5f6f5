#!/bin/sh
# A fake CLI coding agent for the tests of crates/wfc/tests/it/cli_agents.rs:
# records what it received in $FAKE_LOG, then acts as $FAKE_MODE says.
log="$FAKE_LOG"
printf '%s\n' "$@" > "$log/argv"
cat > "$log/stdin"
pwd > "$log/cwd"
printf '%s\n' "$WFC_NODE" "$WFC_STAGE_DIR" "$WFC_STATUS_FILE" > "$log/env"
case "$FAKE_MODE" in
  hang)
    sleep 60 &
    echo $! > "$log/child.pid"
    wait
    ;;
  status)
    printf '%s' "$FAKE_STATUS" > "$WFC_STATUS_FILE"
    ;;
  fail)
    echo "fake: not logged in" >&2
    exit 7
    ;;
esac
cat "$FAKE_OUTPUT"
