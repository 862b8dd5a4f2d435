package phpadapter

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "net"
import "net/url"
import "os"
import "os/exec"
import "path/filepath"
import "strconv"
import "strings"
import "syscall"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/dapserve"
import "github.com/tetherhq/tether/internal/proc"

// launchArgs are the launch request's arguments (the adapter's Launch
// template, expanded).
type launchArgs struct {
	dapserve.Launch
}

// connectTimeout bounds the wait for Xdebug to connect once php started.
const connectTimeout = 30 * time.Second

// maxSocketPath is the longest unix socket path every platform takes
// (sun_path is 104 bytes on the BSDs, 108 on Linux, NUL included).
const maxSocketPath = 100

// The features set at the start: children come a page of pageSize at a
// time, one level deep, and a value is cut at maxData bytes.
const (
	pageSize = 100
	maxData  = 64 << 10
)

// errNoXdebug says what to do when php ran without Xdebug reaching tether.
const errNoXdebug = "is php-xdebug installed and enabled for the CLI? (apt-get install php-xdebug; `php -m` lists Xdebug under [Zend Modules])"

// launch starts php with Xdebug, which connects back and waits before the
// program's first line; configurationDone runs it.
func (a *adapter) launch(raw json.RawMessage) error {
	var args launchArgs
	if err := dapserve.DecodeLaunch(raw, &args); err != nil {
		return err
	}
	if a.x != nil {
		return errors.New("the program is already launched")
	}
	ln, clientArgs, err := a.listen()
	if err != nil {
		return err
	}
	defer ln.Close()
	if err := a.start(args, clientArgs); err != nil {
		return err
	}
	x, err := a.accept(ln, args.Program)
	if err != nil {
		a.endProgram()
		return err
	}
	for _, f := range [][]string{{"max_children", strconv.Itoa(pageSize)}, {"max_depth", "1"}, {"max_data", strconv.Itoa(maxData)}} {
		if _, err := x.call(context.Background(), "feature_set", []string{"-n", f[0], "-v", f[1]}, ""); err != nil {
			a.endProgram()
			return err
		}
	}
	a.mu.Lock()
	a.stopped = true
	a.mu.Unlock()
	return nil
}

// listen opens what Xdebug connects to: a unix socket in a directory of
// its own in the scratch dir (mode 0700: only tether's user reaches it),
// else, when that path is too long for a socket, a loopback port. It
// returns the php options that point Xdebug there.
func (a *adapter) listen() (net.Listener, []string, error) {
	dir, err := os.MkdirTemp(a.cfg.Scratch, "xdebug-")
	if err == nil {
		sock := filepath.Join(dir, "s")
		if len(sock) <= maxSocketPath {
			if ln, err := net.Listen("unix", sock); err == nil {
				return ln, []string{"-d", "xdebug.client_host=unix://" + sock}, nil
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("listening for Xdebug: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	return ln, []string{"-d", "xdebug.client_host=127.0.0.1", "-d", "xdebug.client_port=" + strconv.Itoa(port)}, nil
}

// start starts php on the program, sandboxed, with Xdebug told to connect
// at once (start_with_request) to the bridge.
func (a *adapter) start(args launchArgs, clientArgs []string) error {
	cwd := args.Cwd
	if cwd == "" {
		cwd = a.cfg.Root
	}
	argv := []string{a.cfg.PHP, "-d", "xdebug.mode=debug", "-d", "xdebug.start_with_request=yes",
		"-d", "xdebug.connect_timeout_ms=5000"}
	argv = append(argv, clientArgs...)
	argv = append(append(argv, args.Program), args.Args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// stdin is /dev/null: the program reads end-of-file, as under the
	// other adapters.
	var err error
	if a.stdout, err = a.out.NewOutputPipe("stdout", nil); err != nil {
		return err
	}
	if a.stderr, err = a.out.NewOutputPipe("stderr", nil); err != nil {
		a.stdout.Close()
		return err
	}
	cmd.Stdout, cmd.Stderr = a.stdout.W, a.stderr.W
	cmd.WaitDelay = 2 * time.Second
	cmd.Env = os.Environ()
	if a.cfg.Sandbox != nil {
		if err := a.cfg.Sandbox(cmd, "php debuggee", a.cfg.PHP); err != nil {
			a.stdout.Close()
			a.stderr.Close()
			return err
		}
	}
	err = proc.Start(cmd)
	a.stdout.Started(err == nil)
	a.stderr.Started(err == nil)
	if err != nil {
		return fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	a.cmd = cmd
	go a.wait(cmd)
	a.send(&godap.ProcessEvent{Event: event("process"), Body: godap.ProcessEventBody{
		Name: args.Program, SystemProcessId: cmd.Process.Pid, IsLocalProcess: true, StartMethod: "launch"}})
	return nil
}

// accept waits for Xdebug's connection from the program, bounded, and
// reads its init packet; a connection whose init names another script
// (on a loopback port, any local process may connect) is closed and
// waited past.
func (a *adapter) accept(ln net.Listener, program string) (*dbgpConn, error) {
	deadline := time.Now().Add(connectTimeout)
	accepted := make(chan struct{})
	defer close(accepted)
	go func() {
		t := time.NewTimer(connectTimeout)
		defer t.Stop()
		select {
		case <-a.exit:
		case <-t.C:
		case <-accepted:
		}
		_ = ln.Close()
	}()
	want := filepath.Clean(program)
	for {
		nc, err := ln.Accept()
		if err != nil {
			select {
			case <-a.exit:
				return nil, fmt.Errorf("php exited without Xdebug connecting to the debugger; %s; see the program output", errNoXdebug)
			default:
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("Xdebug did not connect within %s; %s", connectTimeout, errNoXdebug)
			}
			return nil, fmt.Errorf("waiting for Xdebug: %w", err)
		}
		_ = nc.SetReadDeadline(deadline)
		x, init, err := newDBGpConn(nc, nil)
		if err != nil {
			_ = nc.Close()
			return nil, fmt.Errorf("Xdebug's first message: %w", err)
		}
		if got := uriPath(init.FileURI); got != want && !sameFile(got, want) {
			x.close()
			continue
		}
		_ = nc.SetReadDeadline(time.Time{})
		a.x = x
		return x, nil
	}
}

// wait waits for php to exit and says so (exited and terminated events).
func (a *adapter) wait(cmd *exec.Cmd) {
	err := cmd.Wait()
	a.stdout.WaitEOF(2 * time.Second)
	a.stderr.WaitEOF(2 * time.Second)
	close(a.exit)
	a.out.Exited(err)
}

// fileURI is the file: URI Xdebug names a script by.
func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// uriPath is the local path of a file: URI, or "" for any other (an
// eval'd script is "dbgp://...").
func uriPath(u string) string {
	if !strings.HasPrefix(u, "file://") {
		return ""
	}
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return filepath.Clean(pu.Path)
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
