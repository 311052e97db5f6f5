#!/bin/sh
# A fake CLI coding agent for the tests of crates/wfc/tests/it/cli_agents.rs:
# records what it received in $FAKE_LOG, then acts as $FAKE_MODE says.
# `argv` and `stdin` are the last call's; `argv.NODE` and `stdin.NODE` each
# stage's (branches run at once). `@NODE@` in the output becomes the stage's
# id (a session id per stage: `s-@NODE@`), followed by $FAKE_SUFFIX.
log="$FAKE_LOG"
node="${WFC_NODE:-none}"
printf '%s\n' "$@" > "$log/argv.$node"
cat > "$log/stdin.$node"
cp "$log/argv.$node" "$log/argv"
cp "$log/stdin.$node" "$log/stdin"
pwd > "$log/cwd"
printf '%s\n' "$WFC_NODE" "$WFC_STAGE_DIR" "$WFC_STATUS_FILE" > "$log/env"
# FAKE_LOST_SESSIONS=1: the agent no longer has any session to resume.
if [ -n "$FAKE_LOST_SESSIONS" ]; then
  for a in "$@"; do
    if [ "$a" = "--resume" ]; then
      echo "No conversation found with session ID" >&2
      exit 1
    fi
  done
fi
# FAKE_FAIL_NODE=NODE: that stage's agent fails (the others answer).
if [ -n "$FAKE_FAIL_NODE" ] && [ "$node" = "$FAKE_FAIL_NODE" ]; then
  echo "fake: overloaded" >&2
  exit 7
fi
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
sed "s/@NODE@/$node$FAKE_SUFFIX/g" "$FAKE_OUTPUT"
