package tools_test

import "context"
import "encoding/json"
import "errors"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/operator"
import "github.com/tetherhq/tether/tools"

// threeQuestions is a card of three questions: one with a recommended
// option, one the operator will skip, one with options and free text.
const threeQuestions = `{"question":"Setting up the service","context":"I assume Postgres, no cache, and port 8080.","questions":[` +
	`{"question":"Which database?","options":[{"label":"Postgres","description":"managed"},{"label":"SQLite"}],"recommended":"Postgres"},` +
	`{"question":"Add a cache?","options":[{"label":"Redis"},{"label":"none"}],"recommended":"none"},` +
	`{"question":"Which port?","options":[{"label":"8080"},{"label":"443"}],"allow_free_text":true}]}`

// TestAskCardInTerminal: a three-question card on a real terminal shows
// every question with its options and its recommendation; the operator
// answers the first, skips the second and types the third, and the result
// lists each question's answer.
func TestAskCardInTerminal(t *testing.T) {
	run, scr, ptmx := newTerminalRun(t, tools.Config{WorkDir: t.TempDir()})
	done := callAsync(run, "ask_user", threeQuestions)
	card := scr.Expect(t, "Q1> ")
	for _, want := range []string{"question from conv-7, 3 questions", "Setting up the service", "  | I assume Postgres",
		"Q1. Which database?", "    1) Postgres (recommended) - managed", "    2) SQLite",
		"Q2. Add a cache?", "2) none (recommended)", "Q3. Which port?", "or your own answer", "/skip skips only that question"} {
		if !strings.Contains(card, want) {
			t.Errorf("card lacks %q:\n%s", want, card)
		}
	}
	ptmx.Write([]byte("2\n"))
	scr.Expect(t, "Q2> ")
	ptmx.Write([]byte("/skip\n"))
	scr.Expect(t, "Q3> ")
	ptmx.Write([]byte("9090 behind the proxy\n"))
	c := <-done
	a := askAnswer(t, c)
	if a.Outcome != operator.Answered || len(a.Answers) != 3 {
		t.Fatalf("card answer = %+v, want three answers", a)
	}
	if got := a.Answers[0]; got.Outcome != operator.Answered || !slices.Equal(got.Labels, []string{"SQLite"}) || got.Defaulted {
		t.Errorf("Q1 = %+v, want SQLite chosen", got)
	}
	if got := a.Answers[1]; got.Outcome != operator.Skipped || len(got.Labels) != 0 || got.Defaulted {
		t.Errorf("Q2 = %+v, want skipped", got)
	}
	if got := a.Answers[2]; got.Outcome != operator.Answered || got.Text != "9090 behind the proxy" {
		t.Errorf("Q3 = %+v, want the typed port", got)
	}
	text := c.res.AllText()
	for _, want := range []string{"2 of 3 questions answered", "1. Chosen: SQLite", "2. Skipped.", "3. Text: 9090 behind the proxy", operator.ContinueInstruction} {
		if !strings.Contains(text, want) {
			t.Errorf("result text lacks %q:\n%s", want, text)
		}
	}
}

// TestAskCardDefaultsAtOperatorTimeout: with the operator's default-after
// timeout set, a card nobody answers takes each recommended option, skips
// the question without one, and says per question that nobody chose; a
// single question does the same. Without the flag nothing is answered for
// the operator: the question times out as an error.
func TestAskCardDefaultsAtOperatorTimeout(t *testing.T) {
	run, scr, _ := newTerminalRun(t, tools.Config{WorkDir: t.TempDir(), Ask: tools.AskConfig{DefaultAfter: 50 * time.Millisecond}})
	c := <-callAsync(run, "ask_user", threeQuestions)
	scr.Expect(t, "(question withdrawn")
	a := askAnswer(t, c)
	if len(a.Answers) != 3 || a.Outcome != operator.Answered || !a.Defaulted {
		t.Fatalf("defaulted card = %+v", a)
	}
	want := []tools.AskResult{
		{Outcome: operator.Answered, Labels: []string{"Postgres"}, Defaulted: true},
		{Outcome: operator.Answered, Labels: []string{"none"}, Defaulted: true},
		{Outcome: operator.Skipped, Defaulted: true},
	}
	for i, w := range want {
		if got := a.Answers[i]; got.Outcome != w.Outcome || !slices.Equal(got.Labels, w.Labels) || got.Defaulted != w.Defaulted {
			t.Errorf("Q%d = %+v, want %+v", i+1, got, w)
		}
	}
	text := c.res.AllText()
	for _, want := range []string{"1. Recommended option taken at the operator's timeout (nobody chose it): Postgres",
		"2. Recommended option taken at the operator's timeout (nobody chose it): none",
		"3. No answer at the operator's timeout and no recommended option: skipped."} {
		if !strings.Contains(text, want) {
			t.Errorf("result text lacks %q:\n%s", want, text)
		}
	}

	c = <-callAsync(run, "ask_user", `{"question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite"}],"recommended":"SQLite"}`)
	if a := askAnswer(t, c); !a.Defaulted || !slices.Equal(a.Labels, []string{"SQLite"}) || !strings.Contains(c.res.AllText(), "recommended option was taken: SQLite") {
		t.Errorf("single question at the default timeout: %+v %q", a, c.res.AllText())
	}

	// An answer typed before the timeout is kept; only the questions still
	// open take their defaults. (The default-after is long enough for the
	// first answer to arrive well before it on a loaded machine.)
	partial, pscr, ptmx := newTerminalRun(t, tools.Config{WorkDir: t.TempDir(), Ask: tools.AskConfig{DefaultAfter: 3 * time.Second}})
	done := callAsync(partial, "ask_user", threeQuestions)
	pscr.Expect(t, "Q1> ")
	ptmx.Write([]byte("2\n"))
	pscr.Expect(t, "Q2> ")
	c = <-done
	a = askAnswer(t, c)
	if len(a.Answers) != 3 || a.Answers[0].Defaulted || !slices.Equal(a.Answers[0].Labels, []string{"SQLite"}) ||
		!a.Answers[1].Defaulted || !slices.Equal(a.Answers[1].Labels, []string{"none"}) || !a.Answers[2].Defaulted {
		t.Errorf("card answered in part before the timeout = %+v, want SQLite chosen, then the defaults", a)
	}
	if !strings.Contains(c.res.AllText(), "1. Chosen: SQLite") {
		t.Errorf("result text = %q", c.res.AllText())
	}

	// Without the operator's flag nothing is answered for them, and with it
	// a question without a recommendation still waits for its own timeout:
	// both end as an error.
	strict, _, _ := newTerminalRun(t, tools.Config{WorkDir: t.TempDir(), Ask: tools.AskConfig{Timeout: 50 * time.Millisecond}})
	c = <-callAsync(strict, "ask_user", threeQuestions)
	if !errors.Is(c.err, operator.ErrTimedOut) {
		t.Errorf("card without the operator's default: %v, want ErrTimedOut", c.err)
	}
	norec, _, _ := newTerminalRun(t, tools.Config{WorkDir: t.TempDir(), Ask: tools.AskConfig{Timeout: 100 * time.Millisecond, DefaultAfter: time.Millisecond}})
	c = <-callAsync(norec, "ask_user", `{"question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite"}]}`)
	if !errors.Is(c.err, operator.ErrTimedOut) {
		t.Errorf("question without a recommendation at the default timeout: %v, want ErrTimedOut", c.err)
	}
}

// TestAskCardArguments: bad card arguments are refused with what to do.
func TestAskCardArguments(t *testing.T) {
	run, _, _ := newTerminalRun(t, tools.Config{WorkDir: t.TempDir()})
	for _, tc := range []struct{ args, want string }{
		{`{}`, "give question (one question) or questions"},
		{`{"question":"Q?","options":[{"label":"a"}],"recommended":"b"}`, `recommended option "b" is not one of the options`},
		{`{"questions":[{"question":"A?","options":[{"label":"x"}]}],"options":[{"label":"y"}]}`, "put options, recommended"},
		{`{"questions":[{"question":"A?","options":[{"label":"x"}]},{"question":"B?","allow_free_text":false}]}`, "question 2: operator: the question has no options"},
	} {
		res, err := run.Call(context.Background(), "ask_user", json.RawMessage(tc.args), tools.FromModel)
		if err == nil || !strings.Contains(res.AllText(), tc.want) {
			t.Errorf("ask_user %s: %v %q, want an error saying %q", tc.args, err, res.AllText(), tc.want)
		}
	}
}
