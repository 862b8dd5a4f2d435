package tools_test

import "context"
import "errors"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/creack/pty"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/std"
import "github.com/tetherhq/tether/operator"
import "github.com/tetherhq/tether/tools"

// newTerminalRun returns a run whose questions and permission prompts go to
// a terminal port on a real pseudo-terminal, and that terminal's screen.
func newTerminalRun(t *testing.T, cfg tools.Config) (*tools.Run, *testenv.Screen, *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	scr := testenv.NewScreen(ptmx)
	port := operator.NewTerminal(tty, tty)
	cfg.Ask.Questions, cfg.Ask.TargetSpace = port, "conv-7"
	cfg.Approver = tools.QuestionApprover(port, "conv-7", 0)
	run := startRun(t, cfg)
	return run, scr, ptmx
}

// TestPermissionPreviewInTerminal: the permission prompts of edit, write
// and apply_patch show, on a real terminal, the diff the call would make
// rather than its raw arguments; the answer then decides the call.
func TestPermissionPreviewInTerminal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run, scr, ptmx := newTerminalRun(t, tools.Config{WorkDir: dir})

	cases := []struct {
		tool, args string
		want       []string
		answer     string
		after      string // notes.txt afterwards ("" to skip the check)
	}{
		{"edit", `{"path":"notes.txt","old_string":"world","new_string":"there"}`,
			[]string{"May I call edit (write tier)?", "  | --- a/notes.txt", "  | +++ b/notes.txt", "  | @@ -1,2 +1,2 @@", "  |  hello", "  | -world", "  | +there"},
			"2", "hello\nworld\n"},
		{"edit", `{"path":"notes.txt","old_string":"world","new_string":"there"}`,
			[]string{"  | -world", "  | +there"}, "1", "hello\nthere\n"},
		{"write", `{"path":"new.txt","content":"fresh\n"}`,
			[]string{"May I call write (write tier)?", "  | --- /dev/null", "  | +++ b/new.txt", "  | +fresh"}, "1", ""},
		{"apply_patch", `{"patch":"*** Begin Patch\n*** Update File: notes.txt\n@@\n hello\n-there\n+again\n*** End Patch"}`,
			[]string{"May I call apply_patch (write tier)?", "  | --- a/notes.txt", "  | -there", "  | +again"}, "1", "hello\nagain\n"},
	}
	for _, tc := range cases {
		done := callAsync(run, tc.tool, tc.args)
		card := scr.Expect(t, "/skip to skip.")
		for _, w := range tc.want {
			if !strings.Contains(card, w) {
				t.Errorf("%s's permission card lacks %q:\n%s", tc.tool, w, card)
			}
		}
		if strings.Contains(card, "arguments:") {
			t.Errorf("%s's permission card shows raw arguments:\n%s", tc.tool, card)
		}
		if _, err := ptmx.Write([]byte(tc.answer + "\n")); err != nil {
			t.Fatal(err)
		}
		c := <-done
		if tc.answer == "2" && c.err == nil {
			t.Errorf("%s denied on the terminal ran anyway: %s", tc.tool, c.res.AllText())
		}
		if tc.answer == "1" && c.err != nil {
			t.Errorf("%s allowed on the terminal: %v", tc.tool, c.err)
		}
		if tc.after != "" {
			if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != tc.after {
				t.Errorf("after %s answered %s: notes.txt = %q, want %q", tc.tool, tc.answer, b, tc.after)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(b) != "fresh\n" {
		t.Errorf("new.txt = %q, %v", b, err)
	}

	// A call that cannot apply has no preview: its prompt falls back to
	// the arguments, and the call then says what is wrong.
	done := callAsync(run, "edit", `{"path":"notes.txt","old_string":"absent","new_string":"x"}`)
	card := scr.Expect(t, "/skip to skip.")
	if !strings.Contains(card, `arguments: {"path":"notes.txt"`) {
		t.Errorf("a failing edit's permission card:\n%s", card)
	}
	ptmx.Write([]byte("1\n"))
	if c := <-done; c.err == nil || !strings.Contains(c.err.Error(), "old_string was not found") {
		t.Errorf("failing edit allowed: %v", c.err)
	}
}

// TestPermissionPreviewOfOtherTools: eval's prompt shows each cell's code
// with its language, debug launch's the program and its arguments, and
// ast_edit's and resolve accept's the edit's diff; the approver sees them in
// ApprovalRequest.Preview and Prompt.
func TestPermissionPreviewOfOtherTools(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc f() error { return errors.New(\"x\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []tools.ApprovalRequest
	run, err := tools.NewRun(context.Background(), tools.Config{
		WorkDir:        dir,
		ConversationID: "c",
		Debug:          dap.NewSupervisor(dap.Config{}),
		Approver: tools.ApproverFunc(func(_ context.Context, req tools.ApprovalRequest) (bool, error) {
			mu.Lock()
			asked = append(asked, req)
			mu.Unlock()
			return req.Tool == "ast_edit", nil // stage the edit; refuse the rest unrun
		}),
		Search: tools.SearchConfig{Parser: parseEngine(t)},
		Eval:   tools.EvalConfig{Kernels: std.NewFactory(kernels.Config{}, nil)},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	last := func() tools.ApprovalRequest {
		mu.Lock()
		defer mu.Unlock()
		return asked[len(asked)-1]
	}
	call := func(name, args string) {
		t.Helper()
		run.Call(context.Background(), name, []byte(args), tools.FromModel)
	}

	call("eval", `{"description":"add two numbers in two languages","cells":[{"language":"python","code":"x = 1\ny = 2\nx + y"},{"language":"javascript","code":"1 + 2"}],"timeout":30}`)
	if p := last().Preview; !strings.Contains(p, "[cell 1 of 2: python]\nx = 1\ny = 2\nx + y") || !strings.Contains(p, "[cell 2 of 2: javascript]\n1 + 2") || !strings.Contains(p, "timeout: 30s") {
		t.Errorf("eval's preview:\n%s", p)
	}
	call("eval", `{"description":"print a greeting to the output","code":"print('hi')"}`)
	if p := last().Preview; !strings.Contains(p, "[python]\nprint('hi')") {
		t.Errorf("eval's preview of one cell:\n%s", p)
	}
	call("debug", `{"op":"launch","program":"main.go","args":["-v","a b"]}`)
	if p := last().Preview; p != "launch main.go\narguments: \"-v\" \"a b\"" {
		t.Errorf("debug launch's preview: %q", p)
	}
	if p := last().Prompt(); !strings.Contains(p, "launch main.go") {
		t.Errorf("debug launch's prompt: %q", p)
	}
	call("debug", `{"op":"continue"}`)
	if r := last(); r.Tool != "debug" || r.Preview != "" || !strings.Contains(r.Detail(), `arguments: {"op":"continue"}`) {
		t.Errorf("debug continue's prompt shows %q, want its arguments", r.Detail())
	}

	res, err := run.Call(context.Background(), "ast_edit", []byte(`{"pattern":"errors.New($M)","rewrite":"fmt.Errorf($M)","language":"go"}`), tools.FromModel)
	if err != nil || !strings.Contains(res.AllText(), "edit_1") {
		t.Fatalf("ast_edit: %v %s", err, res.AllText())
	}
	if p := last().Preview; !strings.Contains(p, "stages 1 replacement in 1 file for resolve") || !strings.Contains(p, "--- a/a.go") || !strings.Contains(p, `+func f() error { return fmt.Errorf("x") }`) {
		t.Errorf("ast_edit's preview:\n%s", p)
	}
	call("resolve", `{"edit_id":"edit_1","action":"accept"}`)
	if p := last().Preview; !strings.Contains(p, "accept edit_1") || !strings.Contains(p, "--- a/a.go") || !strings.Contains(p, `+func f() error { return fmt.Errorf("x") }`) {
		t.Errorf("resolve accept's preview:\n%s", p)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.go")); strings.Contains(string(b), "fmt.Errorf") {
		t.Error("the refused resolve wrote the file")
	}
}

// TestPermissionPreviewOfRename: lsp_rename's prompt shows the real
// language server's (gopls) edit as a diff, and nothing is written until
// the call is allowed.
func TestPermissionPreviewOfRename(t *testing.T) {
	testenv.RequireBinary(t, "gopls")
	dir := testenv.LSPProject(t, "goproj")
	before, err := os.ReadFile(filepath.Join(dir, "use.go"))
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan tools.ApprovalRequest, 1)
	run := startRun(t, tools.Config{WorkDir: dir, LSP: lspSupervisor(t, dir, 20*time.Second),
		Approver: tools.ApproverFunc(func(_ context.Context, req tools.ApprovalRequest) (bool, error) {
			asked <- req
			return false, nil
		})})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = run.Call(ctx, "lsp_rename", []byte(`{"file":"use.go","line":4,"symbol":"Big","new_name":"Large"}`), tools.FromModel)
	if !errors.Is(err, tools.ErrDeclined) {
		t.Fatalf("declined rename: %v", err)
	}
	p := (<-asked).Preview
	for _, want := range []string{"--- a/use.go", "+++ b/use.go", "Big()", "Large()"} {
		if !strings.Contains(p, want) {
			t.Errorf("rename's preview lacks %q:\n%s", want, p)
		}
	}
	if !strings.Contains(p, "\n-") || !strings.Contains(p, "\n+") {
		t.Errorf("rename's preview has no removed and added lines:\n%s", p)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "use.go")); string(after) != string(before) {
		t.Errorf("the declined rename changed use.go:\n%s", after)
	}
}
