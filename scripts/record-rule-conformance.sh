#!/bin/sh
# Records the pinned ast-grep's answers for the rule conformance corpus:
# for each testdata/rules/DIR, `ast-grep scan` of DIR/src with the rules of
# DIR/rules.yml (or, for a DIR with an sgconfig.yml, the project's own
# scan) into DIR/astgrep.json. search's TestRuleConformance and
# TestScanProject compare tether with these files, so CI needs no ast-grep.
# Usage: scripts/record-rule-conformance.sh [DIR...]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
ag=${AST_GREP:-$here/.deps/npm/node_modules/.bin/ast-grep}
[ -x "$ag" ] || ag=$(command -v ast-grep)
want=$(sed -n 's/.*"@ast-grep\/cli": *"\([^"]*\)".*/\1/p' "$here/scripts/npm/package.json")
got=$("$ag" --version | awk '{print $2}')
if [ "$got" != "$want" ]; then
	echo "record-rule-conformance: ast-grep is $got, want the pinned $want (scripts/install-deps.sh)" >&2
	exit 1
fi
if [ $# -eq 0 ]; then
	set -- "$here"/testdata/rules/*/
fi
for d in "$@"; do
	d=${d%/}
	if [ -f "$d/sgconfig.yml" ]; then
		(cd "$d" && "$ag" scan --json=compact >astgrep.json.tmp) || [ $? -eq 1 ]
	else
		(cd "$d" && "$ag" scan --inline-rules "$(cat rules.yml)" --json=compact src >astgrep.json.tmp) || [ $? -eq 1 ]
	fi
	# one finding a line, so that a change reads as a small diff
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.sort(key=lambda f:(f["file"],f["ruleId"],f["range"]["byteOffset"]["start"],f["range"]["byteOffset"]["end"])); print("[\n" + ",\n".join(json.dumps(f, ensure_ascii=False, sort_keys=True) for f in d) + "\n]")' "$d/astgrep.json.tmp" >"$d/astgrep.json"
	rm -f "$d/astgrep.json.tmp"
	echo "recorded $d/astgrep.json"
done
