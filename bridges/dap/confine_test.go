package dap_test

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"

// outsideFile writes, beside the workspace root, a file whose second line
// (where the fake adapter's top frame stops) no answer may show, and a
// symbolic link in root leading to it.
func outsideFile(t *testing.T, root string) (file, link, secret string) {
	t.Helper()
	secret = "sk-DEBUGGEE-0c4e"
	file = filepath.Join(t.TempDir(), "secret.fake")
	if err := os.WriteFile(file, []byte("[secrets]\ntoken = "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link = filepath.Join(root, "link.fake")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	return file, link, secret
}

// TestFakeFrameOutsideShowsPathOnly: a stop whose top frame's source is a
// file outside the working dir, named directly or through a symbolic link
// in it that leads out, shows the path alone, marked, and never that
// file's line (it was read by whatever path the adapter named); the
// program's own frame below keeps its source line.
func TestFakeFrameOutsideShowsPathOnly(t *testing.T) {
	for _, via := range []string{"path", "symlink"} {
		t.Run(via, func(t *testing.T) {
			f := &fakeAdapter{nFrames: 2}
			sv, root := fakeSupervisor(t, f, dap.Config{})
			file, link, secret := outsideFile(t, root)
			f.topFile = file
			if via == "symlink" {
				f.topFile = link
			}
			l := do(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"})
			st := l.Stop
			if st == nil || st.File != f.topFile || st.Source != "" || !st.SourceOutside {
				t.Fatalf("stop in %s: %+v", f.topFile, st)
			}
			if strings.Contains(l.String(), secret) {
				t.Fatalf("the stop shows the outside file's content:\n%s", l)
			}
			if via == "path" && (st.UserFrame == nil || st.UserSource != "line one") {
				t.Fatalf("the program's own frame lost its source line: %+v", st)
			}
		})
	}
}

// TestFakeBreakpointsOutsideNotRead: breakpoints in a file outside the
// working dir go to the adapter unread: tether does not count its lines
// (the refusal "past the end of ... (2 lines)" told its length), and the
// adapter has the last word.
func TestFakeBreakpointsOutsideNotRead(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{}, dap.Config{})
	file, link, _ := outsideFile(t, root)
	for _, p := range []string{file, "link.fake", link} {
		r := do(t, sv, "c", root, request{Op: "breakpoints", File: p, Lines: []int{1000}})
		if r.Set == nil || len(r.Set.Lines) != 1 || r.Set.Lines[0] != 1000 {
			t.Fatalf("breakpoints in %s: %+v", p, r.Set)
		}
	}
	// Inside, a line past the end is refused before the adapter is asked.
	if msg := doErr(t, sv, "c", root, request{Op: "breakpoints", File: "prog.fake", Lines: []int{1000}}); !strings.Contains(msg, "past the end of prog.fake (102 lines)") {
		t.Fatalf("a line past the end of prog.fake: %s", msg)
	}
}
