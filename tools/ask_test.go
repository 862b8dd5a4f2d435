package tools_test

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/chromedp/chromedp"

import "github.com/tetherhq/tether/internal/chromium"
import "github.com/tetherhq/tether/operator"
import "github.com/tetherhq/tether/tools"

type called struct {
	res *tools.Result
	err error
}

func callAsync(run *tools.Run, name, args string) <-chan called {
	ch := make(chan called, 1)
	go func() {
		res, err := run.Call(context.Background(), name, json.RawMessage(args), tools.FromModel)
		ch <- called{res, err}
	}()
	return ch
}

func askAnswer(t *testing.T, c called) tools.AskResult {
	t.Helper()
	if c.err != nil {
		t.Fatalf("ask_user: %v", c.err)
	}
	a, ok := c.res.Structured.(tools.AskResult)
	if !ok {
		t.Fatalf("ask_user structured = %#v", c.res.Structured)
	}
	return a
}

// askDBArgs is an ask_user question with two options.
const askDBArgs = `{"question":"Which database should the service use?","context":"I assume Postgres.",` +
	`"options":[{"label":"Postgres","description":"managed"},{"label":"SQLite"}]}`

// TestAskUserInChromium drives the web operator console in real headless
// Chromium through tool calls: ask_user's question appears as a card, a click
// answers the call, skip and multi-select work, a write's permission prompt is
// the same card, and with no console page open the call fails at once.
func TestAskUserInChromium(t *testing.T) {
	console, err := operator.ListenConsole("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer console.Close()
	dir := t.TempDir()
	run, err := tools.NewRun(context.Background(), tools.Config{
		WorkDir:  dir,
		Approver: tools.QuestionApprover(console, "conv-42", 0),
		Ask:      tools.AskConfig{Questions: console, TargetSpace: "conv-42"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()

	// No console page open: the call fails at once, never blocks.
	res, err := run.Call(context.Background(), "ask_user", json.RawMessage(askDBArgs), tools.FromModel)
	if !errors.Is(err, operator.ErrNoHuman) || !res.IsError || !strings.Contains(res.AllText(), operator.ContinueInstruction) {
		t.Fatalf("ask_user with no console: %v / %q, want ErrNoHuman with the continue instruction", err, res.AllText())
	}

	s := askConsole{run: run, dir: dir, ctx: loginToConsole(t, console)}
	for _, tc := range []struct {
		name string
		test func(*testing.T, askConsole)
	}{
		{"click an option", askConsoleClickOption},
		{"skip", askConsoleSkip},
		{"multi-select with text", askConsoleMultiSelect},
		{"two pending cards", askConsoleTwoCards},
		{"permission prompt is the same card", askConsolePermission},
		{"three-question card", askConsoleThreeQuestions},
		{"an edit's permission shows its diff", askConsoleEditDiff},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, s) })
	}
}

// askConsole is what the subtests of TestAskUserInChromium share, in order:
// the run and a browser tab logged in to its operator console.
type askConsole struct {
	run *tools.Run
	dir string          // the run's working directory
	ctx context.Context // the browser tab
}

// loginToConsole opens console in headless Chromium and logs in with its
// one-time link, checking that the page stays shut before the login, that
// the browser lands on the clean URL with the page live, that the session
// cookie is out of the page script's reach and that the link is spent. It
// returns the logged-in tab.
func loginToConsole(t *testing.T, console *operator.Console) context.Context {
	ctx := chromium.Context(t)
	// Without logging in, the page does not open and no human is connected.
	if err := chromedp.Do(ctx, chromedp.Navigate(console.URL())); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`body`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "not logged in") || console.Viewers() != 0 {
		t.Fatalf("console page before the login: %q, %d viewers", text, console.Viewers())
	}
	// The operator opens the one-time link: the session cookie is set and the
	// browser lands on the clean URL, with the page live.
	login := console.LoginURL()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(login),
		chromedp.WaitVisible(chromedp.CSS(`#status.live`)),
	); err != nil {
		t.Fatal(err)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || loc != console.URL() {
		t.Errorf("after the login the browser is at %q (%v), want %q", loc, err, console.URL())
	}
	if cookie, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.cookie`)); err != nil || cookie != "" {
		t.Errorf("the page's script sees cookies %q (%v), want none (HttpOnly)", cookie, err)
	}
	if console.LoginURL() != "" {
		t.Error("the login link is still valid after its use")
	}
	return ctx
}

// askConsoleClickOption: a click on an option answers the call, and the card
// shows the question, its context, the numbered options and the target space.
func askConsoleClickOption(t *testing.T, s askConsole) {
	ch := callAsync(s.run, "ask_user", askDBArgs)
	if err := chromedp.Do(s.ctx, chromedp.WaitVisible(chromedp.CSS(`section.card button.option[data-label="SQLite"]`))); err != nil {
		t.Fatal(err)
	}
	card, err := chromedp.Run(s.ctx, chromedp.Text(chromedp.CSS(`section.card`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Which database should the service use?", "I assume Postgres.", "1. Postgres", "managed", "2. SQLite", "conv-42"} {
		if !strings.Contains(card, want) {
			t.Errorf("card lacks %q:\n%s", want, card)
		}
	}
	if err := chromedp.Do(s.ctx, chromedp.Click(chromedp.CSS(`section.card button.option[data-label="SQLite"]`))); err != nil {
		t.Fatal(err)
	}
	c := <-ch
	a := askAnswer(t, c)
	if a.Outcome != operator.Answered || !slices.Equal(a.Labels, []string{"SQLite"}) {
		t.Errorf("answer = %+v, want SQLite", a)
	}
	if !strings.Contains(c.res.AllText(), "Chosen: SQLite") {
		t.Errorf("result text = %q", c.res.AllText())
	}
	if err := chromedp.Do(s.ctx, chromedp.WaitNotPresent(chromedp.CSS(`section.card`))); err != nil {
		t.Fatal(err)
	}
}

// askConsoleSkip: skip answers the call as skipped, with the continue
// instruction.
func askConsoleSkip(t *testing.T, s askConsole) {
	ch := callAsync(s.run, "ask_user", askDBArgs)
	if err := chromedp.Do(s.ctx, chromedp.Click(chromedp.CSS(`section.card button.skip`))); err != nil {
		t.Fatal(err)
	}
	c := <-ch
	if a := askAnswer(t, c); a.Outcome != operator.Skipped || c.res.IsError {
		t.Fatalf("skip: %+v (error %v), want a successful skip", a, c.res.IsError)
	}
	if !strings.Contains(c.res.AllText(), operator.ContinueInstruction) {
		t.Errorf("skip result = %q, want the continue instruction", c.res.AllText())
	}
}

// askConsoleMultiSelect: several options and typed text answer a multi-select
// question together.
func askConsoleMultiSelect(t *testing.T, s askConsole) {
	ch := callAsync(s.run, "ask_user", `{"question":"Which checks should run before merge?",`+
		`"options":[{"label":"tests"},{"label":"lint"},{"label":"bench"}],"multi_select":true,"allow_free_text":true}`)
	if err := chromedp.Do(s.ctx,
		chromedp.WaitVisible(chromedp.CSS(`section.card input[data-label="lint"]`)),
		chromedp.Click(chromedp.CSS(`section.card input[data-label="lint"]`)),
		chromedp.Click(chromedp.CSS(`section.card input[data-label="tests"]`)),
		chromedp.SendKeys(chromedp.CSS(`section.card textarea.freetext`), "and vet"),
		chromedp.Click(chromedp.CSS(`section.card button.submit`)),
	); err != nil {
		t.Fatal(err)
	}
	a := askAnswer(t, <-ch)
	if !slices.Equal(a.Labels, []string{"tests", "lint"}) || a.Text != "and vet" {
		t.Errorf("multi-select answer = %+v, want [tests lint] + \"and vet\"", a)
	}
}

// askConsoleTwoCards: two pending questions show as two cards, each answered on
// its own.
func askConsoleTwoCards(t *testing.T, s askConsole) {
	ch1 := callAsync(s.run, "ask_user", `{"question":"First?","options":[{"label":"yes"},{"label":"no"}]}`)
	if err := chromedp.Do(s.ctx, chromedp.WaitVisible(chromedp.CSS(`section.card`))); err != nil {
		t.Fatal(err)
	}
	ch2 := callAsync(s.run, "ask_user", `{"question":"Second?","options":[{"label":"yes"},{"label":"no"}]}`)
	if err := chromedp.Do(s.ctx, chromedp.WaitVisible(chromedp.CSS(`section.card:nth-of-type(2)`))); err != nil {
		t.Fatal(err)
	}
	n, err := chromedp.Run(s.ctx, chromedp.Evaluate[int](`document.querySelectorAll("section.card").length`))
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d cards shown, want 2", n)
	}
	if err := chromedp.Do(s.ctx, chromedp.Click(chromedp.CSS(`section.card:nth-of-type(2) button.option[data-label="no"]`))); err != nil {
		t.Fatal(err)
	}
	if a := askAnswer(t, <-ch2); !slices.Equal(a.Labels, []string{"no"}) {
		t.Errorf("second card answered %+v, want no", a)
	}
	if err := chromedp.Do(s.ctx, chromedp.Click(chromedp.CSS(`section.card button.option[data-label="yes"]`))); err != nil {
		t.Fatal(err)
	}
	if a := askAnswer(t, <-ch1); !slices.Equal(a.Labels, []string{"yes"}) {
		t.Errorf("first card answered %+v, want yes", a)
	}
}

// askConsolePermission: a write's permission prompt is the same card; Deny
// declines the call and Allow lets it write.
func askConsolePermission(t *testing.T, s askConsole) {
	for _, click := range []string{"Deny", "Allow"} {
		ch := callAsync(s.run, "write", `{"path":"approved.txt","content":"hello\n"}`)
		if err := chromedp.Do(s.ctx, chromedp.WaitVisible(chromedp.CSS(`section.card.permission button.option[data-label="Allow"]`))); err != nil {
			t.Fatal(err)
		}
		card, err := chromedp.Run(s.ctx, chromedp.Text(chromedp.CSS(`section.card`)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(card, "May I call write (write tier)?") || !strings.Contains(card, "approved.txt") {
			t.Errorf("permission card:\n%s", card)
		}
		if err := chromedp.Do(s.ctx, chromedp.Click(chromedp.CSS(`section.card button.option[data-label="`+click+`"]`))); err != nil {
			t.Fatal(err)
		}
		c := <-ch
		_, statErr := os.Stat(filepath.Join(s.dir, "approved.txt"))
		switch click {
		case "Deny":
			if !errors.Is(c.err, tools.ErrDeclined) || statErr == nil {
				t.Errorf("denied write: %v, file exists: %v", c.err, statErr == nil)
			}
		case "Allow":
			if c.err != nil || statErr != nil {
				t.Errorf("allowed write: %v, stat: %v", c.err, statErr)
			}
		}
		if err := chromedp.Do(s.ctx, chromedp.WaitNotPresent(chromedp.CSS(`section.card`))); err != nil {
			t.Fatal(err)
		}
	}
}

// askConsoleThreeQuestions: a card of three questions preselects the
// recommended options and is answered (or skipped) as a whole.
func askConsoleThreeQuestions(t *testing.T, s askConsole) {
	ch := callAsync(s.run, "ask_user", threeQuestions)
	if err := chromedp.Do(s.ctx, chromedp.WaitVisible(chromedp.CSS(`section.card.multi fieldset.question[data-q="3"] textarea.freetext`))); err != nil {
		t.Fatal(err)
	}
	card, err := chromedp.Run(s.ctx, chromedp.Text(chromedp.CSS(`section.card.multi`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Setting up the service", "I assume Postgres", "Q1. Which database?", "1. Postgres (recommended)", "managed",
		"Q2. Add a cache?", "2. none (recommended)", "Q3. Which port?", "conv-42"} {
		if !strings.Contains(card, want) {
			t.Errorf("card lacks %q:\n%s", want, card)
		}
	}
	// The recommended options come preselected; the operator picks
	// SQLite, skips the cache question and types the port.
	checked, err := chromedp.Run(s.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("section.card.multi input:checked")].map(x => x.value)`))
	if err != nil || !slices.Equal(checked, []string{"Postgres", "none"}) {
		t.Errorf("preselected %q (%v), want the recommended Postgres and none", checked, err)
	}
	if err := chromedp.Do(s.ctx,
		chromedp.Click(chromedp.CSS(`fieldset.question[data-q="1"] input[data-label="SQLite"]`)),
		chromedp.Click(chromedp.CSS(`fieldset.question[data-q="2"] button.clear`)),
		chromedp.SendKeys(chromedp.CSS(`fieldset.question[data-q="3"] textarea.freetext`), "9090 behind the proxy"),
		chromedp.Click(chromedp.CSS(`section.card.multi button.submit`)),
	); err != nil {
		t.Fatal(err)
	}
	c := <-ch
	a := askAnswer(t, c)
	if len(a.Answers) != 3 || a.Outcome != operator.Answered {
		t.Fatalf("card answer = %+v", a)
	}
	if got := a.Answers[0]; !slices.Equal(got.Labels, []string{"SQLite"}) || got.Outcome != operator.Answered {
		t.Errorf("Q1 = %+v, want SQLite", got)
	}
	if got := a.Answers[1]; got.Outcome != operator.Skipped {
		t.Errorf("Q2 = %+v, want skipped", got)
	}
	if got := a.Answers[2]; got.Text != "9090 behind the proxy" || len(got.Labels) != 0 {
		t.Errorf("Q3 = %+v, want the typed port", got)
	}
	if !strings.Contains(c.res.AllText(), "2. Skipped.") {
		t.Errorf("result text = %q", c.res.AllText())
	}
	if err := chromedp.Do(s.ctx, chromedp.WaitNotPresent(chromedp.CSS(`section.card`))); err != nil {
		t.Fatal(err)
	}

	// Skip all skips each question.
	ch = callAsync(s.run, "ask_user", threeQuestions)
	if err := chromedp.Do(s.ctx, chromedp.Click(chromedp.CSS(`section.card.multi button.skip`))); err != nil {
		t.Fatal(err)
	}
	c = <-ch
	if a := askAnswer(t, c); a.Outcome != operator.Skipped || len(a.Answers) != 3 || a.Answers[2].Outcome != operator.Skipped || c.res.IsError {
		t.Errorf("skip all = %+v (error %v), want three skips", a, c.res.IsError)
	}
	if err := chromedp.Do(s.ctx, chromedp.WaitNotPresent(chromedp.CSS(`section.card`))); err != nil {
		t.Fatal(err)
	}
}

// askConsoleEditDiff: an edit's permission card shows the edit as a diff, not
// its raw arguments.
func askConsoleEditDiff(t *testing.T, s askConsole) {
	if err := os.WriteFile(filepath.Join(s.dir, "notes.txt"), []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ch := callAsync(s.run, "edit", `{"path":"notes.txt","old_string":"world","new_string":"there"}`)
	if err := chromedp.Do(s.ctx, chromedp.WaitVisible(chromedp.CSS(`section.card.permission pre.diff span.add`))); err != nil {
		t.Fatal(err)
	}
	card, err := chromedp.Run(s.ctx, chromedp.Text(chromedp.CSS(`section.card`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"May I call edit (write tier)?", "--- a/notes.txt", "+++ b/notes.txt", "@@ -1,2 +1,2 @@", " hello", "-world", "+there"} {
		if !strings.Contains(card, want) {
			t.Errorf("edit's permission card lacks %q:\n%s", want, card)
		}
	}
	if strings.Contains(card, "arguments:") || strings.Contains(card, "old_string") {
		t.Errorf("edit's permission card shows the raw arguments, want only the diff:\n%s", card)
	}
	added, err := chromedp.Run(s.ctx, chromedp.Text(chromedp.CSS(`section.card pre.diff span.add`)))
	if err != nil || strings.TrimSpace(added) != "+there" {
		t.Errorf("the diff's added line is %q (%v), want it marked as +there", added, err)
	}
	if err := chromedp.Do(s.ctx, chromedp.Click(chromedp.CSS(`section.card button.option[data-label="Allow"]`))); err != nil {
		t.Fatal(err)
	}
	if c := <-ch; c.err != nil {
		t.Fatalf("allowed edit: %v", c.err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.dir, "notes.txt")); string(b) != "hello\nthere\n" {
		t.Errorf("notes.txt after the allowed edit: %q", b)
	}
	if err := chromedp.Do(s.ctx, chromedp.WaitNotPresent(chromedp.CSS(`section.card`))); err != nil {
		t.Fatal(err)
	}
}

// TestAskUserTimeout: an unanswered question ends as an error carrying the
// continue instruction, and its card is withdrawn.
func TestAskUserTimeout(t *testing.T) {
	port := &waitingPort{asked: make(chan struct{}, 1)}
	run, err := tools.NewRun(context.Background(), tools.Config{WorkDir: t.TempDir(), Ask: tools.AskConfig{Questions: port, TargetSpace: "s", Timeout: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.Call(context.Background(), "ask_user", json.RawMessage(`{"question":"name?"}`), tools.FromModel)
	if !errors.Is(err, operator.ErrTimedOut) || !res.IsError || !strings.Contains(res.AllText(), operator.ContinueInstruction) {
		t.Fatalf("timeout: %v / %q", err, res.AllText())
	}
	<-port.asked
}

// waitingPort shows the question to nobody and waits: fault injection for
// the timeout path (the real ports are driven in the other tests).
type waitingPort struct{ asked chan struct{} }

func (p *waitingPort) Ask(ctx context.Context, q operator.Question) (operator.Answer, error) {
	p.asked <- struct{}{}
	<-ctx.Done()
	return operator.Answer{}, ctx.Err()
}

func TestAskUserRegistration(t *testing.T) {
	console := operator.NewConsole()
	defer console.Close()
	tests := []struct {
		name string
		cfg  tools.Config
		want bool
	}{
		{"port and space", tools.Config{Ask: tools.AskConfig{Questions: console, TargetSpace: "s"}}, true},
		{"port only", tools.Config{Ask: tools.AskConfig{Questions: console}}, false},
		{"space only", tools.Config{Ask: tools.AskConfig{TargetSpace: "s"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.WorkDir = t.TempDir()
			run, err := tools.NewRun(context.Background(), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer run.Close()
			_, got := run.Lookup("ask_user")
			if got != tc.want {
				t.Errorf("ask_user registered = %v, want %v", got, tc.want)
			}
			if got != slices.ContainsFunc(run.List(), func(t tools.ToolInfo) bool { return t.Name == "ask_user" }) {
				t.Errorf("ask_user registered %v but listed %v on %s", got, !got, run.Surface())
			}
		})
	}
}

// TestElicitationPortMapsNoApprover: serve's Elicitor reports a client that
// cannot elicit as ErrNoApprover; as a question port that is no human
// connected, and ask_user fails at once.
func TestElicitationPortMapsNoApprover(t *testing.T) {
	wrapped := elicitorFunc(func(context.Context, string, any) (string, map[string]any, error) {
		return "", nil, errors.Join(errors.New("server: no elicitation"), tools.ErrNoApprover)
	})
	run, err := tools.NewRun(context.Background(), tools.Config{WorkDir: t.TempDir(), Ask: tools.AskConfig{Questions: tools.ElicitationPort(wrapped), TargetSpace: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	_, err = run.Call(context.Background(), "ask_user", json.RawMessage(`{"question":"name?"}`), tools.FromModel)
	if !errors.Is(err, operator.ErrNoHuman) {
		t.Fatalf("ask_user over an elicitor without a human: %v, want ErrNoHuman", err)
	}
	// And the approver over the same port fails closed.
	ok, err := tools.QuestionApprover(tools.ElicitationPort(wrapped), "s", 0).Approve(context.Background(), tools.ApprovalRequest{Tool: "write", Tier: tools.TierWrite})
	if ok || !errors.Is(err, tools.ErrNoApprover) {
		t.Fatalf("approver: %v %v, want ErrNoApprover", ok, err)
	}
}

type elicitorFunc func(ctx context.Context, message string, schema any) (string, map[string]any, error)

func (f elicitorFunc) Elicit(ctx context.Context, message string, schema any) (string, map[string]any, error) {
	return f(ctx, message, schema)
}

// TestPermissionWithNoHumanSaysRefused: with no human connected a write's
// permission prompt fails closed and says the call was refused; it does not
// carry ask_user's "continue on your stated assumption" (the agent would
// take the write as done), and the reason is not prefixed twice. ask_user on
// the same port still carries that instruction.
func TestPermissionWithNoHumanSaysRefused(t *testing.T) {
	console, err := operator.ListenConsole("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer console.Close()
	for _, tc := range []struct {
		name string
		port operator.QuestionPort
	}{
		{"console with no page open", console},
		{"MCP client without elicitation", tools.ElicitationPort(nil)},
		{"serve with no client session", tools.ElicitationPort(elicitorFunc(func(context.Context, string, any) (string, map[string]any, error) {
			return "", nil, fmt.Errorf("server: no MCP client is connected to ask: %w", tools.ErrNoApprover)
		}))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			run, err := tools.NewRun(context.Background(), tools.Config{
				WorkDir:  dir,
				Approver: tools.QuestionApprover(tc.port, "s", 0),
				Ask:      tools.AskConfig{Questions: tc.port, TargetSpace: "s"},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer run.Close()
			res, err := run.Call(context.Background(), "write", json.RawMessage(`{"path":"x.txt","content":"y"}`), tools.FromModel)
			msg := res.AllText()
			if !errors.Is(err, tools.ErrNoApprover) || !res.IsError {
				t.Fatalf("write: %v / %q, want ErrNoApprover", err, msg)
			}
			for _, want := range []string{"refused (fail closed)", "do not retry"} {
				if !strings.Contains(msg, want) {
					t.Errorf("write error %q lacks %q", msg, want)
				}
			}
			if strings.Contains(msg, operator.ContinueInstruction) {
				t.Errorf("write error %q tells the agent to continue as if answered", msg)
			}
			if n := strings.Count(msg, tools.ErrNoApprover.Error()); n != 1 {
				t.Errorf("write error %q names %q %d times", msg, tools.ErrNoApprover, n)
			}
			if _, err := os.Stat(filepath.Join(dir, "x.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Error("a refused write created the file")
			}
			res, err = run.Call(context.Background(), "ask_user", json.RawMessage(`{"question":"name?"}`), tools.FromModel)
			if !errors.Is(err, operator.ErrNoHuman) || !strings.Contains(res.AllText(), operator.ContinueInstruction) {
				t.Errorf("ask_user: %v / %q, want ErrNoHuman with the continue instruction", err, res.AllText())
			}
			if strings.Contains(res.AllText(), tools.ErrNoApprover.Error()) {
				t.Errorf("ask_user: %q speaks of an approver", res.AllText())
			}
		})
	}
}
