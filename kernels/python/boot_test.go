package python

import "bufio"
import "os"
import "os/exec"
import "runtime"
import "strconv"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestDriverChunks: the chunks are the driver's source, in order and
// whole, each starting at a top-level def, class or decorator (after the
// first), with a decorator kept with what it decorates.
func TestDriverChunks(t *testing.T) {
	chunks := driverChunks()
	if len(chunks) < 20 {
		t.Fatalf("%d chunks", len(chunks))
	}
	var whole strings.Builder
	line := 1
	for i, c := range chunks {
		at, src, ok := strings.Cut(c, ":")
		if n, err := strconv.Atoi(at); !ok || err != nil || n != line {
			t.Fatalf("chunk %d starts at %q, want line %d", i, at, line)
		}
		if i > 0 && !strings.HasPrefix(src, "def ") && !strings.HasPrefix(src, "class ") && !strings.HasPrefix(src, "@") {
			t.Errorf("chunk %d starts with %q", i, strings.SplitN(src, "\n", 2)[0])
		}
		if strings.HasPrefix(lastLine(src), "@") {
			t.Errorf("chunk %d ends with a decorator", i)
		}
		whole.WriteString(src)
		line += strings.Count(src, "\n")
	}
	if whole.String() != driverSource {
		t.Fatal("the chunks joined are not the driver's source")
	}
	got := splitTopLevel("import a\n\n@dec\n\n@dec2\ndef f():\n    pass\nclass C:\n    @m\n    def g(self): pass\n")
	want := []string{"1:import a\n\n", "3:@dec\n\n@dec2\ndef f():\n    pass\n", "8:class C:\n    @m\n    def g(self): pass\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("split: %q", got)
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// TestDriverChunkedStartMemory: an interpreter that compiled the driver in
// chunks read from stdin holds less private memory once ready than one that
// compiled it whole from its command line, the cost a host pays once per
// session.
func TestDriverChunkedStartMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/PID/smaps_rollup")
	}
	const interp = "/usr/bin/python3"
	if _, err := os.Stat(interp); err != nil {
		testenv.Missing(t, "Debian's python3")
	}
	ready := func(stdin []byte, args ...string) int64 {
		cmd := exec.Command(interp, args...)
		in, out := testenv.StartPiped(t, cmd)
		defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
		go in.Write(stdin)
		if f, err := readFrame(bufio.NewReader(out)); err != nil || f.Op != "ready" {
			t.Fatalf("no ready frame: %+v %v", f, err)
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/smaps_rollup")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "Private_Dirty:" {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				return n
			}
		}
		t.Fatal("no Private_Dirty in smaps_rollup")
		return 0
	}
	whole := ready(nil, "-c", driverSource)
	chunked := ready(driverFrame(), "-c", driverBoot)
	t.Logf("private memory once ready: %d KiB compiled whole from the command line, %d KiB in chunks from stdin", whole, chunked)
	if chunked > whole-3072 {
		t.Errorf("compiled in chunks from stdin the driver holds %d KiB, whole from the command line %d KiB: want at least 3 MiB less", chunked, whole)
	}
}
