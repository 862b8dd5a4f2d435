package main

import "fmt"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestAstGrepCLISearchesLargeFilesAsPeer: ast-grep searches a JavaScript file
// of several MiB (bundles such as typescript.js are 9 MB); so does tether,
// finding the same matches, instead of skipping it at a 2 MiB cap.
func TestAstGrepCLISearchesLargeFilesAsPeer(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() < 5<<19; i++ { // 2.5 MiB
		if i%1000 == 0 {
			fmt.Fprintf(&b, "const m%d = require(\"m%d\");\n", i, i)
			continue
		}
		fmt.Fprintf(&b, "function f%d(a, b) { return a + b * %d; }\n", i, i)
	}
	testenv.WriteFiles(t, dir, map[string]string{"big.js": b.String()})
	args := []string{"-p", "require($X)", "-l", "js", "--json=stream", dir}
	want := peerRun(t, sg, args...)
	code, got, errOut := runCLI(t, args...)
	n := strings.Count(want, "\n")
	if n == 0 {
		t.Fatalf("ast-grep found nothing in the large file: the fixture is wrong")
	}
	if c := strings.Count(got, "\n"); c != n || code != 0 {
		t.Errorf("tether found %d matches (exit %d, %s), ast-grep %d", c, code, strings.TrimSpace(errOut), n)
	}
}
