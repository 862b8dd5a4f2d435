package tools_test

import "encoding/json"
import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// What only the process sandbox stops: a workspace that makes its
// language server read a file outside it and quote it in an answer tether
// passes on as it is (a diagnostic's message, a hover). Tether reads none of
// these files itself (lsp_confine_test.go); the server does.

// requireFileSandbox skips a test of what only the process sandbox can
// stop (a server reading a file outside the workspace and quoting it) on a
// machine where the sandbox does not confine files, saying why, and fails
// there when TETHER_REQUIRE_SANDBOX=1 says it must confine them.
func requireFileSandbox(t *testing.T) {
	t.Helper()
	if st := proc.SandboxStatus(); !st.Files() {
		const why = "the process sandbox does not confine files here, and only it stops a server reading outside the workspace: %s"
		if os.Getenv("TETHER_REQUIRE_SANDBOX") == "1" {
			t.Fatalf(why, st)
		}
		t.Skipf(why, st)
	}
}

// TestLSPConfineClangdEmbed: C23's #embed of a file outside the workspace
// and one static assertion per byte, with no limit on errors, make clangd's
// diagnostics an oracle for that file's bytes ("expression evaluates to
// '115 == 0'"). Tether never reads that file: clangd does, so only the
// process sandbox stops it (clangd cannot open the file, and says so).
func TestLSPConfineClangdEmbed(t *testing.T) {
	if testenv.LookPath("clangd") == "" {
		testenv.RequireBinary(t, "clangd-19")
	}
	requireFileSandbox(t)
	ws, other := siblingDirs(t)
	const secret = "sk-EMBED-3e9a"
	testenv.WriteFiles(t, other, map[string]string{"secret.bin": secret})
	var src strings.Builder
	src.WriteString("static const unsigned char d[] = {\n#embed \"" + filepath.Join(other, "secret.bin") + "\"\n};\n")
	for i := range len(secret) {
		fmt.Fprintf(&src, "_Static_assert(d[%d] == 0, \"byte %d\");\n", i, i)
	}
	cc, _ := json.Marshal([]map[string]string{{"directory": ws, "file": filepath.Join(ws, "x.c"), "command": "cc -std=c23 -ferror-limit=0 -c x.c"}})
	testenv.WriteFiles(t, ws, map[string]string{"x.c": src.String(), "compile_commands.json": string(cc)})
	r := startRun(t, tools.Config{WorkDir: ws, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, ws, 20*time.Second)})
	out := lspText(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "x.c"})
	t.Logf("diagnostics:\n%s", out)
	requireNoLeak(t, "diagnostics", out, secret)
	if got := embedBytes(out); len(got) > 0 {
		t.Fatalf("diagnostics give away %d byte(s) of the outside file: %v", len(got), got)
	}
	// Closed because clangd could not open the file, and says so on the
	// #embed line, not because the assertions went unchecked.
	if !strings.Contains(out, "x.c:2:") || !strings.Contains(out, "secret.bin' file not found") {
		t.Fatalf("want clangd's error that it could not open the embedded file:\n%s", out)
	}
}

// embedBytes recovers, as an attacker would, the bytes the static
// assertions' diagnostics give away: "d[3] == 0" then "evaluates to
// '69 == 0'".
func embedBytes(out string) map[int]byte {
	got := map[int]byte{}
	re := regexp.MustCompile(`d\[(\d+)\] == 0[\s\S]*?evaluates to '(\d+) == 0'`)
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		i, _ := strconv.Atoi(m[1])
		v, _ := strconv.Atoi(m[2])
		got[i] = byte(v)
	}
	return got
}

// TestLSPConfinePyrightReadsNoOtherWorkspace: a pyrightconfig.json whose
// extraPaths name another tenant's workspace, and a file that imports its
// API key and misuses it: pyright's hover, its diagnostics and the checker
// behind diagnostics "*" would quote the key's value (its Literal type).
// Tether does not read that file: pyright does, so only the process
// sandbox stops it.
func TestLSPConfinePyrightReadsNoOtherWorkspace(t *testing.T) {
	testenv.RequireBinary(t, "pyright-langserver")
	requireFileSandbox(t)
	r, _ := pyrightBesideSecret(t, "from secretmod import API_KEY\n\nx: int = API_KEY\nreveal_type(API_KEY)\n")
	for _, c := range []struct {
		name string
		args map[string]any
		want string // what says pyright could not read the module
	}{
		{"hover", map[string]any{"action": "hover", "file": "main.py", "line": 3, "symbol": "API_KEY"}, ""},
		{"diagnostics", map[string]any{"action": "diagnostics", "file": "main.py", "severity": "hint"}, `Import "secretmod" could not be resolved`},
		{"check", map[string]any{"action": "diagnostics", "file": "*"}, `Import "secretmod" could not be resolved`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := lspCall(t, r, "lsp", c.args)
			t.Logf("%s: %v\n%s", c.name, err, out)
			requireNoLeak(t, c.name, out, secretKey)
			if err != nil {
				requireNoLeak(t, c.name, err.Error(), secretKey)
			}
			if !strings.Contains(out, c.want) {
				t.Fatalf("%s: want %q:\n%s", c.name, c.want, out)
			}
		})
	}
}
