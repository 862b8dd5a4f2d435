#!/bin/sh
# A worker that fails: a partial result, a log, and exit status 3.
cat >/dev/null
echo "partial result"
echo "starting" >&2
echo "fatal: the frobnicator is missing" >&2
exit 3
