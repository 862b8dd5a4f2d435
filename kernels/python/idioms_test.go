package python_test

import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"

// outputs renders a result's ordered outputs as "stream:text" and
// "display:text" pieces.
func outputs(r *kernels.Result) []string {
	var out []string
	for _, o := range r.Outputs {
		if o.Stream == kernels.OutputDisplay {
			out = append(out, "display:"+r.Displays[o.Display].Text)
			continue
		}
		out = append(out, o.Stream+":"+o.Text)
	}
	return out
}

func TestEmptyCellsRun(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	for _, code := range []string{"", "   \n", "# only a comment\n"} {
		r := mustOK(t, run(t, k, code))
		if r.Value != nil || r.Stdout.Text != "" {
			t.Errorf("%q: value %+v stdout %q", code, r.Value, r.Stdout.Text)
		}
	}
}

// TestOutputsKeepTheirOrder: stdout, stderr and displays come back in the
// order the cell produced them, as a notebook shows them.
func TestOutputsKeepTheirOrder(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := mustOK(t, run(t, k, "import sys, warnings\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\ndisplay(5)\nwarnings.warn('careful')\nprint('d')\n7"))
	got := strings.Join(outputs(r), "|")
	want := "stdout:a\n|stderr:b\n|stdout:c\n|display:5|stderr:<cell-"
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "|stdout:d\n") || !strings.Contains(got, "UserWarning: careful") {
		t.Errorf("outputs out of order:\n got %q\nwant prefix %q", got, want)
	}
	if r.Stdout.Text != "a\nc\nd\n" || r.Value == nil || r.Value.Text != "7" {
		t.Errorf("stdout %q value %+v", r.Stdout.Text, r.Value)
	}
	// Many switches in a loop stay in order too.
	r = mustOK(t, run(t, k, "for i in range(30):\n    print(i)\n    print(-i, file=sys.stderr)"))
	var b strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "stdout:%d\n|stderr:%d\n|", i, -i)
	}
	if got := strings.Join(outputs(r), "|") + "|"; got != b.String() {
		t.Errorf("loop outputs:\n got %q\nwant %q", got, b.String())
	}
	// Past the output bound the order is given up, never the bound.
	r = mustOK(t, run(t, k, "print('x' * 100000)\nprint('tail', file=sys.stderr)"))
	if r.Outputs != nil || r.Stdout.Cut == 0 || r.Stderr.Text != "tail\n" {
		t.Errorf("over the bound: outputs %d, stdout cut %d, stderr %q", len(r.Outputs), r.Stdout.Cut, r.Stderr.Text)
	}
}

func TestDisplaysAreBounded(t *testing.T) {
	k := newKernel(t, kernels.Config{MaxDisplays: 5})
	r := mustOK(t, run(t, k, "for i in range(8): display(i)"))
	if len(r.Displays) != 5 || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "5 of 8 shown") {
		t.Errorf("8 displays with a cap of 5: %d kept, notices %q", len(r.Displays), r.Notices)
	}
	// A long echo says once, plainly, how much of it is shown.
	k = newKernel(t, kernels.Config{MaxText: 100})
	r = mustOK(t, run(t, k, "'y' * 1000"))
	if r.Value == nil || len(r.Value.Text) != 100 || r.Value.Note != "text cut: 100 of 1002 characters shown" {
		t.Errorf("long echo: %+v", r.Value)
	}
	k = newKernel(t, kernels.Config{})
	r = mustOK(t, run(t, k, "import matplotlib.pyplot as plt\nfor i in range(12):\n    plt.figure(figsize=(1, 1)); plt.plot([0, i])"))
	images := 0
	for _, d := range r.Displays {
		if len(d.PNG) > 0 {
			images++
		} else if !strings.Contains(d.Note, "at most 10 images") {
			t.Errorf("a figure left out without saying why: %+v", d.Note)
		}
	}
	if len(r.Displays) != 12 || images != kernels.MaxImagesPerCell {
		t.Errorf("12 figures: %d displays, %d images", len(r.Displays), images)
	}
}

// TestMoreIPythonIdioms: idioms an IPython user types without thinking.
func TestMoreIPythonIdioms(t *testing.T) {
	dir := t.TempDir()
	k := newKernel(t, kernels.Config{Dir: dir})
	tests := []struct {
		name, code string
		stdout     []string // substrings of stdout
		value      string   // echoed value, "" for none
	}{
		{"time", "x = %time sum(range(10))\nx", []string{"CPU times: user ", "Wall time: "}, "45"},
		{"cell time echoes", "%%time\ny = 2\ny + 1", []string{"Wall time: "}, "3"},
		{"env set", "%env TETHER_QA=on", []string{"env: TETHER_QA=on"}, ""},
		{"env get", "%env TETHER_QA", nil, "'on'"},
		{"env reaches os.environ", "import os\nos.environ['TETHER_QA']", nil, "'on'"},
		{"pinfo", "len?", []string{"Signature: len(obj, /)", "Return the number of items"}, ""},
		{"pinfo prefix", "def g(a, b=1):\n    'adds two'\n    return a + b\n?g", []string{"Signature: g(a, b=1)", "adds two"}, ""},
		{"pinfo source", "g??", []string{"return a + b"}, ""},
		{"pinfo missing", "nosuch?", []string{"Object `nosuch` not found."}, ""},
		{"matplotlib inline", "%matplotlib inline\n%config InlineBackend.figure_format = 'retina'\n1", nil, "1"},
		{"writefile", "%%writefile mod1.py\ndef f():\n    return 1", []string{"Writing mod1.py"}, ""},
		{"autoreload", "%load_ext autoreload\n%autoreload 2\nimport mod1\nmod1.f()", nil, "1"},
		{"writefile again", "%%writefile mod1.py\ndef f():\n    return 2", []string{"Overwriting mod1.py"}, ""},
		{"autoreload sees the edit", "mod1.f()", nil, "2"},
		{"alias", "%ls mod1.py\n%cat mod1.py", []string{"mod1.py\ndef f():"}, ""},
		{"capture", "%%capture cap\nprint('hidden')\n!echo child\ndisplay(3)", nil, ""},
		{"captured", "cap.stdout, cap.outputs", nil, "('hidden\\nchild\\n', [3])"},
		{"run", "%run mod1.py\nf()", nil, "2"},
		{"who", "%who", []string{"cap  f  g  x  y"}, ""},
		{"script", "%%script bash\necho from $0", []string{"from bash"}, ""},
		{"shell $name", "where = 'mod1.py'\n!echo $where {where}x $$", []string{"mod1.py mod1.pyx $\n"}, ""},
		{"shell $ of an undefined name is the shell's", "!echo [$TETHER_QA]", []string{"[on]"}, ""},
		{"cd back", "import os\nos.mkdir('sub')\nhere = os.getcwd()\n%cd sub\n%cd -\nos.getcwd() == here", nil, "True"},
		{"prun", "%prun sum(range(1000))", []string{"function calls", "tottime"}, ""},
		{"pinfo magic", "%pinfo len", []string{"Signature: len(obj, /)"}, ""},
		{"lsmagic", "%lsmagic", []string{"supported idioms: ", "%%writefile"}, ""},
		{"file", "%%file notes.txt\nhello", []string{"Writing notes.txt"}, ""},
		{"markdown", "%%markdown\n# Title", nil, ""},
		{"get_ipython", "get_ipython().run_line_magic('matplotlib', 'inline')\nword = 'shell'\nget_ipython().system('echo from the {word}')\nget_ipython().run_cell_magic('bash', '', 'echo cell')\nget_ipython().getoutput('echo out')", []string{"from the shell\ncell\n"}, "['out']"},
		{"slist", "lines = !printf 'a b\\nc d\\n'\n[lines, lines.s, lines.n, lines.grep('c'), lines.fields(1)]", nil, "[['a b', 'c d'], 'a b c d', 'a b\\nc d', ['c d'], ['b', 'd']]"},
	}
	for _, tt := range tests {
		r := mustOK(t, run(t, k, tt.code))
		for _, w := range tt.stdout {
			if !strings.Contains(r.Stdout.Text, w) {
				t.Errorf("%s: stdout %q lacks %q", tt.name, r.Stdout.Text, w)
			}
		}
		switch {
		case tt.value == "" && r.Value != nil:
			t.Errorf("%s: echoed %q", tt.name, r.Value.Text)
		case tt.value != "" && (r.Value == nil || r.Value.Text != tt.value):
			t.Errorf("%s: value %+v, want %q", tt.name, r.Value, tt.value)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "mod1.py")); err != nil || string(b) != "def f():\n    return 2\n" {
		t.Errorf("%%%%writefile wrote %q, %v", b, err)
	}
	// An error inside %%time points at the cell line, without the driver's frames.
	r := run(t, k, "%%time\nz = 1\n1/0")
	if r.Error == nil || r.Error.Name != "ZeroDivisionError" || r.Error.Line != 3 || strings.Contains(r.Error.Traceback, "<string>") {
		t.Errorf("error in %%%%time: %+v", r.Error)
	}
	r = run(t, k, "%%bash\nexit 3")
	if r.Error == nil || strings.Contains(r.Error.Traceback, "<string>") || !strings.Contains(r.Error.Traceback, "%%bash") {
		t.Errorf("%%%%bash failure traceback shows the driver or not the cell: %+v", r.Error)
	}
}

// TestTopLevelAwait: a cell may await at top level, as in IPython.
func TestTopLevelAwait(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	mustOK(t, run(t, k, "import asyncio\nasync def twice(x):\n    await asyncio.sleep(0)\n    return 2 * x"))
	for _, tt := range []struct{ code, want string }{
		{"await twice(21)", "42"},
		{"v = await twice(2)\nprint('got', v)\nv + 1", "5"},
		{"r = await asyncio.gather(twice(1), twice(2))\nr", "[2, 4]"},
	} {
		if got := value(t, run(t, k, tt.code)); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.code, got, tt.want)
		}
	}
	if got := value(t, run(t, k, "asyncio.run(twice(5))")); got != "10" {
		t.Errorf("asyncio.run in a cell after top-level awaits: %s", got)
	}
}

// TestExitAndInput: exit() fails the cell but leaves the kernel usable
// (help() still works after it), and input() says why it cannot read.
func TestExitAndInput(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := run(t, k, "exit()")
	if r.Error == nil || r.Error.Name != "SystemExit" {
		t.Errorf("exit(): %+v", r.Error)
	}
	r = mustOK(t, run(t, k, "help(len)"))
	if !strings.Contains(r.Stdout.Text, "Return the number of items") {
		t.Errorf("help after exit(): %q", r.Stdout.Text)
	}
	r = run(t, k, "name = input('name? ')")
	if r.Error == nil || r.Error.Name != "EOFError" || !strings.Contains(r.Error.Message, "ask_user") || r.Stdout.Text != "name? " {
		t.Errorf("input(): %+v stdout %q", r.Error, r.Stdout.Text)
	}
}

// TestProjectVenvIsActivated: a kernel on the workspace's .venv runs as if the
// venv were activated, so !python and subprocesses find the same interpreter,
// and !pip is the kernel's own pip, never the one first on PATH.
func TestProjectVenvIsActivated(t *testing.T) {
	py := requirePython(t)
	dir := t.TempDir()
	if out, err := exec.Command(py, "-m", "venv", "--system-site-packages", "--without-pip", filepath.Join(dir, ".venv")).CombinedOutput(); err != nil {
		testenv.Missing(t, "python3-venv ("+strings.TrimSpace(string(out))+")")
	}
	k := newKernel(t, kernels.Config{Dir: dir})
	venv := filepath.Join(dir, ".venv")
	r := mustOK(t, run(t, k, "import os, shutil\nprint(os.environ.get('VIRTUAL_ENV'))\nprint(os.path.dirname(shutil.which('python')))\n!python -c 'import sys; print(sys.prefix)'"))
	if want := venv + "\n" + filepath.Join(venv, "bin") + "\n" + venv + "\n"; r.Stdout.Text != want {
		t.Errorf("kernel on a project venv:\n got %q\nwant %q", r.Stdout.Text, want)
	}
	// Debian's python3 has pip; with it, !pip --version names the kernel's
	// own pip (the python3 first on PATH may be another interpreter).
	want, err := exec.Command(py, "-m", "pip", "--version").Output()
	if err != nil {
		return
	}
	k2 := newKernel(t, kernels.Config{})
	r = mustOK(t, run(t, k2, "!pip --version"))
	if r.Stdout.Text != string(want) {
		t.Errorf("!pip --version: %q, want the kernel's pip %q", r.Stdout.Text, want)
	}
}

// TestIPythonDisplayImports: from IPython.display import ... works whether or
// not IPython is installed, and shows through the kernel's display.
func TestIPythonDisplayImports(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := mustOK(t, run(t, k, "from IPython.display import display, HTML, Markdown, clear_output\n"+
		"display(HTML('<b>bold</b>'))\ndisplay(Markdown('# Title'))\nclear_output()\nimport IPython.display\nIPython.display.display(3)"))
	if len(r.Displays) != 3 {
		t.Fatalf("displays: %+v", r.Displays)
	}
	if d := r.Displays[0]; d.HTML != "<b>bold</b>" || d.Text != "<b>bold</b>" {
		t.Errorf("HTML: %+v", d)
	}
	if d := r.Displays[1]; d.Text != "# Title" {
		t.Errorf("Markdown: %+v", d)
	}
	if d := r.Displays[2]; d.Text != "3" {
		t.Errorf("IPython.display.display: %+v", d)
	}
}

// TestOutputOrderAcrossSources: text written by print and sys.stdout, by
// os.write to the fds, by child processes (subprocess, os.system, !cmd, a
// fork) and unfinished lines all come back in the order written, as a
// terminal would show them; a kernel that dies right after printing still
// returns what it printed.
func TestOutputOrderAcrossSources(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	for _, tt := range []struct{ name, code, want string }{
		{"mixed", "import os, sys, subprocess\nprint('a')\nos.write(1, b'b\\n')\nprint('c', end='')\nprint('d', file=sys.stderr)\n" +
			"subprocess.run(['echo', 'e'])\nprint('f')\nos.system('echo g >&2')\nsys.stdout.write('h\\n')\n!echo i\nprint('j')\nos.write(2, b'k')\nsys.stdout.write('l')",
			"stdout:a\nb\nc|stderr:d\n|stdout:e\nf\n|stderr:g\n|stdout:h\ni\nj\n|stderr:k|stdout:l"},
		{"fork", "import os\nprint('parent before')\npid = os.fork()\nif pid == 0:\n    print('in child')\n    os._exit(0)\nos.waitpid(pid, 0)\nprint('parent after')",
			"stdout:parent before\nin child\nparent after\n"},
		{"thread", "import threading\nt = threading.Thread(target=lambda: print('from a thread'))\nt.start(); t.join()\nprint('main')",
			"stdout:from a thread\nmain\n"},
		{"fd 1 pointed at a file", "import os, sys, tempfile\nprint('before')\nf = tempfile.TemporaryFile()\nsaved = os.dup(1)\nos.dup2(f.fileno(), 1)\n" +
			"print('into the file')\nsys.stdout.flush()\nos.dup2(saved, 1)\nf.seek(0)\nprint('after', f.read())",
			"stdout:before\nafter b'into the file\\n'\n"},
		{"progress bar", "import sys\nfor i in range(5):\n    sys.stderr.write(f'\\r{i * 25}%')\nsys.stderr.write('\\n')\nprint('done')",
			"stderr:100%\n|stdout:done\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := mustOK(t, run(t, k, tt.code))
			if got := strings.Join(outputs(r), "|"); got != tt.want {
				t.Errorf("outputs:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	t.Run("alternating lines", func(t *testing.T) {
		r := mustOK(t, run(t, k, "import sys\nfor i in range(2000):\n    print(i, file=sys.stderr if i % 2 else sys.stdout)"))
		if len(r.Outputs) != 2000 {
			t.Fatalf("%d outputs, want 2000 alternating", len(r.Outputs))
		}
		for i, o := range r.Outputs {
			want := "stdout"
			if i%2 == 1 {
				want = "stderr"
			}
			if o.Stream != want || o.Text != fmt.Sprintf("%d\n", i) {
				t.Fatalf("output %d: %s %q", i, o.Stream, o.Text)
			}
		}
	})
	t.Run("printed just before dying", func(t *testing.T) {
		mustOK(t, run(t, k, "print('a cell just before')"))
		r := run(t, k, "import os\nprint('step 3')\nos._exit(1)")
		if !errors.Is(r.Error, kernels.ErrKernelDied) || r.Stdout.Text != "step 3\n" {
			t.Errorf("error %+v stdout %q", r.Error, r.Stdout.Text)
		}
	})
}

// TestHistoryAndTb: %history lists the cells run in this kernel as written
// (IPython's -n numbers them, multi-line cells on their own lines; -l N the
// last N; cell ranges), %tb shows the last traceback again.
func TestHistoryAndTb(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	mustOK(t, run(t, k, "a = 1"))
	mustOK(t, run(t, k, "for i in range(2):\n    a += i"))
	if r := run(t, k, "1 / 0"); r.Error == nil || r.Error.Name != "ZeroDivisionError" {
		t.Fatalf("1 / 0: %+v", r.Error)
	}
	for _, tt := range []struct{ code, stdout, stderr string }{
		{"%history", "a = 1\nfor i in range(2):\n    a += i\n1 / 0\n%history\n", ""},
		{"%history -n 1-2", "1: a = 1\n2:\nfor i in range(2):\n    a += i\n", ""},
		{"%hist -n -l 2", "5: %history -n 1-2\n6: %hist -n -l 2\n", ""},
	} {
		r := mustOK(t, run(t, k, tt.code))
		if r.Stdout.Text != tt.stdout || r.Stderr.Text != tt.stderr {
			t.Errorf("%s:\nstdout %q\n want %q\nstderr %q\n want %q", tt.code, r.Stdout.Text, tt.stdout, r.Stderr.Text, tt.stderr)
		}
	}
	r := mustOK(t, run(t, k, "%tb"))
	if !strings.HasPrefix(r.Stderr.Text, "Traceback (most recent call last):\n  File \"<cell-3>\", line 1, in <module>\n    1 / 0\n") || !strings.HasSuffix(r.Stderr.Text, "ZeroDivisionError: division by zero\n") {
		t.Errorf("%%tb: stderr %q", r.Stderr.Text)
	}
	if r := run(t, k, "%history -x"); r.Error == nil || !strings.Contains(r.Error.Message, "use -n, -l N, or cell numbers") {
		t.Errorf("bad argument: %+v", r.Error)
	}
}

// TestMissingModuleSaysWhatToDo: an import of a module the kernel's python
// lacks names that python and how to get the module (%pip, under its PyPI
// name, or another interpreter).
func TestMissingModuleSaysWhatToDo(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	for _, tt := range []struct{ code, want string }{
		{"import no_such_module_xyz", "No module named 'no_such_module_xyz' in this kernel's python (" + debianPython + "): %pip install no_such_module_xyz, or give tether an interpreter that has it (--python, or a .venv in the working directory)"},
		{"from sklearn_missing_q import x", "%pip install sklearn_missing_q,"},
	} {
		r := run(t, k, tt.code)
		if r.Error == nil || r.Error.Name != "ModuleNotFoundError" || !strings.Contains(r.Error.Message, tt.want) {
			t.Errorf("%s: %+v", tt.code, r.Error)
		}
	}
}
