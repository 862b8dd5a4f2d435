package tools_test

import "fmt"
import "regexp"
import "sort"
import "strconv"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestLSPReferencesOutsideProject: typescript-language-server's references
// of a class used in 24 test files outside the tsconfig include ("src")
// list the 2 uses in src; the 72 in test/ follow as identifiers the server
// did not confirm, with the reason (outside the TypeScript project, its
// include named), and start pages through every one of them.
func TestLSPReferencesOutsideProject(t *testing.T) {
	files := map[string]string{
		"package.json":  `{"name":"p","version":"1.0.0"}`,
		"tsconfig.json": "{\n  // the library only\n  \"compilerOptions\": {\"strict\": true},\n  \"include\": [\"src\"],\n}\n",
		"src/errors.ts": "export class HTTPError extends Error {}\n",
		"src/index.ts":  "import { HTTPError } from \"./errors\";\nexport const e = new HTTPError();\n",
	}
	var want []string
	for f := range 24 {
		name := fmt.Sprintf("test/t%02d.ts", f)
		files[name] = "import { HTTPError } from \"../src/errors\";\n\nconst x = new HTTPError();\nconsole.log(x instanceof HTTPError);\n"
		want = append(want, name+":1", name+":3", name+":4")
	}
	r, _ := projectRun(t, "typescript-language-server", files)
	args := map[string]any{"action": "references", "file": "src/errors.ts", "line": 1, "symbol": "HTTPError"}
	out := lspText(t, r, "lsp", args)
	if !testenv.WantAll(t, "references", out,
		"src/errors.ts:1:", "src/index.ts:1:", "src/index.ts:2:",
		"+72 same-name identifier(s) the server did not confirm",
		"72 of them are in files outside the TypeScript project of tsconfig.json (its include: src), which the server does not search: test/t00.ts, test/t01.ts,",
	) {
		t.FailNow()
	}
	if strings.Contains(out, "test/t00.ts:1:") {
		t.Fatalf("the server confirmed a use outside its project; the test needs one it does not:\n%s", out)
	}
	confirmed := regexp.MustCompile(`: (\d+) location\(s\)`).FindStringSubmatch(out)
	if confirmed == nil {
		t.Fatalf("no count of the server's locations:\n%s", out)
	}
	total, _ := strconv.Atoi(confirmed[1])
	page := regexp.MustCompile(`did not confirm \([^)]*\): ([^\n]*)`)
	next := regexp.MustCompile(`\((\d+)-(\d+) of 72 shown; pass start (\d+) for the next\)`)
	var got []string
	for pages := 0; ; pages++ {
		m := page.FindStringSubmatch(out)
		if m == nil || pages > 10 {
			t.Fatalf("page %d:\n%s", pages, out)
		}
		for _, f := range strings.Fields(m[1]) {
			if strings.HasPrefix(f, "test/") {
				got = append(got, f)
			}
		}
		n := next.FindStringSubmatch(out)
		if n == nil {
			break
		}
		start, _ := strconv.Atoi(n[3])
		if from, _ := strconv.Atoi(n[1]); start != total+from-1+20 {
			t.Fatalf("next start %d after %s-%s with %d locations first:\n%s", start, n[1], n[2], total, out)
		}
		args["start"] = start
		out = lspText(t, r, "lsp", args)
		if !strings.Contains(out, fmt.Sprintf("from start %d on, the same-name identifiers it did not confirm", total)) {
			t.Fatalf("a page past the server's locations does not say what it holds:\n%s", out)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("paging reached %d identifiers:\n%v\nwant %d:\n%v", len(got), got, len(want), want)
	}
}

// TestLSPRenameLeftoversWayOn: a rename that leaves 72 uses outside the
// TypeScript project lists 20 and names the references call that pages
// through them; following it reaches every one.
func TestLSPRenameLeftoversWayOn(t *testing.T) {
	files := map[string]string{
		"package.json":  `{"name":"p","version":"1.0.0"}`,
		"tsconfig.json": `{"compilerOptions":{"strict":true},"include":["src"]}`,
		"src/errors.ts": "export class HTTPError extends Error {}\n",
	}
	want := map[string]bool{}
	for f := range 24 {
		name := fmt.Sprintf("test/t%02d.ts", f)
		files[name] = "import { HTTPError } from \"../src/errors\";\n\nconst x = new HTTPError();\nconsole.log(x instanceof HTTPError);\n"
		want[name+":1"], want[name+":3"], want[name+":4"] = true, true, true
	}
	r, _ := projectRun(t, "typescript-language-server", files)
	out := lspText(t, r, "lsp_rename", map[string]any{"file": "src/errors.ts", "line": 1, "symbol": "HTTPError", "new_name": "ResponseError"})
	way := "(20 of 72 shown; lsp references with file test/t00.ts, line 1 and symbol HTTPError pages through all of them)"
	if !strings.Contains(out, "72 other occurrence(s) of HTTPError remain") || !strings.Contains(out, way) {
		t.Fatalf("rename:\n%s", out)
	}
	args := map[string]any{"action": "references", "file": "test/t00.ts", "line": 1, "symbol": "HTTPError"}
	at := regexp.MustCompile(`(test/t\d\d\.ts:\d+)`)
	next := regexp.MustCompile(`pass start (\d+) for the next`)
	got := map[string]bool{}
	for pages := 0; pages < 20; pages++ {
		out := lspText(t, r, "lsp", args)
		for _, m := range at.FindAllString(out, -1) {
			got[m] = true
		}
		n := next.FindAllStringSubmatch(out, -1)
		if len(n) == 0 {
			break
		}
		start, _ := strconv.Atoi(n[len(n)-1][1])
		args["start"] = start
	}
	for w := range want {
		if !got[w] {
			t.Errorf("paging the references never reached %s", w)
		}
	}
}
