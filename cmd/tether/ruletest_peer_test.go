package main

import "bytes"
import "errors"
import "io/fs"
import "os"
import "os/exec"
import "path/filepath"
import "sort"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// sampleRuleProject is the project of rule tests both tools run.
var sampleRuleProject = filepath.Join("..", "..", "testdata", "rules", "tests")

// treeFiles returns every file under dir by its relative path.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// peerRunIn runs the pinned ast-grep with args in dir: exit status, stdout
// and stderr.
func peerRunIn(t *testing.T, sg, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(sg, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("ast-grep %v: %v", args, err)
	return 0, "", ""
}

// tetherIn runs tether with args in dir.
func tetherIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

// sortedSummary is a test report with its per-test lines (PASS, FAIL,
// SKIP) sorted: ast-grep lists tests in directory-walk order.
func sortedSummary(out string) string {
	lines := strings.Split(out, "\n")
	var tests []int
	for i, l := range lines {
		if strings.HasPrefix(l, "PASS ") || strings.HasPrefix(l, "FAIL ") || strings.HasPrefix(l, "SKIP ") {
			tests = append(tests, i)
		}
	}
	var sub []string
	for _, i := range tests {
		sub = append(sub, lines[i])
	}
	sort.Strings(sub)
	for k, i := range tests {
		lines[i] = sub[k]
	}
	return strings.Join(lines, "\n")
}

// offRule is the sample's no-var rule turned off.
const offRule = "id: no-var\nlanguage: JavaScript\nseverity: off\nrule:\n  pattern: var $X = $Y\n  inside:\n    kind: statement_block\n    stopBy: end\n"

// quotingTest has invalid cases that need each kind of YAML quoting as a
// snapshot's keys and values, for a rule that reports the whole code.
const quotingTest = "id: whole\ninvalid:\n- \"a{b\"\n- \"a {b}\"\n- \"a }\"\n- \"a [b]\"\n- \"a,b\"\n- \"x}y\"\n- \"f() {}\"\n- \"a: b\"\n- \"a #b\"\n- \"a#b\"\n- \"a - b\"\n- \"a ? b\"\n- \"a ! b\"\n- \"a & b\"\n- \"a | b\"\n- \"a > b\"\n- \"a ' b\"\n- \"a \\\" b\"\n- \"null\"\n- \"~\"\n- \"TRUE\"\n- \"yes\"\n- \"on\"\n- \"0o7\"\n- \"1_000\"\n- \".5\"\n- \"+1\"\n- \"-1\"\n- \"1e3\"\n- \".inf\"\n- \"a\\tb\"\n- \"\\u00e9\"\n- \"a\\\\b\"\n- \"x:y\"\n- \"x:\"\n- \" a\"\n- \"a \"\n- \"a\\u00a0b\"\n- \"=\"\n- \"<<\"\n- \"?\"\n- \"-\"\n- \"a\\u2028b\"\n- \"a\\nb\\n\"\n- \"a\\n\\nb\\n\\n\"\n- \"{\\n  x\\n}\"\n"

// labelRule is the sample's no-literal-throw rule with a label of its own
// (with a message) and a fix.
const labelRule = "id: no-literal-throw\nlanguage: JavaScript\nseverity: error\nrule:\n  pattern: throw $E\n  has:\n    matches: is-literal\nlabels:\n  E:\n    style: secondary\n    message: a literal\nfix: throw new Error($E)\n"

// ruleTestCases are changes to the sample project and the test flags to
// run on them.
var ruleTestCases = []struct {
	name string
	edit map[string]string // relative path: new content ("" removes it)
	args []string
	exit int // ast-grep's exit status
}{
	{name: "pass", exit: 0},
	{name: "failing valid", exit: 4, edit: map[string]string{"rule-tests/no-console-test.yml": "id: no-console\nvalid:\n- \"console.log(2)\"\ninvalid:\n- \"console.log(1)\"\n"}},
	{name: "failing invalid", exit: 4, edit: map[string]string{"rule-tests/no-var-test.yml": "id: no-var\nvalid:\n- \"let a = 1\"\ninvalid:\n- \"var top = 1\"\n- \"function f() { var a = 1 }\"\n"}},
	{name: "stale snapshot", exit: 4, edit: map[string]string{"rule-tests/__snapshots__/no-console-snapshot.yml": "id: no-console\nsnapshots:\n  console.log(1):\n    fixed: logger.warn(1)\n    labels:\n    - source: console.log(1)\n      style: primary\n      start: 0\n      end: 14\n"}},
	{name: "stale snapshot skipped", exit: 0, edit: map[string]string{"rule-tests/__snapshots__/no-console-snapshot.yml": "id: no-console\nsnapshots: {}\n"}, args: []string{"--skip-snapshot-tests"}},
	{name: "update all", exit: 0, edit: map[string]string{"rule-tests/__snapshots__/no-var-snapshot.yml": "", "rule-tests/__snapshots__/no-console-snapshot.yml": "id: no-console\nsnapshots: {}\n"}, args: []string{"-U"}},
	{name: "update all quoting", exit: 0, edit: map[string]string{"rules/whole.yml": "id: whole\nlanguage: JavaScript\nrule:\n  kind: program\n", "rule-tests/whole-test.yml": quotingTest}, args: []string{"-U"}},
	{name: "rule labels and fix", exit: 0, edit: map[string]string{"rules/no-literal-throw.yml": labelRule, "rule-tests/__snapshots__/no-literal-throw-snapshot.yml": ""}, args: []string{"-U"}},
	{name: "filter", exit: 0, edit: map[string]string{"rule-tests/__snapshots__/no-var-snapshot.yml": ""}, args: []string{"--filter", "^no-(console|literal)"}},
	{name: "no such rule", exit: 0, edit: map[string]string{"rule-tests/nosuch-test.yml": "id: nosuch\nvalid: [a]\n"}},
	{name: "filter matching no rule", exit: 3, args: []string{"--filter", "^zzz"}},
	{name: "severity off", exit: 0, edit: map[string]string{"rules/no-var.yml": offRule}},
	{name: "severity off included", exit: 0, edit: map[string]string{"rules/no-var.yml": offRule}, args: []string{"--include-off"}},
	{name: "broken test file", exit: 8, edit: map[string]string{"rule-tests/bad-test.yml": "valid: [a]\n"}},
	{name: "broken snapshot file", exit: 8, edit: map[string]string{"rule-tests/__snapshots__/no-var-snapshot.yml": "id: no-var\nsnapshots: [\n"}},
	{name: "valid not a list", exit: 8, edit: map[string]string{"rule-tests/no-var-test.yml": "id: no-var\nvalid: \"let a\"\n"}},
	{name: "two tests in a file", exit: 4, edit: map[string]string{"rule-tests/no-var-test.yml": "id: no-var\nvalid: [\"let a\"]\n---\nid: no-console\ninvalid: [\"foo()\"]\n"}},
	{name: "no testConfigs", exit: 0, edit: map[string]string{"sgconfig.yml": "ruleDirs: [rules]\nutilDirs: [utils]\n"}},
	{name: "broken rule", exit: 8, edit: map[string]string{"rules/bad.yml": "id: bad\nlanguage: JavaScript\nrule:\n  nosuch: 1\n"}},
}

// TestRuleTestAsPeer runs `tether test` and the pinned ast-grep's test on
// copies of the sample project, each changed alike (a noisy valid case, a
// missing invalid case, a stale snapshot, -U, --filter, a test of no rule,
// broken files), and checks that both exit alike, print the same report
// (tests in either order) and leave the same files.
func TestRuleTestAsPeer(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	for _, tc := range ruleTestCases {
		t.Run(tc.name, func(t *testing.T) {
			var dirs [2]string
			for i := range dirs {
				dirs[i] = t.TempDir()
				testenv.CopyTree(t, sampleRuleProject, dirs[i])
				for p, text := range tc.edit {
					p = filepath.Join(dirs[i], p)
					if text == "" {
						os.Remove(p)
					} else if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			want, wantOut, wantErr := peerRunIn(t, sg, dirs[0], append([]string{"test"}, tc.args...)...)
			code, out, errOut := tetherIn(t, dirs[1], append([]string{"test"}, tc.args...)...)
			if want != tc.exit {
				t.Errorf("ast-grep test exits %d, not %d as it did when this test was written", want, tc.exit)
			}
			if code != want {
				t.Fatalf("tether test exits %d, ast-grep %d\ntether: %s%s\nast-grep: %s%s", code, want, out, errOut, wantOut, wantErr)
			}
			if want == 0 || want == 4 {
				if sortedSummary(out) != sortedSummary(wantOut) {
					t.Errorf("report differs\ntether:\n%s\nast-grep:\n%s", out, wantOut)
				}
			} else if out != "" && !strings.HasPrefix(out, "Running") {
				t.Errorf("tether printed a report on an error: %q", out)
			}
			if errOut == "" && want != 0 {
				t.Error("tether test failed without a word on stderr")
			}
			a, b := treeFiles(t, dirs[0]), treeFiles(t, dirs[1])
			for p := range a {
				if a[p] != b[p] {
					t.Errorf("%s differs\ntether:\n%s\nast-grep:\n%s", p, b[p], a[p])
				}
			}
			for p := range b {
				if _, ok := a[p]; !ok {
					t.Errorf("tether wrote %s, ast-grep did not", p)
				}
			}
		})
	}
}

// TestAstGrepSubcommandsRoute checks that `tether ast-grep test` and
// `tether ast-grep new` are tether test and tether new, as ast-grep's
// subcommands are.
func TestAstGrepSubcommandsRoute(t *testing.T) {
	dir := t.TempDir()
	testenv.CopyTree(t, sampleRuleProject, dir)
	code, out, errOut := tetherIn(t, dir, "ast-grep", "test")
	if code != 0 || !strings.Contains(out, "test result: ok. 3 passed; 0 failed;") {
		t.Errorf("tether ast-grep test = %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = tetherIn(t, dir, "ast-grep", "new", "test", "no-var", "-y")
	if code != exitItemExists || !strings.Contains(errOut, "no-var-test.yml") {
		t.Errorf("tether ast-grep new test no-var = %d, want %d naming the file\n%s%s", code, exitItemExists, out, errOut)
	}
}
