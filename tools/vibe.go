package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tetherhq/tether/workers"
)

// vibe_* (docs/tools.md, "ask_user and vibe mode"). Registered only while vibe
// mode is on (Config.Vibe with a Config.Workers roster). All five are read
// tier: the gate belongs on the workers' own tools.

func init() {
	addFamily(family{
		name:  "vibe",
		wired: func(cfg *Config) bool { return cfg.Vibe && cfg.Workers != nil },
		register: func(r *Run) (func() error, error) {
			ws := r.cfg.Workers
			surface := r.cfg.Surface
			if surface == (Surface{}) {
				surface = SurfaceDefault
			}
			ws.SetLimits(surface.String(), r.cfg.Policy.String())
			ts := vibeTools(ws)
			if !surface.Allows(TierWrite) {
				if _, configured := ws.Surface(); !configured {
					refuse := readOnlySpawnRefusal(surface)
					for i := range ts {
						if ts[i].Name == "vibe_spawn" || ts[i].Name == "vibe_send" {
							ts[i].Handler = refuse
						}
					}
				}
			}
			return ws.Close, r.Registry().Register(ts...)
		},
		// a roster with no tier configured: only the descriptions read it
		tools: func() []Tool { return vibeTools(&workers.Roster{}) },
	})
}

// Bounds of vibe_wait.
const (
	// DefaultWaitSeconds is how long vibe_wait waits when no timeout is given.
	DefaultWaitSeconds = 300
	// MaxWaitSeconds caps timeout_seconds.
	MaxWaitSeconds = 3600
)

// vibeTools returns vibe_spawn, vibe_send, vibe_wait, vibe_kill and vibe_list
// over ws.
func vibeTools(ws *workers.Roster) []Tool {
	v := &vibe{ws: ws}
	tiers := strings.Join(ws.Tiers(), ", ")
	return []Tool{
		{
			Name: "vibe_spawn",
			Tier: TierRead,
			Description: "Start a background worker on a brief and return at once with its worker id; the worker keeps going " +
				"while you do other things. tier is fast (mechanical work with a clear spec) or good (design, judgment, or " +
				"reviewing fast-tier output); configured here: " + tiers + ". Collect the result with vibe_wait.",
			InputSchema: SchemaFor[spawnArgs](),
			Mutates:     true, // starts or stops a worker's processes
			Handler:     v.spawn,
		},
		{
			Name: "vibe_send",
			Tier: TierRead,
			Description: "Append a message to a worker's brief and run it again (a running worker is stopped first). " +
				"Use it to correct course or answer the worker's question.",
			InputSchema: SchemaFor[sendArgs](),
			Mutates:     true, // starts or stops a worker's processes
			Handler:     v.send,
		},
		{
			Name: "vibe_wait",
			Tier: TierRead,
			Description: fmt.Sprintf("Wait until a worker finishes and return its result (its stdout), or, if it fails, "+
				"its exit status and the tail of its log. Waits at most timeout_seconds (default %d, max %d); "+
				"a timeout is not an error, it says the worker is still running.", DefaultWaitSeconds, MaxWaitSeconds),
			InputSchema: SchemaFor[waitArgs](),
			Handler:     v.wait,
		},
		{
			Name:        "vibe_kill",
			Tier:        TierRead,
			Description: "Stop a worker and every process it started. Its last result stays readable with vibe_wait.",
			InputSchema: SchemaFor[workerArgs](),
			Mutates:     true, // starts or stops a worker's processes
			Handler:     v.kill,
		},
		{
			Name:        "vibe_list",
			Tier:        TierRead,
			Description: "List the workers: id, label, tier, status (running, done, failed, killed), elapsed time, and the tail of the last result.",
			InputSchema: SchemaFor[struct{}](),
			Handler:     v.list,
		},
	}
}

type vibe struct{ ws *workers.Roster }

// spawnArgs are vibe_spawn's arguments.
type spawnArgs struct {
	Brief string `json:"brief" jsonschema:"the whole task: goal, files, constraints, what to report back" bounds:"minLength=1"`
	Label string `json:"label" jsonschema:"a short name shown in vibe_list" bounds:"maxLength=80"`
	Tier  string `json:"tier,omitempty" jsonschema:"fast (default) or good" bounds:"enum=fast|good"`
}

// tuneSchema states the roster's rules for a brief: not blank, at most
// workers.MaxBriefBytes bytes (maxLength, in characters, the same number as
// a looser bound).
func (spawnArgs) tuneSchema(s *jsonschema.Schema) {
	b := s.Properties["brief"]
	b.Pattern = `\S`
	b.MaxLength = jsonschema.Ptr(workers.MaxBriefBytes)
	b.Description += fmt.Sprintf("; not blank, at most %d bytes", workers.MaxBriefBytes)
}

// workerArgs name a worker: vibe_kill's arguments, and vibe_send's and
// vibe_wait's first.
type workerArgs struct {
	WorkerID string `json:"worker_id" jsonschema:"the id vibe_spawn returned, e.g. w1" bounds:"minLength=1"`
}

// sendArgs are vibe_send's arguments.
type sendArgs struct {
	workerArgs
	Message string `json:"message" jsonschema:"what to add to the worker's brief; it reruns with the brief and this message" bounds:"minLength=1"`
}

// waitArgs are vibe_wait's arguments.
type waitArgs struct {
	workerArgs
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" jsonschema:"longest wait; when it passes the worker keeps running and the result says so" bounds:"minimum=0"`
}

// tuneSchema caps timeout_seconds at MaxWaitSeconds.
func (waitArgs) tuneSchema(s *jsonschema.Schema) {
	s.Properties["timeout_seconds"].Maximum = jsonschema.Ptr(float64(MaxWaitSeconds))
}

// ErrWorkersNotConfigured is returned by vibe_spawn on a read-only surface
// when the operator did not configure workers for it.
var ErrWorkersNotConfigured = errors.New("tools: workers are not configured for a read-only surface")

// readOnlySpawnRefusal refuses to start workers on a read-only surface: a
// worker's own tools are not tether's, so it would write files the surface
// forbids unless the operator chose what workers are told (--worker-surface).
func readOnlySpawnRefusal(s Surface) Handler {
	return func(ctx context.Context, call *Call) (*Result, error) {
		return nil, fmt.Errorf("%w: this run is on the %s surface (read tier only) and a worker acts with its own tools, "+
			"outside tether's gate; the operator can allow workers here by starting tether with --worker-surface "+
			"(e.g. --worker-surface %s: workers are told in %s to stay read-only); until then do the work with your read tools",
			ErrWorkersNotConfigured, s, s, workers.EnvSurface)
	}
}

func (v *vibe) spawn(ctx context.Context, call *Call) (*Result, error) {
	var a spawnArgs
	if err := call.Decode(&a); err != nil {
		return nil, err
	}
	id, err := v.ws.Spawn(a.Brief, a.Label, a.Tier)
	if err != nil {
		return nil, err
	}
	info := v.info(id)
	res := Text(fmt.Sprintf("Started worker %s (%s, %s tier). It runs in the background: vibe_wait %s collects the result, vibe_list shows progress.",
		id, info.Label, info.Tier, id))
	res.Structured = info
	return res, nil
}

func (v *vibe) send(ctx context.Context, call *Call) (*Result, error) {
	var a sendArgs
	if err := call.Decode(&a); err != nil {
		return nil, err
	}
	if err := v.ws.Send(a.WorkerID, a.Message); err != nil {
		return nil, err
	}
	info := v.info(a.WorkerID)
	res := Text(fmt.Sprintf("Worker %s (%s) is running again with the message appended to its brief (run %d).", info.ID, info.Label, info.Runs))
	res.Structured = info
	return res, nil
}

func (v *vibe) wait(ctx context.Context, call *Call) (*Result, error) {
	var a waitArgs
	if err := call.Decode(&a); err != nil {
		return nil, err
	}
	secs := float64(DefaultWaitSeconds)
	if a.TimeoutSeconds != nil {
		secs = min(*a.TimeoutSeconds, MaxWaitSeconds)
	}
	timeout := time.Duration(secs * float64(time.Second))
	if timeout <= 0 {
		timeout = time.Nanosecond // 0: just look
	}
	rep, err := v.ws.Wait(ctx, a.WorkerID, timeout)
	if err != nil {
		return nil, fmt.Errorf("tools: vibe_wait %s: %w", a.WorkerID, err)
	}
	var b strings.Builder
	switch {
	case !rep.Finished:
		fmt.Fprintf(&b, "Worker %s (%s) is still running after %s. Call vibe_wait again to keep waiting, or vibe_kill to stop it.",
			rep.ID, rep.Label, rep.Elapsed.Round(time.Millisecond))
	case rep.Status == workers.Done:
		fmt.Fprintf(&b, "Worker %s (%s, %s tier) is done after %s (run %d). Result:\n", rep.ID, rep.Label, rep.Tier, rep.Elapsed, rep.Runs)
		b.WriteString(resultText(rep))
	case rep.Status == workers.Killed:
		fmt.Fprintf(&b, "Worker %s (%s) was killed after %s; output before it stopped:\n", rep.ID, rep.Label, rep.Elapsed)
		b.WriteString(resultText(rep))
	default:
		fmt.Fprintf(&b, "Worker %s (%s, %s tier) failed after %s (%s). Output:\n%s", rep.ID, rep.Label, rep.Tier, rep.Elapsed, rep.Exit, resultText(rep))
		if rep.LogTail != "" {
			fmt.Fprintf(&b, "\nEnd of its log (stderr):\n%s", rep.LogTail)
		}
	}
	res := Text(b.String())
	res.Structured = rep
	return res, nil
}

func resultText(rep workers.Report) string {
	if strings.TrimSpace(rep.Result) == "" {
		return "(no output on stdout)"
	}
	s := rep.Result
	if rep.Truncated {
		s += fmt.Sprintf("\n... (output cut at %d bytes)", workers.MaxResultBytes)
	}
	return s
}

func (v *vibe) kill(ctx context.Context, call *Call) (*Result, error) {
	var a workerArgs
	if err := call.Decode(&a); err != nil {
		return nil, err
	}
	info, err := v.ws.Kill(a.WorkerID)
	if err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("Worker %s (%s) was stopped with every process it started.", info.ID, info.Label)
	if info.Status != workers.Killed {
		msg = fmt.Sprintf("Worker %s (%s) had already ended (%s); nothing was running.", info.ID, info.Label, info.Status)
	}
	res := Text(msg)
	res.Structured = info
	return res, nil
}

func (v *vibe) list(ctx context.Context, call *Call) (*Result, error) {
	infos := v.ws.List()
	if len(infos) == 0 {
		return Text("No workers yet; vibe_spawn starts one."), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d worker(s):\n", len(infos))
	for _, in := range infos {
		fmt.Fprintf(&b, "%s  %s  %s  %s  %s", in.ID, in.Label, in.Tier, in.Status, in.Elapsed.Round(100*time.Millisecond))
		if in.Runs > 1 {
			fmt.Fprintf(&b, "  run %d", in.Runs)
		}
		if in.Unread {
			b.WriteString("  (result unread)")
		}
		if in.ResultTail != "" {
			from := ""
			if in.ResultRun != in.Runs {
				from = fmt.Sprintf(" (of run %d)", in.ResultRun)
			}
			fmt.Fprintf(&b, "\n    last result%s: %s", from, strings.ReplaceAll(in.ResultTail, "\n", "\n    "))
		}
		b.WriteString("\n")
	}
	res := Text(strings.TrimRight(b.String(), "\n"))
	res.Structured = infos
	return res, nil
}

func (v *vibe) info(id string) workers.Info {
	for _, in := range v.ws.List() {
		if in.ID == id {
			return in
		}
	}
	return workers.Info{ID: id}
}
