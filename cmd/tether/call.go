package main

import "context"
import "encoding/json"
import "fmt"
import "io"
import "os"
import "os/signal"
import "syscall"

import "github.com/tetherhq/tether/tools"

func init() {
	register("call", "call one tool in a fresh run and print its result", runCall)
}

func runCall(args []string, stdout, stderr io.Writer) int {
	c := newRunCommand("call", "usage: tether call [flags] TOOL ['JSON arguments' | -]\n\n"+
		"Calls TOOL once in a fresh run and prints the result; exits 1 on an error result.\n"+
		"Arguments default to {}; - reads them from stdin. With no approver on the command\n"+
		"line, write and exec tools need --approve allow (or, run in a terminal, are asked there).\n\nflags:", stderr)
	asJSON := c.Bool("json", false, "print the result as JSON ({content, structured, isError})")
	if !c.parse(args, 1, 2) {
		return 2
	}
	name := c.Arg(0)
	raw := "{}"
	if c.NArg() == 2 {
		raw = c.Arg(1)
		if raw == "-" {
			b, err := io.ReadAll(os.Stdin)
			if err != nil {
				fmt.Fprintln(stderr, "tether: reading arguments from stdin:", err)
				return 2
			}
			raw = string(b)
		}
	}
	if !json.Valid([]byte(raw)) {
		fmt.Fprintf(stderr, "tether: the arguments are not valid JSON: %s\n(quote them for the shell: tether call read '{\"path\":\"main.go\"}')\n", raw)
		return 2
	}
	cfg, ok := c.config()
	if !ok {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run, closeRun, err := startRun(ctx, cfg, wireEnv{Stderr: stderr})
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return 1
	}
	defer closeRun()
	res, err := run.Call(ctx, name, json.RawMessage(raw), tools.FromCLI)
	if *asJSON {
		if !printJSON(stdout, stderr, res) {
			return 1
		}
	} else {
		printResult(stdout, stderr, res)
	}
	if err != nil {
		if h := hint(err); h != "" {
			fmt.Fprintln(stderr, h[1:])
		}
	}
	if res.IsError {
		return 1
	}
	return 0
}

func printResult(stdout, stderr io.Writer, res *tools.Result) {
	w := stdout
	if res.IsError {
		w = stderr
	}
	for _, c := range res.Content {
		switch c.Type {
		case tools.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes; use --json to get its data]\n", c.MIMEType, len(c.Data))
		default:
			fmt.Fprintln(w, c.Text)
		}
	}
}
