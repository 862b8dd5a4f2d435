package operator_test

import "context"
import "errors"
import "os"
import "slices"
import "strings"
import "testing"

import "github.com/creack/pty"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/operator"

func TestTerminalCard(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	scr := testenv.NewScreen(ptmx)
	port := operator.NewTerminal(tty, tty)

	db := operator.Question{
		Question: "Which database should the service use?",
		Context:  "The migration layer depends on it.",
		Options:  []operator.Option{{Label: "Postgres", Description: "managed"}, {Label: "SQLite"}, {Label: "none"}},
		Space:    "conv-7",
	}
	checks := operator.Question{
		Question:      "Which checks should run?",
		Options:       []operator.Option{{Label: "tests"}, {Label: "lint"}, {Label: "bench"}},
		MultiSelect:   true,
		AllowFreeText: true,
	}
	free := operator.Question{Question: "What should the cache be called?", AllowFreeText: true}

	tests := []struct {
		name   string
		q      operator.Question
		typed  []string // lines typed, the last one accepted
		want   operator.Answer
		screen []string // shown on the card
	}{
		{"pick one", db, []string{"2"}, operator.Answer{Outcome: operator.Answered, Labels: []string{"SQLite"}},
			[]string{"question from conv-7 #1", "Which database", "| The migration layer", "1) Postgres - managed", "2) SQLite", "3) none", "/skip"}},
		{"bad number then good", db, []string{"9", "two", "1"}, operator.Answer{Outcome: operator.Answered, Labels: []string{"Postgres"}},
			[]string{"#2"}},
		{"multi-select with note", checks, []string{"3, 1: and vet"}, operator.Answer{Outcome: operator.Answered, Labels: []string{"tests", "bench"}, Text: "and vet"},
			[]string{"numbers 1-3 separated by commas"}},
		{"free text", free, []string{"hotcache"}, operator.Answer{Outcome: operator.Answered, Text: "hotcache"}, []string{"Type your answer"}},
		{"skip", db, []string{"/skip"}, operator.Answer{Outcome: operator.Skipped}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			type res struct {
				a   operator.Answer
				err error
			}
			done := make(chan res, 1)
			go func() {
				a, err := operator.Ask(context.Background(), port, tc.q, 0)
				done <- res{a, err}
			}()
			card := scr.Expect(t, "> ")
			for _, s := range tc.screen {
				if !strings.Contains(card, s) {
					t.Errorf("card lacks %q:\n%s", s, card)
				}
			}
			for i, line := range tc.typed {
				if _, err := ptmx.WriteString(line + "\n"); err != nil {
					t.Fatal(err)
				}
				if i < len(tc.typed)-1 {
					// A bad reply is explained and asked again.
					if msg := scr.Expect(t, "> "); !strings.Contains(msg, "operator: ") {
						t.Errorf("reply %q: no explanation, got %q", line, msg)
					}
				}
			}
			r := <-done
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.a.Outcome != tc.want.Outcome || !slices.Equal(r.a.Labels, tc.want.Labels) || r.a.Text != tc.want.Text {
				t.Errorf("answer = %+v, want %+v", r.a, tc.want)
			}
		})
	}

	t.Run("permission card", func(t *testing.T) {
		done := make(chan bool, 1)
		go func() {
			ok, err := operator.Permit(context.Background(), port, operator.Permission{Tool: "debug", Tier: "exec", Detail: "launch ./cmd/app"}, 0)
			done <- ok && err == nil
		}()
		card := scr.Expect(t, "> ")
		if !strings.Contains(card, "permission") || !strings.Contains(card, "May I call debug (exec tier)?") || !strings.Contains(card, "1) Allow") {
			t.Errorf("permission card:\n%s", card)
		}
		ptmx.WriteString("2\n")
		if <-done {
			t.Error("Deny was taken as approval")
		}
	})
}

func TestTerminalWithoutTTYFailsAtOnce(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	port := operator.NewTerminal(r, w)
	_, err = operator.Ask(context.Background(), port, operator.Question{Question: "x?", AllowFreeText: true}, 0)
	if !errors.Is(err, operator.ErrNoHuman) {
		t.Fatalf("Ask on a pipe = %v, want ErrNoHuman", err)
	}
}
