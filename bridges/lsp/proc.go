package lsp

import "bytes"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "log/slog"
import "os"
import "os/exec"
import "regexp"
import "strings"
import "sync"
import "time"

import "go.lsp.dev/jsonrpc2"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/textcut"

// instance is one running server process for one root.
type instance struct {
	spec    Server
	root    string
	binary  string
	started time.Time

	cmd    *exec.Cmd // nil for a server attached over a pipe (tests)
	conn   jsonrpc2.Conn
	closer io.Closer
	stderr *textcut.Tail

	exited  chan struct{} // closed when the process (or pipe) is gone
	exitErr error         // set before exited closes
	closing bool          // set by shutdown: an exit is not a crash

	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever diagnostics or progress change
	docs    map[string]*docState
	diags   map[string]*diagEntry
	pubSeq  int
	edits   int // changes sent (didOpen, didChange, didClose, didChangeWatchedFiles)
	editSeq int // pubSeq when edits last grew
	// editLog holds the documents each of the last edits changed (none:
	// unknown), oldest first, at most maxEditLog; editLog[i] is edit
	// number edits-len(editLog)+i+1.
	editLog [][]string
	// status holds, per URI, the publication sequence number when the
	// server last said the file went idle (Server.StatusNotice), and
	// sawStatus whether it ever sent one.
	status    map[string]int
	sawStatus bool
	// preamble holds, per URI, the publication sequence number when the
	// server last said it was rebuilding the file's includes
	// (Server.StatusPreamble) since an edit changed them.
	preamble map[string]int
	active   map[string]bool // work-done progress tokens begun and not ended
	sawBegin bool
	sawEnd   bool
	sawDiag  bool
	// sawRefresh is set once the server asked the client to pull
	// diagnostics again (workspace/diagnostic/refresh): pyright, told the
	// client pulls, asks once it has read its configuration and again
	// once it has found the project's files (which readyLog tells).
	sawRefresh bool
	// sawReadyLog is set once the server logged a message readyLog
	// (spec.ReadyLog) matches.
	sawReadyLog bool
	readyLog    *regexp.Regexp
	lastMsg     time.Time
	ready       bool
	syncMu      sync.Mutex // serialises document sync
	settings    json.RawMessage
	caps        map[string]json.RawMessage // server capabilities from initialize
	enc         encoding                   // what the server's columns count
	disk        map[string]stamp           // source files on disk at the last scan
	noScan      bool                       // the root is too big to rescan per query
	// diskReload is set while spec.DiskReload is due: files were created
	// or deleted on disk and the server was not yet told to take them in.
	diskReload bool
	// capture, while a command action runs (runCommand, cmdMu held),
	// takes the edits the server sends through workspace/applyEdit.
	capture func(wWorkspaceEdit)
	cmdMu   sync.Mutex
	info    string // serverInfo's name and version, from initialize
	interp  string // a Python server's interpreter and why (pythonChoice)
}

// providers maps a request to the server capability that announces it.
var providers = map[string]string{
	"textDocument/definition":      "definitionProvider",
	"textDocument/typeDefinition":  "typeDefinitionProvider",
	"textDocument/implementation":  "implementationProvider",
	"textDocument/references":      "referencesProvider",
	"textDocument/hover":           "hoverProvider",
	"textDocument/documentSymbol":  "documentSymbolProvider",
	"workspace/symbol":             "workspaceSymbolProvider",
	"textDocument/codeAction":      "codeActionProvider",
	"textDocument/rename":          "renameProvider",
	"textDocument/formatting":      "documentFormattingProvider",
	"textDocument/rangeFormatting": "documentRangeFormattingProvider",
	// The follow-up requests (incomingCalls, supertypes, ...) need no
	// check: a server that prepares an item answers them.
	"textDocument/prepareCallHierarchy": "callHierarchyProvider",
	"textDocument/prepareTypeHierarchy": "typeHierarchyProvider",
}

// supports reports whether the server announced method (unknown methods and
// servers that sent no capabilities are given the benefit of the doubt).
func (in *instance) supports(method string) error {
	key, ok := providers[method]
	if !ok || in.caps == nil {
		return nil
	}
	v, ok := in.caps[key]
	if ok && string(v) != "false" && string(v) != "null" {
		return nil
	}
	return fmt.Errorf("lsp: %s does not offer %s (no %s in its capabilities): this question cannot be answered for %s files", in.spec.Name, method, key, in.spec.Language)
}

type docState struct {
	version int
	// seq is the publication sequence number when this version was sent: a
	// publication with a higher one (from a server that sends no versions) is
	// about this version.
	seq int
	// refreshed is the instance's edits count when the server's Refresh
	// commands last ran for this document.
	refreshed int
	// sent is the instance's edits count once this version was sent: a
	// larger count means other files changed since.
	sent int
	// base, for a version that only repeats an earlier version's text
	// (touch) sent to a server that RepublishesOpen, is that earlier
	// version, and baseSeq the publication sequence number when the
	// change that made it stale was sent: a publication of base or later
	// that came after baseSeq answers for it. Zero otherwise.
	base, baseSeq int
	// includes is set when this version changed the #include lines at
	// the top of the text (Server.StatusPreamble).
	includes bool
	text     []byte
	mtime    time.Time
	size     int64
}

type diagEntry struct {
	version *int
	seq     int
	at      time.Time
	diags   []wDiagnostic
	// inactive are the lines (0-based, first and last) the server said
	// the analysis behind this publication left out under the
	// preprocessor (clangd's textDocument/inactiveRegions), when
	// inactiveKnown.
	inactive      [][2]int
	inactiveKnown bool
}

// lastLines returns the last k non-empty lines of what t kept, joined by " | ".
func lastLines(t *textcut.Tail, k int) string {
	lines := strings.Split(strings.TrimSpace(t.String()), "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < k; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			out = append([]string{l}, out...)
		}
	}
	return strings.Join(out, " | ")
}

// pipeRWC joins a process's stdout and stdin into one ReadWriteCloser.
type pipeRWC struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipeRWC) Close() error {
	err := p.WriteCloser.Close()
	if err2 := p.ReadCloser.Close(); err == nil {
		err = err2
	}
	return err
}

func newInstance(spec Server, root, binary string) *instance {
	var readyLog *regexp.Regexp
	if spec.ReadyLog != "" {
		// A pattern that does not compile waits for nothing more (a
		// server row's own is checked by TestTableReadyLogs).
		readyLog, _ = regexp.Compile(spec.ReadyLog)
	}
	return &instance{
		readyLog: readyLog,
		spec:     spec, root: root, binary: binary, started: time.Now(),
		stderr:   &textcut.Tail{Max: 8 << 10},
		exited:   make(chan struct{}),
		changed:  make(chan struct{}),
		docs:     map[string]*docState{},
		status:   map[string]int{},
		preamble: map[string]int{},
		diags:    map[string]*diagEntry{},
		active:   map[string]bool{},
		lastMsg:  time.Now(),
	}
}

// startProcess starts the server binary in root and connects to it.
// It runs in the sandbox: read-write on workdir, read-only on its toolchain.
func startProcess(spec Server, root, workdir, binary string, env []string) (*instance, error) {
	in := newInstance(spec, root, binary)
	cmd := exec.Command(binary, spec.Args...)
	cmd.Dir = root
	cmd.Env = env
	cleanup, err := sandboxed(cmd, spec, binary, workdir)
	if err != nil {
		return nil, fmt.Errorf("lsp: %s: %w", spec.Name, err)
	}
	cmd.Stderr = in.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("lsp: %s: %w", spec.Name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("lsp: %s: %w", spec.Name, err)
	}
	if err := proc.Start(cmd); err != nil {
		cleanup()
		return nil, fmt.Errorf("lsp: starting %s: %w", spec.Name, err)
	}
	in.cmd = cmd
	in.attach(pipeRWC{stdout, stdin})
	go func() {
		err := cmd.Wait()
		cleanup()
		in.mu.Lock()
		if err == nil {
			err = errors.New("exited")
		}
		in.exitErr = err
		in.mu.Unlock()
		close(in.exited)
		in.conn.Close()
	}()
	return in, nil
}

// attachPipe connects to a server over an existing stream (fault-injection
// tests use net.Pipe).
func attachPipe(spec Server, root string, rwc io.ReadWriteCloser) *instance {
	in := newInstance(spec, root, "(pipe)")
	in.attach(rwc)
	go func() {
		<-in.conn.Done()
		in.mu.Lock()
		in.exitErr = errors.New("connection closed")
		in.mu.Unlock()
		close(in.exited)
	}()
	return in
}

func (in *instance) attach(rwc io.ReadWriteCloser) {
	in.closer = rwc
	in.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	in.settings = in.spec.Settings
	in.conn.Go(context.Background(), in.handle)
}

func (in *instance) pid() int {
	if in.cmd != nil && in.cmd.Process != nil {
		return in.cmd.Process.Pid
	}
	return 0
}

// dead reports whether the process is gone, and why.
func (in *instance) dead() (bool, error) {
	select {
	case <-in.exited:
		in.mu.Lock()
		defer in.mu.Unlock()
		return true, in.exitErr
	default:
		return false, nil
	}
}

// bump wakes everyone waiting for a change. Call with mu held.
func (in *instance) bump() {
	close(in.changed)
	in.changed = make(chan struct{})
}

// handle answers the server's requests and records its notifications. It
// runs on the read loop, so it never blocks.
func (in *instance) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	traceWire(ctx, in.spec.Name, "<-", req.Method(), len(req.Params()))
	in.mu.Lock()
	in.lastMsg = time.Now()
	in.mu.Unlock()
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p wPublishDiagnostics
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			in.mu.Lock()
			in.pubSeq++
			in.diags[p.URI] = &diagEntry{version: p.Version, seq: in.pubSeq, at: time.Now(), diags: p.Diagnostics}
			in.sawDiag = true
			in.bump()
			in.mu.Unlock()
		}
		return reply(ctx, nil, nil)
	case "textDocument/inactiveRegions":
		in.inactiveRegions(req.Params())
		return reply(ctx, nil, nil)
	case "$/progress":
		var p wProgressParams
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			tok := string(p.Token)
			in.mu.Lock()
			switch p.Value.Kind {
			case "begin":
				in.active[tok] = true
				in.sawBegin = true
			case "end":
				delete(in.active, tok)
				in.sawEnd = true
			}
			in.bump()
			in.mu.Unlock()
		}
		return reply(ctx, nil, nil)
	case in.spec.StatusNotice:
		if in.spec.StatusNotice != "" {
			in.fileStatus(req.Params())
		}
		return reply(ctx, nil, nil)
	case "window/logMessage":
		if in.readyLog != nil {
			var p struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(req.Params(), &p) == nil && in.readyLog.MatchString(p.Message) {
				in.mu.Lock()
				in.sawReadyLog = true
				in.bump()
				in.mu.Unlock()
			}
		}
		return nil
	case "workspace/diagnostic/refresh":
		in.mu.Lock()
		in.sawRefresh = true
		in.bump()
		in.mu.Unlock()
		return reply(ctx, nil, nil)
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "workspace/semanticTokens/refresh",
		"workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		return reply(ctx, nil, nil)
	case "workspace/configuration":
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		out := make([]json.RawMessage, len(p.Items))
		for i, it := range p.Items {
			out[i] = settingsSection(in.settings, it.Section)
		}
		return reply(ctx, out, nil)
	case "workspace/workspaceFolders":
		return reply(ctx, []map[string]string{{"uri": pathToURI(in.root), "name": "root"}}, nil)
	case "workspace/applyEdit":
		// An edit a command action sends back is captured to be staged
		// (runCommand); any other is refused: tether applies edits itself.
		in.mu.Lock()
		capture := in.capture
		in.mu.Unlock()
		var p struct {
			Edit wWorkspaceEdit `json:"edit"`
		}
		if capture != nil && json.Unmarshal(req.Params(), &p) == nil {
			capture(p.Edit)
			return reply(ctx, map[string]any{"applied": true}, nil)
		}
		return reply(ctx, map[string]any{"applied": false, "failureReason": "tether applies edits itself"}, nil)
	}
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "method not found: "+req.Method()))
	}
	return nil // other notifications (logMessage, showMessage, telemetry) are dropped
}

// settingsSection answers a workspace/configuration item for section
// ("python.analysis") from settings: the value at that dotted path when
// settings has one (pyright asks for "python" and "python.analysis"),
// else the whole of settings, which servers whose settings are one
// section's (yaml, css) read as theirs; null without settings.
func settingsSection(settings json.RawMessage, section string) json.RawMessage {
	if len(settings) == 0 {
		return json.RawMessage("null")
	}
	cur := settings
	for _, key := range strings.Split(section, ".") {
		var m map[string]json.RawMessage
		if key == "" || json.Unmarshal(cur, &m) != nil {
			return settings
		}
		v, ok := m[key]
		if !ok {
			return settings
		}
		cur = v
	}
	return cur
}

// inactiveRegions records clangd's textDocument/inactiveRegions: the
// lines its analysis of a file left out under the preprocessor. clangd
// sends a file's regions right after the publication from the same
// analysis, and stamps them with no version: they belong to that
// publication.
func (in *instance) inactiveRegions(params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Regions []wRange `json:"regions"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var lines [][2]int
	for _, r := range p.Regions {
		lines = append(lines, [2]int{r.Start.Line, r.End.Line})
	}
	in.mu.Lock()
	if e := in.diags[p.TextDocument.URI]; e != nil {
		e.inactive, e.inactiveKnown = lines, true
	}
	in.mu.Unlock()
}

// fileStatus records a per-file status notice (Server.StatusNotice):
// whether the file went idle, and when clangd was rebuilding its
// includes.
func (in *instance) fileStatus(params json.RawMessage) {
	var p struct {
		URI   string `json:"uri"`
		State string `json:"state"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.sawStatus = true
	if p.State == in.spec.StatusIdle {
		in.status[p.URI] = in.pubSeq
	} else {
		delete(in.status, p.URI)
	}
	if in.spec.StatusPreamble != "" && strings.HasPrefix(p.State, in.spec.StatusPreamble) {
		in.preamble[p.URI] = in.pubSeq
	}
	in.bump()
}

// traceWire logs one message to or from a server at debug level (tether
// --log-level debug): its direction, method and size, never its content
// (it carries file text).
func traceWire(ctx context.Context, server, dir, method string, size int) {
	if slog.Default().Enabled(ctx, slog.LevelDebug) {
		slog.DebugContext(ctx, "lsp wire", "server", server, "dir", dir, "method", method, "bytes", size)
	}
}

// traceParams is traceWire for a message about to be encoded.
func traceParams(ctx context.Context, server, dir, method string, params any) {
	if slog.Default().Enabled(ctx, slog.LevelDebug) {
		b, _ := json.Marshal(params)
		traceWire(ctx, server, dir, method, len(b))
	}
}

// errCrashed marks a request that failed because the server went away.
var errCrashed = errors.New("server exited")

// call sends a request and waits for its answer, the caller's context, the
// timeout or the process's death, whichever comes first. When the caller gives
// up, $/cancelRequest is sent.
func (in *instance) call(ctx context.Context, timeout time.Duration, method string, params any) (json.RawMessage, error) {
	if err := in.supports(method); err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	traceParams(ctx, in.spec.Name, "->", method, params)
	type answer struct {
		id  jsonrpc2.ID
		raw json.RawMessage
		err error
	}
	ch := make(chan answer, 1)
	idCh := make(chan jsonrpc2.ID, 1)
	go func() {
		var raw json.RawMessage
		id, err := in.conn.Call(cctx, method, params, &raw)
		idCh <- id
		ch <- answer{id, raw, err}
	}()
	select {
	case a := <-ch:
		traceWire(ctx, in.spec.Name, "<-", method+" reply", len(a.raw))
		if a.err == nil {
			return bytes.TrimSpace(a.raw), nil
		}
		if cctx.Err() == nil {
			var je *jsonrpc2.Error
			if errors.As(a.err, &je) {
				return nil, fmt.Errorf("lsp: %s answered %s with an error: %s", in.spec.Name, method, je.Message)
			}
			if dead, _ := in.dead(); dead {
				return nil, in.gone(method)
			}
			return nil, fmt.Errorf("lsp: %s %s: %w", in.spec.Name, method, a.err)
		}
		// fall through to the cancellation path
		return nil, in.gaveUp(ctx, a.id, method, timeout)
	case <-cctx.Done():
		// The request goroutine returns promptly once cctx is done, unless its
		// write is stuck on a server that stopped reading.
		select {
		case id := <-idCh:
			return nil, in.gaveUp(ctx, id, method, timeout)
		case <-time.After(time.Second):
			return nil, in.gaveUp(ctx, nil, method, timeout)
		}
	case <-in.exited:
		return nil, in.gone(method)
	}
}

// gone is the error of a request whose server went away during it.
func (in *instance) gone(method string) error {
	if in.stopping() {
		return fmt.Errorf("lsp: %s was stopped during %s by a reload (or the run closing), not a crash; ask again", in.spec.Name, method)
	}
	return fmt.Errorf("lsp: %s %w during %s", in.spec.Name, errCrashed, method)
}

// stopping reports whether shutdown was called: an exit is then no crash.
func (in *instance) stopping() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.closing
}

// gaveUp tells the server to stop working on id and says why we stopped.
func (in *instance) gaveUp(ctx context.Context, id any, method string, timeout time.Duration) error {
	nctx, cancel := context.WithTimeout(context.Background(), time.Second)
	if id != nil {
		go func() { // never block the caller on a stuck write
			defer cancel()
			_ = in.conn.Notify(nctx, "$/cancelRequest", map[string]any{"id": id})
		}()
	} else {
		cancel()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("lsp: %s %s cancelled: %w", in.spec.Name, method, err)
	}
	return hungError(fmt.Sprintf("lsp: %s did not answer %s within %s (request cancelled); it may be hung: retry, or call reload to restart it", in.spec.Name, method, timeout))
}

// hungError is a request the server did not answer within the request
// bound: a timeout (errors.Is context.DeadlineExceeded), whatever the
// caller's own deadline.
type hungError string

func (e hungError) Error() string        { return string(e) }
func (e hungError) Is(target error) bool { return target == context.DeadlineExceeded }

func (in *instance) notify(ctx context.Context, method string, params any) error {
	traceParams(ctx, in.spec.Name, "->", method, params)
	nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := in.conn.Notify(nctx, method, params); err != nil {
		if dead, _ := in.dead(); dead {
			return fmt.Errorf("lsp: %s %w before %s", in.spec.Name, errCrashed, method)
		}
		return fmt.Errorf("lsp: %s %s: %w", in.spec.Name, method, err)
	}
	return nil
}

// initialize runs the initialize handshake.
func (in *instance) initialize(ctx context.Context, timeout time.Duration) error {
	// processId lets a server end itself once tether is gone, by probing
	// the pid with signal 0. A sandboxed server can neither see tether's
	// pid (its own PID namespace) nor signal it (Landlock's signal scope),
	// and would take that for tether's death; it ends with tether anyway
	// (a parent-death signal, and its namespace going with it).
	var pid any = os.Getpid()
	if proc.SandboxStatus().Available() {
		pid = nil
	}
	params := map[string]any{
		"processId":  pid,
		"clientInfo": map[string]string{"name": "tether"},
		"rootUri":    pathToURI(in.root),
		"rootPath":   in.root,
		"workspaceFolders": []map[string]string{
			{"uri": pathToURI(in.root), "name": "root"},
		},
		"capabilities": clientCapabilities,
	}
	if in.spec.PullCapability {
		params["capabilities"] = withPullCapability(clientCapabilities)
	}
	if len(in.spec.InitOptions) > 0 {
		params["initializationOptions"] = in.spec.InitOptions
	}
	raw, err := in.call(ctx, timeout, "initialize", params)
	if err != nil {
		return err
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(raw, &res); err == nil {
		in.caps = res.Capabilities
		in.info = strings.TrimSpace(res.ServerInfo.Name + " " + res.ServerInfo.Version)
	}
	if v, ok := in.caps["positionEncoding"]; ok {
		var name string
		_ = json.Unmarshal(v, &name)
		if e, ok := parseEncoding(name); ok {
			in.enc = e
		}
	}
	if in.spec.PositionEncoding != "" {
		e, ok := parseEncoding(in.spec.PositionEncoding)
		if !ok {
			return fmt.Errorf("lsp: %s: position_encoding %q is none of utf-8, utf-16, utf-32", in.spec.Name, in.spec.PositionEncoding)
		}
		in.enc = e
	}
	return in.notify(ctx, "initialized", struct{}{})
}

var clientCapabilities = json.RawMessage(`{
 "general": {"positionEncodings": ["utf-16"]},
 "window": {"workDoneProgress": true},
 "workspace": {"configuration": true, "workspaceFolders": true, "applyEdit": true,
   "workspaceEdit": {"documentChanges": true},
   "fileOperations": {"willRename": true, "didRename": true},
   "executeCommand": {},
   "symbol": {"symbolKind": {"valueSet": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26]}}},
 "textDocument": {
   "synchronization": {"didSave": true, "dynamicRegistration": false},
   "publishDiagnostics": {"versionSupport": true, "relatedInformation": false},
   "inactiveRegionsCapabilities": {"inactiveRegions": true},
   "hover": {"contentFormat": ["markdown", "plaintext"]},
   "definition": {"linkSupport": true},
   "typeDefinition": {"linkSupport": true},
   "implementation": {"linkSupport": true},
   "references": {},
   "rename": {"prepareSupport": false},
   "callHierarchy": {"dynamicRegistration": false},
   "typeHierarchy": {"dynamicRegistration": false},
   "documentSymbol": {"hierarchicalDocumentSymbolSupport": true,
     "symbolKind": {"valueSet": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26]}},
   "codeAction": {"isPreferredSupport": true, "dataSupport": true, "resolveSupport": {"properties": ["edit"]},
     "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports", "source.fixAll"]}}}
 }
}`)

// withPullCapability returns caps with textDocument.diagnostic (LSP 3.17
// pull diagnostics) announced, with dynamic registration: pyright pulls
// only when both are.
func withPullCapability(caps json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(caps, &m) != nil {
		return caps
	}
	td := child(m, "textDocument")
	td["diagnostic"] = map[string]any{"dynamicRegistration": true, "relatedDocumentSupport": false}
	out, err := json.Marshal(m)
	if err != nil {
		return caps
	}
	return out
}

// waitReady waits until the server looks ready: a work-done progress ended
// with none still active, or a first diagnostics publication, or (for a server
// that announced no progress at all) a quiet spell. It reports false when the
// bound passed first.
func (in *instance) waitReady(ctx context.Context, bound time.Duration) (bool, error) {
	const quiet = 1500 * time.Millisecond
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		in.mu.Lock()
		if in.ready {
			in.mu.Unlock()
			return true, nil
		}
		// A server with a document open publishes diagnostics once it has
		// loaded the project; without one, silence is all there is to go by.
		// Work still announced as in progress (clangd's background index)
		// holds readiness back even after the first diagnostics.
		ok := ((in.sawDiag || in.sawEnd) && len(in.active) == 0) ||
			(len(in.docs) == 0 && !in.sawBegin && time.Since(in.lastMsg) > quiet && time.Since(in.started) > quiet)
		if in.spec.IndexProgress {
			ok = in.sawEnd && len(in.active) == 0
		}
		if in.spec.PullDiagnostics {
			ok = len(in.active) == 0 // it publishes nothing to wait for
		}
		if in.spec.PullCapability {
			// Nor does it index with progress: its first refresh request
			// says it has found the project's files (a rename before
			// that sees one file).
			ok = in.sawRefresh && len(in.active) == 0
		}
		if in.readyLog != nil {
			ok = ok && in.sawReadyLog
		}
		if ok {
			in.ready = true
			in.mu.Unlock()
			return true, nil
		}
		ch := in.changed
		in.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(250 * time.Millisecond):
		case <-deadline.C:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		case <-in.exited:
			return false, fmt.Errorf("lsp: %s %w while starting", in.spec.Name, errCrashed)
		}
	}
}

// shutdown asks the server to exit and kills it if it does not.
func (in *instance) shutdown() {
	in.mu.Lock()
	in.closing = true
	in.mu.Unlock()
	if dead, _ := in.dead(); !dead {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, _ = in.call(ctx, 2*time.Second, "shutdown", nil)
		_ = in.conn.Notify(ctx, "exit", nil)
		cancel()
		if in.cmd == nil {
			in.closer.Close()
		}
		select {
		case <-in.exited:
		case <-time.After(2 * time.Second):
		}
	}
	if in.cmd != nil && in.cmd.Process != nil {
		select {
		case <-in.exited:
		default:
			_ = in.cmd.Process.Kill()
			<-in.exited
		}
	}
	in.closer.Close()
}
