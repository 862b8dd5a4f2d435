package tools_test

import "context"
import "encoding/json"
import "strings"
import "sync"
import "testing"

import "github.com/tetherhq/tether/tools"

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

// TestAstGrepProgressAcrossLanguages: an ast_grep without language over
// files of three languages the pattern parses in (one search each) reports
// its files as one count: from 1, increasing, ending at all 7 of 7. Each
// search counted its own files from 1, so the progress of every language
// after the first went backwards and a client (MCP requires increasing
// progress) was sent none of it until it passed the first's total.
func TestAstGrepProgressAcrossLanguages(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{
		"a.go": goSrc, "sub/b.go": goSrc, "c.go": "package p\n", "ci.yaml": "on: push\nrun: fmt.Errorf(x)\n", "deploy.yml": "a: 1\n",
		"build.sh": "echo fmt.Errorf\n", "scripts/test.sh": "go test ./...\n",
	})
	var mu sync.Mutex
	var got [][2]float64
	ctx := tools.WithProgress(context.Background(), func(done, total float64, _ string) {
		mu.Lock()
		got = append(got, [2]float64{done, total})
		mu.Unlock()
	})
	res, err := r.Call(ctx, "ast_grep", json.RawMessage(`{"pattern":"fmt.Errorf($$$ARGS)"}`), tools.FromModel)
	if err != nil || res.IsError {
		t.Fatalf("ast_grep: %v %s", err, res.AllText())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[0][0] != 1 || got[len(got)-1] != [2]float64{7, 7} {
		t.Fatalf("progress %v; want 1 first and 7 of 7 last", got)
	}
	for i, p := range got {
		if p[0] > p[1] || i > 0 && p[0] <= got[i-1][0] {
			t.Fatalf("progress %v: not increasing within its total at %d", got, i)
		}
	}
}
