#!/bin/sh
# A worker that reports who it is and echoes its brief.
brief=$(cat)
echo "worker $TETHER_WORKER_ID label=$TETHER_WORKER_LABEL tier=$TETHER_WORKER_TIER" >&2
printf 'label=%s tier=%s\n' "$TETHER_WORKER_LABEL" "$TETHER_WORKER_TIER"
printf '%s\n' "$brief"
