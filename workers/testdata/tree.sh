#!/bin/sh
# A worker that starts a process tree (a child and a grandchild) and records
# every pid in $PIDDIR, then waits forever.
cat >/dev/null
sh -c 'sleep 1000 & echo $! > "$PIDDIR/grandchild"; wait' &
echo $! > "$PIDDIR/child"
echo $$ > "$PIDDIR/leader.tmp" && mv "$PIDDIR/leader.tmp" "$PIDDIR/leader"
wait
