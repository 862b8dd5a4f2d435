#!/bin/sh
# A worker that keeps its conversation in its state directory: each run
# appends what it was told to the history there and answers with the whole
# history, so a resumed run (given only the follow-up) still knows the
# brief. It prints which run it is.
cat >> "$TETHER_WORKER_STATE/history"
echo "run $TETHER_WORKER_RUN"
cat "$TETHER_WORKER_STATE/history"
