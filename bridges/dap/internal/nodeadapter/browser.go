package nodeadapter

import "cmp"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "sync"
import "syscall"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/proc"

// ServeBrowser is the adapter for JavaScript in a page of Chromium, over
// the same DevTools protocol as node's inspector: a launch starts headless
// Chromium (cfg.Chromium) on about:blank, reached over its DevTools pipe
// (fds 3 and 4, no port), and opens the page (an .html file or a URL) at
// configurationDone, once the breakpoints are set, so that the scripts
// the page runs while it loads stop at them too; an attach connects to
// the first page of a running browser's DevTools port. Ending a launched
// session closes the browser (its process tree is killed); an attached
// browser is detached from and runs on.
func ServeBrowser(rw io.ReadWriteCloser, cfg Config) {
	a := newAdapter(rw, cfg, "the chromium adapter")
	a.browser = true
	a.serve()
}

// browserArgs are the launch and attach requests' arguments of the
// chromium adapter: a page to open (a file, or an http(s) or file URL),
// or the DevTools port of a running browser.
type browserArgs struct {
	Program string `json:"program"`
	Host    string `json:"host"`
	Port    int    `json:"port"`
}

// chromiumFlags run Chromium headless, with a profile of its own and none
// of its background services; its own sandbox is off because tether's
// (Config.Sandbox) confines it.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-dev-shm-usage", "--disable-extensions", "--disable-quic", "--mute-audio",
	"--remote-debugging-pipe",
}

// launchBrowser starts headless Chromium on about:blank, attaches to its
// page and enables the debugger there; configurationDone opens the page.
func (a *adapter) launchBrowser(raw json.RawMessage) error {
	var args browserArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return fmt.Errorf("launch arguments: %w", err)
	}
	page, err := pageURL(args.Program, a.cfg.Root)
	if err != nil {
		return err
	}
	if a.cfg.Chromium == "" {
		return errors.New("no Chromium binary to launch the page with")
	}
	stderr, err := a.startBrowser()
	if err != nil {
		return err
	}
	if err := a.attachPage(); err != nil {
		// What Chromium wrote before it ended says why; its stderr is
		// read to the end once it has exited.
		select {
		case <-a.exit:
		case <-time.After(2 * time.Second):
		}
		if tail := stderr.String(); tail != "" {
			err = fmt.Errorf("%w; Chromium's stderr ends: %s", err, tail)
		}
		return err
	}
	if err := a.call("Runtime.enable", nil, nil); err != nil {
		return err
	}
	if err := a.enableDebugger(); err != nil {
		return err
	}
	a.page = page
	a.launched = true
	return nil
}

// startBrowser starts Chromium, sandboxed, talking DevTools over fds 3
// (its input) and 4 (its output); what it writes on stderr is kept, the
// last few kilobytes, for an error that needs it.
func (a *adapter) startBrowser() (*tailBuffer, error) {
	profile := filepath.Join(a.cfg.Scratch, "chromium-profile")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return nil, fmt.Errorf("making Chromium's profile dir: %w", err)
	}
	argv := append(append([]string{a.cfg.Chromium}, chromiumFlags...), "--user-data-dir="+profile, "about:blank")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = a.cfg.Root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	toChrome, fromAdapter, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromChrome, toAdapter, err := os.Pipe()
	if err != nil {
		closeFiles(toChrome, fromAdapter)
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{toChrome, toAdapter}
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	cmd.WaitDelay = 2 * time.Second
	cmd.Env = os.Environ()
	if err := a.sandbox(cmd, "chromium", a.cfg.Chromium); err != nil {
		closeFiles(toChrome, fromAdapter, fromChrome, toAdapter)
		return nil, err
	}
	if err := proc.Start(cmd); err != nil {
		closeFiles(toChrome, fromAdapter, fromChrome, toAdapter)
		return nil, fmt.Errorf("starting %s: %w", a.cfg.Chromium, err)
	}
	closeFiles(toChrome, toAdapter)
	a.cmd = cmd
	a.cdp = newCDPConn(nulFramed{fromChrome}, nulFramed{fromAdapter}, a.onCDP)
	go a.wait(cmd, make(chan struct{}))
	a.send(&godap.ProcessEvent{Event: event("process"), Body: godap.ProcessEventBody{
		Name: "chromium", SystemProcessId: cmd.Process.Pid, IsLocalProcess: true, StartMethod: "launch"}})
	return stderr, nil
}

// attachPage attaches the connection to the browser's page (the one it
// opened on about:blank, else a new one): the requests that follow go to
// it. The first answer is bounded as every request is: a browser that
// does not start fails it.
func (a *adapter) attachPage() error {
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	if err := a.call("Target.getTargets", nil, &targets); err != nil {
		return fmt.Errorf("Chromium did not answer on its DevTools pipe: %w", err)
	}
	id := ""
	for _, t := range targets.TargetInfos {
		if t.Type == "page" {
			id = t.TargetID
			break
		}
	}
	if id == "" {
		var created struct {
			TargetID string `json:"targetId"`
		}
		if err := a.call("Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
			return err
		}
		id = created.TargetID
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := a.call("Target.attachToTarget", map[string]any{"targetId": id, "flatten": true}, &attached); err != nil {
		return err
	}
	a.cdp.setSession(attached.SessionID)
	return nil
}

// openPage opens the launched page; the navigation's failure (a file
// that is not there, a server that does not answer) is the error.
func (a *adapter) openPage() error {
	var r struct {
		ErrorText string `json:"errorText"`
	}
	if err := a.call("Page.navigate", map[string]any{"url": a.page}, &r); err != nil {
		return err
	}
	if r.ErrorText != "" {
		return fmt.Errorf("chromium could not open %s: %s", a.page, r.ErrorText)
	}
	return nil
}

// pageURL is the URL a launch opens: an http(s) or file URL as given, a
// file (relative to root) as its file URL.
func pageURL(program, root string) (string, error) {
	switch {
	case program == "":
		return "", errors.New("launch needs program: an .html file or an http(s) URL")
	case IsPageURL(program):
		return program, nil
	}
	if !filepath.IsAbs(program) {
		program = filepath.Join(root, program)
	}
	if _, err := os.Stat(program); err != nil {
		return "", fmt.Errorf("the page %s cannot be read: %w", program, err)
	}
	return fileURL(program), nil
}

// IsPageURL reports whether program names a page by URL (http, https or
// file) rather than by a path.
func IsPageURL(program string) bool {
	for _, scheme := range []string{"http://", "https://", "file://"} {
		if len(program) > len(scheme) && strings.EqualFold(program[:len(scheme)], scheme) {
			return true
		}
	}
	return false
}

// attachBrowser connects to the first page of the browser whose DevTools
// listen on host:port (chromium --remote-debugging-port) and enables the
// debugger there.
func (a *adapter) attachBrowser(raw json.RawMessage) error {
	var args browserArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return fmt.Errorf("attach arguments: %w", err)
	}
	host := cmp.Or(args.Host, "127.0.0.1")
	if args.Port <= 0 {
		return errors.New("attach needs port: the browser's DevTools port (chromium --remote-debugging-port=PORT)")
	}
	target, err := browserPort.targetAt(host, args.Port)
	if err != nil {
		return err
	}
	if err := a.connectTarget(target, "the page "+target.URL, host, args.Port); err != nil {
		return err
	}
	if err := a.call("Runtime.enable", nil, nil); err != nil {
		return err
	}
	if err := a.enableDebugger(); err != nil {
		return err
	}
	a.send(&godap.ProcessEvent{Event: event("process"), Body: godap.ProcessEventBody{
		Name: cmp.Or(target.URL, target.Title), IsLocalProcess: isLoopback(host), StartMethod: "attach"}})
	a.launched = true
	return nil
}

// onConsole turns the page's console messages and uncaught exceptions
// into output events: console.error and console.warn, and exceptions, go
// to stderr, the rest to stdout.
func (a *adapter) onConsole(method string, params json.RawMessage) {
	var text, category string
	switch method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string         `json:"type"`
			Args []remoteObject `json:"args"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		parts := make([]string, len(p.Args))
		for i, o := range p.Args {
			var s string
			if o.Type == "string" && json.Unmarshal(o.Value, &s) == nil {
				parts[i] = s
				continue
			}
			parts[i] = renderRemote(o)
		}
		text, category = strings.Join(parts, " "), "stdout"
		if p.Type == "error" || p.Type == "warning" || p.Type == "assert" {
			category = "stderr"
		}
	case "Runtime.exceptionThrown":
		var p struct {
			Details exceptionDetails `json:"exceptionDetails"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		text, category = p.Details.Text, "stderr"
		if p.Details.Exception != nil && p.Details.Exception.Description != "" {
			text = "Uncaught " + p.Details.Exception.Description
		}
	default:
		return
	}
	a.send(&godap.OutputEvent{Event: event("output"), Body: godap.OutputEventBody{Category: category, Output: text + "\n"}})
}

// nulFramed is Chromium's DevTools pipe as the line stream cdpConn reads
// and writes: its messages end with a NUL byte, not a newline (JSON holds
// neither raw).
type nulFramed struct{ f *os.File }

func (n nulFramed) Read(p []byte) (int, error) {
	k, err := n.f.Read(p)
	for i := range p[:k] {
		if p[i] == 0 {
			p[i] = '\n'
		}
	}
	return k, err
}

func (n nulFramed) Write(p []byte) (int, error) {
	b := []byte(strings.ReplaceAll(string(p), "\n", "\x00"))
	return n.f.Write(b)
}

func (n nulFramed) Close() error { return n.f.Close() }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
