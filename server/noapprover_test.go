package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/operator"
	"github.com/tetherhq/tether/server"
	"github.com/tetherhq/tether/tools"
)

// TestPermissionWithNoClientSessionSaysRefused: a server with no client
// session is no approver: a write's permission prompt fails closed, says the
// call was refused and writes nothing, while ask_user on the same port keeps
// its "continue on your stated assumption" instruction.
func TestPermissionWithNoClientSessionSaysRefused(t *testing.T) {
	port := tools.ElicitationPort(server.New(server.Options{}))
	dir := t.TempDir()
	run, err := tools.NewRun(context.Background(), tools.Config{
		WorkDir:  dir,
		Approver: tools.QuestionApprover(port, "s", 0),
		Ask:      tools.AskConfig{Questions: port, TargetSpace: "s"},
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
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused write created the file")
	}
	res, err = run.Call(context.Background(), "ask_user", json.RawMessage(`{"question":"name?"}`), tools.FromModel)
	if !errors.Is(err, operator.ErrNoHuman) || !strings.Contains(res.AllText(), operator.ContinueInstruction) {
		t.Errorf("ask_user: %v / %q, want ErrNoHuman with the continue instruction", err, res.AllText())
	}
}
