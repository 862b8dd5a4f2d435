#!/bin/sh
# A worker that reports the run's limits it was told.
cat >/dev/null
printf 'surface=%s approve=%s\n' "$TETHER_WORKER_SURFACE" "$TETHER_WORKER_APPROVE"
