package operator_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tetherhq/tether/internal/chromium"
	"github.com/tetherhq/tether/tools/operator"
)

type asked struct {
	a   operator.Answer
	err error
}

func askAsync(c *operator.Console, q operator.Question, timeout time.Duration) <-chan asked {
	ch := make(chan asked, 1)
	go func() {
		a, err := operator.Ask(context.Background(), c, q, timeout)
		ch <- asked{a, err}
	}()
	return ch
}

// TestConsoleInChromium drives the web console in real headless Chromium: a
// question appears as a card, clicking an option answers it, skip and
// multi-select work, and with no console page open a question fails at once.
func TestConsoleInChromium(t *testing.T) {
	c, err := operator.ListenConsole("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	q := operator.Question{
		Question: "Which database should the service use?",
		Context:  "The migration layer depends on it.",
		Options:  []operator.Option{{Label: "Postgres", Description: "managed"}, {Label: "SQLite"}},
	}
	// No console page is open: the question fails at once.
	if _, err := operator.Ask(context.Background(), c, q, time.Hour); !errors.Is(err, operator.ErrNoHuman) {
		t.Fatalf("Ask with no console open = %v, want ErrNoHuman", err)
	}

	ctx := chromium.Context(t)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(c.URL()),
		chromedp.WaitVisible(chromedp.CSS(`#status.live`)),
	); err != nil {
		t.Fatal(err)
	}

	t.Run("click an option", func(t *testing.T) {
		ch := askAsync(c, q, 0)
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`section.card button.option[data-label="SQLite"]`))); err != nil {
			t.Fatal(err)
		}
		heading, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`section.card h2`)))
		if err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`section.card button.option[data-label="SQLite"]`)),
		); err != nil {
			t.Fatal(err)
		}
		got := <-ch
		if got.err != nil {
			t.Fatal(got.err)
		}
		if got.a.Outcome != operator.Answered || !slices.Equal(got.a.Labels, []string{"SQLite"}) {
			t.Errorf("answer = %+v, want SQLite", got.a)
		}
		if !strings.Contains(heading, q.Question) {
			t.Errorf("card heading = %q", heading)
		}
		if err := chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(`section.card`))); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("skip", func(t *testing.T) {
		ch := askAsync(c, q, 0)
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`section.card button.skip`))); err != nil {
			t.Fatal(err)
		}
		got := <-ch
		if got.err != nil || got.a.Outcome != operator.Skipped {
			t.Fatalf("skip: %+v %v, want skipped", got.a, got.err)
		}
		if r := got.a.Report(); !strings.Contains(r, operator.ContinueInstruction) {
			t.Errorf("skip report = %q, want the continue instruction", r)
		}
	})

	t.Run("multi-select with text", func(t *testing.T) {
		mq := operator.Question{
			Question:      "Which checks should run before merge?",
			Options:       []operator.Option{{Label: "tests"}, {Label: "lint"}, {Label: "bench"}},
			MultiSelect:   true,
			AllowFreeText: true,
		}
		ch := askAsync(c, mq, 0)
		if err := chromedp.Do(ctx,
			chromedp.WaitVisible(chromedp.CSS(`section.card input[data-label="lint"]`)),
			chromedp.Click(chromedp.CSS(`section.card input[data-label="lint"]`)),
			chromedp.Click(chromedp.CSS(`section.card input[data-label="tests"]`)),
			chromedp.SendKeys(chromedp.CSS(`section.card textarea.freetext`), "and vet"),
			chromedp.Click(chromedp.CSS(`section.card button.submit`)),
		); err != nil {
			t.Fatal(err)
		}
		got := <-ch
		if got.err != nil {
			t.Fatal(got.err)
		}
		if !slices.Equal(got.a.Labels, []string{"tests", "lint"}) || got.a.Text != "and vet" {
			t.Errorf("multi-select answer = %+v, want [tests lint] + \"and vet\"", got.a)
		}
	})

	t.Run("permission prompt", func(t *testing.T) {
		ch := make(chan asked, 1)
		go func() {
			ok, err := operator.Permit(context.Background(), c, operator.Permission{Tool: "write", Tier: "write", Detail: `{"path":"a.go"}`}, 0)
			a := operator.Answer{}
			if ok {
				a.Outcome = operator.Answered
			}
			ch <- asked{a, err}
		}()
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`section.card.permission button.option[data-label="Allow"]`))); err != nil {
			t.Fatal(err)
		}
		attr, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`section.card`), "class"))
		if err != nil {
			t.Fatal(err)
		}
		kind := attr.Value
		if err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`section.card button.option[data-label="Allow"]`)),
		); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(kind, "permission") {
			t.Errorf("permission card class = %q, want it marked permission", kind)
		}
		got := <-ch
		if got.err != nil || got.a.Outcome != operator.Answered {
			t.Errorf("permission: allowed=%v err=%v, want allowed", got.a.Outcome == operator.Answered, got.err)
		}
	})

	t.Run("two cards numbered", func(t *testing.T) {
		ch1 := askAsync(c, operator.Question{Question: "First?", Options: []operator.Option{{Label: "yes"}, {Label: "no"}}}, 0)
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`section.card`))); err != nil {
			t.Fatal(err)
		}
		ch2 := askAsync(c, operator.Question{Question: "Second?", Options: []operator.Option{{Label: "yes"}, {Label: "no"}}}, 0)
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`section.card:nth-of-type(2)`))); err != nil {
			t.Fatal(err)
		}
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("section.card").length`))
		if err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`section.card:nth-of-type(2) button.option[data-label="no"]`)),
		); err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("%d cards shown, want 2", n)
		}
		if got := <-ch2; got.err != nil || !slices.Equal(got.a.Labels, []string{"no"}) {
			t.Errorf("second card: %+v %v", got.a, got.err)
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`section.card button.option[data-label="yes"]`))); err != nil {
			t.Fatal(err)
		}
		if got := <-ch1; got.err != nil || !slices.Equal(got.a.Labels, []string{"yes"}) {
			t.Errorf("first card: %+v %v", got.a, got.err)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		_, err := operator.Ask(context.Background(), c, q, time.Millisecond)
		if !errors.Is(err, operator.ErrTimedOut) || !strings.Contains(err.Error(), operator.ContinueInstruction) {
			t.Fatalf("unanswered question = %v, want ErrTimedOut with the continue instruction", err)
		}
		if c.Pending() != 0 {
			t.Errorf("%d questions still pending after the timeout", c.Pending())
		}
	})
}
