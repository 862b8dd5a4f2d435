package main

import "os/exec"
import "strings"
import "testing"

import "github.com/creack/pty"

import "github.com/tetherhq/tether/internal/testenv"

// TestCallAskDefaultAfter: `tether call ask_user --ask-default-after` in a
// terminal nobody answers takes the card's recommended options and says
// per question that nobody chose them; a negative duration is refused.
func TestCallAskDefaultAfter(t *testing.T) {
	card := `{"questions":[{"question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite"}],"recommended":"SQLite"},` +
		`{"question":"Which port?","allow_free_text":true}]}`
	cmd := exec.Command(tetherBin(t), "call", "--workdir", workdir(t, nil), "--ask-default-after", "300ms", "ask_user", card)
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	out := testenv.NewScreen(ptmx).Rest(t) // until the process ends
	if err := cmd.Wait(); err != nil {
		t.Errorf("tether call: %v\n%s", err, out)
	}
	for _, want := range []string{"Q1. Which database?", "2) SQLite (recommended)",
		"1. Recommended option taken at the operator's timeout (nobody chose it): SQLite",
		"2. No answer at the operator's timeout and no recommended option: skipped."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	bad := exec.Command(tetherBin(t), "call", "--workdir", workdir(t, nil), "--ask-default-after", "-1s", "ask_user", card)
	if b, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(b), "--ask-default-after -1s is negative") {
		t.Errorf("negative --ask-default-after: %v\n%s", err, b)
	}
}
