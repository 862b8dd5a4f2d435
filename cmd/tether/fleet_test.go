//go:build linux

package main

import "context"
import "fmt"
import "net/http"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "sync"
import "syscall"
import "testing"
import "text/template"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/server"

// fleetNginx is the proxy configuration DEPLOY.md gives ("A fleet behind
// nginx"), in a prefix of its own: the maps and the upstream are the
// documented ones; the paths, ports and the X-Tether-Upstream header (which
// replica answered, for the test to see) are the test's.
const fleetNginx = `daemon off;
master_process on;
worker_processes 1;
pid {{.Dir}}/nginx.pid;
error_log {{.Dir}}/error.log info;
{{if .Root}}user root;{{end}}
events { worker_connections 512; }
http {
  access_log {{.Dir}}/access.log;
  client_body_temp_path {{.Dir}}/body;
  proxy_temp_path {{.Dir}}/proxy;
  fastcgi_temp_path {{.Dir}}/fastcgi;
  uwsgi_temp_path {{.Dir}}/uwsgi;
  scgi_temp_path {{.Dir}}/scgi;

  # The key a request is hashed on: a 2026-07-28 client's conversation
  # key; else the affinity part of an older client's session id (before
  # the first dot); else, for an initialize, a fresh random key that is
  # also sent to the replica, which starts the session id with it.
  map $http_mcp_session_id $tether_session_key {
    "~^(?<aff>[A-Za-z0-9_-]{1,64})\." $aff;
    ""      $request_id;
    default $http_mcp_session_id;
  }
  map $http_tether_conversation $tether_key {
    ""      $tether_session_key;
    default $http_tether_conversation;
  }
  upstream tether {
    hash $tether_key consistent;
{{range .Replicas}}    server {{.}} max_fails=0;
{{end}}  }
  server {
    listen {{.Listen}};
    location / {
      proxy_pass http://tether;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header Tether-Affinity $tether_key;
      proxy_buffering off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout http_503 non_idempotent;
      proxy_next_upstream_tries 3;
      add_header X-Tether-Upstream $upstream_addr always;
    }
  }
}
`

// startNginx runs Debian's nginx in front of replicas (host:port each) on a
// loopback port of its own and returns its base URL; it is stopped at the
// test's end.
func startNginx(t *testing.T, replicas []string) string {
	t.Helper()
	bin := sbinPeer(t, "nginx", "nginx (Debian's nginx-light)")
	dir := t.TempDir()
	for _, d := range []string{"body", "proxy", "fastcgi", "uwsgi", "scgi", "logs"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	listen := testenv.FreeLoopback(t).String()
	conf := writeTemplate(t, filepath.Join(dir, "nginx.conf"), fleetNginx, map[string]any{
		"Dir": dir, "Root": os.Geteuid() == 0, "Replicas": replicas, "Listen": listen,
	})
	if out, err := exec.Command(bin, "-t", "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log")).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	cmd.Stderr = os.Stderr
	// A group of its own, so that its workers go with the master should
	// the master have to be killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopProxy(cmd, syscall.SIGQUIT)
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(dir, "error.log")); err == nil {
				t.Logf("nginx error.log:\n%s", b)
			}
		}
	})
	return waitProxy(t, "nginx", listen)
}

// fleetHAProxy is DEPLOY.md's HAProxy configuration, with the test's
// paths, ports and X-Tether-Upstream (the replica that answered).
const fleetHAProxy = `global
  pidfile {{.Dir}}/haproxy.pid
defaults
  mode http
  timeout connect 5s
  timeout client 1h
  timeout server 1h
  timeout http-request 10s
  option http-buffer-request
  retry-on 503 conn-failure empty-response
  retries 2
  option redispatch 1
frontend mcp
  bind {{.Listen}}
  http-request set-var(txn.key) req.hdr(tether-conversation) if { req.hdr(tether-conversation) -m found }
  http-request set-var(txn.key) req.hdr(mcp-session-id),field(1,.) if !{ var(txn.key) -m found } { req.hdr(mcp-session-id) -m reg ^[A-Za-z0-9_-]{1,64}[.] }
  http-request set-var(txn.key) req.hdr(mcp-session-id) if !{ var(txn.key) -m found } { req.hdr(mcp-session-id) -m found }
  http-request set-var(txn.key) uuid if !{ var(txn.key) -m found }
  http-request set-header Tether-Affinity %[var(txn.key)]
  default_backend tether
backend tether
  balance hash var(txn.key)
  hash-type consistent
  http-response set-header X-Tether-Upstream %[srv_name]
{{range .Replicas}}  server {{.}} {{.}}
{{end}}`

// sbinPeer returns the path of the proxy binary name, on the peers' PATH
// or in /usr/sbin (Debian's packages put it there, off a user's PATH), or
// fails or skips the test saying what is missing.
func sbinPeer(t *testing.T, name, what string) string {
	t.Helper()
	if bin := testenv.LookPath(name); bin != "" {
		return bin
	}
	bin := filepath.Join("/usr/sbin", name)
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, what)
	}
	return bin
}

// startHAProxy runs Debian's HAProxy in front of replicas on a loopback
// port of its own and returns its base URL; it is stopped at the test's end.
func startHAProxy(t *testing.T, replicas []string) string {
	t.Helper()
	bin := sbinPeer(t, "haproxy", "haproxy (Debian's haproxy)")
	dir := t.TempDir()
	listen := testenv.FreeLoopback(t).String()
	conf := writeTemplate(t, filepath.Join(dir, "haproxy.cfg"), fleetHAProxy, map[string]any{"Dir": dir, "Replicas": replicas, "Listen": listen})
	if out, err := exec.Command(bin, "-c", "-f", conf).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-db", "-f", conf)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopProxy(cmd, syscall.SIGUSR1) })
	return waitProxy(t, "haproxy", listen)
}

// writeTemplate writes text executed with data to name.
func writeTemplate(t *testing.T, name, text string, data any) string {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	err = template.Must(template.New(filepath.Base(name)).Parse(text)).Execute(f, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// stopProxy stops a proxy with its graceful signal, then kills its group
// after ten seconds.
func stopProxy(cmd *exec.Cmd, graceful syscall.Signal) {
	cmd.Process.Signal(graceful)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// waitProxy waits until the proxy on listen answers /healthz from a
// replica and returns its base URL.
func waitProxy(t *testing.T, name, listen string) string {
	t.Helper()
	url := "http://" + listen
	for end := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(end) {
			t.Fatalf("%s never answered /healthz on %s: %v", name, listen, err)
		}
	}
}

// fleetRT sends the bearer token and, for a 2026-07-28 client, the
// conversation key with every request, and records which replica answered
// last (the last address of nginx's X-Tether-Upstream).
type fleetRT struct {
	key      string
	mu       sync.Mutex
	upstream string
	tried    []string // every X-Tether-Upstream seen, in order
}

func (f *fleetRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer t-ops-0123456789")
	if f.key != "" {
		r.Header.Set(server.ConversationHeader, f.key)
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		if u := resp.Header.Get("X-Tether-Upstream"); u != "" {
			parts := strings.Split(u, ",")
			f.mu.Lock()
			f.upstream = strings.TrimSpace(parts[len(parts)-1])
			f.tried = append(f.tried, u)
			f.mu.Unlock()
		}
	}
	return resp, err
}

func (f *fleetRT) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.upstream
}

// fleetConv is one conversation through the proxy: an older client's
// session or a 2026-07-28 client's conversation, the replica it landed on
// and the value its kernel holds in x.
type fleetConv struct {
	modern  bool
	cs      *mcp.ClientSession
	rt      *fleetRT
	replica string
	x       int
}

func (c *fleetConv) kind() string {
	if c.modern {
		return "2026-07-28 conversation"
	}
	return "2025-11-25 session"
}

// openFleetConv connects through the proxy at url: at 2026-07-28 with a
// conversation key when modern, else at 2025-11-25 with a session.
func openFleetConv(t *testing.T, url string, modern bool, n int) *fleetConv {
	t.Helper()
	c := &fleetConv{modern: modern, rt: &fleetRT{}}
	version := "2025-11-25"
	if modern {
		version = "2026-07-28"
		c.rt.key = fmt.Sprintf("fleet-%s-%04d", strings.ReplaceAll(t.Name(), "/", "-"), n)
		c.rt.key += "-" + fmt.Sprint(time.Now().UnixNano())
	}
	// An older client reconnects its event stream as go-sdk clients do by
	// default: the drain closes it once a running call's result is written.
	client := mcp.NewClient(&mcp.Implementation{Name: "fleet", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url + "/mcp/alpha", HTTPClient: &http.Client{Transport: c.rt},
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("%s through the proxy: %v", version, err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("connected at %s, want %s", got, version)
	}
	c.cs = cs
	c.replica = c.rt.last()
	return c
}

// eval runs code in c's Python kernel and returns its text, whether it is
// an error, and whether the result says the conversation's run is new.
func (c *fleetConv) eval(ctx context.Context, code string) (string, bool, bool, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "eval", Arguments: map[string]any{"code": code, "language": "python", "description": "a cell of the fleet test conversation"}})
	if err != nil {
		return "", true, false, err
	}
	return resultText(res), res.IsError, res.Meta[server.ConversationNewMetaKey] == true, nil
}

// setX stores v in c's kernel as x and checks the call landed on c's
// replica.
func (c *fleetConv) setX(t *testing.T, v int) {
	t.Helper()
	text, isErr, _, err := c.eval(context.Background(), fmt.Sprintf("x = %d\nprint('set', x)", v))
	if err != nil || isErr || !strings.Contains(text, fmt.Sprintf("set %d", v)) {
		t.Fatalf("%s: x = %d: %v %v\n%s", c.kind(), v, err, isErr, text)
	}
	got := c.rt.last()
	if c.modern {
		// A conversation's run is where its first call ran (server/discover
		// starts none, and a draining replica still answers it).
		c.replica = got
	} else if got != c.replica {
		t.Fatalf("%s opened on %s, its call went to %s", c.kind(), c.replica, got)
	}
	c.x = v
}

// checkX checks c's kernel still holds its x, on its replica.
func (c *fleetConv) checkX(t *testing.T) {
	t.Helper()
	text, isErr, fresh, err := c.eval(context.Background(), "print('x is', x)")
	if err != nil || isErr || fresh || !strings.Contains(text, fmt.Sprintf("x is %d", c.x)) {
		t.Errorf("%s on %s lost its state: %v error %v new run %v\n%s", c.kind(), c.replica, err, isErr, fresh, text)
	}
	if got := c.rt.last(); got != c.replica {
		t.Errorf("%s opened on %s, its call went to %s", c.kind(), c.replica, got)
	}
}

// TestFleetBehindNginx runs two tether replicas behind Debian's nginx
// hashing on the conversation key (2026-07-28) and on the session id's
// affinity part (2025-11-25): each conversation keeps its kernel's state
// across calls on its replica; SIGTERM to one replica in the middle of a
// call of each kind lets both calls finish, sends the conversations begun
// during the drain to the other replica, and afterwards the drained
// replica's sessions are told to start a new session (404) and its
// conversations get a new run that says so (tether/conversationNew), while
// the other replica's keep their state.
func TestFleetBehindNginx(t *testing.T) { fleetScenario(t, startNginx) }

// TestFleetBehindHAProxy is TestFleetBehindNginx with Debian's HAProxy as
// the proxy (DEPLOY.md's HAProxy configuration).
func TestFleetBehindHAProxy(t *testing.T) { fleetScenario(t, startHAProxy) }

// fleetScenario is the fleet test with the proxy start starts in front of
// the replicas (host:port each), returning its base URL.
//
// Over 120 lines: one scenario told in order (start, sessions, drain,
// after the drain) against two real replicas behind nginx; its steps
// share the replicas, the sessions and their conversations.
func fleetScenario(t *testing.T, start func(t *testing.T, replicas []string) string) {
	base := t.TempDir()
	const drainBound = "60s"
	r1 := startHostProc(t, base, "--drain", drainBound, "--max-sessions", "64", "--max-sessions-per-token", "64")
	r2 := startHostProc(t, base, "--drain", drainBound, "--max-sessions", "64", "--max-sessions-per-token", "64")
	addr := func(hp hostProc) string { return strings.TrimPrefix(hp.url, "http://") }
	url := start(t, []string{addr(r1), addr(r2)})
	procs := map[string]hostProc{addr(r1): r1, addr(r2): r2}

	// Three conversations of each kind on each replica, each with its own x.
	// Keys are random (the session's affinity comes from nginx's
	// $request_id), so open until every replica has its share; the bound only
	// turns a proxy that never reaches one replica into a failure.
	const perReplica = 3
	per := map[string]int{}
	var convs []*fleetConv
	for _, modern := range []bool{false, true} {
		for n := 0; ; n++ {
			if n == 60 {
				t.Fatalf("after %d tries the %v kind reached only %v", n, modern, per)
			}
			c := openFleetConv(t, url, modern, n)
			bucket := fmt.Sprint(modern, c.replica)
			if procs[c.replica].cmd == nil {
				t.Fatalf("%s answered by %q, not a replica", c.kind(), c.replica)
			}
			if per[bucket] >= perReplica {
				c.cs.Close()
				continue
			}
			per[bucket]++
			c.setX(t, 100+len(convs))
			convs = append(convs, c)
			if len(convs) == 2*perReplica || len(convs) == 4*perReplica {
				break
			}
		}
	}
	for _, c := range convs {
		c.checkX(t)
	}
	t.Logf("conversations by kind and replica: %v", per)

	// A long call of each kind on replica A, then SIGTERM to A.
	a, b := addr(r1), addr(r2)
	type result struct {
		c     *fleetConv
		text  string
		isErr bool
		err   error
	}
	results := make(chan result, 2)
	var markers []string
	for i, c := range convs {
		if c.replica != a || (len(markers) == 1 && !c.modern) {
			continue
		}
		if len(markers) == 2 {
			break
		}
		marker := filepath.Join(base, "root", "alpha", fmt.Sprintf("long-%d", i))
		markers = append(markers, marker)
		go func(c *fleetConv) {
			text, isErr, _, err := c.eval(context.Background(), fmt.Sprintf("import time\nopen(%q, 'w').close()\ntime.sleep(3)\nprint('finished', x)", marker))
			results <- result{c, text, isErr, err}
		}(c)
	}
	if len(markers) != 2 {
		t.Fatalf("no session and conversation on %s to run a long call in", a)
	}
	for _, m := range markers {
		awaitMarker[error](t, m, nil)
	}
	procs[a].cmd.Process.Signal(syscall.SIGTERM)
	// The signal is handled on its own goroutine: wait until A says it is
	// draining (the bound only turns a missed signal into a failure).
	for end := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(procs[a].url + "/healthz")
		if err != nil {
			break // already gone
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("replica %s never began draining after SIGTERM", a)
		}
	}

	// Conversations begun while A drains go to B, and keep state there.
	var late []*fleetConv
	for i, modern := range []bool{false, true, false, true} {
		c := openFleetConv(t, url, modern, 1000+i)
		c.setX(t, 200+i)
		if c.replica != b {
			t.Errorf("a %s begun while %s drains went to %s, want %s", c.kind(), a, c.replica, b)
		}
		c.rt.mu.Lock()
		t.Logf("a %s begun while %s drains: replicas tried per request %q", c.kind(), a, c.rt.tried)
		c.rt.mu.Unlock()
		late = append(late, c)
	}

	// No call that was running is lost.
	for range markers {
		r := <-results
		if r.err != nil || r.isErr || !strings.Contains(r.text, fmt.Sprintf("finished %d", r.c.x)) {
			t.Errorf("the %s's call running at SIGTERM: %v error %v\n%s", r.c.kind(), r.err, r.isErr, r.text)
		}
	}
	if err := procs[a].cmd.Wait(); err != nil {
		t.Errorf("replica %s after SIGTERM: %v (want 0: every call finished)", a, err)
	}

	// A's conversations are told to start again; B's keep their state.
	for _, c := range convs {
		if c.replica == b {
			c.checkX(t)
			continue
		}
		if c.modern {
			text, _, fresh, err := c.eval(context.Background(), "print('x is', x)")
			if err != nil || !fresh {
				t.Errorf("a conversation of drained %s: %v, new run %v (want tether/conversationNew)\n%s", a, err, fresh, text)
			}
			continue
		}
		status, body := rawSessionCall(t, url, c.cs.ID())
		if status != http.StatusNotFound || !strings.Contains(body, "start a new session") {
			t.Errorf("a session of drained %s: %d %s; want 404 saying to start a new session", a, status, body)
		}
	}
	for _, c := range late {
		c.checkX(t)
	}
	for _, c := range append(convs, late...) {
		c.cs.Close()
	}
}

// rawSessionCall posts a tools/list of session id through the proxy and
// returns the status and body.
func rawSessionCall(t *testing.T, url, id string) (int, string) {
	t.Helper()
	req := testenv.PostMCP(url+"/mcp/alpha", "t-ops-0123456789", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
		"Mcp-Protocol-Version", "2025-11-25", "Mcp-Session-Id", id)
	resp, b := testenv.Do(t, req)
	return resp.StatusCode, string(b)
}
