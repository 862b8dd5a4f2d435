package main

import "context"
import "fmt"
import "io"
import "log/slog"
import "os"
import "os/signal"
import "runtime/debug"
import "syscall"

import "github.com/tetherhq/tether/server"

func init() {
	register("serve", "serve one run's tools as an MCP server over stdio", runServe)
}

func runServe(args []string, stdout, stderr io.Writer) int {
	c := newRunCommand("serve", "usage: tether serve --workdir DIR [flags]\n"+
		"       tether serve --http ADDR --root DIR (--tokens FILE | --jwks FILE ...) [flags]\n\n"+
		"Serves one run as a Model Context Protocol server on stdin/stdout, to clients of MCP\n"+
		"2026-07-28 (server/discover) and of the older revisions (initialize). tools/list shows\n"+
		"what the surface allows; with --approve ask, write and exec calls are asked of the\n"+
		"client's user (through input requests at 2026-07-28, elicitation before), and\n"+
		"refused when the client cannot elicit.\n"+
		"With --http, each MCP session on /mcp/{workspace} is one run in that workspace.\n\nflags:", stderr)
	var hf httpFlags
	hf.register(c.FlagSet)
	if !c.parse(args, 0, 0) {
		return 2
	}
	cfg, ok := c.config()
	if !ok {
		return 2
	}
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	if hf.addr != "" {
		return runServeHTTP(hf, cfg, version, stderr)
	}
	if hf.oauth.jwks != "" || hf.oauth.publicURL != "" {
		fmt.Fprintln(stderr, "tether: serve: --jwks and --public-url configure the HTTP host; add --http ADDR --root DIR")
		return 2
	}
	srv := server.New(server.Options{Name: "tether", Version: version, ApprovalTimeout: operatorFlags.askTimeout, Logger: slog.Default()})
	cfg.Approver = srv.Approver()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run, closeRun, err := startRun(ctx, cfg, wireEnv{Elicitor: srv, Serve: true, Stderr: stderr})
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return 1
	}
	serr := srv.ServeStdio(ctx, run)
	if cerr := closeRun(); cerr != nil {
		fmt.Fprintln(stderr, "tether:", cerr)
	}
	if serr != nil {
		fmt.Fprintln(stderr, "tether:", serr)
		return 1
	}
	return 0
}
