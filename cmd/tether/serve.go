package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/tetherhq/tether/tools/mcpserve"
)

func init() {
	register("serve", "serve one run's tools as an MCP server over stdio", runServe)
}

func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rf runFlags
	rf.add(fs, "ask")
	addFamilyFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tether serve --workdir DIR [flags]")
		fmt.Fprintln(stderr, "\nServes one run as a Model Context Protocol server on stdin/stdout. tools/list shows")
		fmt.Fprintln(stderr, "what the surface allows; with --approve ask, write and exec calls are asked of the")
		fmt.Fprintln(stderr, "client's user through MCP elicitation, and refused when the client cannot elicit.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	cfg, err := rf.config()
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return 2
	}
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	srv := mcpserve.New(mcpserve.Options{Name: "tether", Version: version, ApprovalTimeout: operatorFlags.askTimeout, Logger: slog.Default()})
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
