package tools_test

import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/operator"
import "github.com/tetherhq/tether/tools"

// TestDescriptionsSayWhatTheModelMustKnow: debug and eval are serial and say
// so (a second call waits for the first); debug names every adapter of its
// table, dart included; eval says how a cell reads a result's structured
// part; ask_user says never to ask in chat text instead.
func TestDescriptionsSayWhatTheModelMustKnow(t *testing.T) {
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	debug, _ := startRun(t, tools.Config{WorkDir: t.TempDir(), ConversationID: "c1", Debug: sv}).Lookup("debug")
	if !debug.Serial || !strings.Contains(debug.Description, "one at a time") {
		t.Errorf("debug: serial %v, description does not say calls run one at a time:\n%s", debug.Serial, debug.Description)
	}
	for _, a := range dap.DefaultAdapters() {
		if !strings.Contains(debug.Description, a.ID) {
			t.Errorf("debug description does not name the %s adapter:\n%s", a.ID, debug.Description)
		}
	}

	r := newEvalRun(t, allowAll, kernels.Config{})
	eval, ok := r.Lookup("eval")
	if !ok {
		t.Fatal("eval not registered")
	}
	if !eval.Serial || !strings.Contains(eval.Description, "one at a time") {
		t.Errorf("eval: serial %v, description does not say calls run one at a time:\n%s", eval.Serial, eval.Description)
	}
	if !strings.Contains(eval.Description, ".structured") {
		t.Errorf("eval description does not say how to read a result's structured part:\n%s", eval.Description)
	}

	console := operator.NewConsole()
	defer console.Close()
	ask, _ := startRun(t, tools.Config{WorkDir: t.TempDir(), Ask: tools.AskConfig{Questions: console, TargetSpace: "s"}}).Lookup("ask_user")
	if !strings.Contains(ask.Description, "never ask the operator in your reply text") {
		t.Errorf("ask_user description does not forbid asking in chat text:\n%s", ask.Description)
	}
}
