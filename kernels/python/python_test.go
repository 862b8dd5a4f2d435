package python_test

import "bytes"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strconv"
import "strings"
import "sync"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/kernelstest"
import "github.com/tetherhq/tether/kernels/python"

// debianPython is the interpreter the tests use: Debian's python3, where
// scripts/install-deps.sh puts pandas and matplotlib. The python3 first on a
// developer's PATH may lack them.
const debianPython = "/usr/bin/python3"

var (
	checkOnce sync.Once
	checkErr  error
)

func requirePython(t *testing.T) string {
	t.Helper()
	checkOnce.Do(func() {
		out, err := exec.Command(debianPython, "-c", "import pandas, matplotlib, venv").CombinedOutput()
		if err != nil {
			checkErr = errors.New(strings.TrimSpace(string(out)))
		}
	})
	if checkErr != nil {
		testenv.Missing(t, "Debian's python3 with pandas and matplotlib ("+checkErr.Error()+")")
	}
	return debianPython
}

// kernelPid is the running interpreter's pid on this host (Info's).
func kernelPid(t *testing.T, k kernels.Kernel) int {
	t.Helper()
	_, _, pid := k.(interface{ Info() (string, string, int) }).Info()
	if pid == 0 {
		t.Fatal("no interpreter runs")
	}
	return pid
}

func newKernel(t *testing.T, cfg kernels.Config) kernels.Kernel {
	t.Helper()
	cfg.Python = requirePython(t)
	if os.Getenv("TETHER_PYTHON_NO_ZYGOTE") != "" {
		// CI runs these tests a second time on interpreters of their own.
		cfg.NoZygote = true
	}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	k, err := python.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// run executes code as one cell of k.
var run = kernelstest.Run

func mustOK(t *testing.T, r *kernels.Result) *kernels.Result {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("cell failed: %s: %s\n%s\nstderr: %s", r.Error.Name, r.Error.Message, r.Error.Traceback, r.Stderr.Text)
	}
	return r
}

func value(t *testing.T, r *kernels.Result) string {
	t.Helper()
	mustOK(t, r)
	if r.Value == nil {
		t.Fatalf("no echoed value; stdout %q stderr %q", r.Stdout.Text, r.Stderr.Text)
	}
	return r.Value.Text
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

func TestPersistenceEchoAndStreams(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := mustOK(t, run(t, k, "import math\nx = 41\ndef f(v):\n    return v + 1\nprint('hello')\nimport sys; print('warn', file=sys.stderr)"))
	if !r.Fresh || r.StateLost {
		t.Errorf("first cell: Fresh=%v StateLost=%v, want a fresh kernel with nothing lost", r.Fresh, r.StateLost)
	}
	if r.Value != nil {
		t.Errorf("a cell ending in a statement echoed %q", r.Value.Text)
	}
	if r.Stdout.Text != "hello\n" || r.Stderr.Text != "warn\n" {
		t.Errorf("streams: stdout %q stderr %q", r.Stdout.Text, r.Stderr.Text)
	}
	tests := []struct{ code, want string }{
		{"f(x)", "42"},
		{"math.floor(2.5)", "2"},
		{"'s' * 3", "'sss'"},
		{"y = [1, 2]\ny", "[1, 2]"},
		{"_", "[1, 2]"},
		// Too wide for 79 columns: one item a line, as IPython prints it.
		{"list(range(30))", "[0,\n 1,\n 2,\n 3,\n 4,\n 5,\n 6,\n 7,\n 8,\n 9,\n 10,\n 11,\n 12,\n 13,\n 14,\n 15,\n 16,\n 17,\n 18,\n 19,\n 20,\n 21,\n 22,\n 23,\n 24,\n 25,\n 26,\n 27,\n 28,\n 29]"},
		{"{'name': 'x' * 40, 'other': 'y' * 40}", "{'name': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',\n 'other': 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'}"},
		{"list(range(5))", "[0, 1, 2, 3, 4]"},
		{"['a' * 50, 'b' * 50]", "['" + strings.Repeat("a", 50) + "',\n '" + strings.Repeat("b", 50) + "']"},
	}
	for _, tt := range tests {
		if got := value(t, run(t, k, tt.code)); got != tt.want {
			t.Errorf("%q echoed %q, want %q", tt.code, got, tt.want)
		}
	}
	if r := mustOK(t, run(t, k, "x = 1\nx;")); r.Value != nil {
		t.Errorf("a trailing ';' still echoed %q", r.Value.Text)
	}
	if r := mustOK(t, run(t, k, "None")); r.Value != nil {
		t.Errorf("None echoed %q", r.Value.Text)
	}
	// Output of child processes is captured too, and never reaches the frame channel.
	r = mustOK(t, run(t, k, "import os, subprocess\nos.write(1, b'raw\\n')\nsubprocess.run(['echo', 'child'])\nprint('\\x00\\x01 binary-ish')"))
	if r.Stdout.Text != "raw\nchild\n\x00\x01 binary-ish\n" {
		t.Errorf("stdout %q", r.Stdout.Text)
	}
	if got := value(t, run(t, k, "x")); got != "1" {
		t.Errorf("kernel state after raw writes: x = %s", got)
	}
}

func TestOutputIsBounded(t *testing.T) {
	k := newKernel(t, kernels.Config{MaxOutput: 1000, MaxText: 500})
	r := mustOK(t, run(t, k, "for i in range(10000):\n    print('line', i)\n'v' * 2000"))
	if r.Stdout.Cut == 0 || len(r.Stdout.Text) > 1200 {
		t.Fatalf("stdout not bounded: cut %d, %d bytes kept", r.Stdout.Cut, len(r.Stdout.Text))
	}
	if !strings.HasPrefix(r.Stdout.Text, "line 0\n") || !strings.HasSuffix(r.Stdout.Text, "line 9999\n") || !strings.Contains(r.Stdout.Text, "output cut") {
		t.Errorf("bounded stdout should keep head and tail and say it was cut:\n%s", r.Stdout.Text)
	}
	if len(r.Value.Text) > 500 || !strings.Contains(r.Value.Note, "text cut") {
		t.Errorf("echoed value not bounded: %d bytes, note %q", len(r.Value.Text), r.Value.Note)
	}
	// A line far over the frame limit is printed, bounded like any other.
	r = mustOK(t, run(t, k, "print('y' * (70 << 20))\nprint('after')"))
	if r.Stdout.Cut == 0 || !strings.HasPrefix(r.Stdout.Text, "yyy") || !strings.HasSuffix(r.Stdout.Text, "after\n") {
		t.Errorf("a 70 MiB line: cut %d, head %.20q, tail %q", r.Stdout.Cut, r.Stdout.Text, r.Stdout.Text[max(0, len(r.Stdout.Text)-20):])
	}
	// A repr far over the frame limit is cut in the kernel, which survives.
	r = mustOK(t, run(t, k, "big = 'x' * (80 << 20)\nbig"))
	if len(r.Value.Text) > 500 || !strings.Contains(r.Value.Note, "83886082 characters") {
		t.Errorf("huge echo: %d bytes, note %q", len(r.Value.Text), r.Value.Note)
	}
	r = run(t, k, "tool('write', {'content': big})")
	if r.Error == nil || !strings.Contains(r.Error.Message, "frame limit") {
		t.Errorf("huge bridge call: %+v", r.Error)
	}
	if got := value(t, run(t, k, "len(big)")); got != "83886080" {
		t.Errorf("kernel after huge values: %s", got)
	}
}

func TestErrorsPointAtCellLine(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	kernelstest.RequireErrors(t, k, []kernelstest.CellError{
		{Code: "a = 1\nb = 2\nundefined_name + 1", Name: "NameError", Line: 3},
		{Code: "x = 1\nif x:\n    y = (\n", Name: "SyntaxError", Line: 3},
		{Code: "def g():\n    return 1 / 0\n\ng()", Name: "ZeroDivisionError", Line: 2},
		{Code: "raise SystemExit(3)", Name: "SystemExit", Line: 1},
		{Code: "x = 1\n%nosuchmagic arg", Name: kernels.KindUsage, Line: 2},
	}, func(c kernelstest.CellError, e *kernels.Error) error {
		if strings.Contains(e.Traceback, "tether") && c.Name != kernels.KindUsage {
			return fmt.Errorf("traceback shows driver frames:\n%s", e.Traceback)
		}
		return nil
	})
	// The kernel survives all of it, SystemExit included.
	if got := value(t, run(t, k, "a + b")); got != "3" {
		t.Errorf("after errors: a + b = %s", got)
	}
}

func TestDataFrameAndDisplay(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := mustOK(t, run(t, k, "import pandas as pd\ndf = pd.DataFrame({'city': ['Oslo', 'Lima'], 'temp': [3.5, 19.0]})\ndf"))
	if r.Value == nil {
		t.Fatal("a DataFrame as last expression was not echoed")
	}
	for _, want := range []string{"city", "temp", "Oslo", "19.0"} {
		if !strings.Contains(r.Value.Text, want) {
			t.Errorf("text table lacks %q:\n%s", want, r.Value.Text)
		}
	}
	for _, want := range []string{"<table", "<th>city</th>", "<td>Lima</td>"} {
		if !strings.Contains(r.Value.HTML, want) {
			t.Errorf("HTML table lacks %q:\n%s", want, r.Value.HTML)
		}
	}
	r = mustOK(t, run(t, k, "display(df.head(1), 'plain')\nprint('after')"))
	if len(r.Displays) != 2 || !strings.Contains(r.Displays[0].HTML, "<table") || r.Displays[1].Text != "'plain'" {
		t.Fatalf("display outputs: %+v", r.Displays)
	}
	if r.Stdout.Text != "after\n" {
		t.Errorf("stdout %q", r.Stdout.Text)
	}
}

func TestMatplotlibFiguresArePNG(t *testing.T) {
	k := newKernel(t, kernels.Config{MaxImage: 200 << 10})
	r := mustOK(t, run(t, k, "import matplotlib.pyplot as plt\nplt.plot([1, 4, 9, 16])\nplt.title('squares')\nplt.show()\nprint('shown')"))
	if len(r.Displays) != 1 {
		t.Fatalf("plt.show(): %d displays, want 1", len(r.Displays))
	}
	png := r.Displays[0].PNG
	if !bytes.HasPrefix(png, pngMagic) || len(png) < 1000 || len(png) > 200<<10 {
		t.Fatalf("plt.show(): not a bounded PNG (%d bytes, head % x)", len(png), png[:min(8, len(png))])
	}
	if r.Stdout.Text != "shown\n" || strings.Contains(r.Stderr.Text, "non-interactive") {
		t.Errorf("stdout %q stderr %q", r.Stdout.Text, r.Stderr.Text)
	}
	// A figure left as the last expression is the echoed value, shown once.
	r = mustOK(t, run(t, k, "fig, ax = plt.subplots()\nax.bar(['a', 'b'], [3, 5])\nfig"))
	if r.Value == nil || !bytes.HasPrefix(r.Value.PNG, pngMagic) {
		t.Fatalf("figure as last expression: value %+v", r.Value)
	}
	if len(r.Displays) != 0 {
		t.Errorf("figure shown twice: %d extra displays", len(r.Displays))
	}
	// Figures are closed after the cell, as in a notebook.
	if got := value(t, run(t, k, "len(plt.get_fignums())")); got != "0" {
		t.Errorf("open figures after cells: %s", got)
	}
	// A huge figure is rendered again smaller to fit the cap, or left out with a note.
	r = mustOK(t, run(t, k, "import numpy as np\nfig = plt.figure(figsize=(12, 12), dpi=100)\nplt.imshow(np.random.rand(300, 300))\nfig"))
	if v := r.Value; v == nil || (len(v.PNG) == 0 && v.Note == "") || len(v.PNG) > 200<<10 {
		t.Fatalf("huge figure: %d bytes, note %q", len(r.Value.PNG), r.Value.Note)
	}
}

func TestIPythonIdioms(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "data.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, kernels.Config{Dir: dir})
	t.Run("cd", func(t *testing.T) {
		r := mustOK(t, run(t, k, "%cd sub"))
		if strings.TrimSpace(r.Stdout.Text) != filepath.Join(dir, "sub") {
			t.Errorf("%%cd printed %q", r.Stdout.Text)
		}
		if got := value(t, run(t, k, "open('data.txt').read().split()")); got != "['alpha', 'beta']" {
			t.Errorf("after %%cd: %s", got)
		}
		if got := value(t, run(t, k, "%pwd")); got != "'"+filepath.Join(dir, "sub")+"'" {
			t.Errorf("%%pwd: %s", got)
		}
	})
	t.Run("shell", func(t *testing.T) {
		r := mustOK(t, run(t, k, "name = 'world'\n!echo hello {name}\nfor i in range(2):\n    !echo loop\n"))
		if r.Stdout.Text != "hello world\nloop\nloop\n" {
			t.Errorf("!cmd stdout %q", r.Stdout.Text)
		}
		if got := value(t, run(t, k, "lines = !cat data.txt\nlines")); got != "['alpha', 'beta']" {
			t.Errorf("x = !cmd gave %s", got)
		}
		r = mustOK(t, run(t, k, "!exit 3"))
		if !strings.Contains(r.Stderr.Text, "status 3") {
			t.Errorf("a failing !cmd should say its status: stderr %q", r.Stderr.Text)
		}
	})
	t.Run("bash", func(t *testing.T) {
		r := mustOK(t, run(t, k, "%%bash\nfor w in one two; do echo $w; done\necho oops >&2"))
		if r.Stdout.Text != "one\ntwo\n" || r.Stderr.Text != "oops\n" {
			t.Errorf("%%%%bash: stdout %q stderr %q", r.Stdout.Text, r.Stderr.Text)
		}
		r = run(t, k, "%%bash\nexit 4")
		if r.Error == nil || !strings.Contains(r.Error.Message, "bash exited with status 4") || r.Error.Name != "CalledProcessError" {
			t.Errorf("%%%%bash exit 4: error %+v, want IPython's CalledProcessError saying the status", r.Error)
		}
	})
	t.Run("timeit", func(t *testing.T) {
		r := mustOK(t, run(t, k, "%timeit -n 5 -r 2 sum(range(100))"))
		if !strings.Contains(r.Stdout.Text, "per loop") || !strings.Contains(r.Stdout.Text, "2 runs, 5 loops each") {
			t.Errorf("%%timeit: %q", r.Stdout.Text)
		}
		r = mustOK(t, run(t, k, "%%timeit -n 3 -r 2 data = list(range(50))\nsorted(data)"))
		if !strings.Contains(r.Stdout.Text, "2 runs, 3 loops each") {
			t.Errorf("%%%%timeit: %q", r.Stdout.Text)
		}
		// -o returns the result (IPython's TimeitResult attributes), -q prints nothing.
		r = mustOK(t, run(t, k, "res = %timeit -q -o -n 4 -r 3 sum(range(10))\n(res.loops, res.repeat, len(res.all_runs), len(res.timings), res.best <= res.average <= res.worst)"))
		if r.Stdout.Text != "" || r.Value == nil || r.Value.Text != "(4, 3, 3, 3, True)" {
			t.Errorf("%%timeit -q -o: stdout %q value %+v", r.Stdout.Text, r.Value)
		}
	})
	t.Run("strings are not magics", func(t *testing.T) {
		got := value(t, run(t, k, "s = '''\n!not a command\n%not a magic\n'''\ns.split('\\n')[1:3]"))
		if got != "['!not a command', '%not a magic']" {
			t.Errorf("lines inside a string were rewritten: %s", got)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		r := run(t, k, "x = 1\n%%bash\necho no")
		if !errors.Is(r.Error, kernels.ErrUsage) || r.Error.Line != 2 || !strings.Contains(r.Error.Message, "first line") {
			t.Errorf("%%%%bash on line 2: %+v", r.Error)
		}
		r = run(t, k, "%%javascript\n1")
		if !errors.Is(r.Error, kernels.ErrUsage) || !strings.Contains(r.Error.Message, "%%bash") {
			t.Errorf("unknown cell magic: %+v", r.Error)
		}
	})
}

// TestPipInstallsLocalPackage runs %pip in a project venv created from
// Debian's python with --system-site-packages (Debian's own python refuses
// pip installs, PEP 668), against package directories in testdata: the
// registry is not reachable. The second install must be seen by the next
// import: %pip evicts the package from sys.modules.
func TestPipInstallsLocalPackage(t *testing.T) {
	py := requirePython(t)
	dir := t.TempDir()
	if out, err := exec.Command(py, "-m", "venv", "--system-site-packages", "--without-pip", filepath.Join(dir, ".venv")).CombinedOutput(); err != nil {
		testenv.Missing(t, "python3-venv ("+strings.TrimSpace(string(out))+")")
	}
	for _, v := range []string{"tinypkg-1", "tinypkg-2"} {
		testenv.CopyTree(t, filepath.Join("testdata", v), filepath.Join(dir, v))
	}
	k := newKernel(t, kernels.Config{Dir: dir, Env: []string{"PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1"}})
	r := mustOK(t, run(t, k, "import sys\nsys.prefix"))
	if !strings.Contains(r.Value.Text, ".venv") {
		t.Fatalf("the kernel did not pick the project's .venv: sys.prefix = %s", r.Value.Text)
	}
	r = run(t, k, "%pip install --no-index --no-build-isolation ./tinypkg-1")
	if r.Error != nil || !strings.Contains(r.Stdout.Text, "Successfully installed tinypkg-0.1.0") {
		t.Fatalf("%%pip install: error %+v\nstdout %s\nstderr %s", r.Error, r.Stdout.Text, r.Stderr.Text)
	}
	if got := value(t, run(t, k, "import tinypkg\ntinypkg.VALUE")); got != "1" {
		t.Fatalf("tinypkg.VALUE = %s after installing 0.1.0", got)
	}
	r = mustOK(t, run(t, k, "%pip install --no-index --no-build-isolation ./tinypkg-2"))
	if !strings.Contains(r.Stdout.Text, "evicted from sys.modules: tinypkg") {
		t.Errorf("%%pip did not evict tinypkg: %s", r.Stdout.Text)
	}
	if got := value(t, run(t, k, "import tinypkg\ntinypkg.VALUE")); got != "2" {
		t.Fatalf("tinypkg.VALUE = %s after upgrading to 0.2.0 (sys.modules not evicted?)", got)
	}
	r = run(t, k, "%pip install --no-index ./no-such-dir")
	if r.Error == nil || !strings.Contains(r.Error.Message, "pip exited with status") || strings.Contains(r.Error.Message, "PEP 668") {
		t.Errorf("failing %%pip: %+v", r.Error)
	}
	// Debian's own python refuses installs (PEP 668): the error says how to
	// get an interpreter that takes them.
	k2 := newKernel(t, kernels.Config{Env: []string{"PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1"}})
	r = run(t, k2, "%pip install --no-index --no-build-isolation ./tinypkg-1")
	if r.Error == nil || !strings.Contains(r.Error.Message, "is externally managed (PEP 668)") || !strings.Contains(r.Error.Message, "python3 -m venv --system-site-packages .venv") || !strings.Contains(r.Error.Message, "reset: true") {
		t.Errorf("%%pip into Debian's python: %+v", r.Error)
	}
}

func TestReset(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	mustOK(t, run(t, k, "kept = 7"))
	if err := k.Reset(); err != nil {
		t.Fatal(err)
	}
	r := run(t, k, "kept")
	if r.Error == nil || r.Error.Name != "NameError" || !r.Fresh {
		t.Fatalf("after reset: fresh=%v error %+v", r.Fresh, r.Error)
	}
}

func TestKernelDeathAndRecovery(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	tests := []struct{ name, code, reason string }{
		{"os._exit", "import os\nos._exit(3)", "exited with status 3"},
		{"segfault", "import ctypes\nctypes.string_at(0)", "signal 11"},
		{"killed (as by the OOM killer)", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "out of memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustOK(t, run(t, k, "before = 1"))
			r := run(t, k, tt.code)
			if !errors.Is(r.Error, kernels.ErrKernelDied) || !r.StateLost {
				t.Fatalf("error %+v stateLost %v", r.Error, r.StateLost)
			}
			if !strings.Contains(r.Error.Message, tt.reason) || !strings.Contains(r.Error.Message, "fresh interpreter") {
				t.Errorf("death report %q lacks %q", r.Error.Message, tt.reason)
			}
			r = run(t, k, "'before' in globals()")
			if got := value(t, r); got != "False" || !r.Fresh || !r.StateLost || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], tt.reason) {
				t.Errorf("recovery cell: value %s fresh %v lost %v notices %q", got, r.Fresh, r.StateLost, r.Notices)
			}
		})
	}
	if r := run(t, k, "import faulthandler; 1"); value(t, r) != "1" {
		t.Error("kernel unusable after deaths")
	}
}

// TestAddressSpaceCap: the interpreter runs under RLIMIT_AS (8 GiB unless
// configured, none when negative), soft and hard alike so a cell cannot
// raise it, inherited by the processes a cell starts. An allocation past it
// is a MemoryError that names the cap and how to raise it, and the kernel
// keeps its state.
func TestAddressSpaceCap(t *testing.T) {
	const getrlimit = "import resource\nresource.getrlimit(resource.RLIMIT_AS)"
	t.Run("over the cap", func(t *testing.T) {
		k := newKernel(t, kernels.Config{AddressSpaceLimit: 1 << 30})
		mustOK(t, run(t, k, "kept = 'yes'"))
		r := run(t, k, "hog = bytearray(2 << 30)")
		if r.Error == nil || r.Error.Name != "MemoryError" || r.StateLost ||
			!strings.Contains(r.Error.Message, "address-space cap of 1GiB (RLIMIT_AS") || !strings.Contains(r.Error.Message, "raise the kernel's memory cap") {
			t.Fatalf("allocation over the cap: %+v lost %v", r.Error, r.StateLost)
		}
		if got := value(t, run(t, k, "kept")); got != "'yes'" {
			t.Errorf("after MemoryError: %s", got)
		}
		if got := value(t, run(t, k, getrlimit)); got != "(1073741824, 1073741824)" {
			t.Errorf("limits: %s", got)
		}
		r = run(t, k, "resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))")
		if r.Error == nil {
			t.Errorf("a cell raised its own cap")
		}
		if got := value(t, run(t, k, "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0])'], capture_output=True, text=True).stdout.strip()")); got != "'1073741824'" {
			t.Errorf("a child process runs under %s", got)
		}
		if got := value(t, run(t, k, "import sys\nsys.argv")); got != "['-c']" {
			t.Errorf("the cell sees sys.argv %s", got)
		}
	})
	t.Run("an abort names the cap", func(t *testing.T) {
		// Native code that cannot get memory aborts or crashes; the death
		// says which cap the kernel ran under.
		k := newKernel(t, kernels.Config{AddressSpaceLimit: 1 << 30})
		r := run(t, k, "import os\nos.abort()")
		if !errors.Is(r.Error, kernels.ErrKernelDied) || !strings.Contains(r.Error.Message, "address-space cap of 1GiB") || !strings.Contains(r.Error.Message, "raise the kernel's memory cap") {
			t.Errorf("abort under the cap: %+v", r.Error)
		}
		if r := run(t, k, "import os\nos._exit(3)"); !errors.Is(r.Error, kernels.ErrKernelDied) || strings.Contains(r.Error.Message, "address-space cap") {
			t.Errorf("an exit is not put on the cap: %+v", r.Error)
		}
	})
	t.Run("default", func(t *testing.T) {
		k := newKernel(t, kernels.Config{})
		if got, want := value(t, run(t, k, getrlimit)), fmt.Sprintf("(%d, %d)", python.DefaultAddressSpaceLimit, python.DefaultAddressSpaceLimit); got != want {
			t.Errorf("default limits: %s, want %s", got, want)
		}
	})
	t.Run("none", func(t *testing.T) {
		k := newKernel(t, kernels.Config{AddressSpaceLimit: -1})
		if got := value(t, run(t, k, getrlimit+"[0] == resource.RLIM_INFINITY")); got != "True" {
			t.Errorf("no cap configured, yet: %s", got)
		}
	})
}

func TestDeathWhileIdleIsReported(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	inside, err := strconv.Atoi(value(t, run(t, k, "import os\nos.getpid()")))
	if err != nil {
		t.Fatal(err)
	}
	// Info names the interpreter by this host's pid; the cell sees its own
	// PID namespace's (the sandbox's), where it is not process 1.
	pid := kernelPid(t, k)
	if got := testenv.HostPidIn(pid, inside); got != pid {
		t.Fatalf("the cell's os.getpid() %d is host pid %d; Info says %d", inside, got, pid)
	}
	// Its parent: the sandbox's init, when there is one (tether otherwise).
	parent := 0
	if st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat")); err == nil {
		if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 1 {
			parent, _ = strconv.Atoi(f[1])
		}
	}
	// Killed from outside between cells, as the OOM killer would.
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Wait until the kernel has reaped it: a zombie leader ("Z") is not yet
	// dead, its other threads may still hold the pipes while they exit. Under
	// the sandbox's init, the init reaps it and exits, and tether reaps the
	// init: wait for that too.
	gone := []int{pid}
	if parent > 1 && parent != os.Getpid() {
		gone = append(gone, parent)
	}
	for _, p := range gone {
		for i := 0; i < 400; i++ {
			if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(p))); err != nil {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
	r := run(t, k, "1 + 1")
	if value(t, r) != "2" || !r.Fresh || !r.StateLost || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "died while idle (killed by signal 9") {
		t.Errorf("idle death: fresh %v lost %v notices %q", r.Fresh, r.StateLost, r.Notices)
	}
}

// fakeTools is a bridge with a read tool over a map, a write tool a policy
// refuses, and a slow tool.
type fakeTools struct {
	files map[string]string
	slow  time.Duration // what passes on clock during the slow tool
	clock *kernelstest.Clock
	mu    sync.Mutex
	calls []string
}

func (f *fakeTools) call(ctx context.Context, name string, args json.RawMessage) (kernels.ToolReply, error) {
	f.mu.Lock()
	f.calls = append(f.calls, name)
	f.mu.Unlock()
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(args, &a)
	switch name {
	case "read":
		c, ok := f.files[a.Path]
		if !ok {
			return kernels.ToolReply{Text: "no such file " + a.Path, IsError: true}, nil
		}
		return kernels.ToolReply{Text: c, Structured: json.RawMessage(`{"lines":2}`)}, nil
	case "write":
		return kernels.ToolReply{}, errors.New("tools: write refused by the approval policy")
	case "slow":
		f.clock.Advance(f.slow)
		return kernels.ToolReply{Text: "slow done"}, nil
	}
	return kernels.ToolReply{}, errors.New("tools: unknown tool " + name)
}

func TestBridge(t *testing.T) {
	ft := &fakeTools{files: map[string]string{"lib/auth.dart": "class Auth {}\n"}, slow: 5 * time.Second, clock: kernelstest.NewClock()}
	k := newKernel(t, kernels.Config{Tools: ft.call, IdleTimeout: 2 * time.Second, Clock: ft.clock})
	if got := value(t, run(t, k, "contents = tool('read', {'path': 'lib/auth.dart'})\ncontents, contents.structured")); got != "('class Auth {}\\n', {'lines': 2})" {
		t.Errorf("tool('read'): %s", got)
	}
	r := run(t, k, "tool('write', {'path': 'x', 'content': 'y'})")
	if r.Error == nil || r.Error.Name != "ToolError" || !strings.Contains(r.Error.Message, "refused") {
		t.Errorf("refused write: %+v", r.Error)
	}
	if got := value(t, run(t, k, "try:\n    tool('read', path='missing')\nexcept ToolError as e:\n    msg = str(e)\nmsg")); got != "'no such file missing'" {
		t.Errorf("error reply: %s", got)
	}
	// Two and a half idle budgets pass on the kernel's clock during the bridge
	// call; the budget is stopped meanwhile.
	if got := value(t, run(t, k, "tool('slow')")); got != "'slow done'" {
		t.Errorf("slow bridge call: %s", got)
	}
	// Calls from threads travel the same pipe.
	got := value(t, run(t, k, "from concurrent.futures import ThreadPoolExecutor\nwith ThreadPoolExecutor(4) as ex:\n    out = list(ex.map(lambda _: tool('read', {'path': 'lib/auth.dart'}), range(8)))\nlen(set(out)), len(out)"))
	if got != "(1, 8)" {
		t.Errorf("threaded bridge calls: %s", got)
	}
}

func TestNoToolsWired(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := run(t, k, "tool('read', {'path': 'a'})")
	if r.Error == nil || !strings.Contains(r.Error.Message, "no tools are wired") {
		t.Errorf("tool() without a bridge: %+v", r.Error)
	}
}

func TestInterpreterChoice(t *testing.T) {
	dir := t.TempDir()
	if got := python.Interpreter(dir, ""); got != "python3" {
		t.Errorf("no venv, nothing configured: %s", got)
	}
	if got := python.Interpreter(dir, "/opt/py"); got != "/opt/py" {
		t.Errorf("configured: %s", got)
	}
	for _, v := range []string{"venv", ".venv"} {
		p := filepath.Join(dir, v, "bin", "python")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := python.Interpreter(dir, "/opt/py"); got != p {
			t.Errorf("with %s: %s", v, got)
		}
	}
}

func TestBadInterpreter(t *testing.T) {
	k, _ := python.New(kernels.Config{Python: filepath.Join(t.TempDir(), "nope"), Dir: t.TempDir()})
	defer k.Close()
	_, err := k.Execute(context.Background(), kernels.Cell{Code: "1"})
	if err == nil || !strings.HasPrefix(err.Error(), "kernels: python: cannot start") {
		t.Errorf("missing interpreter: %v", err)
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Execute(context.Background(), kernels.Cell{Code: "1"}); !errors.Is(err, python.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

func TestCloseLeavesNoProcesses(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := mustOK(t, run(t, k, "import subprocess, os\np = subprocess.Popen(['sleep', '300'])\np.pid, os.getpid()"))
	var pids [2]int
	if err := json.Unmarshal([]byte("["+strings.Trim(r.Value.Text, "()")+"]"), &pids); err != nil {
		t.Fatal(err)
	}
	kernel := kernelPid(t, k)
	for i, p := range pids {
		if pids[i] = testenv.HostPidIn(kernel, p); pids[i] == 0 {
			t.Fatalf("pid %d is not found in the kernel's PID namespace", p)
		}
	}
	k.Close()
	// SIGKILL is asynchronous: give the processes a generous while to go.
	for _, pid := range pids {
		var st []byte
		for i := 0; i < 200; i++ {
			var err error
			st, err = os.ReadFile(filepath.Join("/proc", itoa(pid), "stat"))
			if err != nil || strings.Contains(string(st), ") Z ") {
				st = nil
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if st != nil {
			t.Errorf("process %d outlived Close: %s", pid, st)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestHammerOneKernel runs cells on one kernel from several goroutines:
// Execute serializes them, every cell gets its own output, no update is lost.
func TestHammerOneKernel(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	mustOK(t, run(t, k, "hits = 0"))
	kernelstest.Hammer(t, k, 4, 10, func(w, i int) (string, func(*kernels.Result) error) {
		tag := fmt.Sprintf("w%d-c%d", w, i)
		return "hits += 1\nprint(" + strconv.Quote(tag) + ")", func(r *kernels.Result) error {
			if r.Stdout.Text != tag+"\n" {
				return fmt.Errorf("cell %s got stdout %q", tag, r.Stdout.Text)
			}
			return nil
		}
	})
	if got := value(t, run(t, k, "hits")); got != "40" {
		t.Errorf("hits = %s, want 40", got)
	}
}

// TestEnclosure: the interpreter starts through the enclosure's command
// prefix when the lookup returns one, and on the host when it returns none;
// the lookup is asked again at each start (a restart after the kernel died),
// never told to start anything.
func TestEnclosure(t *testing.T) {
	var mu sync.Mutex
	asked := 0
	prefix := []string{"env", "TETHER_TEST_ENCLOSURE=c1"}
	k := newKernel(t, kernels.Config{Enclosure: func() []string {
		mu.Lock()
		defer mu.Unlock()
		asked++
		return prefix
	}})
	if got := value(t, run(t, k, "import os\nos.environ.get('TETHER_TEST_ENCLOSURE')")); got != "'c1'" {
		t.Errorf("inside the enclosure: %s", got)
	}
	mu.Lock()
	prefix = nil // the enclosure is gone
	mu.Unlock()
	if r := run(t, k, "os._exit(3)"); !errors.Is(r.Error, kernels.ErrKernelDied) {
		t.Fatalf("exit: %+v", r.Error)
	}
	if got := value(t, run(t, k, "import os\nrepr(os.environ.get('TETHER_TEST_ENCLOSURE'))")); got != "'None'" {
		t.Errorf("with no enclosure the kernel runs on the host: %s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked != 2 {
		t.Errorf("the enclosure lookup was asked %d times, want once per start (2)", asked)
	}
}

// TestDataFrameMarkdown: a data frame's text is a markdown table under its
// shape: index names joined, a pipe in a value escaped, a long value cut at
// pandas' column width, an empty frame named as such.
func TestDataFrameMarkdown(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	mustOK(t, run(t, k, "import pandas as pd"))
	for _, tt := range []struct{ name, code, want string }{
		{"multi-index", "pd.DataFrame({'a': [1, 2], 'b': ['x', 'y'], 'v': [1.5, 2.5]}).set_index(['a', 'b'])",
			"DataFrame: 2 rows x 1 column\n| a / b | v |\n|---|---|\n| 1 / x | 1.5 |\n| 2 / y | 2.5 |"},
		{"pipe and long value", "pd.DataFrame({'s': ['a|b', 'z' * 80]})",
			"| 0 | a\\|b |\n| 1 | " + strings.Repeat("z", 49) + "… |"},
		{"column groups", "pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([('g', 'p'), ('g', 'q')]))",
			"|  | g / p | g / q |"},
		{"empty", "pd.DataFrame()", "DataFrame: 0 rows x 0 columns"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := mustOK(t, run(t, k, tt.code))
			if r.Value == nil || !strings.Contains(r.Value.Text, tt.want) {
				t.Errorf("text lacks %q:\n%+v", tt.want, r.Value)
			}
		})
	}
}
