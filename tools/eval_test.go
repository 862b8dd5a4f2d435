package tools_test

import "bytes"
import "context"
import "encoding/json"
import "errors"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/kernelstest"
import "github.com/tetherhq/tether/kernels/std"
import "github.com/tetherhq/tether/tools"

// evalPython is Debian's python3, where scripts/install-deps.sh puts pandas
// and matplotlib.
const evalPython = "/usr/bin/python3"

func requireEvalPython(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(evalPython, "-c", "import pandas, matplotlib").CombinedOutput(); err != nil {
		testenv.Missing(t, "Debian's python3 with pandas and matplotlib ("+strings.TrimSpace(string(out))+")")
	}
}

func newEvalRun(t *testing.T, policy tools.Policy, defaults kernels.Config) *tools.Run {
	t.Helper()
	defaults.Python = evalPython
	r := startRun(t, tools.Config{
		WorkDir: t.TempDir(),
		Policy:  policy,
		Eval:    tools.EvalConfig{Kernels: std.NewFactory(defaults, nil)},
	})
	return r
}

func evalCall(t *testing.T, r *tools.Run, lang, code string) *tools.Result {
	t.Helper()
	a := map[string]any{"code": code, "description": "a test cell for the eval tool"}
	if lang != "" {
		a["language"] = lang
	}
	args, _ := json.Marshal(a)
	res, err := r.Call(context.Background(), "eval", args, tools.FromModel)
	if err != nil {
		t.Fatalf("eval %q: %v", code, err)
	}
	return res
}

// allowAll lets the eval tool itself (exec) and writes run.
var allowAll = tools.PolicyOf(tools.Allow)

// writesDenied runs exec tools (eval) but denies every write.
var writesDenied = tools.Policy{Default: tools.Allow, Tiers: map[tools.Tier]tools.Decision{tools.TierWrite: tools.Deny}}

func TestEvalRegisteredOnlyWithKernels(t *testing.T) {
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.Lookup("eval"); ok {
		t.Error("eval registered without a kernel factory")
	}
	r2, err := tools.NewRun(context.Background(), tools.Config{WorkDir: t.TempDir(), Surface: tools.SurfacePlan, Eval: tools.EvalConfig{Kernels: std.NewFactory(kernels.Config{}, nil)}})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	tl, ok := r2.Lookup("eval")
	if !ok || tl.Tier != tools.TierExec {
		t.Fatalf("eval with a factory: %v tier %v", ok, tl.Tier)
	}
	if hasTool(r2, "eval") {
		t.Error("eval listed on the plan surface")
	}
	_, err = r2.Call(context.Background(), "eval", json.RawMessage(`{"code":"1","description":"one two three four five"}`), tools.FromModel)
	if !errors.Is(err, tools.ErrNotOnSurface) {
		t.Errorf("eval on the plan surface: %v", err)
	}
}

func TestEvalArguments(t *testing.T) {
	r := newEvalRun(t, allowAll, kernels.Config{})
	for _, tt := range []struct{ args, want string }{
		// The schema states the word count (a pattern), so the refusal
		// comes from it, with the description.
		{`{"code":"1","description":"too short"}`, `argument "description": expected a string matching`},
		{`{"code":"1","description":"too short"}`, `(5-10 words saying what the cell does; shown as the cell's label), got string "too short"`},
		{`{"code":"1","description":"one two three four five six seven eight nine ten eleven"}`, "(5-10 words saying what the cell does"},
		{`{"code":"1","description":"a valid label of words","language":"ruby"}`, "invalid"},
		{`{"description":"a valid label of five words"}`, "give code (one cell) or cells"},
		{`{"code":"1"}`, `missing required argument "description" (a string: 5-10 words saying what the cell does`},
		{`{"code":"1","description":""}`, `argument "description": expected a string matching`},
		// Bad text in the cell is refused, not run as U+FFFD (a cell writing
		// the string wrote bytes the caller never sent).
		{`{"code":"open('x.txt','w').write('` + "\xff" + `')","description":"a valid label of five words"}`, "code holds invalid UTF-8 (byte 0xff"},
		{`{"code":"open('x.txt','w').write('\ud800')","description":"a valid label of five words"}`, `code holds a lone surrogate (\ud800`},
		// Bad shapes of cells are refused before anything runs.
		{`{"code":"1","cells":[{"code":"2"}],"description":"a valid label of five words"}`, "give code (one cell) or cells (several), not both"},
		{`{"cells":[],"description":"a valid label of five words"}`, "cells"},
		{`{"cells":[{"language":"ruby","code":"1"}],"description":"a valid label of five words"}`, "ruby"},
	} {
		_, err := r.Call(context.Background(), "eval", json.RawMessage(tt.args), tools.FromModel)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.args, err, tt.want)
		}
	}
}

func TestEvalPython(t *testing.T) {
	requireEvalPython(t)
	r := newEvalRun(t, allowAll, kernels.Config{})
	res := evalCall(t, r, "", "import pandas as pd\ndf = pd.DataFrame({'n': [1, 2, 3]})\nprint('rows', len(df))\ndf.n.sum()")
	text := res.AllText()
	for _, want := range []string{"[python] a test cell for the eval tool", "stdout:\nrows 3", "out:\n6"} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	res = evalCall(t, r, "python", "df")
	if !strings.Contains(res.AllText(), "DataFrame: 3 rows x 1 column\n|  | n |\n|---|---|\n| 0 | 1 |") {
		t.Errorf("data frame table:\n%s", res.AllText())
	}
	st, _ := json.Marshal(res.Structured)
	var cell struct {
		Value struct {
			Text string `json:"text/plain"`
			HTML string `json:"text/html"`
		} `json:"value"`
	}
	if err := json.Unmarshal(st, &cell); err != nil || !strings.Contains(cell.Value.Text, "| 0 | 1 |") || cell.Value.HTML != "" {
		t.Errorf("structured output should hold the table in plain text alone (its HTML repeats it): %v %s", err, st)
	}
	res = evalCall(t, r, "python", "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()")
	var img *tools.Content
	for i := range res.Content {
		if res.Content[i].Type == tools.ImageContent {
			img = &res.Content[i]
		}
	}
	if img == nil || img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("plot did not come back as a PNG image: %+v", res.Content)
	}
	res = evalCall(t, r, "python", "undefined_thing")
	if !res.IsError || !strings.Contains(res.AllText(), "error: NameError") || !strings.Contains(res.AllText(), "(cell line 1)") {
		t.Errorf("error cell: %v\n%s", res.IsError, res.AllText())
	}
}

// slowTool is a read-tier tool that takes longer than the idle budget: d
// passes on the kernels' clock while it runs.
func slowTool(clock *kernelstest.Clock, d time.Duration) tools.Tool {
	return tools.Tool{
		Name: "slow_test_tool", Tier: tools.TierRead, Description: "takes a while",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, call *tools.Call) (*tools.Result, error) {
			clock.Advance(d)
			return tools.Text("slow result"), nil
		},
	}
}

func TestEvalBridge(t *testing.T) {
	langs := []struct {
		lang                       string
		read, write, slow, wrapped string
	}{
		{"python",
			"tool('read', {'path': 'notes.txt'})",
			"try:\n    tool('write', {'path': 'out.txt', 'content': 'nope'})\n    outcome = 'written'\nexcept ToolError as e:\n    outcome = 'refused: ' + str(e)\noutcome",
			"tool('slow_test_tool')",
			"tool('edit', {'path': 'notes.txt', 'old_string': 'alpha', 'new_string': 'gamma'})"},
		{"javascript",
			"tool('read', {path: 'notes.txt'})",
			"let outcome; try { tool('write', {path: 'out.txt', content: 'nope'}); outcome = 'written' } catch (e) { outcome = 'refused: ' + e.message }; outcome",
			"tool('slow_test_tool')",
			"tool('edit', {path: 'notes.txt', old_string: 'alpha', new_string: 'gamma'})"},
	}
	for _, l := range langs {
		t.Run(l.lang, func(t *testing.T) {
			if l.lang == "python" {
				requireEvalPython(t)
			}
			t.Run("read", func(t *testing.T) {
				r := newEvalRun(t, allowAll, kernels.Config{})
				if err := os.WriteFile(filepath.Join(r.WorkDir(), "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				res := evalCall(t, r, l.lang, l.read)
				if res.IsError || !strings.Contains(res.AllText(), "alpha") || !strings.Contains(res.AllText(), "beta") {
					t.Errorf("tool read:\n%s", res.AllText())
				}
			})
			t.Run("writes denied", func(t *testing.T) {
				r := newEvalRun(t, writesDenied, kernels.Config{})
				res := evalCall(t, r, l.lang, l.write)
				if !strings.Contains(res.AllText(), "refused: ") || !strings.Contains(res.AllText(), "is denied by this run") {
					t.Errorf("denied write:\n%s", res.AllText())
				}
				if _, err := os.Stat(filepath.Join(r.WorkDir(), "out.txt")); !os.IsNotExist(err) {
					t.Errorf("a denied write left a file behind: %v", err)
				}
			})
			t.Run("no approver fails closed", func(t *testing.T) {
				r := newEvalRun(t, tools.Policy{Default: tools.Ask, Tools: map[string]tools.Decision{"eval": tools.Allow}}, kernels.Config{})
				res := evalCall(t, r, l.lang, l.write)
				if !strings.Contains(res.AllText(), "refused: ") || !strings.Contains(res.AllText(), "fail closed") {
					t.Errorf("write with no approver:\n%s", res.AllText())
				}
			})
			t.Run("wrappers apply", func(t *testing.T) {
				r := newEvalRun(t, allowAll, kernels.Config{})
				if err := os.WriteFile(filepath.Join(r.WorkDir(), "notes.txt"), []byte("alpha\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				var origins []tools.Origin
				tools.Wrap(r, "edit", func(next tools.Handler) tools.Handler {
					return func(ctx context.Context, call *tools.Call) (*tools.Result, error) {
						origins = append(origins, call.Origin)
						res, err := next(ctx, call)
						if res != nil {
							res.Content = append(res.Content, tools.Content{Type: tools.TextContent, Text: "wrapper saw this edit"})
						}
						return res, err
					}
				})
				res := evalCall(t, r, l.lang, l.wrapped)
				if !strings.Contains(res.AllText(), "wrapper saw this edit") || len(origins) != 1 || origins[0] != tools.FromBridge {
					t.Errorf("wrapped edit: origins %v\n%s", origins, res.AllText())
				}
				if b, _ := os.ReadFile(filepath.Join(r.WorkDir(), "notes.txt")); string(b) != "gamma\n" {
					t.Errorf("edit through the bridge: file is %q", b)
				}
			})
			t.Run("slow bridge call outlives the idle budget", func(t *testing.T) {
				clock := kernelstest.NewClock()
				r := newEvalRun(t, allowAll, kernels.Config{IdleTimeout: 2 * time.Second, Clock: clock})
				if err := r.Register(slowTool(clock, 5*time.Second)); err != nil {
					t.Fatal(err)
				}
				res := evalCall(t, r, l.lang, l.slow)
				if res.IsError || !strings.Contains(res.AllText(), "slow result") {
					t.Errorf("slow bridge call:\n%s", res.AllText())
				}
			})
		})
	}
}

func TestEvalResetAndRecursion(t *testing.T) {
	r := newEvalRun(t, allowAll, kernels.Config{})
	evalCall(t, r, "javascript", "var kept = 1")
	args := `{"code":"typeof kept","description":"check that reset dropped the state","language":"javascript","reset":true}`
	res, err := r.Call(context.Background(), "eval", json.RawMessage(args), tools.FromModel)
	if err != nil || !strings.Contains(res.AllText(), "out:\n'undefined'") || !strings.Contains(res.AllText(), "reset: the previous interpreter was discarded") {
		t.Errorf("reset: %v\n%s", err, res.AllText())
	}
	res = evalCall(t, r, "javascript", "tool('eval', {code: '1', description: 'one two three four five'})")
	if !res.IsError || !strings.Contains(res.AllText(), "cannot call eval") {
		t.Errorf("eval from a cell:\n%s", res.AllText())
	}
}

func TestEvalCloseEndsKernels(t *testing.T) {
	requireEvalPython(t)
	r := newEvalRun(t, allowAll, kernels.Config{})
	res := evalCall(t, r, "python", "import os\nos.getpid(), os.readlink('/proc/self/ns/pid')")
	m := regexp.MustCompile(`\((\d+), '([^']+)'\)`).FindStringSubmatch(res.AllText())
	if m == nil {
		t.Fatalf("pid: %s", res.AllText())
	}
	// The cell's pid is its PID namespace's (the sandbox's).
	pid, _ := strconv.Atoi(m[1])
	if pid = testenv.HostPidInNS(m[2], pid); pid == 0 {
		t.Fatalf("the kernel's pid %s is not found in its namespace %s", m[1], m[2])
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ { // SIGKILL is asynchronous; a generous while
		if !testenv.Alive(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("python kernel %d outlived Run.Close", pid)
}

// TestEvalOutputsInOrder: the result reads as the cell printed it, stdout,
// stderr and displays interleaved, in both languages.
func TestEvalOutputsInOrder(t *testing.T) {
	requireEvalPython(t)
	r := newEvalRun(t, allowAll, kernels.Config{})
	for _, tt := range []struct{ lang, code, want string }{
		{"python", "import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\ndisplay(5)\nprint('d', end='')\nsys.stderr.write('e')\n7",
			"stdout:\na\nstderr:\nb\nstdout:\nc\ndisplay:\n5\nstdout:\nd\nstderr:\ne\nout:\n7"},
		{"javascript", "console.log('a'); console.error('b'); console.log('c'); display(5); 7",
			"stdout:\na\nstderr:\nb\nstdout:\nc\ndisplay:\n5\nout:\n7"},
	} {
		res := evalCall(t, r, tt.lang, tt.code)
		if !strings.HasSuffix(res.AllText(), tt.want) {
			t.Errorf("%s:\n got %q\nwant suffix %q", tt.lang, res.AllText(), tt.want)
		}
	}
}

// TestEvalEnclosure: a run whose conversation has an enclosure runs its
// Python kernel inside it (the lookup gets the run's conversation id and is
// only asked, never told to start one); a run without one runs on the host.
func TestEvalEnclosure(t *testing.T) {
	requireEvalPython(t)
	var asked []string
	r, err := tools.NewRun(context.Background(), tools.Config{
		WorkDir:        t.TempDir(),
		ConversationID: "conv-7",
		Policy:         allowAll,
		Eval: tools.EvalConfig{
			Kernels: std.NewFactory(kernels.Config{Python: evalPython}, nil),
			Enclosure: func(conv string) []string {
				asked = append(asked, conv)
				return []string{"env", "TETHER_TEST_ENCLOSURE=" + conv}
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := evalCall(t, r, "python", "import os\nos.environ.get('TETHER_TEST_ENCLOSURE')")
	if !strings.Contains(res.AllText(), "out:\n'conv-7'") || len(asked) != 1 || asked[0] != "conv-7" {
		t.Errorf("in the enclosure: asked %q\n%s", asked, res.AllText())
	}
	host := newEvalRun(t, allowAll, kernels.Config{})
	res = evalCall(t, host, "python", "import os\nrepr(os.environ.get('TETHER_TEST_ENCLOSURE'))")
	if !strings.Contains(res.AllText(), "out:\n'None'") {
		t.Errorf("on the host:\n%s", res.AllText())
	}
}
