package tools_test

import "context"
import "encoding/json"
import "os"
import "regexp"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/std"
import "github.com/tetherhq/tether/tools"

// evalArgsCall calls eval with the given arguments (description added) and
// returns its text and whether it is an error result.
func evalArgsCall(t *testing.T, r *tools.Run, a map[string]any) (string, bool) {
	t.Helper()
	if _, ok := a["description"]; !ok {
		a["description"] = "a test call of the eval tool"
	}
	args, _ := json.Marshal(a)
	res, err := r.Call(context.Background(), "eval", args, tools.FromModel)
	if err != nil {
		t.Fatalf("eval %s: %v", args, err)
	}
	return res.AllText(), res.IsError
}

func wantAll(t *testing.T, text string, wants ...string) {
	t.Helper()
	testenv.WantAll(t, "result", text, wants...)
}

// TestEvalCellsMixed: three cells, Python then JavaScript then Python, run in
// order in the run's two kernels, each with its header; state from the
// first Python cell is there in the third.
func TestEvalCellsMixed(t *testing.T) {
	requireEvalPython(t)
	r := newEvalRun(t, allowAll, kernels.Config{})
	text, isErr := evalArgsCall(t, r, map[string]any{"cells": []map[string]any{
		{"language": "python", "code": "total = sum(range(10))\nprint('py sum', total)"},
		{"language": "javascript", "code": "const words = ['a', 'b', 'c']; console.log('js', words.join('-')); words.length"},
		{"code": "total * 2"},
	}})
	if isErr {
		t.Fatalf("three good cells gave an error result:\n%s", text)
	}
	wantAll(t, text, "3 cells: a test call of the eval tool",
		"--- cell 1 of 3 [python]\n", "stdout:\npy sum 45",
		"--- cell 2 of 3 [javascript]\nstdout:\njs a-b-c",
		"out:\n3",
		"--- cell 3 of 3 [python]\nout:\n90")
	if i1, i2, i3 := strings.Index(text, "cell 1 of 3"), strings.Index(text, "cell 2 of 3"), strings.Index(text, "cell 3 of 3"); !(i1 < i2 && i2 < i3) {
		t.Errorf("cells out of order:\n%s", text)
	}

	// The first failing cell stops the call; later cells are listed as not run.
	text, isErr = evalArgsCall(t, r, map[string]any{"cells": []map[string]any{
		{"language": "javascript", "code": "globalThis.seen = 1; 'first'"},
		{"language": "python", "code": "1 / 0"},
		{"language": "javascript", "code": "globalThis.seen = 2"},
	}})
	if !isErr {
		t.Errorf("a failing cell did not make the result an error:\n%s", text)
	}
	wantAll(t, text, "--- cell 1 of 3 [javascript]\nout:\n'first'", "error: ZeroDivisionError", "--- cell 3 of 3 [javascript]: not run (cell 2 failed)")
	text, _ = evalArgsCall(t, r, map[string]any{"language": "javascript", "code": "seen"})
	wantAll(t, text, "out:\n1")
}

// TestEvalCallTimeout: a cell still running when the call's timeout passes
// is interrupted, the result says it was its timeout, later cells are not
// run, and the kernel keeps its state (Python and JavaScript).
func TestEvalCallTimeout(t *testing.T) {
	requireEvalPython(t)
	r := newEvalRun(t, allowAll, kernels.Config{})
	// Both kernels started first: a per-call timeout counts a kernel's
	// start, which a loaded machine can stretch past these few seconds.
	for _, lang := range []string{"python", "javascript"} {
		if text, isErr := evalArgsCall(t, r, map[string]any{"language": lang, "code": "1"}); isErr {
			t.Fatalf("starting the %s kernel: %s", lang, text)
		}
	}
	jsY := map[string]any{"language": "javascript", "code": "y * 2"}
	for _, c := range []struct {
		what  string         // the stopped cell, as a failure names it
		call  map[string]any // the call whose timeout stops it
		wants []string       // in that call's text
		after map[string]any // a call that reads the state the cell left
		out   string         // in its text
	}{
		{"a cell", map[string]any{"timeout": 2, "cells": []map[string]any{
			{"code": "kept = 41"},
			{"code": "import time\nwhile True:\n    time.sleep(0.05)"},
			{"code": "kept = 0"},
		}}, []string{"error: Interrupted: kernels: cell interrupted: its per-call timeout of 2s passed; the kernel came back and its state is kept",
			"--- cell 3 of 3 [python]: not run (the call stopped at cell 2: its per-call timeout of 2s passed)"},
			map[string]any{"code": "kept + 1"}, "out:\n42"},
		{"a JavaScript cell", map[string]any{"timeout": 1, "language": "javascript", "code": "globalThis.y = 5; while (true) {}"},
			[]string{"its per-call timeout of 1s passed; the runtime came back and its state is kept"}, jsY, "out:\n10"},
		// A cell waiting on a timer or a promise, not running JavaScript,
		// is stopped too.
		{"a JavaScript cell awaiting a timer", map[string]any{"timeout": 1, "language": "javascript", "code": "y = 6; await new Promise(r => setTimeout(r, 600000))"},
			[]string{"its per-call timeout of 1s passed"}, jsY, "out:\n12"},
	} {
		text, isErr := evalArgsCall(t, r, c.call)
		if !isErr {
			t.Errorf("%s stopped by its timeout is not an error result:\n%s", c.what, text)
		}
		wantAll(t, text, c.wants...)
		text, _ = evalArgsCall(t, r, c.after)
		wantAll(t, text, c.out)
	}
}

// TestEvalTimeoutClamped: a timeout over the operator's maximum is clamped
// to it, and the result says so.
func TestEvalTimeoutClamped(t *testing.T) {
	r, err := tools.NewRun(context.Background(), tools.Config{
		WorkDir: t.TempDir(),
		Policy:  allowAll,
		Eval:    tools.EvalConfig{Kernels: std.NewFactory(kernels.Config{}, nil), MaxTimeout: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	text, _ := evalArgsCall(t, r, map[string]any{"timeout": 3600, "language": "javascript", "code": "while (true) {}"})
	wantAll(t, text, "note: timeout: 1h0m0s asked for, clamped to the operator's maximum of 1s", "its per-call timeout of 1s passed")
}

// TestEvalSpillReadBack: a cell printing about 5 MB gets the cut text, and
// its whole stdout is written to the run's artifacts area under a name the
// result gives, with how much was written; read opens it by that name and
// pages to its last line; the area is gone with the run.
func TestEvalSpillReadBack(t *testing.T) {
	requireEvalPython(t)
	for _, tt := range []struct{ lang, code string }{
		{"python", "for i in range(100000):\n    print(f'line {i:06d} ' + 'x' * 40)"},
		{"javascript", "for (let i = 0; i < 100000; i++) console.log('line ' + String(i).padStart(6, '0') + ' ' + 'x'.repeat(40))"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			r := newEvalRun(t, allowAll, kernels.Config{})
			const total = 100000 * 53 // "line 000000 " + 40 x + "\n"
			text, isErr := evalArgsCall(t, r, map[string]any{"language": tt.lang, "code": tt.code})
			if isErr {
				t.Fatalf("cell failed:\n%.2000s", text)
			}
			if len(text) > 16<<10 {
				t.Errorf("the result holds %d bytes of text: the cut did not hold", len(text))
			}
			m := regexp.MustCompile(`stdout was cut \((\d+) bytes not shown\); all of it, (\d+) bytes, was written to (artifact:eval-stdout-\d+\.txt)`).FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("no spill notice:\n%.3000s", text)
			}
			if m[2] != strconv.Itoa(total) {
				t.Errorf("written %s bytes, want %d", m[2], total)
			}
			read := func(args map[string]any) (string, error) {
				b, _ := json.Marshal(args)
				res, err := r.Call(context.Background(), "read", b, tools.FromModel)
				if err != nil {
					return "", err
				}
				return res.AllText(), nil
			}
			got, err := read(map[string]any{"path": m[3], "offset": 99999, "limit": 5})
			if err != nil {
				t.Fatalf("read %s: %v", m[3], err)
			}
			if !strings.Contains(got, "line 099998 ") || !strings.Contains(got, "line 099999 "+strings.Repeat("x", 40)) {
				t.Errorf("read %s at its end:\n%s", m[3], got)
			}
			got, err = read(map[string]any{"path": m[3], "offset": 50001, "limit": 1})
			if err != nil || !strings.Contains(got, "line 050000 ") {
				t.Errorf("read %s in the middle (the part the result cut): %v\n%s", m[3], err, got)
			}
			for _, bad := range []string{"artifact:../etc/passwd", "artifact:eval-stdout-99.txt"} {
				if _, err := read(map[string]any{"path": bad}); err == nil || !strings.Contains(err.Error(), "artifact") {
					t.Errorf("read %s: %v", bad, err)
				}
			}
			dir := tools.ArtifactDir(r)
			if dir == "" || strings.HasPrefix(dir, r.WorkDir()) {
				t.Errorf("artifacts area %q: want a directory of its own outside the workspace", dir)
			}
			r.Close()
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("artifacts area still there after the run closed: %v", err)
			}
		})
	}
}

// TestEvalCutAtMost16K: a cell printing 1 MB to stdout and 1 MB to stderr
// shows at most 16 KiB in all: each stream's head and tail, how much was
// cut, and where the whole of each is.
func TestEvalCutAtMost16K(t *testing.T) {
	requireEvalPython(t)
	for _, tt := range []struct{ lang, code string }{
		{"python", "import sys\nfor i in range(20000):\n    print(f'out {i:05d} ' + 'x' * 40)\n    print(f'err {i:05d} ' + 'y' * 40, file=sys.stderr)"},
		{"javascript", "for (let i = 0; i < 20000; i++) { console.log('out ' + String(i).padStart(5, '0') + ' ' + 'x'.repeat(40)); console.error('err ' + String(i).padStart(5, '0') + ' ' + 'y'.repeat(40)) }"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			r := newEvalRun(t, allowAll, kernels.Config{})
			text, isErr := evalArgsCall(t, r, map[string]any{"language": tt.lang, "code": tt.code})
			if isErr {
				t.Fatalf("cell failed:\n%.2000s", text)
			}
			if len(text) > 16<<10 {
				t.Errorf("the result holds %d bytes of text, more than 16 KiB", len(text))
			}
			wantAll(t, text, "out 00000 ", "out 19999 ", "err 00000 ", "err 19999 ", "output cut:",
				"stdout was cut (", "stderr was cut (", "artifact:eval-stdout-", "artifact:eval-stderr-")
		})
	}
}

// TestEvalFrameAndFigureText: display() of a data frame gives a markdown
// table under its shape, saying which rows and columns were left out; a
// matplotlib figure gives its PNG and, as text, its title, axis labels and
// each series by kind and label, for a model that cannot see the image.
func TestEvalFrameAndFigureText(t *testing.T) {
	requireEvalPython(t)
	r := newEvalRun(t, allowAll, kernels.Config{})
	text, isErr := evalArgsCall(t, r, map[string]any{"code": "import pandas as pd\n" +
		"df = pd.DataFrame({'city': ['Oslo', 'Lima'], 'temp': [3.5, 19.0]}).set_index('city')\n" +
		"display(df)\n" +
		"big = pd.DataFrame({f'c{j}': range(j, j + 100) for j in range(30)})\n" +
		"display(big)"})
	if isErr {
		t.Fatalf("cell failed:\n%s", text)
	}
	wantAll(t, text,
		"display:\nDataFrame: 2 rows x 1 column\n| city | temp |\n|---|---|\n| Oslo | 3.5 |\n| Lima | 19.0 |",
		"DataFrame: 100 rows x 30 columns; shown: the first and last 5 rows (rows 6-95 left out), the first and last 10 columns (columns 11-20 left out)",
		"| 0 | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | … | 20 | 21 |",
		"| … | … |",
		"| 99 | 99 | 100 |")

	args, _ := json.Marshal(map[string]any{"description": "plot sales as lines bars and points", "code": "import matplotlib.pyplot as plt\n" +
		"fig, ax = plt.subplots()\n" +
		"ax.plot([1, 2, 3], [10, 20, 15], label='revenue')\n" +
		"ax.bar(['a', 'b', 'c'], [3, 5, 4], label='units')\n" +
		"ax.scatter([0.5, 1.5], [12, 18], label='outliers')\n" +
		"ax.set_title('Quarterly sales'); ax.set_xlabel('quarter'); ax.set_ylabel('amount (EUR)')\n" +
		"ax.legend()\n" +
		"plt.show()"})
	res, err := r.Call(context.Background(), "eval", args, tools.FromModel)
	if err != nil {
		t.Fatal(err)
	}
	text = res.AllText()
	wantAll(t, text,
		"Figure: 640x480 px, 1 axes",
		`axes 1: title "Quarterly sales"; x "quarter" `,
		`y "amount (EUR)" `,
		`line "revenue": 3 points, x 1..3, y 10..20`,
		`bars "units": 3 bars, values 3, 5, 4`,
		`scatter "outliers": 2 points, x 0.5..1.5, y 12..18`,
		`legend: "revenue"`,
		"(image/png, ")
	images := 0
	for _, c := range res.Content {
		if c.Type == tools.ImageContent && c.MIMEType == "image/png" {
			images++
		}
	}
	if images != 1 {
		t.Errorf("figure: %d PNG images, want 1", images)
	}
}

// TestEvalResultSpill: cells whose results together pass what one result
// holds are written whole to an artifact, named under the first line, and
// the last cell's output is there to read. Each stream keeps 64 KiB here
// (an embedder sets kernels.Config.MaxOutput; 7 KiB by default), so that
// five cells pass it.
func TestEvalResultSpill(t *testing.T) {
	requireEvalPython(t)
	r := newEvalRun(t, allowAll, kernels.Config{MaxOutput: 64 << 10})
	var cells []map[string]any
	for i := 1; i <= 5; i++ {
		cells = append(cells, map[string]any{"code": "import sys\nprint('o' * 60000)\nprint('e' * 60000, file=sys.stderr)\nprint('end of cell " + strconv.Itoa(i) + "')"})
	}
	text, isErr := evalArgsCall(t, r, map[string]any{"cells": cells})
	if isErr {
		t.Fatalf("cells failed:\n%.2000s", text)
	}
	m := regexp.MustCompile(`^5 cells: [^\n]*\nnote: this result is (\d+) bytes, more than the 262144 a result holds, so its end is cut; all of it was written to (artifact:eval-result-\d+\.txt)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no spill note under the first line:\n%.1000s", text)
	}
	if strings.Contains(text, "end of cell 5") {
		t.Errorf("the result was not cut: %d bytes", len(text))
	}
	args, _ := json.Marshal(map[string]any{"path": m[2], "offset": 1, "limit": 2000})
	res, err := r.Call(context.Background(), "read", args, tools.FromModel)
	if err != nil {
		t.Fatalf("read %s: %v", m[2], err)
	}
	if got := res.AllText(); !strings.Contains(got, "end of cell 5") || !strings.Contains(got, "--- cell 5 of 5 [python]") {
		t.Errorf("read %s lacks the last cell: %d bytes", m[2], len(got))
	}
}
