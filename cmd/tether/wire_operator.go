package main

import "context"
import "errors"
import "flag"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/operator"
import "github.com/tetherhq/tether/tools"
import "github.com/tetherhq/tether/workers"

// Flags of the operator family: where questions go (--console, MCP
// elicitation in serve, the terminal elsewhere) and vibe mode's workers.
var operatorFlags struct {
	console       string
	askTimeout    time.Duration
	askDefault    time.Duration
	vibe          bool
	workers       map[string]string
	resume        map[string]string // --worker-resume: tier to the command continuing a conversation
	workerSurface string
	// workerRead and workerWrite are what a worker's sandbox grants beyond
	// the workspace and its command's install (--worker-read, --worker-write).
	workerRead, workerWrite pathList
	// workerEnv names variables of tether's environment workers get
	// (--worker-env): the agent's API key, say.
	workerEnv envNames
	// workerProcs is each worker run's process cap (--workers-procs).
	workerProcs countFlag
	// workerMemory is each worker process's address-space cap (--workers-memory).
	workerMemory sizeFlag
}

// pathList is a path flag that may be repeated, each value a comma-separated
// list of paths.
type pathList []string

func (l *pathList) String() string { return strings.Join(*l, ",") }

func (l *pathList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// absPaths resolves flag's paths against the working directory and checks
// that each exists: the sandbox skips a missing path, and a worker refused
// a path its operator granted would fail far from the typo.
func absPaths(flag string, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("--%s %q: %w", flag, p, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return nil, fmt.Errorf("--%s %q: %w (create it first, or fix the path)", flag, p, err)
		}
		out = append(out, abs)
	}
	return out, nil
}

func init() {
	addWiring(familyWiring{
		name: "operator",
		flags: func(fs *flag.FlagSet) {
			operatorFlags.console, operatorFlags.vibe, operatorFlags.workers, operatorFlags.workerSurface = "", false, nil, ""
			operatorFlags.resume = nil
			operatorFlags.workerRead, operatorFlags.workerWrite, operatorFlags.workerEnv = nil, nil, nil
			operatorFlags.workerProcs = countFlag{n: workers.DefaultProcessLimit}
			operatorFlags.workerMemory = sizeFlag{n: workers.DefaultAddressSpaceLimit}
			fs.Var(&operatorFlags.workerMemory, "workers-memory", "vibe mode: address-space cap (RLIMIT_AS) of each process of a worker run, a `size` (8GiB, 16GiB) or off: an allocation past it fails. Set by the sandbox's launcher; vibe_spawn's result says which")
			fs.Var(&operatorFlags.workerProcs, "workers-procs", "vibe mode: process cap of each worker run: the `count` of processes and threads its command and what it starts may have at once, or off; a fork past it fails (EAGAIN). A pids cgroup of its own when tether can make one; vibe_spawn's result says which")
			fs.Var(&operatorFlags.workerRead, "worker-read", "vibe mode: a path workers may read under the sandbox besides the workspace and their command's install (the agent's configuration, say); repeat or comma-separate for more")
			fs.Var(&operatorFlags.workerEnv, "worker-env", "vibe mode: NAME of a variable of tether's environment workers get besides the allowlist and --env (the agent's API key, say; HOME keeps the real home instead of the worker's state directory); repeat or comma-separate for more")
			fs.Var(&operatorFlags.workerWrite, "worker-write", "vibe mode: a path workers may read and write under the sandbox besides the workspace (the agent's credentials or cache, say); repeat or comma-separate for more")
			fs.StringVar(&operatorFlags.workerSurface, "worker-surface", "", "vibe mode: the surface workers are told to keep to ("+workers.EnvSurface+": default, plan or readonly; default: the run's own). On a plan or readonly run, vibe_spawn is refused unless this is set")
			fs.StringVar(&operatorFlags.console, "console", "", "serve the web operator console on this loopback address (127.0.0.1:PORT): questions and permission prompts show there as cards; its one-time login link is printed on stderr")
			fs.DurationVar(&operatorFlags.askTimeout, "ask-timeout", operator.DefaultTimeout, "how long ask_user and permission prompts wait for an answer")
			fs.DurationVar(&operatorFlags.askDefault, "ask-default-after", 0, "take the recommended options of an ask_user question nobody answered in this time (the result says they were taken by default; questions without one are skipped); 0, the default, never answers for you. Permission prompts are never answered this way")
			fs.BoolVar(&operatorFlags.vibe, "vibe", false, "vibe mode: register the vibe_* background-worker tools (needs --worker)")
			fs.Func("worker", "vibe mode: the command for a worker tier, TIER='CMD ARGS' (fast or good; repeat for both). The brief arrives on stdin, the result is stdout", func(v string) error {
				tier, cmd, err := workers.ParseWorkerFlag(v)
				if err != nil {
					return err
				}
				if operatorFlags.workers == nil {
					operatorFlags.workers = map[string]string{}
				}
				operatorFlags.workers[tier] = cmd
				return nil
			})
			fs.Func("worker-resume", "vibe mode: the command that continues a finished worker's conversation for a tier, TIER='CMD ARGS' (e.g. fast='my-agent --continue'); vibe_send gives it only the message. Without one a follow-up reruns the worker from its brief", func(v string) error {
				tier, cmd, err := workers.ParseWorkerFlag(v)
				if err != nil {
					return err
				}
				if operatorFlags.resume == nil {
					operatorFlags.resume = map[string]string{}
				}
				operatorFlags.resume[tier] = cmd
				return nil
			})
		},
		wire: wireOperator,
	})
}

func wireOperator(ctx context.Context, cfg *tools.Config, env wireEnv) (func(), error) {
	f := operatorFlags
	var cleanups []func()
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	if cfg.Ask.TargetSpace == "" {
		cfg.Ask.TargetSpace = cfg.ConversationID
	}
	cfg.Ask.Timeout = f.askTimeout
	if f.askDefault < 0 {
		return cleanup, fmt.Errorf("--ask-default-after %s is negative: give a duration such as 2m, or 0 to never answer for the operator", f.askDefault)
	}
	cfg.Ask.DefaultAfter = f.askDefault

	// Where a human can be reached: the console when asked for, then the MCP
	// client in serve, or the terminal for the CLI commands.
	var ports []operator.QuestionPort
	if f.console != "" {
		c, err := operator.ListenConsole(f.console)
		if err != nil {
			return cleanup, err
		}
		cleanups = append(cleanups, func() { c.Close() })
		// Keep the login secret out of reach of same-user processes
		// (/proc/PID/mem, environ and fds of tether).
		proc.Private()
		// The one-time login link goes to tether's own stderr only: never
		// into a file or an environment that workers or kernels can read.
		fmt.Fprintf(env.Stderr, "tether: operator console at %s\n", c.LoginURL())
		fmt.Fprintf(env.Stderr, "tether: that link logs one browser in to the console, once; keep it to yourself (the console answers permission prompts)\n")
		ports = append(ports, c)
	}
	if env.Elicitor != nil {
		ports = append(ports, tools.ElicitationPort(env.Elicitor))
	} else if !env.Serve {
		ports = append(ports, operator.NewTerminal(os.Stdin, env.Stderr))
	}
	if len(ports) > 0 {
		port := operator.FirstConnected(ports...)
		cfg.Ask.Questions = port
		if f.console != "" || cfg.Approver == nil {
			// Permission prompts render as the same card as ask_user.
			cfg.Approver = tools.QuestionApprover(port, cfg.Ask.TargetSpace, f.askTimeout)
		}
	}

	if f.vibe {
		if len(f.workers) == 0 {
			return cleanup, errors.New("--vibe needs a worker command: pass --worker fast='CMD ARGS' (and/or good=...)")
		}
		wsurf := ""
		if f.workerSurface != "" {
			s, err := tools.ParseSurface(f.workerSurface)
			if err != nil {
				return cleanup, fmt.Errorf("--worker-surface: %w", err)
			}
			wsurf = s.String()
		}
		ro, err := absPaths("worker-read", f.workerRead)
		if err != nil {
			return cleanup, err
		}
		rw, err := absPaths("worker-write", f.workerWrite)
		if err != nil {
			return cleanup, err
		}
		ws, err := workers.New(workers.Config{Commands: f.workers, Resume: f.resume, Dir: cfg.WorkDir, Surface: wsurf, ReadOnly: ro, ReadWrite: rw, PassEnv: f.workerEnv, ProcessLimit: f.workerProcs.n, AddressSpaceLimit: f.workerMemory.n})
		if err != nil {
			return cleanup, err
		}
		cleanups = append(cleanups, func() { ws.Close() })
		cfg.Vibe = tools.VibeConfig{On: true, Workers: ws}
	} else if len(f.workers) > 0 {
		return cleanup, errors.New("--worker is only used in vibe mode: add --vibe")
	} else if f.workerSurface != "" {
		return cleanup, errors.New("--worker-surface is only used in vibe mode: add --vibe and --worker")
	} else if len(f.resume) > 0 {
		return cleanup, errors.New("--worker-resume is only used in vibe mode: add --vibe and --worker")
	} else if len(f.workerRead)+len(f.workerWrite)+len(f.workerEnv) > 0 {
		return cleanup, errors.New("--worker-read, --worker-write and --worker-env are only used in vibe mode: add --vibe and --worker")
	}
	return cleanup, nil
}
