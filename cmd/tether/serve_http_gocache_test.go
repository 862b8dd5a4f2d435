//go:build linux

package main

import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"

// gocacheProgram writes a marker into the Go build cache it sees (a
// poisoned compile would go there), or with "check" only looks for one,
// and leaves what happened in result.txt.
const gocacheProgram = `package main

import (
	"os"
	"path/filepath"
)

func main() {
	c := os.Getenv("GOCACHE")
	if c == "" {
		d, _ := os.UserCacheDir()
		c = filepath.Join(d, "go-build")
	}
	marker := filepath.Join(c, "tether-poison-marker")
	res := "absent"
	if len(os.Args) > 1 && os.Args[1] == "write" {
		res = "wrote"
		if err := os.WriteFile(marker, []byte("alpha"), 0o644); err != nil {
			res = "refused: " + err.Error()
		}
	} else if _, err := os.Stat(marker); err == nil {
		res = "seen"
	}
	os.WriteFile("result.txt", []byte(res), 0o644)
}
`

// TestHostDebuggeesShareNoBuildCache: a program tenant alpha debugs writes
// into the Go build cache it sees (the shared one once let it replace a
// cached compile that tenant beta's next debug build, and the operator's
// own go build, then ran); tenant beta's debuggee and the operator's cache
// do not see the write.
func TestHostDebuggeesShareNoBuildCache(t *testing.T) {
	testenv.RequireBinary(t, "dlv")
	if st := proc.SandboxStatus(); !st.Files() {
		t.Skipf("no sandbox here: %s", st)
	}
	base := t.TempDir()
	hp := startHostProc(t, base)
	root := filepath.Join(base, "root")
	for _, ws := range []string{"alpha", "beta"} {
		os.Remove(filepath.Join(root, ws, "a.go"))
		os.WriteFile(filepath.Join(root, ws, "go.mod"), []byte("module "+ws+"\n\ngo 1.21\n"), 0o644)
		os.WriteFile(filepath.Join(root, ws, "main.go"), []byte(gocacheProgram), 0o644)
	}
	run := func(ws string, args ...string) string {
		t.Helper()
		cs := openHostSession(t, hp.url, ws)
		defer cs.Close()
		launch := map[string]any{"op": "launch", "program": ".", "args": args}
		text, isErr := callText(t, cs, "debug", launch)
		if isErr {
			t.Fatalf("%s: debug launch: %s", ws, text)
		}
		defer terminate(t, cs)
		out := filepath.Join(root, ws, "result.txt")
		for end := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
			if b, err := os.ReadFile(out); err == nil && len(b) > 0 {
				return string(b)
			}
			if time.Now().After(end) {
				t.Fatalf("%s: the debuggee wrote no %s within 3m; launch said:\n%s", ws, out, text)
			}
		}
	}
	alpha := run("alpha", "write")
	t.Logf("alpha's write into its build cache: %s", alpha)
	if got := run("beta", "check"); got != "absent" {
		t.Errorf("tenant beta's debuggee found alpha's marker in its build cache: %s", got)
	}
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(cacheDir, "go-build", "tether-poison-marker")
	if _, err := os.Stat(host); err == nil {
		os.Remove(host)
		t.Errorf("alpha's debuggee wrote into the operator's Go build cache (%s)", host)
	}
	if strings.HasPrefix(alpha, "refused") {
		t.Logf("alpha could not write at all: %s", alpha)
	}
}

func terminate(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	callText(t, cs, "debug", map[string]any{"op": "terminate"})
}
