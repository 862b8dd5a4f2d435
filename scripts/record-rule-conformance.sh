#!/bin/sh
# Records the pinned ast-grep's answers for the rule conformance corpus:
# for each testdata/rules/DIR, `ast-grep scan` of DIR/src with the rules of
# DIR/rules.yml (or, for a DIR with an sgconfig.yml, the project's own
# scan; for a DIR with cases.yml, whether ast-grep refuses each of its
# rules, run alone) into DIR/astgrep.json. search's TestRuleConformance and
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
	if [ -f "$d/cases.yml" ]; then
		# one rule a document, each run alone: whether ast-grep refuses it
		python3 - "$ag" "$d" <<'PY'
import json, subprocess, sys
ag, d = sys.argv[1], sys.argv[2]
out = {}
for doc in open(d + "/cases.yml").read().split("\n---\n"):
    rid = [l for l in doc.split("\n") if l.startswith("id: ")][0][4:].strip()
    r = subprocess.run([ag, "scan", "--inline-rules", doc, "--json=compact", "src"], cwd=d, capture_output=True, text=True)
    if r.returncode not in (0, 1, 8):
        sys.exit("ast-grep failed on %s: %s" % (rid, r.stderr))
    cause = [l.split("\u2570\u25bb", 1)[1].strip() for l in r.stderr.split("\n") if "\u2570\u25bb" in l]
    out[rid] = {"refused": r.returncode == 8, "cause": cause[-1] if cause else ""}
json.dump(out, open(d + "/astgrep.json", "w"), indent=1, sort_keys=True, ensure_ascii=False)
PY
		echo "recorded $d/astgrep.json"
		continue
	fi
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
