package workers

import "context"
import "errors"
import "fmt"
import "maps"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "sort"
import "strconv"
import "strings"
import "sync"
import "syscall"
import "time"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/textcut"

// The tiers a worker can run at.
const (
	// Fast is for mechanical work with a clear spec.
	Fast = "fast"
	// Good is for design, judgment, or reviewing fast-tier output.
	Good = "good"
)

// Status is where a worker is.
type Status string

// Worker statuses.
const (
	Running Status = "running"
	Done    Status = "done"
	Failed  Status = "failed"
	Killed  Status = "killed"
)

// Bounds on what a worker keeps.
const (
	// MaxResultBytes caps a run's stdout; the rest is dropped and the result says so.
	MaxResultBytes = 256 << 10
	// maxLogBytes caps the stderr kept (the last bytes are kept).
	maxLogBytes = 64 << 10
	// MaxBriefBytes caps a brief, sends included.
	MaxBriefBytes = 256 << 10
	// MaxWorkers caps how many workers a roster holds.
	MaxWorkers = 64
)

// ErrUnknownWorker is returned for a worker id the roster does not hold.
var ErrUnknownWorker = errors.New("workers: no such worker")

// Config configures a Roster.
type Config struct {
	// Commands maps a tier to the shell command line that starts a worker of
	// that tier ("claude -p --model x"). It runs with /bin/sh -c.
	Commands map[string]string
	// Resume maps a tier to the command line that continues a finished
	// worker's conversation ("claude -p --continue"): a follow-up (Send to
	// a worker that has ended) runs it with only the message on stdin, in
	// the same state directory (EnvState) and worktree. A tier without one
	// is rerun from the start with its brief and every message so far.
	Resume map[string]string
	// Dir is the workers' working directory ("" for the current one).
	Dir string
	// Env is added to a worker's environment ("NAME=VALUE"). A worker
	// gets none of tether's own environment but PATH, the locale, the
	// toolchains' variables, the names the operator passes to every process
	// and PassEnv; its HOME is its state directory (EnvState).
	Env []string
	// PassEnv names variables of tether's environment workers get (the
	// agent's API key, say; HOME to keep the operator's home) (--worker-env).
	PassEnv []string
	// Surface is the surface the operator configured for workers
	// (--worker-surface: default, plan or readonly); "" passes the run's own
	// (SetLimits). A run on a read-only surface starts workers only when the
	// operator configured one.
	Surface string
	// ReadOnly and ReadWrite are what a worker's sandbox grants beyond Dir
	// (read-write) and its command's own install (read-only): the agent's
	// configuration and credentials, say (--worker-read, --worker-write).
	ReadOnly, ReadWrite []string
	// ProcessLimit caps the tasks (processes and threads) of one run of a
	// worker, its command and what it starts, at once, with a pids cgroup:
	// DefaultProcessLimit when zero, none when negative.
	ProcessLimit int
	// AddressSpaceLimit is the address-space limit (RLIMIT_AS, in bytes)
	// of a worker's command and each process it starts:
	// DefaultAddressSpaceLimit when zero, none when negative.
	AddressSpaceLimit int64
}

// Environment variables that tell a worker the run's limits.
const (
	// EnvSurface is the surface the worker must keep to: default, plan or
	// readonly (read-only: no file changes, no process starts).
	EnvSurface = "TETHER_WORKER_SURFACE"
	// EnvApprove is the run's approval policy for write and exec actions, in
	// the form tether's --approve reads ("*=deny", "write=allow,exec=ask").
	EnvApprove = "TETHER_WORKER_APPROVE"
	// EnvState is the worker's own directory, kept across its runs and
	// removed with it: a command keeps its conversation there to continue
	// it on a follow-up. The last run's result is in its file last_result.
	EnvState = "TETHER_WORKER_STATE"
	// EnvRun is the run's number: 1 for the brief, more for a follow-up.
	EnvRun = "TETHER_WORKER_RUN"
)

// ParseWorkerFlag parses a --worker value "TIER=CMD ARGS".
func ParseWorkerFlag(v string) (tier, command string, err error) {
	tier, command, ok := strings.Cut(v, "=")
	tier = strings.TrimSpace(tier)
	command = strings.TrimSpace(command)
	if !ok || command == "" {
		return "", "", fmt.Errorf("workers: --worker %q: want TIER='COMMAND ARGS', e.g. fast='my-agent --quick'", v)
	}
	if tier != Fast && tier != Good {
		return "", "", fmt.Errorf("workers: --worker %q: unknown tier %q: use fast or good", v, tier)
	}
	return tier, command, nil
}

// Roster holds a run's workers.
type Roster struct {
	cfg Config

	mu      sync.Mutex
	next    int
	workers map[string]*worker
	closed  bool
	// The run's limits (SetLimits): its surface and approval policy.
	runSurface, approve string
}

// SetLimits records the run's surface and approval policy ("plan",
// "*=deny"); every worker started from now on is told them in its
// environment (EnvSurface: Config.Surface when the operator set one, else
// surface; EnvApprove: approve). The run calls it when it wires the roster.
func (r *Roster) SetLimits(surface, approve string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runSurface, r.approve = surface, approve
}

// Surface is the surface workers are told to keep to, and whether the
// operator configured it (Config.Surface) rather than passing the run's own.
func (r *Roster) Surface() (surface string, configured bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg.Surface != "" {
		return r.cfg.Surface, true
	}
	return r.runSurface, false
}

// New returns a roster. At least one tier must have a command.
func New(cfg Config) (*Roster, error) {
	if len(cfg.Commands) == 0 {
		return nil, errors.New("workers: no worker command configured: pass --worker fast='CMD ARGS' and/or --worker good='CMD ARGS'")
	}
	for t, c := range cfg.Commands {
		if t != Fast && t != Good {
			return nil, fmt.Errorf("workers: unknown tier %q: use fast or good", t)
		}
		if strings.TrimSpace(c) == "" {
			return nil, fmt.Errorf("workers: the %s tier's command is empty", t)
		}
	}
	for t, c := range cfg.Resume {
		if _, ok := cfg.Commands[t]; !ok {
			return nil, fmt.Errorf("workers: a resume command for the %s tier, which has no command: give it one with --worker %s='CMD' too", t, t)
		}
		if strings.TrimSpace(c) == "" {
			return nil, fmt.Errorf("workers: the %s tier's resume command is empty", t)
		}
	}
	return &Roster{cfg: cfg, workers: map[string]*worker{}}, nil
}

// Dir is the workers' working directory, absolute ("" when it cannot be
// found).
func (r *Roster) Dir() string {
	d, err := filepath.Abs(r.cfg.Dir)
	if err != nil {
		return ""
	}
	return d
}

// Tiers lists the configured tiers.
func (r *Roster) Tiers() []string {
	var ts []string
	for t := range r.cfg.Commands {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return ts
}

type worker struct {
	id, label, tier string
	limits          string // the caps of the current (or last) run
	brief           string
	started         time.Time // of the current run
	ended           time.Time
	runs            int
	status          Status
	result          string
	resultRun       int // the run result is from
	truncated       bool
	exitErr         string
	log             *textcut.Tail // the current run's stderr
	unread          bool
	cmd             *exec.Cmd
	done            chan struct{} // closed when the current run ends
	killing         bool
	schema          *outputSchema // what the result must conform to, or nil
	tree            *tree         // the worker's own worktree (isolated), or nil
	schemaErr       string        // why the last result does not conform
	changes         *Changes      // what the last run left in the worktree
	state           string        // the worker's own directory (EnvState)
	resumed         bool          // the current run continues the last one's conversation
	isolated        bool          // spawned isolated (tree is nil once removed)
}

// Info describes a worker, as vibe_list shows it.
type Info struct {
	ID      string        `json:"id"`
	Label   string        `json:"label"`
	Tier    string        `json:"tier"`
	Status  Status        `json:"status"`
	Runs    int           `json:"runs"`
	Elapsed time.Duration `json:"elapsed"`
	// ResultTail is the end of the last result (stdout) of a run that ended;
	// while a rerun is under way it is the previous run's.
	ResultTail string `json:"result_tail,omitempty"`
	// ResultRun is the run ResultTail is from (0: no run has ended yet).
	ResultRun int `json:"result_run,omitempty"`
	// Unread says the last result has not been returned by Wait yet.
	Unread bool `json:"unread,omitempty"`
	// Resumed says the current (or last) run is a follow-up that continued
	// the conversation with the tier's resume command (Config.Resume).
	Resumed bool `json:"resumed,omitempty"`
	// Limits says the caps the current (or last) run is under
	// ("processes: at most 256 processes and threads at once (cgroup v2
	// pids.max), ..."), or why there is none.
	Limits string `json:"limits,omitempty"`
}

// Report is what Wait returns.
type Report struct {
	Info
	// Finished is false when Wait gave up before the worker ended.
	Finished bool `json:"finished"`
	// Result is the run's whole stdout (bounded by MaxResultBytes).
	Result string `json:"result"`
	// Truncated says Result was cut at MaxResultBytes.
	Truncated bool `json:"truncated,omitempty"`
	// Exit describes how a failed run ended ("exit status 3").
	Exit string `json:"exit,omitempty"`
	// LogTail is the end of the run's stderr.
	LogTail string `json:"log_tail,omitempty"`
	// SchemaChecked says the worker was spawned with an output schema and
	// Result was checked against it; SchemaError is then why it does not
	// conform ("" when it does).
	SchemaChecked bool   `json:"schema_checked,omitempty"`
	SchemaError   string `json:"schema_error,omitempty"`
	// Changes, for an isolated worker, are what its worktree holds that
	// its base commit does not, read when the run ended.
	Changes *Changes `json:"changes,omitempty"`
}

// Spec describes a worker to start.
type Spec struct {
	// Brief is the whole task, given on stdin.
	Brief string
	// Label is a short name ("" means the id).
	Label string
	// Tier is fast or good ("" means fast, or the only tier configured).
	Tier string
	// OutputSchema, when set, is the JSON Schema the worker's result (its
	// stdout: one JSON value, or a ```json block) must conform to. The brief
	// says so and EnvOutputSchema holds it; each result is checked
	// (Report.SchemaError).
	OutputSchema *jsonschema.Schema
	// Isolated runs the worker in its own git worktree of Config.Dir (which
	// must be in a git repository with a commit), made at HEAD in a scratch
	// directory; the sandbox lets it write there and not in Config.Dir. What
	// it changed comes back in Report.Changes; the worktree is removed when
	// the worker is killed, dropped or the roster closed.
	Isolated bool
}

// Spawn starts a worker at tier ("" means fast, or the only tier configured)
// and returns its id at once.
func (r *Roster) Spawn(brief, label, tier string) (string, error) {
	return r.Start(Spec{Brief: brief, Label: label, Tier: tier})
}

// Check reports what Start would refuse s for, without starting anything
// (a batch is checked whole before any of it starts). An isolated spawn's
// repository is checked by Start itself.
func (r *Roster) Check(s Spec) error {
	_, _, err := r.check(s)
	return err
}

func (r *Roster) check(s Spec) (tier string, schema *outputSchema, err error) {
	brief, tier := s.Brief, s.Tier
	if strings.TrimSpace(brief) == "" {
		return "", nil, errors.New("workers: the brief is empty: say what the worker should do")
	}
	if len(brief) > MaxBriefBytes {
		return "", nil, fmt.Errorf("workers: the brief is %d bytes, over the %d limit", len(brief), MaxBriefBytes)
	}
	if tier == "" {
		tier = Fast
		if _, ok := r.cfg.Commands[Fast]; !ok {
			tier = Good
		}
	}
	if tier != Fast && tier != Good {
		return "", nil, fmt.Errorf("workers: unknown tier %q: use fast (mechanical work with a clear spec) or good (design, judgment, review)", tier)
	}
	if _, ok := r.cfg.Commands[tier]; !ok {
		return "", nil, fmt.Errorf("workers: no command is configured for the %s tier (configured: %s); spawn with one of those tiers, or ask the user to start tether with --worker %s='CMD'", tier, strings.Join(r.Tiers(), ", "), tier)
	}
	if s.OutputSchema != nil {
		if schema, err = compileSchema(s.OutputSchema); err != nil {
			return "", nil, err
		}
		if len(brief)+len(schema.instruction()) > MaxBriefBytes {
			return "", nil, fmt.Errorf("workers: the brief with its output schema is %d bytes, over the %d limit", len(brief)+len(schema.instruction()), MaxBriefBytes)
		}
	}
	return tier, schema, nil
}

// Start starts the worker s describes and returns its id at once.
func (r *Roster) Start(s Spec) (string, error) {
	tier, schema, err := r.check(s)
	if err != nil {
		return "", err
	}
	brief := s.Brief
	if schema != nil {
		brief += schema.instruction()
	}
	state, err := os.MkdirTemp("", "tether-worker-state-")
	if err != nil {
		return "", fmt.Errorf("workers: cannot make the worker's state directory: %w", err)
	}
	var t *tree
	if s.Isolated {
		if t, err = newTree(r.cfg.Dir); err != nil {
			os.RemoveAll(state)
			return "", err
		}
	}
	label := strings.TrimSpace(s.Label)
	r.mu.Lock()
	id, evicted, err := r.startNewLocked(brief, label, tier, schema, t, state)
	r.mu.Unlock()
	if evicted != nil {
		evicted.release()
	}
	if err != nil {
		os.RemoveAll(state)
		if t != nil {
			t.remove()
		}
	}
	return id, err
}

// release removes what a worker that has ended holds on disk: its worktree
// and its state directory.
func (w *worker) release() {
	if w.tree != nil {
		w.tree.remove()
	}
	if w.state != "" {
		os.RemoveAll(w.state)
	}
}

// startNewLocked adds a worker and starts its first run. r.mu is held.
func (r *Roster) startNewLocked(brief, label, tier string, schema *outputSchema, t *tree, state string) (id string, evicted *worker, err error) {
	if r.closed {
		return "", nil, errors.New("workers: the roster is closed")
	}
	if len(r.workers) >= MaxWorkers {
		evicted = r.evictLocked()
	}
	if len(r.workers) >= MaxWorkers {
		return "", nil, fmt.Errorf("workers: %d workers hold running work or unread results: collect finished results with vibe_wait (stop running workers with vibe_kill, then collect them)", MaxWorkers)
	}
	r.next++
	w := &worker{id: "w" + strconv.Itoa(r.next), label: label, tier: tier, brief: brief, schema: schema, tree: t, state: state, isolated: t != nil}
	if w.label == "" {
		w.label = w.id
	}
	if err := r.startLocked(w, r.cfg.Commands[tier], brief); err != nil {
		r.next--
		return "", evicted, err
	}
	r.workers[w.id] = w
	return w.id, evicted, nil
}

// evictLocked drops the oldest worker that has ended and whose result was
// read, making room for a new one, and returns it (its worktree is the
// caller's to remove). Unread results are kept. r.mu is held.
func (r *Roster) evictLocked() *worker {
	var oldest *worker
	for _, w := range r.workers {
		if w.status == Running || w.unread {
			continue
		}
		if oldest == nil || idNum(w.id) < idNum(oldest.id) {
			oldest = w
		}
	}
	if oldest != nil {
		delete(r.workers, oldest.id)
	}
	return oldest
}

func idNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "w"))
	return n
}

// startLocked starts a new run of w: command, given stdin. r.mu is held.
func (r *Roster) startLocked(w *worker, command, stdin string) error {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = r.cfg.Dir
	if w.tree != nil {
		cmd.Dir = w.tree.dir()
	}
	surface := r.cfg.Surface
	if surface == "" {
		surface = r.runSurface
	}
	if surface == "" {
		surface = "default"
	}
	approve := r.approve
	if approve == "" {
		approve = "*=ask"
	}
	cmd.Env = append(append(os.Environ(), r.cfg.Env...),
		"TETHER_WORKER_ID="+w.id, "TETHER_WORKER_LABEL="+w.label, "TETHER_WORKER_TIER="+w.tier,
		EnvSurface+"="+surface, EnvApprove+"="+approve)
	if w.schema != nil {
		cmd.Env = append(cmd.Env, EnvOutputSchema+"="+string(w.schema.raw))
	}
	if w.state != "" {
		cmd.Env = append(cmd.Env, EnvState+"="+w.state)
	}
	cmd.Env = append(cmd.Env, EnvRun+"="+strconv.Itoa(w.runs+1))
	cmd.Stdin = strings.NewReader(stdin)
	out := &textcut.Head{Max: MaxResultBytes}
	w.log = &textcut.Tail{Max: maxLogBytes}
	cmd.Stdout, cmd.Stderr = out, w.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	caps := proc.NewCaps("worker", r.cfg.processLimit(), r.cfg.addressSpaceLimit(), "the command and what it starts")
	if err := r.sandbox(cmd, command, w, caps); err != nil {
		caps.Stop()
		return fmt.Errorf("workers: cannot start the %s worker: %w", w.tier, err)
	}
	// A process the worker left behind may hold stdout open; do not wait on it
	// for long once the worker itself has exited (it is killed with the group).
	cmd.WaitDelay = 2 * time.Second
	if err := proc.Start(cmd); err != nil {
		caps.Stop()
		return fmt.Errorf("workers: cannot start the %s worker: %w", w.tier, err)
	}
	caps.Started(cmd.Process.Pid)
	w.limits = caps.Describe()
	done := make(chan struct{})
	w.cmd, w.done = cmd, done
	// The previous run's result stays readable (vibe_list's last result)
	// until this run ends.
	w.status, w.exitErr, w.unread, w.killing = Running, "", false, false
	w.started, w.ended = time.Now(), time.Time{}
	w.runs++
	schema, t, state := w.schema, w.tree, w.state
	go func() {
		err := cmd.Wait()
		// The run is over; make sure nothing it started lives on, in its
		// process group or out of it.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		caps.Stop()
		result, truncated := out.String(), out.Cut()
		schemaErr := ""
		if schema != nil {
			schemaErr = schema.check(result, truncated)
		}
		if state != "" {
			// For the next run's command: what this one answered.
			os.WriteFile(filepath.Join(state, "last_result"), []byte(result), 0o600)
		}
		var changes *Changes
		if t != nil {
			// The group is gone: nothing writes the worktree any more.
			waitGroupGone(cmd.Process.Pid)
			c := t.changes()
			changes = &c
		}
		r.mu.Lock()
		if w.cmd == cmd {
			w.ended = time.Now()
			w.result, w.truncated, w.resultRun = result, truncated, w.runs
			w.schemaErr, w.changes = schemaErr, changes
			w.unread = true
			switch {
			case w.killing:
				w.status = Killed
			case err != nil:
				w.status = Failed
				w.exitErr = err.Error()
			default:
				w.status = Done
			}
			w.cmd = nil
		}
		r.mu.Unlock()
		close(done)
	}()
	return nil
}

// stop kills w's live run and its process group and waits for it to end.
func (r *Roster) stop(w *worker) {
	r.mu.Lock()
	cmd, done := w.cmd, w.done
	if cmd != nil {
		w.killing = true
	}
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	waitGroupGone(cmd.Process.Pid)
}

// waitGroupGone waits until no process of the group is left running (at most
// about ten seconds, for a machine under heavy load). Zombies do not count:
// they run nothing and are their new parent's to reap. A process that left the
// group (setsid) is out of reach.
func waitGroupGone(pgid int) {
	for i := 0; i < 2000 && groupRunning(pgid); i++ {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		time.Sleep(5 * time.Millisecond)
	}
}

// groupRunning reports whether a process of group pgid is running. It reads
// /proc where there is one, since signal 0 also reaches zombies.
func groupRunning(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parens.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if pg, _ := strconv.Atoi(f[2]); pg == pgid {
			return true
		}
	}
	return false
}

func (r *Roster) get(id string) (*worker, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.workers[id]
	if !ok {
		return nil, fmt.Errorf("%w %q: vibe_list shows the roster", ErrUnknownWorker, id)
	}
	return w, nil
}

// Send gives the worker a follow-up. A worker that has ended, on a tier
// with a resume command (Config.Resume), continues its conversation: the
// resume command gets only message (Info.Resumed). Otherwise, and for a
// worker still running (which is stopped first), message is appended to
// the brief and the worker reruns from the start. Either way the brief
// keeps the message, and the worker keeps its state directory and
// worktree.
func (r *Roster) Send(id, message string) error {
	if strings.TrimSpace(message) == "" {
		return errors.New("workers: the message is empty")
	}
	w, err := r.get(id)
	if err != nil {
		return err
	}
	r.stop(w)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errors.New("workers: the roster is closed")
	}
	brief := w.brief + "\n\n" + message
	if len(brief) > MaxBriefBytes {
		return fmt.Errorf("workers: the brief would be %d bytes, over the %d limit: spawn a fresh worker with a shorter brief", len(brief), MaxBriefBytes)
	}
	command, stdin, resumed := r.cfg.Commands[w.tier], brief, false
	if w.isolated && w.tree == nil {
		return fmt.Errorf("workers: %s's worktree was removed when it was killed: spawn a new isolated worker", w.id)
	}
	// A run stop just cut (or vibe_kill did) has no conversation to continue.
	if rc, ok := r.cfg.Resume[w.tier]; ok && w.status != Killed {
		command, stdin, resumed = rc, message, true
		if w.schema != nil {
			stdin += w.schema.instruction()
		}
	}
	w.brief = brief
	if err := r.startLocked(w, command, stdin); err != nil {
		return err
	}
	w.resumed = resumed
	return nil
}

// Wait blocks until the worker's current run ends, ctx is done, or timeout
// passes (0: no timeout). A worker still running is reported with Finished
// false; that is not an error.
func (r *Roster) Wait(ctx context.Context, id string, timeout time.Duration) (Report, error) {
	w, err := r.get(id)
	if err != nil {
		return Report{}, err
	}
	r.mu.Lock()
	done := w.done
	r.mu.Unlock()
	var tc <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		tc = t.C
	}
	select {
	case <-done:
	case <-tc:
	case <-ctx.Done():
		return Report{}, ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := Report{Info: w.infoLocked()}
	if w.status == Running {
		return rep, nil
	}
	rep.Finished = true
	rep.Result, rep.Truncated, rep.Exit = w.result, w.truncated, w.exitErr
	rep.LogTail = tail(w.log.String(), 2000)
	rep.SchemaChecked, rep.SchemaError, rep.Changes = w.schema != nil, w.schemaErr, w.changes
	w.unread = false
	rep.Unread = false
	return rep, nil
}

// Kill stops the worker's whole process tree and removes its worktree, if
// it has one. Killing a finished worker is not an error.
func (r *Roster) Kill(id string) (Info, error) {
	w, err := r.get(id)
	if err != nil {
		return Info{}, err
	}
	r.stop(w)
	r.dropTree(w)
	r.mu.Lock()
	defer r.mu.Unlock()
	return w.infoLocked(), nil
}

// dropTree removes w's worktree and state directory, once; its last run
// must have ended.
func (r *Roster) dropTree(w *worker) {
	r.mu.Lock()
	gone := &worker{tree: w.tree, state: w.state}
	w.tree, w.state = nil, ""
	r.mu.Unlock()
	gone.release()
}

// List returns every worker, oldest first.
func (r *Roster) List() []Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Info, 0, len(r.workers))
	for _, w := range r.workers {
		out = append(out, w.infoLocked())
	}
	sort.Slice(out, func(i, j int) bool { return idNum(out[i].ID) < idNum(out[j].ID) })
	return out
}

// Close kills every live worker and refuses new ones.
func (r *Roster) Close() error {
	r.mu.Lock()
	r.closed = true
	ws := slices.Collect(maps.Values(r.workers))
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() { defer wg.Done(); r.stop(w); r.dropTree(w) }()
	}
	wg.Wait()
	return nil
}

// resultTailBytes is how much of the last result List shows.
const resultTailBytes = 300

func (w *worker) infoLocked() Info {
	end := w.ended
	if w.status == Running {
		end = time.Now()
	}
	return Info{
		ID: w.id, Label: w.label, Tier: w.tier, Status: w.status, Runs: w.runs,
		Elapsed:    end.Sub(w.started).Round(time.Millisecond),
		ResultTail: tail(strings.TrimSpace(w.result), resultTailBytes),
		ResultRun:  w.resultRun,
		Unread:     w.unread,
		Resumed:    w.resumed,
		Limits:     w.limits,
	}
}

// tail returns the last n bytes of s (on a rune boundary), marked when cut.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + textcut.Suffix(s, n)
}
