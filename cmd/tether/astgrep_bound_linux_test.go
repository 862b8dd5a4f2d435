package main

import "bufio"
import "bytes"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"

// minifiedJS returns a minified bundle of n functions on one line, each
// with four && (four matches of '$A && $B' a function: one for each
// && of the chain, the nested ones included).
func minifiedJS(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "function f%d(a,b,c){return a&&b&&c&&a.x&&b.y}", i)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// runBounded runs cmd and returns its peak resident set in bytes (the
// kernel's maxrss of the child). A child whose resident set passes killAt is
// killed (the test then fails) rather than let take the machine down.
func runBounded(t *testing.T, cmd *exec.Cmd, killAt int64) int64 {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	killed := make(chan int64, 1)
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if rss := residentBytes(cmd.Process.Pid); rss > killAt {
					cmd.Process.Kill()
					killed <- rss
					return
				}
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	select {
	case rss := <-killed:
		t.Fatalf("%s: killed at %d MiB resident, over %d MiB: its memory grows with its input", cmd.Args, rss>>20, killAt>>20)
	default:
	}
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage for the child")
	}
	return ru.Maxrss << 10 // KiB on Linux
}

// residentBytes reads a process's VmRSS; 0 when it is gone.
func residentBytes(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// countingWriter counts what is written to it and its newlines.
type countingWriter struct{ bytes, lines int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.bytes += int64(len(p))
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}

// TestAstGrepMemoryBoundedOnMinified: a pattern matching tens of thousands
// of times on the one line of a minified bundle keeps tether ast-grep's
// peak resident set within a bound set by the file, not by the matches
// times the line: each match once held its own copy of the line (and each
// capture of its text), 64,000 copies of a 0.7 MiB line here, which took a
// search over node_modules past 24 GB. Every match is still counted and
// printed: the line once, as ast-grep prints it, and the JSON stream with
// each match and its line.
func TestAstGrepMemoryBoundedOnMinified(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tether and parses a 1 MiB bundle")
	}
	bin := tetherBin(t)
	dir := t.TempDir()
	const funcs = 16000 // 46 bytes each: a 0.7 MiB line, 64,000 matches
	src := minifiedJS(funcs)
	if err := os.WriteFile(filepath.Join(dir, "bundle.min.js"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	// what one copy of the line per match would take, and the bound: the
	// parse (about 40 bytes of wasm memory a source byte) and the matches
	// (a few hundred bytes each) of one file, with room for the runtime
	const matches = 4 * funcs
	naive := int64(matches) * int64(len(src))
	const bound = 512 << 20
	if naive < 50*bound {
		t.Fatalf("the input is too small to tell: %d MiB naive, bound %d MiB", naive>>20, bound>>20)
	}
	for _, c := range []struct {
		name string
		args []string
		// lines printed
		lines int64
	}{
		{"lines", []string{"--color", "never"}, 1},
		{"files-with-matches", []string{"--files-with-matches"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"ast-grep", "-j", "2", "--no-cache", "-p", "$A && $B", "-l", "js"}, c.args...)
			cmd := exec.Command(bin, append(args, dir)...)
			cmd.Dir = dir
			var out countingWriter
			var errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			peak := runBounded(t, cmd, 4*bound)
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if out.lines != c.lines {
				t.Errorf("%d lines printed, want %d", out.lines, c.lines)
			}
			t.Logf("peak resident %d MiB for %d matches on a %d KiB line (one copy of the line each: %d MiB)", peak>>20, matches, len(src)>>10, naive>>20)
			if peak > bound {
				t.Errorf("peak resident %d MiB, over %d MiB", peak>>20, bound>>20)
			}
		})
	}
	// ast_grep, as tether serve and tether call run it: its texts are cut
	// (search.MaxMatchText) and it keeps the page it shows and the matches
	// before it, the most it takes
	t.Run("tool", func(t *testing.T) {
		args := `{"pattern":"$A && $B","language":"javascript","max_results":5000,"start":10000}`
		cmd := exec.Command(bin, "call", "--no-cache", "ast_grep", args)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		peak := runBounded(t, cmd, 4*bound)
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
		}
		if want := fmt.Sprintf("of %d matches shown", matches); !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%.400s", want, out.String())
		}
		t.Logf("peak resident %d MiB", peak>>20)
		if peak > bound {
			t.Errorf("peak resident %d MiB, over %d MiB", peak>>20, bound>>20)
		}
		// more than a result can show is refused, saying what to pass
		cmd = exec.Command(bin, "call", "--no-cache", "ast_grep", `{"pattern":"$A && $B","language":"javascript","max_results":1000000}`)
		cmd.Dir = dir
		msg, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code == 0 || !strings.Contains(string(msg), "max_results") || !strings.Contains(string(msg), "5000") {
			t.Errorf("max_results 1000000: exit %d, %s", code, msg)
		}
	})
	// the JSON stream holds each match with its line, as ast-grep's does:
	// a smaller bundle, so that the output stays small, with every match
	t.Run("json-stream", func(t *testing.T) {
		small := t.TempDir()
		const n = 400
		if err := os.WriteFile(filepath.Join(small, "bundle.min.js"), minifiedJS(n), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "ast-grep", "--no-cache", "-p", "$A && $B", "-l", "js", "--json=stream", small)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Count(out, []byte{'\n'}); got != 4*n {
			t.Errorf("%d JSON lines, want %d", got, 4*n)
		}
	})
}

// TestAstGrepStreamedThenStopped: matches are printed file by file as the
// search goes, so a search that then runs out of its matching budget in a
// later file has printed the earlier files' matches; it exits 2 with the
// budget's error and says that those printed need not be all.
func TestAstGrepStreamedThenStopped(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("package p\n\nvar _ = f(")
	for i := range 2998 {
		fmt.Fprintf(&b, "a%d, ", i)
	}
	b.WriteString("y, x)\n")
	files := map[string]string{
		"a.go": "package p\n\nvar _ = f(y, x)\n", // walked first: a match
		"b.go": b.String(),                       // the budget runs out here
	}
	testenv.WriteFiles(t, dir, files)
	code, out, errs := runCLI(t, "-j", "1", "--no-cache", "--color", "never", "-p", "f($$$A, $$$A, $$$A, y, x)", "-l", "go", dir)
	if code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, errs)
	}
	if want := filepath.Join(dir, "a.go") + ":3:var _ = f(y, x)\n"; out != want {
		t.Errorf("printed %q, want a.go's match %q", out, want)
	}
	for _, want := range []string{"pattern too expensive", "b.go", "1 match printed, from the files searched before the search stopped"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}
