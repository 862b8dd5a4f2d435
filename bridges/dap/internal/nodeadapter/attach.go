package nodeadapter

import "bufio"
import "cmp"
import "context"
import "encoding/hex"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "net"
import "net/http"
import "os"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "sync"
import "syscall"
import "time"

import godap "github.com/google/go-dap"

// Attaching to a node tether did not start: by the port its inspector
// listens on (node --inspect), or by its pid, whose inspector SIGUSR1
// opens (on 127.0.0.1:9229 unless the process was started with
// --inspect-port). The inspector speaks the same protocol as the relay of
// a launch, over a WebSocket whose URL its /json/list names. Ending the
// session detaches: the program runs on.

// attachArgs are the attach request's arguments (the adapter's Attach or
// AttachPID template, expanded).
type attachArgs struct {
	Host      string `json:"host"`
	Port      int    `json:"port"`
	ProcessID int    `json:"processId"`
}

// inspectorWait bounds waiting for an inspector: one still starting on
// the port given, or one SIGUSR1 asked for.
const inspectorWait = 10 * time.Second

// inspectorTarget is one entry of the inspector's /json/list.
type inspectorTarget struct {
	Type  string `json:"type"`
	Title string `json:"title"`
	URL   string `json:"url"`
	WS    string `json:"webSocketDebuggerUrl"`
}

// attach connects to the inspector of a running node and enables the
// debugger there; configurationDone lets a program that waits for a
// debugger (--inspect-brk) run.
func (a *adapter) attach(raw json.RawMessage) error {
	var args attachArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return fmt.Errorf("attach arguments: %w", err)
	}
	host, port := cmp.Or(args.Host, "127.0.0.1"), args.Port
	var target *inspectorTarget
	var err error
	switch {
	case args.ProcessID > 0:
		host, port, target, err = openInspector(args.ProcessID)
	case port > 0:
		target, err = waitInspector(host, port)
	default:
		err = errors.New("attach needs a port (node's --inspect port) or a processId")
	}
	if err != nil {
		return err
	}
	if err := a.connectTarget(target, "node's inspector", host, port); err != nil {
		return err
	}
	if err := a.enableDebugger(); err != nil {
		return err
	}
	a.send(&godap.ProcessEvent{Event: event("process"), Body: godap.ProcessEventBody{
		Name: cmp.Or(urlPath(target.URL), target.Title), SystemProcessId: args.ProcessID,
		IsLocalProcess: isLoopback(host), StartMethod: "attach"}})
	a.launched = true
	return nil
}

// connectTarget connects to target, which what (for errors) at host:port
// lists, as the session's attached CDP connection.
func (a *adapter) connectTarget(target *inspectorTarget, what, host string, port int) error {
	ctx, cancel := context.WithTimeout(context.Background(), nodeRequestTimeout)
	defer cancel()
	ws, err := dialWS(ctx, target.WS)
	if err != nil {
		return fmt.Errorf("connecting to %s at %s: %w", what, net.JoinHostPort(host, strconv.Itoa(port)), err)
	}
	a.attached = true
	a.cdp = newCDPConn(ws, ws, a.onCDP)
	go a.watchAttached(a.cdp)
	return nil
}

// watchAttached says the session is over when the inspector's connection
// closes (the program ended) while the client has not ended it.
func (a *adapter) watchAttached(c *cdpConn) {
	<-c.done
	a.mu.Lock()
	stopping := a.stopping
	a.mu.Unlock()
	if !stopping {
		a.send(&godap.TerminatedEvent{Event: event("terminated")})
	}
}

// detach leaves an attached program running: the debugger disabled (its
// breakpoints gone, a paused program resumed), then the connection closed.
func (a *adapter) detach() {
	a.mu.Lock()
	a.stopping = true
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = a.cdp.call(ctx, "Debugger.disable", nil, nil)
	a.cdp.close()
}

// openInspector finds the inspector of node process pid, opening it with
// SIGUSR1 when it has none, and returns where it listens.
func openInspector(pid int) (host string, port int, target *inspectorTarget, err error) {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return "", 0, nil, fmt.Errorf("cannot tell what process %d runs (%v): it may belong to another user or have ended", pid, err)
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	if !nodeName().MatchString(filepath.Base(exe)) {
		return "", 0, nil, fmt.Errorf("process %d runs %s, not node: the node adapter opens a process's inspector with SIGUSR1, which would end most other programs; attach with the adapter for %s", pid, exe, filepath.Base(exe))
	}
	// The program's own servers are asked once, not at every poll.
	tried := map[hostPort]bool{}
	if host, port, target := findInspector(pid, tried); target != nil {
		return host, port, target, nil
	}
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		return "", 0, nil, fmt.Errorf("sending SIGUSR1 to process %d to open its inspector: %w", pid, err)
	}
	deadline := time.Now().Add(inspectorWait)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		if host, port, target := findInspector(pid, tried); target != nil {
			return host, port, target, nil
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			return "", 0, nil, fmt.Errorf("process %d ended after SIGUSR1 (a node with a SIGUSR1 handler of its own, or started with --disable-sigusr1, may end on it)", pid)
		}
	}
	return "", 0, nil, fmt.Errorf("process %d did not open its inspector within %s of SIGUSR1: node opens it on 127.0.0.1:9229 unless started with --inspect-port, and another process may hold that port (its stderr says \"address already in use\"), or the program handles SIGUSR1 itself; start it with --inspect=127.0.0.1:0 (its stderr names the port) and attach by port", pid, inspectorWait)
}

// nodeName matches the executable names of node.
var nodeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(node|nodejs)[0-9.]*$`) })

// findInspector is the inspector among the TCP ports process pid listens
// on that are not in tried: the first that answers /json/list. A port
// whose server answers as another one is added to tried.
func findInspector(pid int, tried map[hostPort]bool) (string, int, *inspectorTarget) {
	for _, hp := range listeningPorts(pid) {
		if tried[hp] {
			continue
		}
		t, err := nodeInspector.targetAt(hp.host, hp.port)
		if err == nil {
			return hp.host, hp.port, t
		}
		// A server that answered as something else is not asked again;
		// one that did not answer (yet) is.
		tried[hp] = errors.Is(err, errNotInspector)
	}
	return "", 0, nil
}

// waitInspector asks the inspector at host:port for its target, waiting
// up to inspectorWait for one still starting.
func waitInspector(host string, port int) (*inspectorTarget, error) {
	deadline := time.Now().Add(inspectorWait)
	for {
		t, err := nodeInspector.targetAt(host, port)
		var op *net.OpError
		if err == nil || !errors.As(err, &op) || time.Now().After(deadline) {
			if err != nil {
				err = fmt.Errorf("%w; start node with --inspect=%s (or pass pid to open the inspector of a running node)", err, net.JoinHostPort(host, strconv.Itoa(port)))
			}
			return t, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// errNotInspector is a server that answers, as something else than a
// DevTools server.
var errNotInspector = errors.New("not as a DevTools server (node's inspector, a browser)")

// devTools is one kind of DevTools server an attach asks for its target:
// node's inspector, or a browser's DevTools port.
type devTools struct {
	name    string // "node's inspector"
	timeout time.Duration
	page    bool   // only a page is a target, not a worker or an extension
	target  string // what it lists: "target", "page"
	// notIt follows "ADDR answers, but not as a DevTools server", start
	// (given the port) "nothing answers as NAME at ADDR: ERR", and none
	// "NAME at ADDR lists no TARGET to debug (another debugger may hold
	// it)": the advice for each.
	notIt, none string
	start       func(port int) string
}

var (
	nodeInspector = devTools{name: "node's inspector", timeout: 3 * time.Second, target: "target"}
	browserPort   = devTools{name: "a browser's DevTools", timeout: 5 * time.Second, page: true, target: "page",
		notIt: "; is it the browser's --remote-debugging-port?",
		start: func(port int) string { return fmt.Sprintf("; start the browser with --remote-debugging-port=%d", port) },
		none:  "; open a page in it first"}
)

// targetAt reads the /json/list of the DevTools server at host:port and
// returns its first target with a WebSocket URL (a page, for d.page).
func (d devTools) targetAt(host string, port int) (*inspectorTarget, error) {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	targets, err := jsonList(addr, d.timeout)
	switch {
	case errors.Is(err, errNotInspector):
		return nil, fmt.Errorf("%s answers, but %w%s", addr, err, d.notIt)
	case err != nil:
		hint := ""
		if d.start != nil {
			hint = d.start(port)
		}
		return nil, fmt.Errorf("nothing answers as %s at %s: %w%s", d.name, addr, err, hint)
	}
	for i := range targets {
		if targets[i].WS != "" && (!d.page || targets[i].Type == "page") {
			return &targets[i], nil
		}
	}
	return nil, fmt.Errorf("%s at %s lists no %s to debug (another debugger may hold it)%s", d.name, addr, d.target, d.none)
}

// jsonList reads the targets the DevTools server at addr lists
// (/json/list, as node's inspector and Chromium serve it), within
// timeout; errNotInspector when something else answers.
func jsonList(addr string, timeout time.Duration) ([]inspectorTarget, error) {
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Get("http://" + addr + "/json/list")
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			err = ue.Unwrap()
		}
		return nil, err
	}
	defer resp.Body.Close()
	var targets []inspectorTarget
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&targets) != nil {
		return nil, fmt.Errorf("%w (/json/list: %s)", errNotInspector, resp.Status)
	}
	return targets, nil
}

// hostPort is a TCP address a process listens on.
type hostPort struct {
	host string
	port int
}

// listeningPorts are the TCP addresses process pid listens on, from its
// sockets (/proc/PID/fd) and its network namespace's tables
// (/proc/PID/net/tcp, tcp6); an address for any host is asked for on
// loopback.
func listeningPorts(pid int) []hostPort {
	dir := "/proc/" + strconv.Itoa(pid)
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return nil
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		if l, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	var out []hostPort
	for _, table := range []string{"tcp", "tcp6"} {
		f, err := os.Open(dir + "/net/" + table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// sl local_address rem_address st ... inode (the tenth)
			if len(fields) < 10 || fields[3] != "0A" || !inodes[fields[9]] {
				continue
			}
			if hp, ok := parseProcAddr(fields[1]); ok {
				out = append(out, hp)
			}
		}
		_ = f.Close()
	}
	return out
}

// parseProcAddr reads an address of /proc/net/tcp{,6}: hex IP (in 32-bit
// words of host order, little-endian here) and hex port.
func parseProcAddr(s string) (hostPort, bool) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(portHex, 16, 16)
	raw, herr := hex.DecodeString(ipHex)
	if !ok || err != nil || herr != nil || (len(raw) != 4 && len(raw) != 16) {
		return hostPort{}, false
	}
	ip := make(net.IP, len(raw))
	for w := 0; w < len(raw); w += 4 {
		for i := range 4 {
			ip[w+i] = raw[w+3-i]
		}
	}
	switch {
	case ip.IsUnspecified() && len(raw) == 4:
		ip = net.IPv4(127, 0, 0, 1)
	case ip.IsUnspecified():
		ip = net.IPv6loopback
	}
	return hostPort{host: ip.String(), port: int(port)}, true
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
