package tools

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "path/filepath"
import "strings"
import "sync"
import "time"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/workers"

// vibe_* (docs/tools.md, "ask_user and vibe mode"). Registered only while vibe
// mode is on (Config.Vibe.On, with a Config.Vibe.Workers roster). All five are
// read tier: the gate belongs on the workers' own tools.

func init() {
	addFamily(family{
		name:  "vibe",
		wired: func(cfg *Config) bool { return cfg.Vibe.On && cfg.Vibe.Workers != nil },
		register: func(r *Run) (func() error, error) {
			ws := r.cfg.Vibe.Workers
			surface := r.cfg.Surface
			if surface == (Surface{}) {
				surface = SurfaceDefault
			}
			ws.SetLimits(surface.String(), r.cfg.Policy.String())
			ts := vibeTools(ws, r)
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
			return ws.Close, r.reg.Register(ts...)
		},
		// a roster with no tier configured: only the descriptions read it
		tools: func() []Tool { return vibeTools(&workers.Roster{}, nil) },
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
// over ws; an isolated worker's changes are staged in run's stager.
func vibeTools(ws *workers.Roster, run *Run) []Tool {
	v := &vibe{ws: ws, run: run, staged: map[string]string{}}
	tiers := strings.Join(ws.Tiers(), ", ")
	return []Tool{
		Typed(Tool{
			Name: "vibe_spawn",
			Tier: TierRead,
			Description: "Start a background worker on a brief, or a batch of workers (tasks, each given the shared context " +
				"before its own brief), and return at once with their worker ids; the workers keep going " +
				"while you do other things. tier is fast (mechanical work with a clear spec) or good (design, judgment, or " +
				"reviewing fast-tier output); configured here: " + tiers + ". Collect each result with vibe_wait. " +
				"output_schema: a JSON Schema each result must conform to (vibe_wait says whether it does, and why not). " +
				"isolated: each worker works in its own git worktree of the workdir, which stays untouched; " +
				"vibe_wait stages its changes for resolve (diff preview, accept or discard, all or nothing).",
			Mutates: true, // starts or stops a worker's processes
		}, v.spawn),
		Typed(Tool{
			Name: "vibe_send",
			Tier: TierRead,
			Description: "Give a worker a follow-up: correct course, answer its question, or ask for more once it is done. " +
				"A finished worker whose tier has a resume command continues its own conversation with just the message; " +
				"otherwise (and for a running worker, which is stopped first) it reruns from the start with its brief and " +
				"every message so far, and the result says so. An isolated worker keeps its worktree: the next vibe_wait " +
				"stages what the follow-up changed since its last run.",
			Mutates: true, // starts or stops a worker's processes
		}, v.send),
		Typed(Tool{
			Name: "vibe_wait",
			Tier: TierRead,
			Description: fmt.Sprintf("Wait until a worker finishes and return its result (its stdout), or, if it fails, "+
				"its exit status and the tail of its log. Waits at most timeout_seconds (default %d, max %d); "+
				"a timeout is not an error, it says the worker is still running.", DefaultWaitSeconds, MaxWaitSeconds),
		}, v.wait),
		Typed(Tool{
			Name:        "vibe_kill",
			Tier:        TierRead,
			Description: "Stop a worker and every process it started. Its last result stays readable with vibe_wait.",
			Mutates:     true, // starts or stops a worker's processes
		}, v.kill),
		Typed(Tool{
			Name:        "vibe_list",
			Tier:        TierRead,
			Description: "List the workers: id, label, tier, status (running, done, failed, killed), elapsed time, and the tail of the last result.",
		}, v.list),
	}
}

type vibe struct {
	ws  *workers.Roster
	run *Run // nil: descriptions only

	mu sync.Mutex
	// staged maps a worker's run ("w1#2") to the edit its changes were
	// staged as, so a second vibe_wait names the same edit.
	staged map[string]string
}

// MaxSpawnTasks caps a vibe_spawn batch.
const MaxSpawnTasks = 16

// spawnArgs are vibe_spawn's arguments.
type spawnArgs struct {
	Brief        string         `json:"brief,omitempty" jsonschema:"the whole task: goal, files, constraints, what to report back (or give tasks)"`
	Label        string         `json:"label,omitempty" jsonschema:"a short name shown in vibe_list" bounds:"maxLength=80"`
	Tier         string         `json:"tier,omitempty" jsonschema:"fast (default) or good; a task's own tier wins" bounds:"enum=fast|good"`
	Tasks        []spawnTask    `json:"tasks,omitempty" jsonschema:"a batch instead of brief: one worker per task" bounds:"minItems=1"`
	Context      string         `json:"context,omitempty" jsonschema:"shared by every worker of the call: placed before each brief"`
	OutputSchema map[string]any `json:"output_schema,omitempty" jsonschema:"a JSON Schema (draft 2020-12) each worker's result must conform to: the worker is asked for one JSON value on stdout"`
	Isolated     bool           `json:"isolated,omitempty" jsonschema:"run each worker in its own git worktree of the workdir (a git repository with a commit); its changes come back staged for resolve"`
}

// spawnTask is one worker of a vibe_spawn batch.
type spawnTask struct {
	Brief string `json:"brief" jsonschema:"this worker's task; the call's context comes before it" bounds:"minLength=1"`
	Label string `json:"label,omitempty" jsonschema:"a short name shown in vibe_list" bounds:"maxLength=80"`
	Tier  string `json:"tier,omitempty" jsonschema:"fast or good (default: the call's tier)" bounds:"enum=fast|good"`
}

// tuneSchema states the roster's rules for a brief: not blank, at most
// workers.MaxBriefBytes bytes (maxLength, in characters, the same number as
// a looser bound), and the batch cap.
func (spawnArgs) tuneSchema(s *jsonschema.Schema) {
	b := s.Properties["brief"]
	b.Pattern = `\S`
	b.MaxLength = jsonschema.Ptr(workers.MaxBriefBytes)
	b.Description += fmt.Sprintf("; not blank, at most %d bytes", workers.MaxBriefBytes)
	s.Properties["tasks"].MaxItems = jsonschema.Ptr(MaxSpawnTasks)
	s.Properties["context"].MaxLength = jsonschema.Ptr(workers.MaxBriefBytes)
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

// VibeSpawned is vibe_spawn's Structured result: the workers it started,
// in the order of its tasks (one for a brief).
type VibeSpawned struct {
	Workers []workers.Info `json:"workers"`
}

func (v *vibe) spawn(ctx context.Context, call *Call, a spawnArgs) (*Result, *VibeSpawned, error) {
	specs, err := a.specs()
	if err != nil {
		return nil, nil, err
	}
	// The whole batch is checked before any of it starts.
	for i, s := range specs {
		if err := v.ws.Check(s); err != nil {
			return nil, nil, fmt.Errorf("tools: vibe_spawn: %s: %w; nothing was started", a.taskName(i), err)
		}
	}
	var ids []string
	for i, s := range specs {
		id, err := v.ws.Start(s)
		if err != nil {
			for _, started := range ids {
				v.ws.Kill(started)
			}
			stopped := ""
			if len(ids) > 0 {
				stopped = fmt.Sprintf(" (%s, started before it, stopped)", strings.Join(ids, ", "))
			}
			return nil, nil, fmt.Errorf("tools: vibe_spawn: %s: %w; nothing of the batch runs%s", a.taskName(i), err, stopped)
		}
		ids = append(ids, id)
	}
	var b strings.Builder
	infos := make([]workers.Info, len(ids))
	for i, id := range ids {
		infos[i] = v.info(id)
	}
	extra := ""
	if a.OutputSchema != nil {
		extra += " Its result is checked against the output schema."
	}
	if a.Isolated {
		extra += " It works in its own git worktree; vibe_wait stages its changes for resolve."
	}
	if infos[0].Limits != "" {
		extra += " limits: " + infos[0].Limits + "."
	}
	if len(ids) == 1 {
		fmt.Fprintf(&b, "Started worker %s (%s, %s tier). It runs in the background: vibe_wait %s collects the result, vibe_list shows progress.%s",
			ids[0], infos[0].Label, infos[0].Tier, ids[0], extra)
		return Text(b.String()), &VibeSpawned{Workers: infos}, nil
	}
	fmt.Fprintf(&b, "Started %d workers:", len(ids))
	for _, in := range infos {
		fmt.Fprintf(&b, " %s (%s, %s tier)", in.ID, in.Label, in.Tier)
	}
	fmt.Fprintf(&b, ". They run in the background: vibe_wait collects each result, vibe_list shows progress.%s",
		strings.ReplaceAll(strings.ReplaceAll(extra, "Its result is", "Each result is"), "It works", "Each works"))
	return Text(b.String()), &VibeSpawned{Workers: infos}, nil
}

// specs turns the arguments into one spec per worker.
func (a *spawnArgs) specs() ([]workers.Spec, error) {
	var schema *jsonschema.Schema
	if a.OutputSchema != nil {
		raw, err := json.Marshal(a.OutputSchema)
		if err == nil {
			err = json.Unmarshal(raw, &schema)
		}
		if err != nil {
			return nil, fmt.Errorf("tools: vibe_spawn: output_schema is not a JSON Schema: %w; give an object such as {\"type\":\"object\",\"properties\":{...}}", err)
		}
	}
	brief := func(b string) string {
		if strings.TrimSpace(a.Context) == "" {
			return b
		}
		return strings.TrimRight(a.Context, "\n") + "\n\n" + b
	}
	switch {
	case len(a.Tasks) > 0 && a.Brief != "":
		return nil, errors.New("tools: vibe_spawn: give brief for one worker or tasks for a batch, not both")
	case len(a.Tasks) > MaxSpawnTasks:
		return nil, fmt.Errorf("tools: vibe_spawn: %d tasks, over the %d limit: spawn the rest in another call", len(a.Tasks), MaxSpawnTasks)
	case len(a.Tasks) == 0:
		if strings.TrimSpace(a.Brief) == "" {
			return nil, errors.New("tools: vibe_spawn: no brief: give brief (one worker) or tasks (a batch, [{brief, label}])")
		}
		return []workers.Spec{{Brief: brief(a.Brief), Label: a.Label, Tier: a.Tier, OutputSchema: schema, Isolated: a.Isolated}}, nil
	}
	specs := make([]workers.Spec, len(a.Tasks))
	for i, t := range a.Tasks {
		if strings.TrimSpace(t.Brief) == "" {
			return nil, fmt.Errorf("tools: vibe_spawn: %s has an empty brief: say what that worker should do; nothing was started", a.taskName(i))
		}
		tier := t.Tier
		if tier == "" {
			tier = a.Tier
		}
		specs[i] = workers.Spec{Brief: brief(t.Brief), Label: t.Label, Tier: tier, OutputSchema: schema, Isolated: a.Isolated}
	}
	return specs, nil
}

// taskName names the i-th worker of a call in messages.
func (a *spawnArgs) taskName(i int) string {
	if len(a.Tasks) == 0 {
		return "the worker"
	}
	if l := a.Tasks[i].Label; l != "" {
		return fmt.Sprintf("task %d (%s)", i+1, l)
	}
	return fmt.Sprintf("task %d", i+1)
}

func (v *vibe) send(ctx context.Context, call *Call, a sendArgs) (*Result, workers.Info, error) {
	was := v.info(a.WorkerID).Status
	if err := v.ws.Send(a.WorkerID, a.Message); err != nil {
		return nil, workers.Info{}, err
	}
	info := v.info(a.WorkerID)
	var msg string
	switch {
	case info.Resumed:
		msg = fmt.Sprintf("Worker %s (%s) continues its conversation with your message (run %d, its %s tier's resume command).", info.ID, info.Label, info.Runs, info.Tier)
	case was == workers.Running:
		msg = fmt.Sprintf("Worker %s (%s) was stopped mid-run and is running again from the start with the message appended to its brief (run %d).", info.ID, info.Label, info.Runs)
	default:
		msg = fmt.Sprintf("Worker %s (%s) is running again with the message appended to its brief (run %d). Its %s tier has no resume command, so it does not keep its conversation: it starts over with the brief and every message so far (its last result is in the file last_result of $%s).",
			info.ID, info.Label, info.Runs, info.Tier, workers.EnvState)
	}
	res := Text(msg)
	return res, info, nil
}

func (v *vibe) wait(ctx context.Context, call *Call, a waitArgs) (*Result, VibeReport, error) {
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
		return nil, VibeReport{}, fmt.Errorf("tools: vibe_wait %s: %w", a.WorkerID, err)
	}
	var b strings.Builder
	switch {
	case !rep.Finished:
		fmt.Fprintf(&b, "Worker %s (%s) is still running after %s. Call vibe_wait again to keep waiting, or vibe_kill to stop it.",
			rep.ID, rep.Label, rep.Elapsed.Round(time.Millisecond))
	case rep.Status == workers.Done:
		fmt.Fprintf(&b, "Worker %s (%s, %s tier) is done after %s (run %d).", rep.ID, rep.Label, rep.Tier, rep.Elapsed, rep.Runs)
		switch {
		case !rep.SchemaChecked:
			b.WriteString(" Result:\n")
		case rep.SchemaError == "":
			b.WriteString(" The result conforms to the output schema. Result:\n")
		default:
			fmt.Fprintf(&b, " The result does NOT conform to the output schema: %s\nResult (non-conforming):\n", rep.SchemaError)
		}
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
	var staged *StagedDiff
	if rep.Finished && rep.Changes != nil {
		b.WriteString("\n\n")
		var err error
		if staged, err = v.stageChanges(rep, &b); err != nil {
			return nil, VibeReport{}, err
		}
	}
	res := Text(b.String())
	if staged != nil {
		staged.attachWhole(res)
	}
	return res, VibeReport{Report: rep, Staged: staged}, nil
}

// VibeReport is vibe_wait's Structured result: the worker's report and, for
// an isolated worker that changed files, the edit they were staged as.
type VibeReport struct {
	workers.Report
	Staged *StagedDiff `json:"staged,omitempty"`
}

// stageChanges stages what an isolated worker's run changed in its
// worktree as one edit for resolve (once per run: a second wait names the
// same edit) and writes what it did to b.
func (v *vibe) stageChanges(rep workers.Report, b *strings.Builder) (*StagedDiff, error) {
	c := rep.Changes
	if len(c.LeftOut) > 0 {
		fmt.Fprintf(b, "Not carried over from its worktree: %s\n", strings.Join(c.LeftOut, "; "))
	}
	switch {
	case c.Err != "":
		fmt.Fprintf(b, "Its worktree's changes could not be read: %s", c.Err)
		return nil, nil
	case len(c.Files) == 0:
		fmt.Fprintf(b, "It changed no file in its worktree (base %.12s); nothing was staged.", c.Base)
		return nil, nil
	case v.run == nil || v.run.cfg.WorkDir == "":
		fmt.Fprintf(b, "It changed %s in its worktree, but this run has no working directory to stage them in (start tether with one); nothing was staged.", plural(len(c.Files), "file"))
		return nil, nil
	}
	key := fmt.Sprintf("%s#%d", rep.ID, rep.ResultRun)
	plan := &search.Plan{Source: "vibe_spawn with isolated", Replacements: len(c.Files)}
	for _, f := range c.Files {
		plan.Changes = append(plan.Changes, search.FileChange{
			Path: filepath.Join(v.ws.Dir(), filepath.FromSlash(f.Path)), Display: f.Path,
			Old: f.Old, New: f.New, Create: f.Create, Delete: f.Delete, Replacements: 1,
		})
	}
	v.mu.Lock()
	id, seen := v.staged[key]
	var dropped []string
	if !seen {
		id, dropped = v.run.stager().StageDropping(plan)
		v.staged[key] = id
	}
	v.mu.Unlock()
	if p, ok := v.run.stager().Pending(id); ok {
		plan = p
	} else if seen {
		fmt.Fprintf(b, "Its changes were staged as %s, which is already resolved or dropped; vibe_send the worker to run again for a new edit.", id)
		return nil, nil
	}
	deleted := ""
	if n := countDeleted(plan); n > 0 {
		deleted = fmt.Sprintf(" (%d deleted)", n)
	}
	fmt.Fprintf(b, "(proposed) its changes to %s%s, made against commit %.12s, are staged; nothing written yet: call resolve with edit_id %q and action \"accept\" to apply or \"discard\" to drop it (a file changed in the workdir since that commit, or one it deletes already gone, rejects the whole edit)\n",
		plural(len(plan.Changes), "file"), deleted, c.Base, id)
	b.WriteString(droppedNote(dropped))
	diff, st, err := stagedDiff(id, plan, "", 0)
	if err != nil {
		return nil, err
	}
	b.WriteString(diff)
	return st, nil
}

// countDeleted is how many files accepting p deletes.
func countDeleted(p *search.Plan) int {
	n := 0
	for _, c := range p.Changes {
		if c.Delete {
			n++
		}
	}
	return n
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

func (v *vibe) kill(ctx context.Context, call *Call, a workerArgs) (*Result, workers.Info, error) {
	info, err := v.ws.Kill(a.WorkerID)
	if err != nil {
		return nil, workers.Info{}, err
	}
	msg := fmt.Sprintf("Worker %s (%s) was stopped with every process it started.", info.ID, info.Label)
	if info.Status != workers.Killed {
		msg = fmt.Sprintf("Worker %s (%s) had already ended (%s); nothing was running.", info.ID, info.Label, info.Status)
	}
	res := Text(msg)
	return res, info, nil
}

// VibeList is vibe_list's Structured result: every worker of the roster,
// oldest first; an empty roster is an empty list. The list is put in an
// object, as an MCP structuredContent must be. Each worker's limits are
// left out, as the text leaves them out (vibe_spawn reports them): repeated
// for every worker they would outgrow the text and be dropped.
type VibeList struct {
	Workers []workers.Info `json:"workers"`
}

func (v *vibe) list(ctx context.Context, call *Call, _ struct{}) (*Result, *VibeList, error) {
	infos := v.ws.List()
	for i := range infos {
		infos[i].Limits = ""
	}
	if len(infos) == 0 {
		return Text("No workers yet; vibe_spawn starts one."), &VibeList{Workers: infos}, nil
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
	return Text(strings.TrimRight(b.String(), "\n")), &VibeList{Workers: infos}, nil
}

func (v *vibe) info(id string) workers.Info {
	for _, in := range v.ws.List() {
		if in.ID == id {
			return in
		}
	}
	return workers.Info{ID: id}
}
