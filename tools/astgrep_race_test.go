//go:build unix

package tools_test

import "os"
import "path/filepath"
import "strings"
import "sync"
import "sync/atomic"
import "testing"
import "time"

import "github.com/tetherhq/tether/tools"

// TestAstGrepLinkSwapRace: a process racing the search swaps a subdirectory
// of the workspace for a symbolic link to an outside directory holding a file
// of the same name, and back, over and over. Whatever the timing, ast_grep
// and ast_edit never show the outside file's content: the walk and every read
// go through the workspace root, which refuses a link that leads out (the
// old code read outside content in about one search in nine).
func TestAstGrepLinkSwapRace(t *testing.T) {
	const marker = "OUTSIDE_MARKER"
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{
		"sub/a.go": "package sub\n\nfunc f() { call(\"inside\") }\n",
		"top.go":   "package top\n\nfunc g() { call(\"top\") }\n",
	})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "a.go"), []byte("package sub\n\nfunc f() { call(\""+marker+"\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub, moved := filepath.Join(dir, "sub"), filepath.Join(dir, "sub.moved")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			// each state held a moment, so that the search meets both
			if os.Rename(sub, moved) != nil {
				continue
			}
			os.Symlink(outside, sub)
			time.Sleep(200 * time.Microsecond)
			os.Remove(sub)
			os.Rename(moved, sub)
			time.Sleep(200 * time.Microsecond)
		}
	}()
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()
	const runs = 300
	sawInside, refused := 0, 0
	for i := 0; i < runs; i++ {
		tool, args := "ast_grep", `{"pattern":"call($X)","language":"go"}`
		if i%2 == 1 {
			tool, args = "ast_edit", `{"pattern":"call($X)","rewrite":"call2($X)","language":"go"}`
		}
		res, err := call(t, r, tool, args)
		var text strings.Builder
		if err != nil {
			text.WriteString(err.Error())
		}
		if res != nil {
			for _, c := range res.Content {
				text.WriteString(c.Text)
			}
		}
		if strings.Contains(text.String(), marker) {
			t.Fatalf("run %d of %d: %s showed the outside file's content:\n%s", i+1, runs, tool, text.String())
		}
		if strings.Contains(text.String(), "inside") {
			sawInside++
		}
		if strings.Contains(text.String(), "outside the working directory") {
			refused++
		}
	}
	t.Logf("%d runs: the inside file shown in %d, a read refused as leading outside in %d", runs, sawInside, refused)
	if sawInside == 0 {
		t.Errorf("no run showed the inside file: the searches did not search")
	}
}
