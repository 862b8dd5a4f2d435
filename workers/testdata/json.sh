#!/bin/sh
# A worker that answers in JSON: a number when its brief asks for one to
# conform, a word otherwise. It checks that it was given the schema.
brief=$(cat)
case "$TETHER_WORKER_OUTPUT_SCHEMA" in
*'"answer"'*) ;;
*) echo "no output schema in the environment" >&2; exit 2 ;;
esac
case "$brief" in
*"Reply on stdout with one JSON value"*) ;;
*) echo "the brief does not ask for JSON" >&2; exit 2 ;;
esac
case "$brief" in
*NUMBER*) printf '{"answer": 42}\n' ;;
*FENCED*) printf 'Here it is:\n```json\n{"answer": 7}\n```\n' ;;
*) printf '{"answer": "many"}\n' ;;
esac
