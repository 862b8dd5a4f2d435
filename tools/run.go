package tools

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "log/slog"
import "sort"
import "strings"
import "sync"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/operator"
import "github.com/tetherhq/tether/search/stage"
import "github.com/tetherhq/tether/workers"

// Config wires one run: its working directory and conversation, the surface and
// approval policy its calls go through, and the options of each tool family.
// A family's tools are registered only when its options wire it (docs/tools.md);
// the file tools are always there. The zero value of a family's options leaves
// the family out.
type Config struct {
	// WorkDir is the working directory; the file tools are confined to it.
	// Required.
	WorkDir string
	// ConversationID names the conversation (the debugger keys its one session
	// per conversation on it).
	ConversationID string
	// Surface decides which tools are listed and callable. The zero value means
	// SurfaceDefault.
	Surface Surface
	// Policy decides whether write and exec calls are allowed, denied or asked
	// about. The zero value asks.
	Policy Policy
	// Approver asks a human when Policy says ask. Nil means no approver is
	// connected: such calls fail closed. Run.SetApprover can connect one later.
	Approver Approver

	// The tool families. Each family adds its field below (a small local edit)
	// and registers itself with addFamily from its own file.

	// Search wires ast_grep and ast_edit, and with them resolve, when it has
	// a Parser (tools/astgrep.go).
	Search SearchConfig
	// Ask wires ask_user when it has a question port and a target space
	// (tools/ask.go).
	Ask AskConfig
	// Vibe wires vibe_* when vibe mode is on and it has a worker roster
	// (tools/vibe.go).
	Vibe VibeConfig
	// Eval wires eval when it has a kernel factory (tools/eval.go).
	Eval EvalConfig
	// LSP is the run's language-server supervisor (tools/lsp.go): with WorkDir
	// it wires lsp, lsp_rename and diagnostics on write. Run.Close closes it.
	LSP *lsp.Supervisor
	// Debug is the debug-session supervisor; with WorkDir and ConversationID it
	// wires the debug tool (tools/debug.go).
	Debug *dap.Supervisor
}

// SearchConfig holds the options of the structural tools: ast_grep, ast_edit
// and resolve.
type SearchConfig struct {
	// Parser is the tree-sitter parser engine the structural tools parse
	// with; nil leaves them out.
	Parser matcher.Parser
	// WarmUp has ast_grep parse the working directory into the process's tree
	// store in the background from the run's start (search.Searcher.WarmUp),
	// yielding to every query and taking first the files a query parsed
	// only in chunks; the run's Close stops it. Its progress is in the lsp
	// tool's status and in a note on an ast_grep answered before it is done.
	WarmUp bool
	// Partition, when set, keeps the trees this run's searches parse apart
	// from those of runs with another in the process's tree store
	// (search.Config.Partition): tether serve --http gives each principal
	// its own, so that one tenant's searches do not tell it what another's
	// workspace holds.
	Partition string
}

// AskConfig holds the options of ask_user, which puts a question to the
// human operator.
type AskConfig struct {
	// Questions is the port that reaches the human operator; nil leaves
	// ask_user out.
	Questions operator.QuestionPort
	// TargetSpace names where questions are asked (shown on the card); ""
	// leaves ask_user out.
	TargetSpace string
	// Timeout bounds how long ask_user waits (0: operator.DefaultTimeout).
	Timeout time.Duration
	// DefaultAfter, when > 0, takes the recommended options of an ask_user
	// question nobody answered in that time (operator.Wait); 0, the default,
	// never answers for the operator.
	DefaultAfter time.Duration
}

// VibeConfig holds the options of vibe mode: the vibe_* tools, which start
// and steer background workers.
type VibeConfig struct {
	// On turns vibe mode on; without it the roster is not used.
	On bool
	// Workers is the background-worker roster; nil leaves vibe_* out. The
	// run owns it while vibe mode is on: Close kills every live worker.
	Workers *workers.Roster
}

// EvalConfig holds the options of eval, which runs code in a kernel.
type EvalConfig struct {
	// Kernels is the kernel factory; nil leaves eval out. The run owns the
	// kernels it starts: Close discards them all.
	Kernels *kernels.Factory
	// MaxTimeout bounds the timeout an eval call may ask for: a larger one
	// is clamped and the result says so (0: DefaultEvalMaxTimeout).
	MaxTimeout time.Duration
	// Enclosure, when set, looks up the conversation's enclosure (a
	// container or sandbox it already runs in) and returns the command
	// prefix that runs a process inside it, or nil when there is none: the
	// Python kernel then runs on the host. It is asked each time a kernel
	// process starts and is never asked to start an enclosure
	// (docs/tools.md, "eval").
	Enclosure func(conversationID string) []string
}

// family is one tool family: the tools bound to one kind of resource.
type family struct {
	// name identifies the family in errors ("files", "lsp", "debug").
	name string
	// wired reports whether cfg wires the family: its options in cfg, and
	// WorkDir or ConversationID where the family needs them. Nil means always.
	wired func(cfg *Config) bool
	// register builds the family's tools for r and registers them (r.reg),
	// returning a closer that releases what it started (nil if nothing).
	register func(r *Run) (closer func() error, err error)
	// tools builds the tools register registers, bound to no resource (their
	// handlers are never called), for what a run knows of the tools it does
	// not wire: their names and tiers (see catalog).
	tools func() []Tool
}

var (
	familiesMu sync.Mutex
	families   []family
)

// addFamily makes a tool family known to every run. Families call it from an
// init function in their own file (tools/<family>.go).
func addFamily(f family) {
	familiesMu.Lock()
	defer familiesMu.Unlock()
	if f.tools == nil {
		panic("tools: family " + f.name + " does not say which tools it has")
	}
	for _, g := range families {
		if g.name == f.name {
			panic("tools: family added twice: " + f.name)
		}
	}
	families = append(families, f)
	sort.Slice(families, func(i, j int) bool { return families[i].name < families[j].name })
}

type closer struct {
	name string
	fn   func() error
}

// Run is one conversation: its working directory, its resources and the tools
// bound to them. Run.Call is the single entry that the model's surface, `tether
// call` and the eval bridge all use, so the same surface, approvals and wrappers
// apply to every caller. Close tears everything down. A Run is safe for
// concurrent use.
type Run struct {
	cfg    Config
	root   *fsutil.Root
	reg    *registry
	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	approver  Approver
	closers   []closer
	closed    bool
	closeOnce sync.Once
	closeErr  error
	wired     []string
	notice    string // what recovery at start did, for the first call's result
	statuses  []func() string
	stage     *stage.Stager // the run's staged changes (stager)
	arts      artifactStore // output too large for a result (artifacts.go)
}

// NewRun starts a run: it checks the working directory, rolls back any change
// of several files that a crash cut short (see fsutil.Recover; the first
// call's result says so), and registers every tool family whose resource cfg
// wires. On error nothing is left running.
func NewRun(ctx context.Context, cfg Config) (*Run, error) {
	familiesMu.Lock()
	fams := append([]family(nil), families...)
	familiesMu.Unlock()
	return newRun(ctx, cfg, fams)
}

func newRun(ctx context.Context, cfg Config, fams []family) (*Run, error) {
	if cfg.WorkDir == "" {
		return nil, errors.New("tools: no working directory: set Config.WorkDir")
	}
	root, err := fsutil.NewRoot(cfg.WorkDir)
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	cfg.WorkDir = root.Dir()
	if cfg.Surface == (Surface{}) {
		cfg.Surface = SurfaceDefault
	}
	if cfg.Surface.Cap < TierRead || cfg.Surface.Cap > TierExec {
		return nil, fmt.Errorf("tools: surface %s has no valid tier cap", cfg.Surface)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &Run{cfg: cfg, root: root, reg: newRegistry(), ctx: rctx, cancel: cancel, approver: cfg.Approver, notice: recoverChanges()}
	r.OnClose("artifacts", r.arts.close)
	for _, f := range fams {
		if f.wired != nil && !f.wired(&r.cfg) {
			continue
		}
		c, err := f.register(r)
		if c != nil {
			r.OnClose(f.name, c)
		}
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("tools: wiring %s: %w", f.name, err)
		}
		r.wired = append(r.wired, f.name)
	}
	if err := r.checkPolicy(fams); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// recoverChanges rolls back every multi-file change a crash cut short
// (fsutil.Recover), before any tool runs, and says what it did: on stderr
// (slog) and, through the returned notice, at the head of the run's first
// call result, so the agent learns that files it changed are back as they
// were. "" when there was nothing to recover.
func recoverChanges() string {
	recs, err := fsutil.Recover()
	var lines []string
	if err != nil {
		lines = append(lines, fmt.Sprintf("tether could not look for changes cut short by a crash: %v", err))
	}
	for _, rec := range recs {
		lines = append(lines, "tether, on start: "+rec.String())
	}
	for _, l := range lines {
		slog.Warn(l)
	}
	return strings.Join(lines, "\n")
}

// catalog returns every tool of fams with its tier, whether or not a given
// run wires it: what each family's tools func builds.
func catalog(fams []family) map[string]Tier {
	out := map[string]Tier{}
	for _, f := range fams {
		for _, t := range f.tools() {
			out[t.Name] = t.Tier
		}
	}
	return out
}

// checkPolicy refuses a policy entry for a tool that cannot apply: a name
// that is neither one of the run's tools nor one of tether's (a typo in
// "debug=deny" must not leave debug to the default) or a read-tier tool
// (never asked about). tether's own tools that this run does not wire are
// accepted, so one policy can serve runs wired differently: fams's catalog
// holds them.
func (r *Run) checkPolicy(fams []family) error {
	for t := range r.cfg.Policy.Tiers {
		if t < TierWrite || t > TierExec {
			return fmt.Errorf("tools: the approval policy has an entry for the %s tier: read-tier tools never need approval; set write or exec instead", t)
		}
	}
	names := make([]string, 0, len(r.cfg.Policy.Tools))
	for n := range r.cfg.Policy.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	var known map[string]Tier // built when a name is not the run's
	for _, n := range names {
		t, ok := r.reg.Lookup(n)
		if !ok {
			if known == nil {
				known = catalog(fams)
			}
			if tier, ok := known[n]; ok {
				// One of tether's tools that this run does not wire: a policy
				// shared by runs with different resources stays valid.
				if tier == TierRead {
					return fmt.Errorf("tools: the approval policy names %s, a read-tier tool: read-tier tools never need approval; leave the entry out", n)
				}
				continue
			}
			var gated []string
			for _, t := range r.reg.All() {
				if t.Tier > TierRead {
					gated = append(gated, t.Name)
				}
			}
			return fmt.Errorf("tools: the approval policy names %q, which is not a tool of this run; its write and exec tools are %s (check the spelling, or leave the entry out)", n, strings.Join(gated, ", "))
		}
		if t.Tier == TierRead {
			return fmt.Errorf("tools: the approval policy names %s, a read-tier tool: read-tier tools never need approval; leave the entry out", n)
		}
	}
	return nil
}

// Call calls the named tool with JSON arguments on the run's surface, under
// its approval policy and approver, through every wrapper: the one way to
// call a tool, for the model's surface, `tether call`, the eval bridge and
// an embedder alike. It always returns a non-nil Result. The error is
// non-nil when the call was refused (unknown tool, tier above the surface's
// cap, invalid arguments, denied, declined, no approver connected: test
// with errors.Is against ErrUnknownTool, ErrNotOnSurface, ErrInvalidArgs,
// ErrDenied, ErrDeclined, ErrNoApprover) or when the tool failed; the
// Result is then an error result carrying the same message. A tool's own
// error result (IsError with a nil error) comes with a nil error. Calls made
// after Close are refused.
func (r *Run) Call(ctx context.Context, name string, args json.RawMessage, origin Origin) (*Result, error) {
	r.mu.Lock()
	closed, approver := r.closed, r.approver
	r.mu.Unlock()
	if closed {
		err := fmt.Errorf("tools: %s: the run is closed; start a new run", name)
		return &Result{Content: []Content{{Type: TextContent, Text: err.Error()}}, IsError: true}, err
	}
	// A call ends when its caller gives up or the run closes.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(r.ctx, cancel)
	defer stop()
	g := guard{Surface: r.cfg.Surface, Policy: r.cfg.Policy, Approver: approver, ConversationID: r.cfg.ConversationID}
	res, err := r.reg.Call(cctx, g, Call{Name: name, Args: args, Origin: origin})
	r.mu.Lock()
	notice := r.notice
	r.notice = ""
	r.mu.Unlock()
	if notice != "" {
		if origin != FromBridge {
			notice, _ = escapeControls(notice)
		}
		withNotice := *res
		withNotice.Content = append([]Content{{Type: TextContent, Text: notice}}, res.Content...)
		res = &withNotice
	}
	return res, err
}

// List describes the tools visible on the run's surface, sorted by name.
func (r *Run) List() []ToolInfo {
	ts := r.reg.List(r.cfg.Surface)
	out := make([]ToolInfo, len(ts))
	for i, t := range ts {
		out[i] = t.info()
	}
	return out
}

// Lookup describes the named tool of the run, whether or not its surface
// shows it.
func (r *Run) Lookup(name string) (ToolInfo, bool) {
	t, ok := r.reg.Lookup(name)
	if !ok {
		return ToolInfo{}, false
	}
	return t.info(), true
}

// Register adds tools of the embedder's own to the run (a tool bound to a
// resource of the host). They are listed and called as the run's own
// tools are: only through Run.Call, under the run's surface, approval
// policy and wrappers. It refuses a tool without a name, a valid tier or a
// handler, a name the run already has, or an input schema it cannot
// compile; on error none of ts is added.
func (r *Run) Register(ts ...Tool) error { return r.reg.Register(ts...) }

// Unregister removes the named tools from the run (unknown names are
// ignored). A host serving the run (server.Server.Refresh) tells its
// clients.
func (r *Run) Unregister(names ...string) { r.reg.Unregister(names...) }

// Config returns the run's configuration (WorkDir made absolute, Surface filled in).
func (r *Run) Config() Config { return r.cfg }

// WorkDir returns the run's absolute working directory.
func (r *Run) WorkDir() string { return r.cfg.WorkDir }

// ConversationID returns the run's conversation id.
func (r *Run) ConversationID() string { return r.cfg.ConversationID }

// Surface returns the run's surface.
func (r *Run) Surface() Surface { return r.cfg.Surface }

// Families lists the tool families wired for this run, sorted by name.
func (r *Run) Families() []string { return append([]string(nil), r.wired...) }

// Context returns a context that is cancelled when the run closes, for work a
// family keeps going between calls.
func (r *Run) Context() context.Context { return r.ctx }

// SetApprover connects (or, with nil, disconnects) the approver asked when the
// policy says ask.
func (r *Run) SetApprover(a Approver) {
	r.mu.Lock()
	r.approver = a
	r.mu.Unlock()
}

// addStatus adds a line that the lsp tool's status shows after the language
// servers' (the structural index's progress): fn returns it, "" for none.
func (r *Run) addStatus(fn func() string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.statuses = append(r.statuses, fn)
}

// statusLines returns the lines the families added with addStatus.
func (r *Run) statusLines() []string {
	r.mu.Lock()
	fns := append([]func() string(nil), r.statuses...)
	r.mu.Unlock()
	var lines []string
	for _, fn := range fns {
		if l := fn(); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// OnClose adds a function Close calls (in reverse order of adding). If the run
// is already closed, fn is called at once.
func (r *Run) OnClose(name string, fn func() error) {
	r.mu.Lock()
	if !r.closed {
		r.closers = append(r.closers, closer{name: name, fn: fn})
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	fn()
}

// Close cancels in-flight calls and calls every family's closer (in reverse
// order of wiring), so nothing the run started is left behind. It is
// idempotent and safe to call concurrently: every call returns the first
// teardown's error once it is done.
func (r *Run) Close() error {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closed = true
		cs := r.closers
		r.closers = nil
		r.mu.Unlock()
		r.cancel()
		var errs []error
		for i := len(cs) - 1; i >= 0; i-- {
			if err := cs[i].fn(); err != nil {
				errs = append(errs, fmt.Errorf("tools: closing %s: %w", cs[i].name, err))
			}
		}
		r.closeErr = errors.Join(errs...)
	})
	return r.closeErr
}
