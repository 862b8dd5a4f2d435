package main

import "bytes"
import "encoding/json"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

const cliSrc = `package p

import "fmt"

func f(err error) error {
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	return fmt.Errorf("done")
}
`

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"ast-grep"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// peerRun runs the pinned ast-grep's run with args and returns what it
// printed, failing the test when it fails.
func peerRun(t *testing.T, sg string, args ...string) string {
	t.Helper()
	out, err := exec.Command(sg, append([]string{"run"}, args...)...).Output()
	if err != nil {
		t.Fatalf("ast-grep %v: %v", args, err)
	}
	return string(out)
}

func TestAstGrepCLI(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte(cliSrc), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, _ := runCLI(t, "-p", "fmt.Errorf($$$ARGS)", "-l", "go", dir)
	if code != 0 || !strings.Contains(out, file+":7:\t\treturn fmt.Errorf(\"open: %w\", err)\n") || strings.Count(out, "\n") != 2 {
		t.Errorf("human output (exit %d):\n%s", code, out)
	}

	code, out, _ = runCLI(t, "-p", "fmt.Errorf($A, $$$REST)", "--json", file)
	if code != 0 {
		t.Fatalf("--json exit %d", code)
	}
	var ms []struct {
		Text  string `json:"text"`
		File  string `json:"file"`
		Lines string `json:"lines"`
		Lang  string `json:"language"`
		Range struct {
			ByteOffset struct{ Start, End int }   `json:"byteOffset"`
			Start      struct{ Line, Column int } `json:"start"`
		} `json:"range"`
		MetaVariables struct {
			Single map[string]struct{ Text string }   `json:"single"`
			Multi  map[string][]struct{ Text string } `json:"multi"`
		} `json:"metaVariables"`
	}
	// the "," of the pattern must be there: fmt.Errorf("done") has no second argument
	if err := json.Unmarshal([]byte(out), &ms); err != nil || len(ms) != 1 {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	m := ms[0]
	if m.Text != `fmt.Errorf("open: %w", err)` || m.Lang != "Go" || m.Range.Start.Line != 6 || m.Range.Start.Column != 9 ||
		m.MetaVariables.Single["A"].Text != `"open: %w"` || len(m.MetaVariables.Multi["REST"]) != 1 || m.MetaVariables.Multi["REST"][0].Text != "err" {
		t.Errorf("first match: %+v", m)
	}

	code, _, errOut := runCLI(t, "-p", "panic($X)", file)
	if code != 1 || !strings.Contains(errOut, "no matches in 1 file") {
		t.Errorf("no match: exit %d, stderr %q", code, errOut)
	}
	// ast-grep warns and searches with it; tether refuses it, exiting 8
	// as ast-grep does for a pattern it cannot read
	code, _, errOut = runCLI(t, "-p", "fmt.Errorf(", "-l", "go", file)
	if code != exitInvalid || !strings.Contains(errOut, "does not parse") {
		t.Errorf("bad pattern: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = runCLI(t, "-p", "fmt.Errorf($$$A)", "--max-results", "1", file)
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(errOut, "1 of 2 matches shown (raise --max-results") {
		t.Errorf("--max-results 1: exit %d, %q, %q", code, out, errOut)
	}

	// -r without -U shows the diff and writes nothing; -U applies
	code, out, _ = runCLI(t, "-p", "fmt.Errorf($$$A)", "-r", "errs.New($$$A)", file)
	if code != 0 || !strings.Contains(out, `+		return errs.New("open: %w", err)`) {
		t.Errorf("rewrite diff (exit %d):\n%s", code, out)
	}
	if data, _ := os.ReadFile(file); string(data) != cliSrc {
		t.Fatal("-r without -U wrote the file")
	}
	code, _, errOut = runCLI(t, "-p", "fmt.Errorf($$$A)", "-r", "errs.New($$$A)", "-U", file)
	data, _ := os.ReadFile(file)
	if code != 0 || !strings.Contains(errOut, "Applied 2 changes") || string(data) != strings.ReplaceAll(cliSrc, "fmt.Errorf", "errs.New") {
		t.Errorf("-U (exit %d): %s\n%s", code, errOut, data)
	}
}

// TestAstGrepCLICompat: ast-grep's own spellings work: a leading "run"
// subcommand, and --json=pretty|compact|stream.
func TestAstGrepCLICompat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte(cliSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "run", "-p", "fmt.Errorf($$$A)", "-l", "go", file)
	if code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("run -p: exit %d\n%s%s", code, out, errOut)
	}
	for _, mode := range []string{"pretty", "compact", "stream"} {
		code, out, errOut := runCLI(t, "-p", "fmt.Errorf($$$A)", "--json="+mode, file)
		if code != 0 {
			t.Fatalf("--json=%s: exit %d: %s", mode, code, errOut)
		}
		var texts []string
		switch mode {
		case "stream":
			lines := strings.Split(strings.TrimSpace(out), "\n")
			for _, l := range lines {
				var m struct{ Text string }
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("--json=stream line %q: %v", l, err)
				}
				texts = append(texts, m.Text)
			}
		default:
			var ms []struct{ Text string }
			if err := json.Unmarshal([]byte(out), &ms); err != nil {
				t.Fatalf("--json=%s: %v\n%s", mode, err, out)
			}
			for _, m := range ms {
				texts = append(texts, m.Text)
			}
			if mode == "compact" && strings.Count(strings.TrimSpace(out), "\n") != 0 {
				t.Errorf("--json=compact is not one line:\n%s", out)
			}
		}
		if len(texts) != 2 || texts[0] != `fmt.Errorf("open: %w", err)` {
			t.Errorf("--json=%s: %q", mode, texts)
		}
	}
	code, out, _ = runCLI(t, "-p", "panic($$$A)", "--json=stream", file)
	if code != 1 || out != "" {
		t.Errorf("--json=stream with no match: exit %d, %q; want 1 and nothing", code, out)
	}
	if code, _, errOut := runCLI(t, "-p", "f()", "--json=yaml", file); code != 2 || !strings.Contains(errOut, "pretty, compact or stream") {
		t.Errorf("--json=yaml: exit %d, %q", code, errOut)
	}
}

// TestAstGrepCLIMissingPath: a path given that does not exist is skipped
// and named on stderr when another given path exists, as ast-grep does
// (same matches, same exit code); when none exists the search is an error.
func TestAstGrepCLIMissingPath(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte(cliSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.go")
	for _, pat := range []string{"return $X", "panic($X)"} {
		args := []string{"-p", pat, "-l", "go", missing, file}
		peer := exec.Command(sg, append([]string{"run"}, args...)...)
		peerOut, _ := peer.Output()
		code, out, errOut := runCLI(t, args...)
		if code != peer.ProcessState.ExitCode() || out != string(peerOut) {
			t.Errorf("%s: exit %d, ast-grep %d\ntether:\n%s\nast-grep:\n%s", pat, code, peer.ProcessState.ExitCode(), out, peerOut)
		}
		if !strings.Contains(errOut, "1 not found: "+missing) {
			t.Errorf("%s: stderr does not name the missing path: %q", pat, errOut)
		}
	}
	code, _, errOut := runCLI(t, "-p", "panic($X)", "-l", "go", missing, filepath.Join(dir, "nope2.go"))
	if code != 2 || !strings.Contains(errOut, "no such file") {
		t.Errorf("no path exists: exit %d, stderr %q", code, errOut)
	}
}

// TestScanCLIMissingPath: tether scan skips a path given that does not
// exist when another does, naming it on stderr, with ast-grep's findings
// and exit code.
func TestScanCLIMissingPath(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	ruleFile := filepath.Join(dir, "r.yml")
	if err := os.WriteFile(file, []byte(cliSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ruleFile, []byte("id: ret\nlanguage: go\nseverity: error\nrule:\n  pattern: return $X\nmessage: a return\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.go")
	args := []string{"-r", ruleFile, "--json=stream", missing, file}
	peer := exec.Command(sg, append([]string{"scan"}, args...)...)
	peerOut, _ := peer.Output()
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"scan"}, args...), &out, &errb)
	if code != peer.ProcessState.ExitCode() || strings.Count(out.String(), "\n") != strings.Count(string(peerOut), "\n") || strings.Count(out.String(), "\n") != 2 {
		t.Errorf("exit %d, ast-grep %d\ntether:\n%s\nast-grep:\n%s", code, peer.ProcessState.ExitCode(), out.String(), peerOut)
	}
	if !strings.Contains(errb.String(), missing+": no such file or directory") {
		t.Errorf("stderr does not name the missing path: %q", errb.String())
	}
}
