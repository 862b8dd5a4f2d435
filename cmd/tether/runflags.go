package main

import "context"
import "errors"
import "flag"
import "fmt"
import "io"
import "log/slog"
import "os"
import "strings"

import "github.com/tetherhq/tether/internal/logging"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/tools"
import "github.com/tetherhq/tether/workers"

// runFlags are the flags shared by the commands that start a run (serve, call, tools).
type runFlags struct {
	workdir      string
	surface      string
	approve      onceFlag
	conversation string
	logLevel     string
	logFormat    string
	sandbox      string
	sandboxNet   string
	env          envNames  // --env: variables of tether's environment every process gets
	logTo        io.Writer // the command's stderr
}

func (f *runFlags) add(fs *flag.FlagSet, approveDefault string) {
	fs.StringVar(&f.workdir, "workdir", ".", "working directory the run's file tools are confined to")
	fs.Var(&grammarFlag{}, "grammar", grammarUsage)
	fs.StringVar(&f.surface, "surface", "default", "surface: default (every tier), plan or readonly (read tier only)")
	f.approve = onceFlag{value: approveDefault}
	fs.Var(&f.approve, "approve", "approval policy for write and exec tools: ask, allow, deny, or a list such as write=allow,exec=ask,debug=deny (given once; a tier or tool named twice is refused)")
	fs.StringVar(&f.conversation, "conversation", "", "conversation id (default: one per process)")
	fs.StringVar(&f.logLevel, "log-level", logging.DefaultLevel, "diagnostics on stderr at this level and above: "+strings.Join(logging.Levels, ", ")+" (debug adds the language-server wire trace)")
	fs.StringVar(&f.logFormat, "log-format", "text", "diagnostics format: "+strings.Join(logging.Formats, " or "))
	fs.StringVar(&f.sandbox, "sandbox", "on", "on: every process tether starts (language servers, checkers, kernels, debug adapters and programs, workers) runs confined to the workspace, its toolchain and a scratch directory (Landlock, namespaces; tether version says what this machine offers); off: they run with tether's full rights")
	fs.StringVar(&f.sandboxNet, "sandbox-net", proc.FormatNet(proc.DefaultNet()), "families of processes allowed the network under the sandbox: none, all, or a list of lsp (servers and checkers), eval (kernels), debug (adapters and programs), workers")
	f.env = nil
	fs.Var(&f.env, "env", "NAME of a variable of tether's environment that every process tether starts gets (language servers, kernels, debug adapters and programs, workers, git); repeat or comma-separate for more. The rest of tether's environment never reaches them, with the sandbox on or off: they get PATH, the locale, TERM, TZ, their toolchain's variables and a HOME of their own")
	f.logTo = fs.Output()
}

// envNames is the --env flag: names of tether's environment variables,
// repeated or comma-separated.
type envNames []string

func (l *envNames) String() string { return strings.Join(*l, ",") }

func (l *envNames) Set(v string) error {
	for _, w := range strings.Split(v, ",") {
		name, err := proc.ParseEnvName(w)
		if err != nil {
			return err
		}
		*l = append(*l, name)
	}
	return nil
}

// sandboxOptions returns the sandbox the flags ask for.
func (f *runFlags) sandboxOptions() (proc.Options, error) {
	var o proc.Options
	switch f.sandbox {
	case "on":
	case "off":
		o.Off = true
	default:
		return o, fmt.Errorf("--sandbox %q: use on or off", f.sandbox)
	}
	net, err := proc.ParseNet(f.sandboxNet)
	if err != nil {
		return o, err
	}
	o.Net = net
	o.Env = f.env
	return o, nil
}

// config returns the run's Config from the flags. It also installs the
// logger the log flags ask for as slog's default, writing to the command's
// stderr.
func (f *runFlags) config() (tools.Config, error) {
	if f.workdir == "" {
		return tools.Config{}, errors.New("--workdir is empty: give the directory the run's file tools are confined to")
	}
	logger, err := logging.New(f.logTo, f.logLevel, f.logFormat)
	if err != nil {
		return tools.Config{}, err
	}
	slog.SetDefault(logger)
	so, err := f.sandboxOptions()
	if err != nil {
		return tools.Config{}, err
	}
	proc.Configure(so)
	s, err := tools.ParseSurface(f.surface)
	if err != nil {
		return tools.Config{}, err
	}
	p, err := tools.ParsePolicy(f.approve.value)
	if err != nil {
		return tools.Config{}, err
	}
	// A tether started as a vibe worker keeps to the limits of the run that
	// started it (workers: TETHER_WORKER_SURFACE, TETHER_WORKER_APPROVE).
	if s, p, err = workerLimits(s, p); err != nil {
		return tools.Config{}, err
	}
	conv := f.conversation
	if conv == "" {
		conv = fmt.Sprintf("tether-%d", os.Getpid())
	}
	return tools.Config{WorkDir: f.workdir, ConversationID: conv, Surface: s, Policy: p}, nil
}

// runCommand is the command line of a command that starts a run (serve,
// call, tools): the run's flags, every family's, the command's own, and its
// usage.
type runCommand struct {
	*flag.FlagSet
	rf runFlags
}

// newRunCommand makes command name's flag set with the run's flags (approve
// defaults to ask) and the families'; usage is the text printed above the
// flags' defaults. The command adds its own flags before parse.
func newRunCommand(name, usage string, stderr io.Writer) *runCommand {
	c := &runCommand{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError)}
	c.SetOutput(stderr)
	c.rf.add(c.FlagSet, "ask")
	addFamilyFlags(c.FlagSet)
	c.Usage = func() {
		fmt.Fprintln(stderr, usage)
		c.PrintDefaults()
	}
	return c
}

// parse parses args and checks that min to max arguments follow the flags;
// false means the command exits 2 (what was wrong and the usage are printed).
func (c *runCommand) parse(args []string, min, max int) bool {
	if err := c.Parse(args); err != nil {
		return false
	}
	if c.NArg() < min || c.NArg() > max {
		c.Usage()
		return false
	}
	return true
}

// config is the run's Config from the flags (see runFlags.config); false
// means the command exits 2, the error printed.
func (c *runCommand) config() (tools.Config, bool) {
	cfg, err := c.rf.config()
	if err != nil {
		fmt.Fprintln(c.Output(), "tether:", err)
		return tools.Config{}, false
	}
	return cfg, true
}

// onceFlag is a string flag that may be given once: a second --approve is
// refused instead of silently replacing the first (a policy says one thing).
type onceFlag struct {
	value string
	set   bool
}

func (o *onceFlag) String() string { return o.value }

func (o *onceFlag) Set(v string) error {
	if o.set {
		return fmt.Errorf("given twice (%q, then %q): put every entry in one comma-separated list, each tier or tool once", o.value, v)
	}
	o.value, o.set = v, true
	return nil
}

// wireEnv is what a family's wiring may use besides its own flags.
type wireEnv struct {
	// Elicitor asks the MCP client's user (serve only; nil elsewhere).
	Elicitor tools.Elicitor
	// Serve is true in `tether serve`.
	Serve bool
	// Host is true in `tether serve --http`: many runs in one process share
	// what a family can share (the structural engine).
	Host   bool
	Stderr io.Writer
}

// familyWiring lets a tool family add its flags to serve, call and tools and
// wire its resource into the run's Config. A family adds one from an init
// function in its own file (cmd/tether/wire_<family>.go) with addWiring.
type familyWiring struct {
	name string
	// flags defines the family's flags.
	flags func(fs *flag.FlagSet)
	// wire sets the family's resource in cfg (or leaves it unset when its
	// flags say so) and returns a cleanup to run after the run is closed.
	wire func(ctx context.Context, cfg *tools.Config, env wireEnv) (cleanup func(), err error)
}

var wirings []familyWiring

func addWiring(w familyWiring) { wirings = append(wirings, w) }

func addFamilyFlags(fs *flag.FlagSet) {
	for _, w := range wirings {
		if w.flags != nil {
			w.flags(fs)
		}
	}
}

// startRun wires every family into cfg and starts the run. The returned
// cleanup closes the run and then the families' own cleanups.
func startRun(ctx context.Context, cfg tools.Config, env wireEnv) (*tools.Run, func() error, error) {
	var cleanups []func()
	undo := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	for _, w := range wirings {
		if w.wire == nil {
			continue
		}
		c, err := w.wire(ctx, &cfg, env)
		if c != nil {
			cleanups = append(cleanups, c)
		}
		if err != nil {
			undo()
			return nil, nil, fmt.Errorf("%s: %w", w.name, err)
		}
	}
	run, err := tools.NewRun(ctx, cfg)
	if err != nil {
		undo()
		return nil, nil, err
	}
	return run, func() error {
		err := run.Close()
		undo()
		return err
	}, nil
}

// hint adds what a CLI user can do about a refused call.
func hint(err error) string {
	if s := os.Getenv(workers.EnvSurface); s != "" && (errors.Is(err, tools.ErrNotOnSurface) || errors.Is(err, tools.ErrDenied) || errors.Is(err, tools.ErrNoApprover)) {
		return fmt.Sprintf("\n(this tether runs as a vibe worker: the run that started it allows the %s surface and the policy %q (%s, %s); report back instead of retrying)",
			s, os.Getenv(workers.EnvApprove), workers.EnvSurface, workers.EnvApprove)
	}
	switch {
	case errors.Is(err, tools.ErrNoApprover):
		return "\n(pass --approve allow to run write and exec tools from the command line)"
	case errors.Is(err, tools.ErrNotOnSurface):
		return "\n(pass --surface default to reach write and exec tools)"
	}
	return ""
}

// workerLimits narrows surface and policy to the limits a parent run passed
// to this process as a vibe worker: the narrower surface, and the parent's
// policy unless the given one is nowhere looser.
func workerLimits(surface tools.Surface, policy tools.Policy) (tools.Surface, tools.Policy, error) {
	if v := os.Getenv(workers.EnvSurface); v != "" {
		ws, err := tools.ParseSurface(v)
		if err != nil {
			return surface, policy, fmt.Errorf("%s from the run that started this worker: %w", workers.EnvSurface, err)
		}
		if ws.Cap < surface.Cap {
			surface = ws
		}
	}
	if v := os.Getenv(workers.EnvApprove); v != "" {
		wp, err := tools.ParsePolicy(v)
		if err != nil {
			return surface, policy, fmt.Errorf("%s from the run that started this worker: %w", workers.EnvApprove, err)
		}
		if looser(policy, wp) {
			policy = wp
		}
	}
	return surface, policy, nil
}

// looser reports whether p allows (or asks about) any write or exec call that
// q asks about (or denies).
func looser(p, q tools.Policy) bool {
	rank := map[tools.Decision]int{tools.Allow: 0, tools.Ask: 1, tools.Deny: 2}
	names := []string{""} // "": a tool neither policy names
	for n := range p.Tools {
		names = append(names, n)
	}
	for n := range q.Tools {
		names = append(names, n)
	}
	for _, tier := range []tools.Tier{tools.TierWrite, tools.TierExec} {
		for _, n := range names {
			if rank[p.Decide(n, tier)] < rank[q.Decide(n, tier)] {
				return true
			}
		}
	}
	return false
}
