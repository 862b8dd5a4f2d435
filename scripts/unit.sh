#!/usr/bin/env bash
# Every package's tests under the race detector. The packages whose tests
# mostly wait on real peers (language servers, debug adapters, kernels,
# workers) and come last in package order run in a second `go test` from
# the start, beside the others, instead of after them: they use little CPU,
# and CI's wall time is what they add at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
timeout=${GO_TEST_TIMEOUT:-25m}
slow=(./tools/ ./workers/)
export TETHER_REQUIRE_PEERS=1

# build the slow packages' test binaries (and so most of the module) once,
# so that the two runs below do not compile the same packages side by side
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -race -c -o "$bin" "${slow[@]}" || exit 1

# the Python kernel's tests run again on kernels started as interpreters of
# their own (by default they are forked from a zygote where the sandbox
# allows)
{ go test -race -timeout "$timeout" "${slow[@]}" && TETHER_PYTHON_NO_ZYGOTE=1 go test -race -timeout "$timeout" ./kernels/python/; } &
slowpid=$!
rest=$(go list ./... | grep -v -x -e github.com/tetherhq/tether/tools -e github.com/tetherhq/tether/workers)
go test -race -timeout "$timeout" $rest
rc=$?
wait "$slowpid" || rc=1
exit $rc
