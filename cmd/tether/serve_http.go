package main

import "context"
import "errors"
import "flag"
import "fmt"
import "io"
import "log/slog"
import "net"
import "net/http"
import "os"
import "os/signal"
import "syscall"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/server"
import "github.com/tetherhq/tether/tools"

// httpFlags are serve's host-mode flags (tether serve --http ADDR).
type httpFlags struct {
	addr, root, tokens string
	metricsAddr        string
	metricsToken       string
	maxSessions        int
	maxPerToken        int
	sessionIdle        time.Duration
	drain              time.Duration
	execUnsandboxed    bool
	oauth              oauthFlags
}

func (f *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "http", "", "serve many runs over MCP Streamable HTTP on this address (such as 127.0.0.1:8080) instead of one on stdio; needs --root and --tokens")
	fs.StringVar(&f.root, "root", "", "with --http: the directory whose subdirectories are the workspaces, served at /mcp/{workspace}")
	fs.StringVar(&f.tokens, "tokens", "", `with --http: JSON file of bearer token to workspace names or globs ({"t-alpha": ["alpha"], "t-ops": ["*"]}); reloaded on SIGHUP`)
	fs.IntVar(&f.maxSessions, "max-sessions", 64, "with --http: the most sessions open at once; a new one past it gets 503 (0: no bound)")
	fs.IntVar(&f.maxPerToken, "max-sessions-per-token", 0, "with --http: the most sessions one token holds at once, so one tenant cannot take them all; a new one past it gets 503 (0: a quarter of --max-sessions, at least 1; give --max-sessions's value to let one token take every session)")
	fs.DurationVar(&f.sessionIdle, "session-idle", 30*time.Minute, "with --http: close a session and its run (kernels, language servers, debug sessions, workers) after this long without a request (0: never)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "with --http: serve /metrics on this address (such as :9090, a port only the pod network reaches) instead of on --http's")
	fs.StringVar(&f.metricsToken, "metrics-token", "", "with --http: file holding the bearer token /metrics requires (Prometheus: authorization.credentials_file); reloaded on SIGHUP; default: /metrics is open")
	fs.BoolVar(&f.execUnsandboxed, "exec-without-sandbox", false, "with --http: start even though exec tools are allowed and no sandbox confines the processes they start (--sandbox=off, or a kernel without Landlock): a tenant's kernel can then read every workspace, tether's tokens and /proc; without this flag such a host refuses to start")
	f.oauth.register(fs)
	fs.DurationVar(&f.drain, "drain", 30*time.Second, "with --http: on SIGTERM, how long running calls may finish before every run is closed")
}

// runServeHTTP is `tether serve --http`: cfg is the run configuration every
// session's run starts from (its workdir and conversation id are the
// session's).
func runServeHTTP(f httpFlags, cfg tools.Config, version string, stderr io.Writer) int {
	if f.root == "" || (f.tokens == "" && f.oauth.jwks == "") {
		fmt.Fprintln(stderr, "tether: serve --http needs --root DIR (the workspaces) and --tokens FILE or --jwks FILE (who may open which)")
		return 2
	}
	if err := hostSandbox(cfg, f.execUnsandboxed); err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return 2
	}
	// Tether's own environment, memory and open files (the tokens file) are
	// kept from the processes tenants start: they hold no capability
	// outside their user namespace, which a non-dumpable process requires.
	proc.Private()
	var toks *server.Tokens
	if f.tokens != "" {
		var err error
		if toks, err = server.LoadTokens(f.tokens); err != nil {
			fmt.Fprintln(stderr, "tether:", err)
			return 2
		}
	}
	oauth, err := f.oauth.load()
	if err != nil {
		fmt.Fprintln(stderr, "tether:", flagErr(err))
		return 2
	}
	mtok, err := f.loadMetricsToken()
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return 2
	}
	defer closeSharedEngine()
	host, err := server.NewHost(server.HostOptions{
		Root: f.root, Tokens: toks, MaxSessions: f.maxSessions, MaxSessionsPerToken: f.perToken(), SessionIdle: f.sessionIdle, Registry: hostRegistry(),
		MetricsApart: f.metricsAddr != "", MetricsToken: mtok, OAuth: oauth,
		Server: server.Options{Name: "tether", Version: version, ApprovalTimeout: operatorFlags.askTimeout, Logger: slog.Default()},
		StartRun: func(ctx context.Context, workdir, sessionID string, srv *server.Server) (*tools.Run, func() error, error) {
			c := cfg
			c.WorkDir, c.ConversationID, c.Approver = workdir, sessionID, srv.Approver()
			c.Surface = capSurface(c.Surface, server.RunTier(ctx))
			return startRun(ctx, c, wireEnv{Elicitor: srv, Serve: true, Host: true, Stderr: stderr})
		},
	})
	if err != nil {
		fmt.Fprintln(stderr, "tether:", flagErr(err))
		return 2
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return 1
	}
	hs := host.HTTPServer()
	if f.metricsAddr != "" {
		mln, err := net.Listen("tcp", f.metricsAddr)
		if err != nil {
			ln.Close()
			fmt.Fprintln(stderr, "tether: --metrics-addr:", err)
			return 1
		}
		ms := host.MetricsServer()
		go ms.Serve(mln)
		defer ms.Close()
		slog.Info("tether: serving /metrics", "metrics_addr", mln.Addr().String())
	}
	// The drain may take its bound twice (calls, then closing the runs)
	// before main's exit on a signal gives up on it.
	signalGraceFor.Store(int64(2*f.drain + time.Second))
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sigs)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	slog.Info("tether: serving MCP over HTTP", "addr", ln.Addr().String(), "root", f.root)
	for {
		select {
		case err := <-served:
			host.Close(context.Background())
			fmt.Fprintln(stderr, "tether:", err)
			return 1
		case sig := <-sigs:
			if sig == syscall.SIGHUP {
				f.reload(host)
				f.oauth.reload(oauth)
				continue
			}
			return drain(hs, host, f.drain, served)
		}
	}
}

// drain refuses new sessions (503, /healthz too), lets running calls finish
// for up to d, closes every session's run, then stops the HTTP server. The
// listener stays open until the runs are closed: a client reconnecting its
// event stream meanwhile still gets its running call's result.
func drain(hs *http.Server, host *server.Host, d time.Duration, served <-chan error) int {
	slog.Info("tether: draining", "sessions", host.Sessions(), "bound", d.String())
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	code := 0
	if err := host.Drain(ctx); err != nil {
		slog.Error("tether: draining", "err", err)
		code = 1
	}
	sctx, scancel := context.WithTimeout(context.Background(), d)
	defer scancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		slog.Error("tether: serving", "err", err)
		code = 1
	}
	slog.Info("tether: drained")
	return code
}

// perToken is --max-sessions-per-token, or its default: a quarter of
// --max-sessions, at least 1 (none when --max-sessions is 0).
func (f *httpFlags) perToken() int {
	if f.maxPerToken > 0 || f.maxSessions <= 0 {
		return f.maxPerToken
	}
	return max(1, f.maxSessions/4)
}

// loadMetricsToken reads --metrics-token's file; nil when it is not given.
func (f *httpFlags) loadMetricsToken() (*server.MetricsToken, error) {
	if f.metricsToken == "" {
		return nil, nil
	}
	return server.LoadMetricsToken(f.metricsToken)
}

// reload reads the tokens file and the metrics token file again (SIGHUP); a
// file that cannot be read keeps the previous tokens.
func (f *httpFlags) reload(host *server.Host) {
	if f.tokens != "" { // else a host of JWTs alone
		if t, err := server.LoadTokens(f.tokens); err != nil {
			slog.Error("tether: tokens file not reloaded; the previous tokens stay", "err", err)
		} else {
			host.SetTokens(t)
			slog.Info("tether: tokens file reloaded")
		}
	}
	if f.metricsToken == "" {
		return
	}
	if t, err := f.loadMetricsToken(); err != nil {
		slog.Error("tether: metrics token file not reloaded; the previous token stays", "err", err)
	} else {
		host.SetMetricsToken(t)
		slog.Info("tether: metrics token file reloaded")
	}
}

// hostSandbox checks, before a host starts, that exec tools cannot take
// down the wall between tenants: where the surface and the approval policy
// let a tenant run eval or debug, every process they start must be
// sandboxed (files confined by Landlock), unless the operator said
// --exec-without-sandbox. It also makes the sandbox strict: a process that
// would have to run unsandboxed (an attach by pid, an lldb attach) is refused.
func hostSandbox(cfg tools.Config, execUnsandboxed bool) error {
	st := proc.SandboxStatus()
	if !execUnsandboxed {
		o := st.Options()
		o.Strict = true
		proc.Configure(o)
	}
	execAllowed := cfg.Surface.Allows(tools.TierExec) &&
		(cfg.Policy.Decide("eval", tools.TierExec) != tools.Deny || cfg.Policy.Decide("debug", tools.TierExec) != tools.Deny)
	if !execAllowed || st.Files() || execUnsandboxed {
		return nil
	}
	return fmt.Errorf("serve --http: exec tools (eval, debug) are allowed but nothing sandboxes the processes they start (%s): a tenant's kernel could read every workspace and tether's tokens. Turn the sandbox on (--sandbox=on, on a kernel with Landlock), deny exec (--approve exec=deny), or accept it with --exec-without-sandbox", st)
}

// optionFlags are the flags that set server's HostOptions and OAuthOptions
// fields, by field.
var optionFlags = map[string]string{"Root": "--root", "ResourceURL": "--public-url", "Issuer": "--jwt-issuer"}

// flagErr names the flag of the server option err is about (a
// server.OptionError), as the library does not know the command line.
func flagErr(err error) error {
	var oe *server.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	flag, ok := optionFlags[oe.Option]
	if !ok {
		return err
	}
	msg := oe.Why
	if oe.Err != nil {
		msg += ": " + oe.Err.Error()
	}
	return fmt.Errorf("%s: %s", flag, msg)
}
