package lsp

import "context"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "sort"
import "strings"
import "sync"
import "sync/atomic"
import "time"

import "github.com/tetherhq/tether/internal/fsutil"

// ErrNotReady is wrapped by errors for requests made while a server is still
// indexing (it did not become ready within the readiness bound).
var ErrNotReady = errors.New("lsp: server still indexing")

// ErrNoServer is wrapped by errors saying why no server can answer for a file:
// no server serves its extension, no root marker, or no binary.
var ErrNoServer = errors.New("lsp: no server")

// Option configures a Supervisor.
type Option func(*Supervisor)

// WithServers adds servers to the table, in front of the defaults; a server
// with the same Name as a default replaces it.
func WithServers(servers ...Server) Option {
	return func(s *Supervisor) {
		var out []Server
		names := map[string]bool{}
		for _, sv := range servers {
			out = append(out, sv)
			names[sv.Name] = true
		}
		for _, sv := range s.servers {
			if !names[sv.Name] {
				out = append(out, sv)
			}
		}
		s.servers = out
	}
}

// WithOnlyServers replaces the whole table.
func WithOnlyServers(servers ...Server) Option {
	return func(s *Supervisor) { s.servers = append([]Server(nil), servers...) }
}

// WithEnv sets the environment servers and checkers run with (os.Environ form);
// its PATH is where binaries are looked up. The default is os.Environ().
// Servers and Check get it without PATH entries inside the workspace or
// relative ones, and with GOTOOLCHAIN=local (no program from the workspace
// runs at read tier); CheckProject gets it as given.
func WithEnv(env []string) Option { return func(s *Supervisor) { s.env = env } }

// WithReadyTimeout bounds the wait for a started server to become ready
// (default 60s). A request still waiting when it passes fails with ErrNotReady.
func WithReadyTimeout(d time.Duration) Option { return func(s *Supervisor) { s.readyTimeout = d } }

// WithRequestTimeout bounds each request (default 30s); a request that takes
// longer is cancelled with $/cancelRequest and reported as hung.
func WithRequestTimeout(d time.Duration) Option {
	return func(s *Supervisor) { s.requestTimeout = d }
}

// WithDiagnosticsTimeout bounds the wait for diagnostics after a change
// (default 5s).
func WithDiagnosticsTimeout(d time.Duration) Option {
	return func(s *Supervisor) { s.diagTimeout = d }
}

// WithCheckerTimeout bounds a project checker run (default 3m), and a
// pull for a file's diagnostics, which the server answers once it has
// analysed the file to the end.
func WithCheckerTimeout(d time.Duration) Option {
	return func(s *Supervisor) { s.checkerTimeout = d }
}

// Supervisor owns the language servers of one workspace: it starts one per
// (server, root) lazily, restarts a crashed one once, and reports status.
// It is safe for concurrent use.
type Supervisor struct {
	workdir        string
	root           *fsutil.Root
	servers        []Server
	env            []string // trusted: see trustedEnv
	projectEnv     []string // as given, for CheckProject
	pathDropped    []string // PATH entries left out of env
	readyTimeout   time.Duration
	requestTimeout time.Duration
	diagTimeout    time.Duration
	checkerTimeout time.Duration
	python         string // WithPython
	formatOnWrite  bool   // WithFormatOnWrite

	gate     viewGate     // views (ShowContent) exclusive against queries
	sessions atomic.Int32 // the Pool's sessions using it; 0 when not pooled
	pooled   atomic.Bool  // a Pool's: Close leaves it to the Pool

	mu     sync.Mutex
	slots  map[string]*slot
	closed bool
	dial   func(spec Server, root string) (*instance, error) // test hook
}

// slot is the place of one (server, root) pair: its current instance and history.
type slot struct {
	spec     Server
	root     string
	mu       sync.Mutex // serialises start/restart
	inst     *instance
	restarts int // crash restarts since the first start
	// reloaded is set by Reload: the instance it started is not restarted
	// automatically after a crash, so a server that crash-loops stays
	// stopped until the caller asks with another reload.
	reloaded bool
	// stopped is set when a crash was not restarted: calls are refused
	// (with lastErr) until Reload clears it.
	stopped bool
	// noRestart is reloaded || restarts >= 1, read without mu by a query
	// saying what its server's crash leads to.
	noRestart atomic.Bool
	lastErr   string // why the last start or the last instance failed
	// starting is set while a start (or restart, or reload) holds mu.
	starting atomic.Bool
}

// New returns a Supervisor for the workspace rooted at workdir.
func New(workdir string, opts ...Option) (*Supervisor, error) {
	root, err := fsutil.NewRoot(workdir)
	if err != nil {
		return nil, fmt.Errorf("lsp: workspace: %w", err)
	}
	s := &Supervisor{
		workdir:        root.RealDir(),
		root:           root,
		servers:        DefaultServers(),
		env:            os.Environ(),
		readyTimeout:   60 * time.Second,
		requestTimeout: 30 * time.Second,
		diagTimeout:    5 * time.Second,
		checkerTimeout: 3 * time.Minute,
		slots:          map[string]*slot{},
	}
	for _, o := range opts {
		o(s)
	}
	s.projectEnv = s.env
	s.env, s.pathDropped = trustedEnv(s.env, s.workdir)
	return s, nil
}

// pathNote says, when PATH had entries inside the workspace or relative
// ones, that they are not searched.
func (s *Supervisor) pathNote() string {
	if len(s.pathDropped) == 0 {
		return ""
	}
	return fmt.Sprintf(" (PATH entries inside the workspace or relative are not searched: %q)", s.pathDropped)
}

// WorkDir returns the workspace root.
func (s *Supervisor) WorkDir() string { return s.workdir }

// Servers returns a copy of the server table.
func (s *Supervisor) Servers() []Server { return append([]Server(nil), s.servers...) }

// rel returns path relative to the workspace when it is inside, else path.
func (s *Supervisor) rel(path string) string {
	r, err := filepath.Rel(s.workdir, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(r)
}

// abs resolves a workspace-relative (or absolute) path and keeps it inside the
// workspace, symlinks included.
func (s *Supervisor) abs(file string) (string, error) {
	if file == "" {
		return "", errors.New("lsp: no file given: pass a workspace-relative path")
	}
	real, _, err := s.root.Resolve(file)
	if err != nil {
		return "", fmt.Errorf("lsp: %w", err)
	}
	return real, nil
}

// specFor returns the server serving path's extension.
func (s *Supervisor) specFor(path string) (Server, error) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, sv := range s.servers {
		if !sv.Linter && sv.serves(path) {
			return sv, nil
		}
	}
	var known []string
	for _, sv := range s.servers {
		if !sv.Linter {
			known = append(known, sv.Name+" ("+strings.Join(sv.Extensions, " ")+")")
		}
	}
	return Server{}, fmt.Errorf("%w serves %q files (%s): %s", ErrNoServer, ext, s.rel(path), strings.Join(known, ", "))
}

// rootFor walks up from path's directory to the workspace looking for one of
// spec's markers.
func (s *Supervisor) rootFor(spec Server, path string) (root, marker string) {
	if len(spec.RootMarkers) == 0 {
		return s.workdir, spec.anyFile()
	}
	dir := filepath.Dir(path)
	for {
		if m := spec.markerIn(dir); m != "" {
			return dir, m
		}
		if dir == s.workdir || !strings.HasPrefix(dir, s.workdir) {
			return "", ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
}

// acquire returns the running instance for path's server and root, starting
// (or restarting after a crash) as needed. notes report a crash and restart.
func (s *Supervisor) acquire(ctx context.Context, path string) (*instance, []string, error) {
	spec, err := s.specFor(path)
	if err != nil {
		return nil, nil, err
	}
	root, marker := s.rootFor(spec, path)
	if root == "" {
		return nil, nil, fmt.Errorf("%w: no root marker for %s (none of %s in %s or its parents inside the workspace); %s starts only in a project root",
			ErrNoServer, spec.Language, strings.Join(spec.RootMarkers, ", "), s.rel(filepath.Dir(path)), spec.Name)
	}
	return s.acquireRoot(ctx, spec, root, marker)
}

func (s *Supervisor) slotFor(spec Server, root string) (*slot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("lsp: supervisor is closed")
	}
	key := spec.Name + "\x00" + root
	sl := s.slots[key]
	if sl == nil {
		sl = &slot{spec: spec, root: root}
		s.slots[key] = sl
	}
	return sl, nil
}

func (s *Supervisor) acquireRoot(ctx context.Context, spec Server, root, marker string) (*instance, []string, error) {
	sl, err := s.slotFor(spec, root)
	if err != nil {
		return nil, nil, err
	}
	sl.mu.Lock()
	defer sl.mu.Unlock()
	var notes []string
	if sl.inst == nil && sl.stopped {
		return nil, nil, fmt.Errorf("lsp: %s is stopped (%s); call reload to start it again", spec.Name, sl.lastErr)
	}
	if sl.inst != nil {
		dead, why := sl.inst.dead()
		if !dead {
			return sl.inst, nil, nil
		}
		report := crashReport(sl.inst, why)
		sl.inst = nil
		switch {
		case sl.reloaded:
			sl.stopped = true
			sl.lastErr = "crashed after a reload: " + report + "; it stays stopped until reload is called again"
			return nil, nil, fmt.Errorf("lsp: %s crashed after the reload (%s); it is not restarted automatically: call reload to start it again", spec.Name, report)
		case sl.restarts >= 1:
			sl.stopped = true
			sl.lastErr = "crashed again: " + report + "; it stays stopped until reload is called"
			return nil, nil, fmt.Errorf("lsp: %s crashed again (%s) after one automatic restart; call reload to start it again", spec.Name, report)
		}
		sl.lastErr = "crashed: " + report
		sl.restarts++
		sl.noRestart.Store(true)
		notes = append(notes, fmt.Sprintf("lsp: %s crashed (%s); restarted it", spec.Name, report))
	}
	sl.starting.Store(true)
	in, err := s.start(ctx, spec, root, marker)
	sl.starting.Store(false)
	if err != nil {
		sl.lastErr = reason(err)
		return nil, notes, err
	}
	sl.inst = in
	sl.lastErr = ""
	return in, notes, nil
}

// reason is err's message without the package prefixes, for a status row
// or a sentence that has its own.
func reason(err error) string {
	msg := err.Error()
	for _, p := range []string{"lsp: no server: ", "lsp: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

func crashReport(in *instance, why error) string {
	msg := "exited"
	if why != nil {
		msg = why.Error()
	}
	if tail := lastLines(in.stderr, 3); tail != "" {
		msg += "; stderr: " + tail
	}
	return msg
}

func (s *Supervisor) start(ctx context.Context, spec Server, root, marker string) (*instance, error) {
	notice(ctx, "starting %s for %s; its first answer waits until it has loaded the project", spec.Name, s.rel(root))
	disk, special, _ := scanDir(root, spec) // the baseline for changes made by other means
	if err := s.specialErr(spec, special); err != nil {
		return nil, err
	}
	var in *instance
	if s.dial != nil {
		var err error
		if in, err = s.dial(spec, root); err != nil {
			return nil, err
		}
	} else {
		name, bin := spec.binary(s.env, s.workdir)
		if bin == "" {
			return nil, fmt.Errorf("%w: %s found, %s not on PATH%s; install it to use lsp for %s%s", ErrNoServer, marker, spec.Binaries[0], s.pathNote(), spec.Language, spec.installNote())
		}
		if why := spec.unusable(name, bin, s.env); why != "" {
			return nil, fmt.Errorf("%w: %s found, but %s; install a working %s to use lsp for %s", ErrNoServer, marker, why, name, spec.Language)
		}
		if spec.PinTSServer {
			opts, err := pinTSServer(spec.InitOptions, bin, s.env, s.workdir)
			if err != nil {
				return nil, fmt.Errorf("%w: %s found, but %v", ErrNoServer, marker, err)
			}
			spec.InitOptions = opts
		}
		if spec.PinESLint {
			settings, err := pinESLint(spec.Settings, bin, s.workdir)
			if err != nil {
				return nil, fmt.Errorf("%w: %s found, but %v", ErrNoServer, marker, err)
			}
			spec.Settings = settings
		}
		interp := ""
		if spec.PythonInterpreter {
			c := s.pythonFor(root)
			settings, err := withPython(spec.Settings, c)
			if err != nil {
				return nil, fmt.Errorf("%w: %s found, but %v", ErrNoServer, marker, err)
			}
			spec.Settings, interp = settings, c.String()
		}
		var err error
		if in, err = startProcess(spec, root, s.workdir, bin, s.env); err != nil {
			return nil, err
		}
		in.interp = interp
	}
	in.disk = disk
	if err := in.initialize(ctx, s.readyTimeout); err != nil {
		in.shutdown()
		if tail := lastLines(in.stderr, 3); tail != "" {
			err = fmt.Errorf("%w (stderr: %s)", err, tail)
		}
		return nil, fmt.Errorf("lsp: %s did not initialize in %s: %w", spec.Name, s.rel(root), err)
	}
	return in, nil
}

// ready waits (bounded) for in to finish indexing.
func (s *Supervisor) ready(ctx context.Context, in *instance) error {
	ok, err := in.waitReady(ctx, s.readyTimeout)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %s is still indexing %s (started %s ago); retry in a few seconds",
			ErrNotReady, in.spec.Name, s.rel(in.root), time.Since(in.started).Round(time.Second))
	}
	return nil
}

// StatusRow is one line of Status: a server for a root, running or not and why.
type StatusRow struct {
	Server   string        `json:"server"`
	Language string        `json:"language"`
	Root     string        `json:"root,omitempty"`
	Running  bool          `json:"running"`
	PID      int           `json:"pid,omitempty"`
	Uptime   time.Duration `json:"uptime,omitempty"`
	// Reason says why the server is not running (or notes about it).
	Reason string `json:"reason,omitempty"`
	// State is starting, indexing, ready, failed (Reason says why),
	// stopped, or not started.
	State string `json:"state"`
	// Version is what the server said of itself (serverInfo), "" when it
	// said nothing or has not started.
	Version string `json:"version,omitempty"`
	// Supports are the requests and features it announced (ServerFeatures),
	// and Lacks those tether can use that it did not; both empty until it
	// starts.
	Supports []string `json:"supports,omitempty"`
	Lacks    []string `json:"lacks,omitempty"`
	// Interpreter is, for a Python server, the interpreter whose packages
	// it resolves imports against, and why that one.
	Interpreter string `json:"interpreter,omitempty"`
	// Sessions is how many of a host's sessions share this server (a
	// Pool's), 0 when it is not shared.
	Sessions int `json:"sessions,omitempty"`
}

// String renders the row for a person.
func (r StatusRow) String() string {
	if r.Running {
		s := fmt.Sprintf("%s (%s): running, pid %d, root %s, up %s", r.Server, r.Language, r.PID, r.Root, r.Uptime.Round(time.Second))
		if r.State != "" {
			s += ", " + r.State
		}
		if r.Version != "" {
			s += ", " + r.Version
		}
		if r.Sessions > 1 {
			s += fmt.Sprintf(", shared by %d sessions", r.Sessions)
		}
		if r.Interpreter != "" {
			s += ", python " + r.Interpreter
		}
		if r.Reason != "" {
			s += "; " + r.Reason
		}
		return s
	}
	s := fmt.Sprintf("%s (%s): not running: %s", r.Server, r.Language, r.Reason)
	return s
}

// Status reports every server in the table: running ones with pid, root and
// uptime; others with exactly why they are not running.
func (s *Supervisor) Status() []StatusRow {
	s.mu.Lock()
	slots := make([]*slot, 0, len(s.slots))
	for _, sl := range s.slots {
		slots = append(slots, sl)
	}
	s.mu.Unlock()
	sort.Slice(slots, func(i, j int) bool { return slots[i].root < slots[j].root })
	var rows []StatusRow
	for _, spec := range s.servers {
		any := false
		for _, sl := range slots {
			if sl.spec.Name != spec.Name {
				continue
			}
			row := StatusRow{Server: spec.Name, Language: spec.Language, Root: s.rel(sl.root)}
			if sl.root == s.workdir {
				row.Root = "."
			}
			// A start (or restart, or reload) in progress holds the slot:
			// say so rather than wait for it.
			locked := sl.mu.TryLock()
			if !locked && sl.starting.Load() {
				row.State, row.Reason = "starting", "starting (or restarting): ask again in a few seconds"
				rows = append(rows, row)
				any = true
				continue
			}
			if !locked {
				sl.mu.Lock() // held briefly, by a query finding its server
			}
			if sl.inst != nil {
				if dead, why := sl.inst.dead(); dead {
					row.State = "failed"
					row.Reason = "crashed: " + crashReport(sl.inst, why) + "; the next call restarts it"
					switch {
					case sl.reloaded:
						row.Reason = "crashed after a reload: " + crashReport(sl.inst, why) + "; it stays stopped until reload is called again"
					case sl.restarts >= 1:
						row.Reason = "crashed again: " + crashReport(sl.inst, why) + "; it stays stopped until reload is called"
					}
				} else {
					row.Running = true
					row.Sessions = int(s.sessions.Load())
					row.PID = sl.inst.pid()
					row.Uptime = time.Since(sl.inst.started)
					row.State, row.Version = sl.inst.state(), sl.inst.version()
					row.Supports, row.Lacks = sl.inst.features()
					row.Interpreter = sl.inst.interp
					switch {
					case sl.reloaded:
						row.Reason = "started by reload: if it exits, it stays stopped until the next reload"
					case sl.restarts > 0:
						row.Reason = fmt.Sprintf("restarted %d time(s) after a crash", sl.restarts)
					}
				}
			} else if sl.lastErr != "" {
				row.State, row.Reason = "failed", sl.lastErr
			} else {
				row.State, row.Reason = "stopped", "stopped"
			}
			sl.mu.Unlock()
			rows = append(rows, row)
			any = true
		}
		if any {
			continue
		}
		row := StatusRow{Server: spec.Name, Language: spec.Language, State: "not started"}
		marker := spec.markerIn(s.workdir)
		name, bin := spec.binary(s.env, s.workdir)
		broken := ""
		if bin != "" {
			broken = spec.unusable(name, bin, s.env) // cached per binary
		}
		switch {
		case len(spec.RootMarkers) == 0 && bin == "":
			row.Reason = fmt.Sprintf("%s not on PATH%s", strings.Join(spec.Binaries, " or "), spec.installNote())
		case len(spec.RootMarkers) == 0 && broken != "":
			row.Reason = broken
		case len(spec.RootMarkers) == 0:
			row.Root = "."
			row.Reason = fmt.Sprintf("not started yet: %s at %s; starts on the first call for a %s file (it needs no root marker: the workspace is its root)", spec.Binaries[0], bin, spec.Language)
		case marker == "" && bin == "":
			row.Reason = fmt.Sprintf("no root marker for %s (none of %s in the workspace root) and %s not on PATH",
				spec.Language, strings.Join(spec.RootMarkers, ", "), strings.Join(spec.Binaries, " or "))
		case marker == "" && broken != "":
			row.Reason = fmt.Sprintf("no root marker for %s (none of %s in the workspace root), and %s",
				spec.Language, strings.Join(spec.RootMarkers, ", "), broken)
		case marker == "":
			row.Reason = fmt.Sprintf("no root marker for %s (none of %s in the workspace root; a subdirectory with one still works)",
				spec.Language, strings.Join(spec.RootMarkers, ", "))
		case bin == "":
			row.Reason = fmt.Sprintf("%s found, %s not on PATH%s", marker, strings.Join(spec.Binaries, " or "), spec.installNote())
		case broken != "":
			row.Reason = fmt.Sprintf("%s found, but %s", marker, broken)
		default:
			row.Root = "."
			row.Reason = fmt.Sprintf("not started yet: %s found, %s at %s; starts on the first call for a %s file", marker, spec.Binaries[0], bin, spec.Language)
		}
		rows = append(rows, row)
	}
	return rows
}

// Reload restarts every running (or crashed) server. A server is
// restarted automatically once after its first start crashes; one a
// reload started is not: if it crashes, it stays stopped (and Status says
// so) until Reload is called again, so a server that crash-loops is not
// started anew by every call. It returns one line per server reloaded. It does not wait for
// queries in flight (a reload is how a hung request is stopped): they fail
// saying a reload stopped them, those of every session sharing the
// supervisor included. It waits for a view another session holds.
func (s *Supervisor) Reload(ctx context.Context) ([]string, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	s.mu.Lock()
	slots := make([]*slot, 0, len(s.slots))
	for _, sl := range s.slots {
		slots = append(slots, sl)
	}
	s.mu.Unlock()
	var lines []string
	var errs []error
	for _, sl := range slots {
		sl.mu.Lock()
		old := sl.inst
		sl.inst = nil
		sl.reloaded, sl.stopped = true, false
		sl.noRestart.Store(true)
		sl.lastErr = ""
		if old != nil {
			old.shutdown()
		}
		marker := sl.spec.markerIn(sl.root)
		if len(sl.spec.RootMarkers) == 0 {
			marker = sl.spec.anyFile()
		}
		sl.starting.Store(true)
		in, err := s.start(ctx, sl.spec, sl.root, marker)
		sl.starting.Store(false)
		if err != nil {
			sl.lastErr = reason(err)
			errs = append(errs, err)
		} else {
			sl.inst = in
			lines = append(lines, fmt.Sprintf("%s restarted for root %s (pid %d)", sl.spec.Name, s.relRoot(sl.root), in.pid()))
		}
		sl.mu.Unlock()
	}
	if len(slots) == 0 {
		lines = append(lines, "no server was running; servers start on the first call for a file")
	}
	return lines, errors.Join(errs...)
}

// afterCrash says what a crash of in leads to: a restart on the next call,
// or nothing until a reload.
func (s *Supervisor) afterCrash(in *instance) string {
	s.mu.Lock()
	sl := s.slots[in.spec.Name+"\x00"+in.root]
	s.mu.Unlock()
	if sl != nil && sl.noRestart.Load() {
		return "it stays stopped until reload is called"
	}
	return "the next call restarts it"
}

func (s *Supervisor) relRoot(root string) string {
	if root == s.workdir {
		return "."
	}
	return s.rel(root)
}

// Close shuts every server down. On a Supervisor a Pool handed out it does
// nothing: the sessions sharing it give it back to the Pool, which closes
// it when the last one does (so a run closing what it was given stops no
// other session's server).
func (s *Supervisor) Close() error {
	if s.pooled.Load() {
		return nil
	}
	return s.close()
}

func (s *Supervisor) close() error {
	s.mu.Lock()
	s.closed = true
	slots := s.slots
	s.slots = map[string]*slot{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, sl := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sl.mu.Lock()
			defer sl.mu.Unlock()
			if sl.inst != nil {
				sl.inst.shutdown()
				sl.inst = nil
			}
		}()
	}
	wg.Wait()
	return nil
}
