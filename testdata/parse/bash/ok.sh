#!/usr/bin/env bash
set -euo pipefail

greet() {
  local name=${1:-world}
  echo "hello, ${name}"
}

for n in "$@"; do
  if [[ -n "$n" ]]; then
    greet "$n"
  fi
done

count=$(ls | wc -l)
case "$count" in
  0) echo none ;;
  *) echo "$((count + 1))" ;;
esac
