package tools_test

import "context"
import "encoding/json"
import "errors"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"
import "github.com/tetherhq/tether/workers"

// workerScript is a command line running one of the worker roster's test
// scripts (workers/testdata).
func workerScript(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "workers", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return "sh " + p
}

// spawnedOne returns the worker vibe_spawn's result says it started,
// failing unless it started exactly one.
func spawnedOne(t testing.TB, res *tools.Result) workers.Info {
	t.Helper()
	sp := structured[*tools.VibeSpawned](t, res)
	if len(sp.Workers) != 1 {
		t.Fatalf("vibe_spawn: want one worker started, got %+v; text %q", sp.Workers, res.AllText())
	}
	return sp.Workers[0]
}

func vibeRun(t *testing.T, cfg workers.Config) *tools.Run {
	t.Helper()
	if cfg.Surface == "" {
		// The plan surface starts workers only when the operator configured them.
		t.Fatal("vibeRun runs on the plan surface: set Config.Surface")
	}
	ws, err := workers.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	run := startRun(t, tools.Config{WorkDir: t.TempDir(), Surface: tools.SurfacePlan, Vibe: tools.VibeConfig{On: true, Workers: ws}})
	return run
}

func TestVibeTools(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	run := vibeRun(t, workers.Config{
		Commands: map[string]string{workers.Fast: workerScript(t, "echo.sh"), workers.Good: workerScript(t, "gate.sh")},
		Env:      []string{"GATE=" + gate},
		Surface:  "plan",
	})
	// All five are read tier: the plan surface (capped at read) lists them.
	var listed []string
	for _, tl := range run.List() {
		if strings.HasPrefix(tl.Name, "vibe_") {
			listed = append(listed, tl.Name)
		}
	}
	if want := []string{"vibe_kill", "vibe_list", "vibe_send", "vibe_spawn", "vibe_wait"}; !slices.Equal(listed, want) {
		t.Fatalf("plan surface lists %v, want %v", listed, want)
	}
	if res := callResult(t, run, "vibe_list", `{}`); !strings.Contains(res.AllText(), "No workers") {
		t.Errorf("empty list = %q", res.AllText())
	} else if l := structured[*tools.VibeList](t, res); l.Workers == nil || len(l.Workers) != 0 {
		t.Errorf("empty list structured = %#v, want an empty workers list", l)
	}

	res := callResult(t, run, "vibe_spawn", `{"brief":"rename Foo to Bar","label":"renamer"}`)
	info := spawnedOne(t, res)
	fast := info.ID
	if info.Label != "renamer" || info.Tier != workers.Fast || info.Status != workers.Running {
		t.Errorf("spawned %+v", info)
	}
	if !strings.Contains(res.AllText(), "Started worker "+fast) {
		t.Errorf("spawn = %q", res.AllText())
	}
	res = callResult(t, run, "vibe_spawn", `{"brief":"design the cache","label":"designer","tier":"good"}`)
	good := spawnedOne(t, res).ID

	t.Run("wait for the result", func(t *testing.T) {
		res := callResult(t, run, "vibe_wait", `{"worker_id":"`+fast+`","timeout_seconds":3600}`)
		rep := structured[tools.VibeReport](t, res).Report
		if !rep.Finished || rep.Status != workers.Done || !strings.Contains(rep.Result, "label=renamer tier=fast\nrename Foo to Bar") {
			t.Errorf("wait = %+v", rep)
		}
		if text := res.AllText(); !strings.Contains(text, "is done") {
			t.Errorf("wait = %q", text)
		}
	})

	t.Run("wait times out while running", func(t *testing.T) {
		res := callResult(t, run, "vibe_wait", `{"worker_id":"`+good+`","timeout_seconds":0.01}`)
		if rep := structured[tools.VibeReport](t, res).Report; res.IsError || rep.Finished || rep.Status != workers.Running {
			t.Errorf("wait on a gated worker = %+v (error %v), want still running", rep, res.IsError)
		}
	})

	t.Run("list", func(t *testing.T) {
		res := callResult(t, run, "vibe_list", `{}`)
		text := res.AllText()
		for _, want := range []string{fast + "  renamer  fast  done", good + "  designer  good  running", "last result: label=renamer"} {
			if !strings.Contains(text, want) {
				t.Errorf("list lacks %q:\n%s", want, text)
			}
		}
		ws := structured[*tools.VibeList](t, res).Workers
		if len(ws) != 2 || ws[0].ID != fast || ws[0].Status != workers.Done || ws[1].ID != good || ws[1].Status != workers.Running {
			t.Errorf("list structured = %+v, want %s done then %s running", ws, fast, good)
		}
	})

	t.Run("send reruns with the appended brief", func(t *testing.T) {
		res := callResult(t, run, "vibe_send", `{"worker_id":"`+good+`","message":"go-ahead: keep it small"}`)
		if in := structured[workers.Info](t, res); in.Runs != 2 || in.Status != workers.Running {
			t.Errorf("send = %+v", in)
		}
		res = callResult(t, run, "vibe_wait", `{"worker_id":"`+good+`"}`)
		if rep := structured[tools.VibeReport](t, res).Report; rep.Status != workers.Done || rep.Runs != 2 || !strings.Contains(rep.Result, "design the cache\n\ngo-ahead: keep it small") {
			t.Errorf("rerun result = %+v", rep)
		}
	})

	t.Run("kill an ended worker", func(t *testing.T) {
		res := callResult(t, run, "vibe_kill", `{"worker_id":"`+fast+`"}`)
		if in := structured[workers.Info](t, res); in.Status != workers.Done {
			t.Errorf("kill of a done worker = %+v", in)
		}
		if !strings.Contains(res.AllText(), "already ended") {
			t.Errorf("kill = %q", res.AllText())
		}
	})

	t.Run("unknown worker", func(t *testing.T) {
		res, err := run.Call(context.Background(), "vibe_wait", json.RawMessage(`{"worker_id":"w99"}`), tools.FromModel)
		if err == nil || !res.IsError || !strings.Contains(res.AllText(), "no such worker") {
			t.Errorf("wait w99 = %q %v", res.AllText(), err)
		}
	})
}

func TestVibeFailingWorker(t *testing.T) {
	run := vibeRun(t, workers.Config{Commands: map[string]string{workers.Fast: workerScript(t, "fail.sh")}, Surface: "plan"})
	id := spawnedOne(t, callResult(t, run, "vibe_spawn", `{"brief":"frobnicate","label":"frob"}`)).ID
	res := callResult(t, run, "vibe_wait", `{"worker_id":"`+id+`"}`)
	if rep := structured[tools.VibeReport](t, res).Report; rep.Status != workers.Failed || rep.Exit != "exit status 3" || !strings.Contains(rep.LogTail, "fatal: the frobnicator is missing") {
		t.Errorf("failed worker report %+v", rep)
	}
	text := res.AllText()
	for _, want := range []string{"failed", "exit status 3", "partial result", "fatal: the frobnicator is missing"} {
		if !strings.Contains(text, want) {
			t.Errorf("failed worker report lacks %q:\n%s", want, text)
		}
	}
	if l := callResult(t, run, "vibe_list", `{}`).AllText(); !strings.Contains(l, "frob  fast  failed") {
		t.Errorf("list = %q", l)
	}
}

// TestVibeKillAndClose: vibe_kill stops a worker's whole process tree, and
// closing the run kills every live worker; /proc shows none of them left.
func TestVibeKillAndClose(t *testing.T) {
	// The sandbox lets a worker write only where it is told to. Both
	// workers may write their common parent, not each other's directory by
	// name: a worker's sandbox init names what it grants, and ReadPid tells
	// the two workers' same-numbered namespaced pids apart by the directory
	// their processes name.
	parent := t.TempDir()
	dirs := []string{filepath.Join(parent, "a"), filepath.Join(parent, "b")}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workers.New(workers.Config{Commands: map[string]string{workers.Fast: "PIDDIR=$(head -n1) " + workerScript(t, "tree.sh")}, ReadWrite: []string{parent}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := tools.NewRun(context.Background(), tools.Config{WorkDir: t.TempDir(), Vibe: tools.VibeConfig{On: true, Workers: ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	var ids []string
	var pids [][]int
	for _, d := range dirs {
		ids = append(ids, spawnedOne(t, callResult(t, run, "vibe_spawn", `{"brief":"`+d+`\n","label":"tree"}`)).ID)
		pids = append(pids, []int{testenv.ReadPid(t, d, "leader"), testenv.ReadPid(t, d, "child"), testenv.ReadPid(t, d, "grandchild")})
	}
	res := callResult(t, run, "vibe_kill", `{"worker_id":"`+ids[0]+`"}`)
	if in := structured[workers.Info](t, res); in.Status != workers.Killed {
		t.Errorf("kill = %+v", in)
	}
	for _, p := range pids[0] {
		if testenv.Alive(p) {
			t.Errorf("pid %d still runs after vibe_kill", p)
		}
	}
	for _, p := range pids[1] {
		if !testenv.Alive(p) {
			t.Errorf("pid %d of the other worker died with the kill", p)
		}
	}
	if l := callResult(t, run, "vibe_list", `{}`).AllText(); !strings.Contains(l, ids[0]+"  tree  fast  killed") {
		t.Errorf("list after kill = %q", l)
	}
	run.Close()
	for _, p := range pids[1] {
		if testenv.Alive(p) {
			t.Errorf("pid %d still runs after Run.Close", p)
		}
	}
}

func TestVibeRegisteredOnlyInVibeMode(t *testing.T) {
	ws, err := workers.New(workers.Config{Commands: map[string]string{workers.Fast: workerScript(t, "echo.sh")}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, cfg := range []tools.Config{{Vibe: tools.VibeConfig{Workers: ws}}, {Vibe: tools.VibeConfig{On: true}}} {
		cfg.WorkDir = t.TempDir()
		run, err := tools.NewRun(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"vibe_spawn", "vibe_send", "vibe_wait", "vibe_kill", "vibe_list"} {
			if _, ok := run.Lookup(name); ok {
				t.Errorf("%s registered with vibe=%v workers=%v", name, cfg.Vibe.On, cfg.Vibe.Workers != nil)
			}
		}
		run.Close()
	}
}

// TestVibeTellsWorkersTheRunLimits: a worker is told the run's surface and
// approval policy in its environment, and on a read-only surface vibe_spawn
// is refused unless the operator configured workers for it (--worker-surface);
// a worker acts with its own tools, outside tether's gate.
func TestVibeTellsWorkersTheRunLimits(t *testing.T) {
	tests := []struct {
		name    string
		surface tools.Surface
		policy  string
		workers string // workers.Config.Surface
		want    string // the worker's report; "" = refused
	}{
		{"default surface", tools.SurfaceDefault, "write=allow,exec=ask", "", "surface=default approve=*=ask,write=allow,exec=ask"},
		{"plan without worker surface", tools.SurfacePlan, "deny", "", ""},
		{"readonly without worker surface", tools.SurfaceReadonly, "allow", "", ""},
		{"plan with worker surface", tools.SurfacePlan, "deny", "plan", "surface=plan approve=*=deny"},
		{"operator widens on purpose", tools.SurfacePlan, "deny", "default", "surface=default approve=*=deny"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, err := workers.New(workers.Config{Commands: map[string]string{workers.Fast: workerScript(t, "limits.sh")}, Surface: tc.workers})
			if err != nil {
				t.Fatal(err)
			}
			p, err := tools.ParsePolicy(tc.policy)
			if err != nil {
				t.Fatal(err)
			}
			run, err := tools.NewRun(context.Background(), tools.Config{WorkDir: t.TempDir(), Surface: tc.surface, Policy: p, Vibe: tools.VibeConfig{On: true, Workers: ws}})
			if err != nil {
				t.Fatal(err)
			}
			defer run.Close()
			res, err := run.Call(context.Background(), "vibe_spawn", json.RawMessage(`{"brief":"edit the files","label":"editor"}`), tools.FromModel)
			if tc.want == "" {
				if !errors.Is(err, tools.ErrWorkersNotConfigured) || !res.IsError {
					t.Fatalf("vibe_spawn on %s: %v %q, want ErrWorkersNotConfigured", tc.surface, err, res.AllText())
				}
				for _, want := range []string{tc.surface.String() + " surface", "--worker-surface", "read tools"} {
					if !strings.Contains(res.AllText(), want) {
						t.Errorf("refusal %q lacks %q", res.AllText(), want)
					}
				}
				if n := len(ws.List()); n != 0 {
					t.Errorf("%d workers started", n)
				}
				if res := callResult(t, run, "vibe_list", `{}`); !strings.Contains(res.AllText(), "No workers") {
					t.Errorf("vibe_list = %q", res.AllText())
				}
				return
			}
			if err != nil {
				t.Fatalf("vibe_spawn: %v %q", err, res.AllText())
			}
			id := spawnedOne(t, res).ID
			if text := callResult(t, run, "vibe_wait", `{"worker_id":"`+id+`"}`).AllText(); !strings.Contains(text, "is done") || !strings.Contains(text, tc.want+"\n") {
				t.Errorf("worker report = %q, want %q", text, tc.want)
			}
		})
	}
}
