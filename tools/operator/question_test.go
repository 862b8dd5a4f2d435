package operator_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/tools/operator"
)

var twoOptions = []operator.Option{{Label: "a"}, {Label: "b"}}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		q    operator.Question
		want string // "" = valid; else a substring of the error
	}{
		{"options", operator.Question{Question: "pick?", Options: twoOptions}, ""},
		{"free text only", operator.Question{Question: "name?", AllowFreeText: true}, ""},
		{"empty question", operator.Question{Question: "  ", Options: twoOptions}, "question is empty"},
		{"unanswerable", operator.Question{Question: "pick?"}, "cannot be answered"},
		{"multi without options", operator.Question{Question: "pick?", MultiSelect: true, AllowFreeText: true}, "multi_select needs options"},
		{"duplicate labels", operator.Question{Question: "pick?", Options: []operator.Option{{Label: "a"}, {Label: "a"}}}, "appears twice"},
		{"empty label", operator.Question{Question: "pick?", Options: []operator.Option{{Label: ""}}}, "empty label"},
		{"bad kind", operator.Question{Question: "pick?", Options: twoOptions, Kind: "poll"}, "unknown card kind"},
		{"too many options", operator.Question{Question: "pick?", Options: make([]operator.Option, operator.MaxOptions+1)}, "over the"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.q.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "operator: ") {
				t.Fatalf("Validate = %v, want an operator: error with %q", err, tc.want)
			}
		})
	}
}

func TestCheckAnswer(t *testing.T) {
	single := operator.Question{Question: "pick?", Options: twoOptions}
	multi := operator.Question{Question: "pick?", Options: twoOptions, MultiSelect: true}
	free := operator.Question{Question: "pick?", Options: twoOptions, AllowFreeText: true}
	tests := []struct {
		name string
		q    operator.Question
		a    operator.Answer
		ok   bool
	}{
		{"one label", single, operator.Answer{Outcome: operator.Answered, Labels: []string{"b"}}, true},
		{"skip", single, operator.Answer{Outcome: operator.Skipped}, true},
		{"two labels on single", single, operator.Answer{Outcome: operator.Answered, Labels: []string{"a", "b"}}, false},
		{"two labels on multi", multi, operator.Answer{Outcome: operator.Answered, Labels: []string{"a", "b"}}, true},
		{"foreign label", single, operator.Answer{Outcome: operator.Answered, Labels: []string{"c"}}, false},
		{"text not allowed", single, operator.Answer{Outcome: operator.Answered, Text: "x"}, false},
		{"text allowed", free, operator.Answer{Outcome: operator.Answered, Text: "x"}, true},
		{"nothing answered", free, operator.Answer{Outcome: operator.Answered}, false},
		{"skip with content", single, operator.Answer{Outcome: operator.Skipped, Labels: []string{"a"}}, false},
		{"no outcome", single, operator.Answer{Labels: []string{"a"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := operator.CheckAnswer(tc.q, tc.a); (err == nil) != tc.ok {
				t.Fatalf("CheckAnswer = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestParseReply(t *testing.T) {
	q := operator.Question{Question: "pick?", Options: []operator.Option{{Label: "a"}, {Label: "b"}, {Label: "c"}}, MultiSelect: true, AllowFreeText: true}
	tests := []struct {
		line   string
		labels []string
		text   string
		skip   bool
		bad    bool
	}{
		{line: "2", labels: []string{"b"}},
		{line: "3,1", labels: []string{"a", "c"}},
		{line: "1 2", labels: []string{"a", "b"}},
		{line: "2: only on weekdays", labels: []string{"b"}, text: "only on weekdays"},
		{line: "something else", text: "something else"},
		{line: "4", text: "4"}, // not an option: free text
		{line: "/skip", skip: true},
		{line: "   ", bad: true},
	}
	for _, tc := range tests {
		a, err := operator.ParseReply(q, tc.line)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseReply(%q) = %+v, want an error", tc.line, a)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseReply(%q): %v", tc.line, err)
			continue
		}
		if tc.skip != (a.Outcome == operator.Skipped) || !slices.Equal(a.Labels, tc.labels) || a.Text != tc.text {
			t.Errorf("ParseReply(%q) = %+v", tc.line, a)
		}
	}
	single := operator.Question{Question: "pick?", Options: twoOptions}
	for _, line := range []string{"1,2", "3", "x", "1: note"} {
		if a, err := operator.ParseReply(single, line); err == nil {
			t.Errorf("single-choice ParseReply(%q) = %+v, want an error", line, a)
		}
	}
}

func TestReport(t *testing.T) {
	a := operator.Answer{Outcome: operator.Answered, Labels: []string{"a", "b"}, Text: "note"}
	if r := a.Report(); !strings.Contains(r, "Chosen (2): a; b") || !strings.Contains(r, "Text: note") {
		t.Errorf("Report = %q", r)
	}
	if r := (operator.Answer{Outcome: operator.Skipped}).Report(); !strings.Contains(r, "skipped") || !strings.Contains(r, operator.ContinueInstruction) {
		t.Errorf("skip Report = %q", r)
	}
}

func TestAskWithoutPort(t *testing.T) {
	_, err := operator.Ask(context.Background(), nil, operator.Question{Question: "x?", AllowFreeText: true}, 0)
	if !errors.Is(err, operator.ErrNoHuman) {
		t.Fatalf("Ask(nil port) = %v, want ErrNoHuman", err)
	}
}

// TestConsoleGuards: the console refuses non-loopback hosts (DNS rebinding),
// replies without the page's token, and answers that are not the question's.
func TestConsoleGuards(t *testing.T) {
	if _, err := operator.ListenConsole("0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("ListenConsole(0.0.0.0) = %v, want a loopback error", err)
	}
	c := operator.NewConsole()
	defer c.Close()
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/", nil)
	req.Host = "evil.example:80"
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: %v %v, want 403", res.Status, err)
	}

	// Open the event stream as a page would, so a human counts as connected.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	evreq, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	ev, err := http.DefaultClient.Do(evreq)
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Body.Close()
	lines := bufio.NewScanner(ev.Body)
	next := func() string {
		for lines.Scan() {
			if l := lines.Text(); strings.HasPrefix(l, "data: ") {
				return l
			}
		}
		t.Fatal("event stream ended")
		return ""
	}
	if first := next(); first != `data: {"cards":[]}` {
		t.Fatalf("first event = %q", first)
	}
	done := make(chan error, 1)
	go func() {
		_, err := operator.Ask(context.Background(), c, operator.Question{Question: "pick?", Options: twoOptions}, 0)
		done <- err
	}()
	if card := next(); !strings.Contains(card, `"id":"q1"`) || !strings.Contains(card, `"question":"pick?"`) {
		t.Fatalf("card event = %q", card)
	}
	post := func(token, body string) int {
		r, _ := http.NewRequest("POST", srv.URL+"/reply", strings.NewReader(body))
		if token != "" {
			r.Header.Set("X-Tether-Console", token)
		}
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post("", `{"id":"q1","labels":["a"]}`); code != http.StatusForbidden {
		t.Errorf("reply without token: %d, want 403", code)
	}
	if code := post("wrong", `{"id":"q1","labels":["a"]}`); code != http.StatusForbidden {
		t.Errorf("reply with a wrong token: %d, want 403", code)
	}
	page, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	m := regexp.MustCompile(`const token = "([0-9a-f]+)"`).FindSubmatch(html)
	if m == nil {
		t.Fatalf("no token in the page:\n%s", html)
	}
	token := string(m[1])
	if code := post(token, `{"id":"q1","labels":["c"]}`); code != http.StatusBadRequest {
		t.Errorf("reply with a foreign label: %d, want 400", code)
	}
	if code := post(token, `{"id":"q1","labels":["a","b"]}`); code != http.StatusBadRequest {
		t.Errorf("two labels on a single-choice card: %d, want 400", code)
	}
	if code := post(token, `{"id":"q9","labels":["a"]}`); code != http.StatusGone {
		t.Errorf("reply to an unknown card: %d, want 410", code)
	}
	select {
	case err := <-done:
		t.Fatalf("a refused reply ended the question: %v", err)
	default:
	}
	if code := post(token, `{"id":"q1","labels":["b"]}`); code != http.StatusNoContent {
		t.Errorf("valid reply: %d, want 204", code)
	}
	if err := <-done; err != nil {
		t.Fatalf("answered question: %v", err)
	}

	// Unanswered in time: ErrTimedOut with the instruction, and the card is withdrawn.
	if _, err := operator.Ask(context.Background(), c, operator.Question{Question: "late?", Options: twoOptions}, time.Millisecond); !errors.Is(err, operator.ErrTimedOut) || !strings.Contains(err.Error(), operator.ContinueInstruction) {
		t.Errorf("unanswered question: %v, want ErrTimedOut with the continue instruction", err)
	}
	if n := c.Pending(); n != 0 {
		t.Errorf("%d cards still pending after the timeout", n)
	}

	// A question pending when the console closes ends with ErrNoHuman.
	go func() {
		_, err := operator.Ask(context.Background(), c, operator.Question{Question: "again?", Options: twoOptions}, 0)
		done <- err
	}()
	for card := next(); !strings.Contains(card, "again?"); card = next() {
	}
	cancel()
	ev.Body.Close()
	c.Close()
	if err := <-done; !errors.Is(err, operator.ErrNoHuman) {
		t.Errorf("closing the console: pending question ended with %v, want ErrNoHuman", err)
	}
}
