package main

import "context"
import "fmt"
import "io"
import "os"
import "os/signal"
import "sort"
import "sync/atomic"
import "syscall"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/kernels/jsproc"

// command is one subcommand: flags and wiring only.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	if _, dup := commands[name]; dup {
		panic("tether: subcommand registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tether COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'tether COMMAND -h' for a command's flags.")
}

// signalGrace is how long a command has to wind down after SIGINT or
// SIGTERM (its context is cancelled at once) before the process exits
// anyway: a signal ends tether within a second whatever it was doing.
const signalGrace = 750 * time.Millisecond

// signalGraceFor, when set (nanoseconds), replaces signalGrace: serve --http
// drains running calls for longer than a second.
var signalGraceFor atomic.Int64

// signalCtx is cancelled by SIGINT or SIGTERM once main has set it up;
// commands that do not watch the signals themselves run under it.
var signalCtx = context.Background()

func main() {
	if len(os.Args) == 2 && os.Args[1] == jsproc.Subcommand {
		// An out-of-process JavaScript kernel (serve --http's): it starts
		// nothing, and ends with its parent (a parent-death signal).
		os.Exit(jsproc.Main())
	}
	// Nothing tether starts outlives it, even after a SIGKILL (a sentinel
	// process re-runs this binary and exits inside proc.Main).
	proc.Main()
	signalCtx = exitOnSignal(os.Stderr, signalGrace)
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// exitOnSignal returns a context that SIGINT or SIGTERM cancels, and exits
// the process grace later (at once on a second signal) with the shell's code
// for the signal, should the command not have returned by then.
func exitOnSignal(stderr io.Writer, grace time.Duration) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		cancel()
		if g := signalGraceFor.Load(); g > 0 {
			grace = time.Duration(g)
		}
		select {
		case <-sigs:
		case <-time.After(grace):
			fmt.Fprintf(stderr, "tether: %v: the work in progress did not stop within %v; exiting\n", sig, grace)
		}
		code := 1
		if n, ok := sig.(syscall.Signal); ok {
			code = 128 + int(n)
		}
		os.Exit(code)
	}()
	return ctx
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "tether: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}
