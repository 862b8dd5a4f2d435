package server_test

import "context"
import "encoding/json"
import "errors"
import "strings"
import "testing"

import "github.com/tetherhq/tether/operator"
import "github.com/tetherhq/tether/server"
import "github.com/tetherhq/tether/tools"

// TestPermissionWithNoClientSessionSaysRefused: a server with no client
// session is no approver: its question port makes a write's permission
// prompt fail closed with ErrNoApprover, while ask_user on the same port
// keeps its "continue on your stated assumption" instruction. How the
// refusal reads to the agent, and that it writes nothing, is tools'
// TestPermissionWithNoHumanSaysRefused, over an elicitor that fails as this
// one does.
func TestPermissionWithNoClientSessionSaysRefused(t *testing.T) {
	ctx := context.Background()
	port := tools.ElicitationPort(server.New(server.Options{}))
	ok, err := tools.QuestionApprover(port, "s", 0).Approve(ctx, tools.ApprovalRequest{Tool: "write", Tier: tools.TierWrite})
	if ok || !errors.Is(err, tools.ErrNoApprover) || !strings.Contains(err.Error(), "no MCP client is connected") {
		t.Fatalf("approver: %v %v, want ErrNoApprover for no client", ok, err)
	}
	if strings.Contains(err.Error(), operator.ContinueInstruction) {
		t.Errorf("approver error %q tells the agent to continue as if answered", err)
	}
	run, err := tools.NewRun(ctx, tools.Config{WorkDir: t.TempDir(), Ask: tools.AskConfig{Questions: port, TargetSpace: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.Call(ctx, "ask_user", json.RawMessage(`{"question":"name?"}`), tools.FromModel)
	if !errors.Is(err, operator.ErrNoHuman) || !strings.Contains(res.AllText(), operator.ContinueInstruction) {
		t.Errorf("ask_user: %v / %q, want ErrNoHuman with the continue instruction", err, res.AllText())
	}
}
