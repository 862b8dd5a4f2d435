#!/bin/sh
# A worker that echoes its brief, then waits until the file $GATE exists or
# its brief says "go-ahead".
brief=$(cat)
printf '%s\n' "$brief"
case "$brief" in *go-ahead*) exit 0 ;; esac
while [ ! -e "$GATE" ]; do sleep 0.02; done
echo "released"
