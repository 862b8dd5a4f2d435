package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/tetherhq/tether/tools"
)

// progressLog records what a call reported through tools.WithProgress.
type progressLog struct {
	mu    sync.Mutex
	steps []string
}

func (p *progressLog) ctx() context.Context {
	return tools.WithProgress(context.Background(), func(done, total float64, message string) {
		p.mu.Lock()
		p.steps = append(p.steps, message)
		p.mu.Unlock()
	})
}

// TestDebugLaunchReportsProgress: a debug launch (real debugpy) says it
// launches the program, as a step of the call's progress, before the
// adapter has started.
func TestDebugLaunchReportsProgress(t *testing.T) {
	requireDebianDebugpy(t)
	_, run, call := debugWorkspace(t, map[string]string{"requirements.txt": "", "hello.py": "x = 1\nprint(x)\n"})
	call(`{"op":"breakpoints","file":"hello.py","lines":[2]}`)
	var log progressLog
	res, err := run.Call(log.ctx(), "debug", json.RawMessage(`{"op":"launch","program":"hello.py"}`), tools.FromModel)
	if err != nil || res.IsError {
		t.Fatalf("launch: %v %s", err, res.AllText())
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.steps) == 0 || !strings.Contains(log.steps[0], "debug: launching hello.py") {
		t.Errorf("progress of a launch: %q; want debug: launching hello.py first", log.steps)
	}
	call(`{"op":"terminate"}`)
}
