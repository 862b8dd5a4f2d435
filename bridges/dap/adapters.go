package dap

import "context"
import "encoding/json"
import "fmt"
import "io"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "sync"
import "time"

import "github.com/tetherhq/tether/internal/jsontree"
import "github.com/tetherhq/tether/internal/proc"

// Transport is how tether reaches an adapter process it starts.
type Transport string

const (
	// Stdio speaks DAP over the adapter's stdin and stdout.
	Stdio Transport = "stdio"
	// DialIn makes the adapter dial a unix socket tether listens on; the
	// adapter's command names it with "${socket}" (delve: --client-addr unix:${socket}).
	DialIn Transport = "dial-in"
)

// Adapter describes one debug adapter: where it applies (root markers, program
// extensions), how to start it (candidate commands), and the launch and attach
// arguments it takes. The table is data: a user can append entries or replace
// them through Config.Adapters.
//
// Argument templates are JSON-like values in which these strings are replaced:
// "${program}" (absolute program path), "${args}" (the program's arguments, as a
// list), "${cwd}" (the run's working directory), "${interpreter}" (the first of
// Interpreters that exists, else the adapter command's own binary), "${port}"
// (the attach port, as a number), "${host}" (the attach host), "${pid}" (the
// process attached to by pid, as a number), "${mode}" ("debug" for a source program or
// package directory, "exec" for a built executable), "${scratch}" (a private
// temporary directory removed when the session ends) and, in Commands only,
// "${socket}" (the unix socket of the DialIn and Unix transports). A
// command may also name the launch's "${program}", "${cwd}" and "${args}"
// (a word of its own: one word per argument), for an adapter that is the
// program it debugs (Debuggee).
type Adapter struct {
	// ID names the adapter ("delve").
	ID string `json:"id"`
	// Markers are glob patterns matched in the root directory ("go.mod", "*.c");
	// one must match for the adapter to apply.
	Markers []string `json:"markers,omitempty"`
	// Extensions are the program file extensions the adapter launches (".go").
	Extensions []string `json:"extensions,omitempty"`
	// Executables marks an adapter that launches native executables.
	Executables bool `json:"executables,omitempty"`
	// URLs marks an adapter that launches a page by its URL (http, https
	// or file) as well as by a file.
	URLs bool `json:"urls,omitempty"`
	// GoExecutables marks an adapter that launches executables the Go
	// toolchain built (a Go binary or test binary is delve's, not lldb's).
	GoExecutables bool `json:"go_executables,omitempty"`
	// Commands are candidate command lines, tried in order; the first whose
	// binary exists (and passes Probe) is used. A binary is an absolute path, a
	// path relative to the root (".venv/bin/python"), or a name looked up on
	// PATH and then in GOBIN / GOPATH/bin.
	Commands [][]string `json:"commands"`
	// Probe, when set, is run as `binary Probe...`; a candidate is usable only
	// when it exits 0 (e.g. a python that can `import debugpy`).
	Probe []string `json:"probe,omitempty"`
	// ProbeFailure says what a failed probe means ("cannot import debugpy").
	ProbeFailure string `json:"probe_failure,omitempty"`
	// Toolchain names the runtime the adapter and its debuggee run on
	// ("go", "python", "dart"; "native", the default, for a self-contained
	// binary): the sandbox lets them read that toolchain's directories
	// (internal/proc's Table) besides the project.
	Toolchain string `json:"toolchain,omitempty"`
	// Transport is how the adapter is reached (Stdio by default).
	Transport Transport `json:"transport,omitempty"`
	// Address is the host:port of a TCP adapter that already runs: tether
	// connects there and starts nothing (Commands stay empty).
	Address string `json:"address,omitempty"`
	// Interpreters are root-relative programs preferred for "${interpreter}".
	Interpreters []string `json:"interpreters,omitempty"`
	// Launch is the launch request's arguments template.
	Launch map[string]any `json:"launch,omitempty"`
	// Test is the launch request's arguments template for a test run (a
	// launch with a test name, or of a test file); nil means the adapter
	// cannot launch tests. TestRunner says how tests are chosen: "go" (the
	// package's tests, -test.run; "${program}" is the package directory
	// and "${cwd}" too, as go test runs them) or "pytest" (node ids;
	// "${args}" starts with them).
	Test       map[string]any `json:"test,omitempty"`
	TestRunner string         `json:"test_runner,omitempty"`
	// Attach is the attach request's arguments template; nil means the adapter
	// cannot attach by port.
	Attach map[string]any `json:"attach,omitempty"`
	// AttachPID is the attach request's arguments template for attaching
	// to a running process by pid ("${pid}"); nil means the adapter cannot.
	AttachPID map[string]any `json:"attach_pid,omitempty"`
	// AttachDirect means attach connects to 127.0.0.1:port itself: the program
	// was started with its own listening adapter or debug server.
	AttachDirect bool `json:"attach_direct,omitempty"`
	// ExceptionBreakpoints is the setExceptionBreakpoints request's
	// arguments; nil means the filters the adapter marks as default, as an
	// editor sets them.
	ExceptionBreakpoints map[string]any `json:"exception_breakpoints,omitempty"`
	// EvaluateContext is the evaluate request's context ("watch" by default).
	EvaluateContext string `json:"evaluate_context,omitempty"`
	// Install says how to get the adapter when its binary is missing.
	Install string `json:"install,omitempty"`
	// Ops are the optional ops (OptionalOps) the adapter offers, as its
	// tested version answers initialize: what help and docs say. The
	// capabilities of the running adapter decide at call time.
	Ops []string `json:"ops,omitempty"`
	// Debuggee marks an adapter that is the program it debugs (rdbg serves
	// DAP from inside the Ruby process): its command names the program
	// ("${program}", "${args}", "${cwd}" of the launch), its stdout and
	// stderr are the program's output, and its exit is the program's.
	Debuggee bool `json:"debuggee,omitempty"`
	// Untested says why tether's own tests do not drive the adapter (the
	// adapter is not installed where they run); empty: they launch a
	// program under it, stop, step and inspect, as docs/tools.md says.
	Untested string `json:"untested,omitempty"`
}

// DefaultAdapters returns tether's adapter table. It is the one place an
// adapter is named: the debug tool's schema and description, the command's
// flag help and docs/tools.md are all made from it (AdapterIDs,
// DescribeAdapters).
//
// Over 120 lines: one literal row per adapter, each of the same fields, read
// top to bottom as the table it is; splitting it would scatter the table.
func DefaultAdapters() []Adapter {
	return append([]Adapter{
		{
			ID:         "delve",
			Toolchain:  "go",
			Markers:    []string{"go.mod"},
			Extensions: []string{".go"},
			Commands:   [][]string{{"dlv", "dap", "--client-addr", "unix:${socket}"}},
			Transport:  DialIn,
			Launch: map[string]any{
				"mode": "${mode}", "program": "${program}", "args": "${args}", "cwd": "${cwd}",
				"outputMode": "remote", "output": "${scratch}/__debug_bin",
			},
			GoExecutables: true,
			Test: map[string]any{
				"mode": "test", "program": "${program}", "args": "${args}", "cwd": "${cwd}",
				"outputMode": "remote", "output": "${scratch}/__debug_bin",
			},
			TestRunner:   "go",
			Attach:       map[string]any{"mode": "remote"},
			AttachPID:    map[string]any{"mode": "local", "processId": "${pid}"},
			AttachDirect: true,
			Install:      "go install github.com/go-delve/delve/cmd/dlv@latest (scripts/install-deps.sh installs the version tether is tested with)",
			Ops:          []string{"set_variable", "read_memory", "write_memory", "disassemble", "data_breakpoints", "instruction_breakpoints", "restart", "exception_info"},
		},
		{
			ID:         "debugpy",
			Toolchain:  "python",
			Markers:    []string{"pyproject.toml", "setup.py", "requirements.txt"},
			Extensions: []string{".py"},
			Commands: [][]string{
				{".venv/bin/python", "-m", "debugpy.adapter"},
				{"venv/bin/python", "-m", "debugpy.adapter"},
				{"python3", "-m", "debugpy.adapter"},
				{"python", "-m", "debugpy.adapter"},
				{"/usr/bin/python3", "-m", "debugpy.adapter"},
			},
			Probe:        []string{"-c", "import debugpy"},
			ProbeFailure: "cannot import debugpy",
			Interpreters: []string{".venv/bin/python", "venv/bin/python"},
			Launch: map[string]any{
				"program": "${program}", "args": "${args}", "cwd": "${cwd}",
				"python": []any{"${interpreter}"}, "console": "internalConsole",
				"redirectOutput": true, "justMyCode": true,
			},
			Test: map[string]any{
				"module": "pytest", "args": "${args}", "cwd": "${cwd}",
				"python": []any{"${interpreter}"}, "console": "internalConsole",
				"redirectOutput": true, "justMyCode": true,
			},
			TestRunner: "pytest",
			Attach: map[string]any{"justMyCode": true,
				"connect": map[string]any{"host": "${host}", "port": "${port}"}},
			// debugpy injects itself into the process with gdb, which needs
			// gdb installed and ptrace allowed.
			AttachPID:    map[string]any{"justMyCode": true, "processId": "${pid}"},
			AttachDirect: true,
			// Stop where an uncaught exception is raised, as the adapter's
			// default "uncaught" filter does, but not at sys.exit(n): that
			// is the program ending with its exit code, not an error.
			ExceptionBreakpoints: map[string]any{"filters": []any{}, "exceptionOptions": []any{
				map[string]any{"breakMode": "unhandled", "path": []any{
					map[string]any{"names": []any{"Python Exceptions"}},
					map[string]any{"names": []any{"Exception"}},
				}},
			}},
			EvaluateContext: "repl",
			Install:         "apt-get install python3-debugpy, or pip install debugpy into the project's .venv",
			Ops:             []string{"set_variable", "set_expression", "modules", "goto", "completions", "exception_info"},
		},
		{
			ID:          "lldb",
			Toolchain:   "native",
			Markers:     []string{"Cargo.toml", "CMakeLists.txt", "*.c"},
			Extensions:  []string{".c", ".cc", ".cpp", ".rs"},
			Executables: true,
			Commands: [][]string{
				{"lldb-dap"}, {"lldb-dap-19"}, {"lldb-vscode"}, {"lldb-vscode-19"},
				{"/usr/lib/llvm-19/bin/lldb-dap"},
			},
			// The program reads end-of-file from stdin, as under delve and
			// debugpy; lldb would otherwise give it a terminal nobody
			// types into, and a read would block it for good.
			Launch: map[string]any{"program": "${program}", "args": "${args}", "cwd": "${cwd}",
				"preRunCommands": []any{"settings set target.input-path /dev/null"}},
			Attach:    map[string]any{"gdb-remote-port": "${port}", "gdb-remote-hostname": "${host}"},
			AttachPID: map[string]any{"pid": "${pid}"},
			// Expressions, not lldb commands.
			EvaluateContext: "watch",
			Install:         "apt-get install lldb-19 (provides lldb-dap-19)",
			Ops:             []string{"set_variable", "modules", "disassemble", "data_breakpoints", "restart", "completions", "exception_info"},
		},
		{
			// tether's own adapter: it serves DAP in-process and drives
			// node's inspector, so node is the only binary it needs. A .ts
			// program is compiled with tsc (source maps on) into the
			// session's scratch dir; breakpoints on .ts lines and frames
			// go through the maps. It attaches to a running node through
			// its inspector's WebSocket.
			ID:         "node",
			Toolchain:  "node",
			Markers:    []string{"package.json", "tsconfig.json", "jsconfig.json", "*.js", "*.mjs", "*.cjs", "*.ts"},
			Extensions: []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"},
			Commands:   [][]string{{"node"}, {"nodejs"}},
			Transport:  Inspector,
			Launch:     map[string]any{"program": "${program}", "args": "${args}", "cwd": "${cwd}"},
			Test:       map[string]any{"program": "${program}", "args": "${args}", "cwd": "${cwd}", "test": true},
			TestRunner: "node",
			// By the port of node's inspector (--inspect), or by pid:
			// SIGUSR1 opens a running node's inspector.
			Attach:    map[string]any{"host": "${host}", "port": "${port}"},
			AttachPID: map[string]any{"processId": "${pid}"},
			Ops:       []string{"restart_frame", "exception_info"},
			Install:   "install Node.js 20 or later (apt-get install nodejs, or https://nodejs.org) and put node on PATH; for .ts files also npm install typescript",
		},
		{
			// tether's own adapter: it serves DAP in-process and speaks
			// DBGp to Xdebug, which the php it launches (Xdebug in debug
			// mode, start_with_request) connects back to.
			ID:         "xdebug",
			Toolchain:  "php",
			Markers:    []string{"composer.json", "*.php"},
			Extensions: []string{".php"},
			Commands:   [][]string{{"php"}},
			// Xdebug is a zend extension php may lack.
			Probe:        []string{"-r", "exit(extension_loaded('xdebug') ? 0 : 1);"},
			ProbeFailure: "has no Xdebug extension loaded",
			Transport:    Xdebug,
			Launch:       map[string]any{"program": "${program}", "args": "${args}", "cwd": "${cwd}"},
			Ops:          []string{"exception_info"},
			Install:      "apt-get install php-cli php-xdebug (Xdebug 3.1 or later)",
		},
		{
			// tether's own adapter, as node's: it drives the DevTools
			// protocol of headless Chromium it starts sandboxed (over a
			// pipe, no port), or of a running browser's DevTools port
			// (chromium --remote-debugging-port). A page is an .html file
			// or an http(s) URL; breakpoints on the lines of its scripts,
			// and of the TypeScript their source maps name, are set
			// before it loads.
			ID:         "chromium",
			Toolchain:  "native",
			Markers:    []string{"*.html", "*.htm", "package.json"},
			Extensions: []string{".html", ".htm"},
			URLs:       true,
			Commands: [][]string{
				{"/usr/lib/chromium/chromium"}, {"chromium"}, {"chromium-browser"},
				{"google-chrome"}, {"google-chrome-stable"},
			},
			Transport: Chromium,
			Launch:    map[string]any{"program": "${program}"},
			Attach:    map[string]any{"host": "${host}", "port": "${port}"},
			Install:   "apt-get install chromium (or install Google Chrome and put it on PATH)",
			Ops:       []string{"restart_frame", "exception_info"},
		},
		{
			ID:         "dart",
			Toolchain:  "dart",
			Markers:    []string{"pubspec.yaml"},
			Extensions: []string{".dart"},
			Commands:   [][]string{{"dart", "debug_adapter"}},
			Launch:     map[string]any{"program": "${program}", "args": "${args}", "cwd": "${cwd}"},
			Install:    "install the Dart SDK (https://dart.dev/get-dart) and put dart on PATH",
			Untested:   "the Dart SDK is not installed where tether's tests run",
		},
	}, moreAdapters()...)
}

// AdapterIDs returns the ids of a table's adapters, in table order.
func AdapterIDs(table []Adapter) []string {
	ids := make([]string, len(table))
	for i, a := range table {
		ids[i] = a.ID
	}
	return ids
}

// DescribeAdapters names each adapter of a table with what it launches, in
// table order: "delve (.go), debugpy (.py), lldb (native executables built
// from .c, .rs)". An adapter that lists no extensions and launches no
// executables is named alone.
func DescribeAdapters(table []Adapter) string {
	parts := make([]string, 0, len(table))
	for _, a := range table {
		what := strings.Join(a.Extensions, ", ")
		if a.URLs {
			what = strings.TrimPrefix(what+", http(s) URLs", ", ")
		}
		if a.Executables {
			what = "native executables"
			if len(a.Extensions) > 0 {
				what += " built from " + strings.Join(a.Extensions, ", ")
			}
		}
		if what == "" {
			parts = append(parts, a.ID)
			continue
		}
		parts = append(parts, a.ID+" ("+what+")")
	}
	return strings.Join(parts, ", ")
}

// LoadAdapters reads adapter entries from JSON: a list of objects with the
// Adapter fields in snake_case ("id", "markers", "commands", "launch", ...).
func LoadAdapters(r io.Reader) ([]Adapter, error) {
	var list []Adapter
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("dap: adapter table: %w; expected a JSON list of {\"id\", \"markers\", \"commands\", \"launch\", ...}", err)
	}
	for i, a := range list {
		if a.ID == "" || (len(a.Commands) == 0 && a.Address == "") {
			return nil, fmt.Errorf("dap: adapter table: entry %d needs an id and at least one command (or, for a running TCP adapter, address)", i+1)
		}
		switch a.Transport {
		case "", Stdio, DialIn, TCP, Unix, Inspector, Xdebug, Chromium:
		default:
			return nil, fmt.Errorf("dap: adapter table: %s: unknown transport %q; use %q, %q, %q, %q, %q, %q or %q", a.ID, a.Transport, Stdio, DialIn, TCP, Unix, Inspector, Xdebug, Chromium)
		}
		if err := checkTCPEntry(a); err != nil {
			return nil, err
		}
		if err := checkDebuggeeEntry(a); err != nil {
			return nil, err
		}
		switch {
		case a.TestRunner != "" && a.TestRunner != "go" && a.TestRunner != "pytest" && a.TestRunner != "node":
			return nil, fmt.Errorf("dap: adapter table: %s: unknown test_runner %q; use \"go\", \"pytest\" or \"node\"", a.ID, a.TestRunner)
		case (a.Test == nil) != (a.TestRunner == ""):
			return nil, fmt.Errorf("dap: adapter table: %s: test and test_runner go together; give both or neither", a.ID)
		}
	}
	return list, nil
}

// MergeAdapters returns base with extra applied: an entry of extra replaces
// the base entry with the same ID, the others are appended in order.
func MergeAdapters(base, extra []Adapter) []Adapter {
	out := append([]Adapter(nil), base...)
	for _, e := range extra {
		replaced := false
		for i := range out {
			if out[i].ID == e.ID {
				out[i], replaced = e, true
				break
			}
		}
		if !replaced {
			out = append(out, e)
		}
	}
	return out
}

// AdapterStatus says whether one adapter can start for a root, and why not.
type AdapterStatus struct {
	ID      string   `json:"id"`
	Usable  bool     `json:"usable"`
	Command []string `json:"command,omitempty"` // the resolved command line, when usable
	Marker  string   `json:"marker,omitempty"`  // the root marker found
	Reason  string   `json:"reason,omitempty"`  // why not usable
}

// resolved is an adapter ready to start for one root.
type resolved struct {
	Adapter
	root        string   // the project root it was checked for
	argv        []string // command with the binary resolved
	interpreter string
}

// checkAdapter applies the intersection rule: a root marker must exist AND a
// candidate command must be found (and pass its probe).
func checkAdapter(ctx context.Context, a Adapter, root string) (AdapterStatus, *resolved) {
	st := AdapterStatus{ID: a.ID}
	var reasons []string
	st.Marker = findMarker(a.Markers, root)
	if st.Marker == "" && len(a.Markers) > 0 {
		reasons = append(reasons, fmt.Sprintf("marker missing: none of %s in %s", strings.Join(a.Markers, ", "), root))
	}
	var argv []string
	if a.Address == "" {
		var why string
		if argv, why = findCommand(ctx, a, root); argv == nil {
			reasons = append(reasons, why)
		}
	}
	if len(reasons) > 0 {
		st.Reason = strings.Join(reasons, "; ")
		return st, nil
	}
	st.Usable = true
	st.Command = argv
	r := &resolved{Adapter: a, root: root, argv: argv}
	if len(argv) > 0 {
		r.interpreter = argv[0]
	} else {
		st.Command = []string{"connect", a.Address}
	}
	for _, p := range a.Interpreters {
		if abs := filepath.Join(root, p); isExecutable(abs) {
			r.interpreter = abs
			break
		}
	}
	return st, r
}

func findMarker(markers []string, root string) string {
	for _, m := range markers {
		matches, _ := filepath.Glob(filepath.Join(root, m))
		for _, p := range matches {
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return filepath.Base(p)
			}
		}
	}
	return ""
}

// findCommand returns the first usable candidate command line, or why none is.
func findCommand(ctx context.Context, a Adapter, root string) ([]string, string) {
	var tried, failedProbe []string
	for _, cand := range a.Commands {
		if len(cand) == 0 {
			continue
		}
		bin := lookBinary(cand[0], root)
		tried = append(tried, cand[0])
		if bin == "" {
			continue
		}
		if len(a.Probe) > 0 && !probe(ctx, bin, a.Probe, root, a.Toolchain) {
			failedProbe = append(failedProbe, bin)
			continue
		}
		return append([]string{bin}, cand[1:]...), ""
	}
	why := fmt.Sprintf("binary missing: none of %s found", strings.Join(dedupe(tried), ", "))
	if len(failedProbe) > 0 {
		pf := a.ProbeFailure
		if pf == "" {
			pf = "failed its check " + strings.Join(a.Probe, " ")
		}
		why = fmt.Sprintf("binary missing: %s %s", strings.Join(failedProbe, ", "), pf)
	}
	if a.Install != "" {
		why += "; " + a.Install
	}
	return nil, why
}

// probeCache remembers probe results for a minute, keyed by the binary, its
// size and mtime, and the probe: a python behind a pyenv shim takes most of a
// second to answer, and adapters is asked often.
var probeCache sync.Map // probeKey -> probeResult

type probeKey struct {
	bin, args string
	size      int64
	mtime     time.Time
}

type probeResult struct {
	ok bool
	at time.Time
}

func probe(ctx context.Context, bin string, args []string, root, toolchain string) bool {
	fi, err := os.Stat(bin)
	if err != nil {
		return false
	}
	key := probeKey{bin: bin, args: strings.Join(args, "\x00"), size: fi.Size(), mtime: fi.ModTime()}
	if v, ok := probeCache.Load(key); ok && time.Since(v.(probeResult).at) < time.Minute {
		return v.(probeResult).ok
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = root
	ok := sandbox(cmd, "probe of "+bin, toolchain, bin, "", root, "") == nil && proc.Run(cmd) == nil
	if ctx.Err() == nil {
		probeCache.Store(key, probeResult{ok: ok, at: time.Now()})
	}
	return ok
}

// lookBinary resolves a command's binary: absolute, root-relative (contains a
// slash), or a name on PATH, GOBIN or GOPATH/bin.
func lookBinary(name, root string) string {
	switch {
	case filepath.IsAbs(name):
		if isExecutable(name) {
			return name
		}
		return ""
	case strings.ContainsRune(name, '/'):
		p := filepath.Join(root, name)
		if isExecutable(p) {
			return p
		}
		return ""
	}
	if p, err := exec.LookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	for _, d := range proc.GoBinDirs() {
		if p := filepath.Join(d, name); isExecutable(p) {
			return p
		}
	}
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// expand replaces the template placeholders in v.
func expand(v any, vars map[string]any) any {
	return jsontree.MapStrings(v, func(t string) any {
		if val, ok := vars[t]; ok {
			return val
		}
		for k, val := range vars {
			if s, ok := val.(string); ok {
				t = strings.ReplaceAll(t, k, s)
			}
		}
		return t
	})
}
