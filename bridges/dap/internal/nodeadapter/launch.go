package nodeadapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tetherhq/tether/internal/proc"
)

// launchArgs are the launch request's arguments (the adapter's Launch or
// Test template, expanded).
type nodeLaunchArgs struct {
	Program string   `json:"program"`
	Args    []string `json:"args"`
	Cwd     string   `json:"cwd"`
	// NodeArgs go to node before the program (--test-name-pattern=...).
	NodeArgs []string `json:"nodeArgs"`
	// Test: a test run; its leading --test-name-pattern= arguments go to
	// node.
	Test bool `json:"test"`
}

func (a *adapter) launch(raw json.RawMessage) error {
	var args nodeLaunchArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return fmt.Errorf("launch arguments: %w", err)
	}
	if args.Program == "" {
		return errors.New("launch needs program")
	}
	if args.Cwd == "" {
		args.Cwd = a.cfg.Root
	}
	program := args.Program
	nodeArgs := append([]string(nil), args.NodeArgs...)
	if args.Test {
		for len(args.Args) > 0 && strings.HasPrefix(args.Args[0], TestNamePattern) {
			nodeArgs, args.Args = append(nodeArgs, args.Args[0]), args.Args[1:]
		}
	}
	if filepath.Base(program) == "package.json" {
		p, extra, rest, err := packageScript(program, args.Args)
		if err != nil {
			return err
		}
		program, nodeArgs, args.Args = p, append(nodeArgs, extra...), rest
		args.Cwd = filepath.Dir(args.Program)
	}
	if isTypeScript(program) {
		out, err := a.compileTS(program)
		if err != nil {
			return err
		}
		program = out
	}
	relayFile := filepath.Join(a.cfg.Scratch, "tether-inspector.cjs")
	if err := os.WriteFile(relayFile, relay, 0o600); err != nil {
		return fmt.Errorf("writing the inspector relay: %w", err)
	}
	argv := append(append([]string{a.cfg.Node}, nodeArgs...), relayFile, program)
	argv = append(argv, args.Args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = args.Cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The program reads end-of-file from stdin, as under the other adapters.
	toNode, fromBridge, err := os.Pipe()
	if err != nil {
		return err
	}
	fromNode, toBridge, err := os.Pipe()
	if err != nil {
		toNode.Close()
		fromBridge.Close()
		return err
	}
	cmd.ExtraFiles = []*os.File{toNode, toBridge}
	cmd.Stdout = &outputWriter{a: a, category: "stdout"}
	cmd.Stderr = &outputWriter{a: a, category: "stderr"}
	cmd.WaitDelay = 2 * time.Second
	cmd.Env = os.Environ()
	if nm := filepath.Join(a.cfg.Root, "node_modules"); isDir(nm) {
		// A program compiled into the scratch dir still finds the
		// project's packages (CommonJS).
		cmd.Env = append(cmd.Env, "NODE_PATH="+nm)
	}
	if err := a.sandbox(cmd, "node debuggee", a.cfg.Node); err != nil {
		toNode.Close()
		fromBridge.Close()
		fromNode.Close()
		toBridge.Close()
		return err
	}
	if err := proc.Start(cmd); err != nil {
		toNode.Close()
		fromBridge.Close()
		fromNode.Close()
		toBridge.Close()
		return fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	toNode.Close()
	toBridge.Close()
	a.cmd = cmd
	ready := make(chan struct{})
	var readyOnce sync.Once
	a.cdp = newCDPConn(fromNode, fromBridge, func(method string, params json.RawMessage) {
		if method == "tether.ready" {
			readyOnce.Do(func() { close(ready) })
			return
		}
		a.onCDP(method, params)
	})
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		close(exited)
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		close(a.exit)
		a.event("exited", map[string]any{"exitCode": code})
		a.event("terminated", nil)
	}()
	a.event("process", map[string]any{"name": program, "systemProcessId": cmd.Process.Pid, "isLocalProcess": true, "startMethod": "launch"})
	select {
	case <-ready:
	case <-exited:
		return errors.New("node exited before its inspector was reachable; see the program output")
	case <-time.After(nodeRequestTimeout):
		return errors.New("node's inspector relay did not start within 30s")
	}
	if err := a.call("Debugger.enable", map[string]any{"maxScriptsCacheSize": 10_000_000}, nil); err != nil {
		return err
	}
	// Steps pass over node's own code (a step out of a test lands in the
	// next test, not in the test runner). The ES module job stays
	// visible: an ES module's uncaught exception stops there, and an
	// exception is not stopped on where every frame is blackboxed.
	if err := a.call("Debugger.setBlackboxPatterns", map[string]any{"patterns": []string{`^node:(?!internal/modules/esm/module_job)`}}, nil); err != nil {
		return err
	}

	a.launched = true
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// fileURL is the file: URL node names a script by.
func fileURL(p string) string {
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// urlPath is the local path of a file: URL, or "".
func urlPath(u string) string {
	if !strings.HasPrefix(u, "file://") {
		if filepath.IsAbs(u) {
			return u
		}
		return ""
	}
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return pu.Path
}

// outputWriter turns the program's output into output events.
type outputWriter struct {
	a        *adapter
	category string
}

// nodeWaiting is what node writes at its end while an inspector session
// (the relay's own) is open: about tether's connection, not the program.
const nodeWaiting = "Waiting for the debugger to disconnect...\n"

func (w *outputWriter) Write(p []byte) (int, error) {
	text := string(p)
	if w.category == "stderr" {
		if text == nodeWaiting {
			return len(p), nil
		}
		text = strings.Replace(text, "\n"+nodeWaiting, "\n", 1)
	}
	w.a.event("output", map[string]any{"category": w.category, "output": text})
	return len(p), nil
}
