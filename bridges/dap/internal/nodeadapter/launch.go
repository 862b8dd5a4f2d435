package nodeadapter

import "encoding/json"
import "errors"
import "fmt"
import "net/url"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "sync"
import "syscall"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/dapserve"
import "github.com/tetherhq/tether/internal/proc"

// launchArgs are the launch request's arguments (the adapter's Launch or
// Test template, expanded).
type launchArgs struct {
	dapserve.Launch
	// NodeArgs go to node before the program (--test-name-pattern=...).
	NodeArgs []string `json:"nodeArgs"`
	// Test: a test run; its leading --test-name-pattern= arguments go to
	// node.
	Test bool `json:"test"`
}

// nodeRun is the node command a launch runs.
type nodeRun struct {
	program  string   // the JavaScript file node runs
	nodeArgs []string // node's own arguments, before the relay
	args     []string // the program's
	cwd      string
}

// relayName is the relay's file name in the scratch dir.
const relayName = "tether-inspector.cjs"

// launch starts the program stopped before its first line, with the
// inspector enabled; configurationDone runs it.
func (a *adapter) launch(raw json.RawMessage) error {
	var args launchArgs
	if err := dapserve.DecodeLaunch(raw, &args); err != nil {
		return err
	}
	run, err := a.plan(args)
	if err != nil {
		return err
	}
	ready, exited, err := a.start(run)
	if err != nil {
		return err
	}
	select {
	case <-ready:
	case <-exited:
		return errors.New("node exited before its inspector was reachable; see the program output")
	case <-time.After(nodeRequestTimeout):
		return errors.New("node's inspector relay did not start within 30s")
	}
	if err := a.enableDebugger(); err != nil {
		return err
	}
	a.launched = true
	return nil
}

// enableDebugger enables the inspector's debugger (the scripts loaded so
// far are announced) and keeps steps out of node's own code.
func (a *adapter) enableDebugger() error {
	if err := a.call("Debugger.enable", enableParams{MaxScriptsCacheSize: 10_000_000}, nil); err != nil {
		return err
	}
	// Steps pass over node's own code (a step out of a test lands in the
	// next test, not in the test runner). The ES module job stays
	// visible: an ES module's uncaught exception stops there, and an
	// exception is not stopped on where every frame is blackboxed.
	return a.call("Debugger.setBlackboxPatterns", blackboxParams{Patterns: []string{`^node:(?!internal/modules/esm/module_job)`}}, nil)
}

// plan is the node command a launch runs: a test run's name pattern goes
// to node, a package.json script is resolved to the file it runs, and a
// TypeScript program is compiled.
func (a *adapter) plan(args launchArgs) (nodeRun, error) {
	r := nodeRun{program: args.Program, nodeArgs: append([]string(nil), args.NodeArgs...), args: args.Args, cwd: args.Cwd}
	if r.cwd == "" {
		r.cwd = a.cfg.Root
	}
	if args.Test {
		for len(r.args) > 0 && strings.HasPrefix(r.args[0], TestNamePattern) {
			r.nodeArgs, r.args = append(r.nodeArgs, r.args[0]), r.args[1:]
		}
	}
	if filepath.Base(r.program) == "package.json" {
		p, extra, rest, err := packageScript(r.program, r.args)
		if err != nil {
			return nodeRun{}, err
		}
		r.program, r.nodeArgs, r.args = p, append(r.nodeArgs, extra...), rest
		r.cwd = filepath.Dir(args.Program)
	}
	if isTypeScript(r.program) {
		out, err := a.compileTS(r.program)
		if err != nil {
			return nodeRun{}, err
		}
		r.program = out
	}
	return r, nil
}

// start starts node on the relay, then the program, sandboxed; ready
// closes when the relay has reached the inspector, exited when node has
// exited (after the exited and terminated events are sent).
func (a *adapter) start(r nodeRun) (ready, exited <-chan struct{}, err error) {
	relayFile := filepath.Join(a.cfg.Scratch, relayName)
	if err := os.WriteFile(relayFile, relay, 0o600); err != nil {
		return nil, nil, fmt.Errorf("writing the inspector relay: %w", err)
	}
	argv := append(append([]string{a.cfg.Node}, r.nodeArgs...), relayFile, r.program)
	argv = append(argv, r.args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = r.cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The program reads end-of-file from stdin, as under the other adapters.
	toNode, fromAdapter, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	fromNode, toAdapter, err := os.Pipe()
	if err != nil {
		closeFiles(toNode, fromAdapter)
		return nil, nil, err
	}
	cmd.ExtraFiles = []*os.File{toNode, toAdapter}
	if a.stdout, err = a.out.NewOutputPipe("stdout", nil); err != nil {
		closeFiles(toNode, fromAdapter, fromNode, toAdapter)
		return nil, nil, err
	}
	if a.stderr, err = a.out.NewOutputPipe("stderr", dropNodeWaiting); err != nil {
		a.stdout.Close()
		closeFiles(toNode, fromAdapter, fromNode, toAdapter)
		return nil, nil, err
	}
	cmd.Stdout, cmd.Stderr = a.stdout.W, a.stderr.W
	cmd.WaitDelay = 2 * time.Second
	cmd.Env = os.Environ()
	if nm := filepath.Join(a.cfg.Root, "node_modules"); isDir(nm) {
		// A program compiled into the scratch dir still finds the
		// project's packages (CommonJS).
		cmd.Env = append(cmd.Env, "NODE_PATH="+nm)
	}
	if err := a.sandbox(cmd, "node debuggee", a.cfg.Node); err != nil {
		a.stdout.Close()
		a.stderr.Close()
		closeFiles(toNode, fromAdapter, fromNode, toAdapter)
		return nil, nil, err
	}
	err = proc.Start(cmd)
	a.stdout.Started(err == nil)
	a.stderr.Started(err == nil)
	if err != nil {
		closeFiles(toNode, fromAdapter, fromNode, toAdapter)
		return nil, nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	closeFiles(toNode, toAdapter)
	a.cmd = cmd
	readyCh := make(chan struct{})
	var readyOnce sync.Once
	a.cdp = newCDPConn(fromNode, fromAdapter, func(method string, params json.RawMessage) {
		if method == "tether.ready" {
			readyOnce.Do(func() { close(readyCh) })
			return
		}
		a.onCDP(method, params)
	})
	exitedCh := make(chan struct{})
	go a.wait(cmd, exitedCh)
	a.send(&godap.ProcessEvent{Event: event("process"), Body: godap.ProcessEventBody{
		Name: r.program, SystemProcessId: cmd.Process.Pid, IsLocalProcess: true, StartMethod: "launch"}})
	return readyCh, exitedCh, nil
}

// wait waits for node to exit, closes exited and says so (exited and
// terminated events).
func (a *adapter) wait(cmd *exec.Cmd, exited chan struct{}) {
	err := cmd.Wait()
	a.stdout.WaitEOF(2 * time.Second)
	a.stderr.WaitEOF(2 * time.Second)
	close(exited)
	close(a.exit)
	a.out.Exited(err)
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
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

// nodeWaiting is what node writes at its end while an inspector session
// (the relay's own) is open: about tether's connection, not the program.
const nodeWaiting = "Waiting for the debugger to disconnect...\n"

// dropNodeWaiting drops nodeWaiting from the program's stderr.
func dropNodeWaiting(text string) string {
	if text == nodeWaiting {
		return ""
	}
	return strings.Replace(text, "\n"+nodeWaiting, "\n", 1)
}
