package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Server describes one language server: how to start it, which files it
// serves, which files mark a project root for it, and which command is the
// project's own checker (used for diagnostics over the whole project). The
// table is data: a user extends it by passing more Servers to WithServers.
type Server struct {
	// Name is the server's name as status shows it ("gopls").
	Name string `json:"name"`
	// Language names what the server serves ("go", "rust").
	Language string `json:"language"`
	// Binaries are the executable names tried in order ("clangd", "clangd-19").
	Binaries []string `json:"binaries"`
	// Args follow the binary ("--stdio").
	Args []string `json:"args,omitempty"`
	// Toolchain names the runtime the server and its checker run on ("go",
	// "node", "python", "dart", "rust"; "native", the default, for a
	// self-contained binary): the sandbox lets them read that toolchain's
	// directories (internal/proc's Table) besides the workspace.
	Toolchain string `json:"toolchain,omitempty"`
	// Probe, when set, are arguments that make the binary print its version
	// and exit ("--version"). A binary that is on PATH but fails its probe (a
	// rustup proxy for a component that is not installed, say) counts as not
	// usable, and status says why.
	Probe []string `json:"probe,omitempty"`
	// Extensions are the file extensions served, with the dot (".go").
	Extensions []string `json:"extensions"`
	// LanguageIDs maps an extension to the LSP languageId sent in didOpen; an
	// extension missing here uses Language.
	LanguageIDs map[string]string `json:"language_ids,omitempty"`
	// RootMarkers are file names whose presence makes a directory a project
	// root for this server ("go.mod").
	RootMarkers []string `json:"root_markers"`
	// Checker is the project's checker command, run in the root for
	// diagnostics over the whole project ("go", "vet", "./..."). Empty means
	// none. Check (read tier) runs only a binary found on the trusted PATH
	// (never one inside the workspace); CheckProject (exec tier) prefers the
	// project's own (node_modules/.bin, .venv/bin, venv/bin).
	Checker []string `json:"checker,omitempty"`
	// CheckerRunsCode marks a checker whose run executes code from the
	// project whichever binary runs it (cargo check builds and runs build.rs
	// scripts and proc macros; dart analyze runs analyzer plugins): Check
	// never runs it and says so; only CheckProject does.
	CheckerRunsCode bool `json:"checker_runs_code,omitempty"`
	// CheckerNeeds names files of which one must be in the root for the
	// checker to have a project to check (tsc without tsconfig.json prints
	// its help and exits 1); without any, diagnostics "*" says so instead
	// of running it.
	CheckerNeeds []string `json:"checker_needs,omitempty"`
	// InitOptions is sent as initializationOptions.
	InitOptions json.RawMessage `json:"initialization_options,omitempty"`
	// PinTSServer is for typescript-language-server, which runs the
	// workspace's node_modules/typescript/lib/tsserver.js when there is one
	// (code from the workspace, and tsserver loads plugins next to itself):
	// tether sets initializationOptions tsserver.path to a trusted one, the
	// typescript package installed with the server or tsserver on the
	// trusted PATH, and does not start the server when there is neither.
	PinTSServer bool `json:"pin_tsserver,omitempty"`
	// Settings answers workspace/configuration requests (every section gets it).
	Settings json.RawMessage `json:"settings,omitempty"`
	// Settle is how long to wait for further diagnostics publications for a
	// file once one for the current version arrived (some servers publish a
	// version twice as more results come in). Zero means 300ms.
	Settle time.Duration `json:"settle,omitempty"`
	// EmptySettle replaces Settle when the publication is an empty list, for
	// servers that clear a file's diagnostics before analysing it (pyright).
	// Zero means Settle.
	EmptySettle time.Duration `json:"empty_settle,omitempty"`
	// CleanCheck is for a server that publishes nothing when a file that had
	// no diagnostics changes and still has none (typescript-language-server):
	// silence there is not an answer. Each entry is a workspace/executeCommand
	// request. When the answers are tsserver diagnostics ({"body": [...]}),
	// together they are the file's diagnostics, asked for instead of awaited
	// (a publication may mix a fresh kind with a stale one); otherwise, run
	// when a changed file's last publication was empty, every answer an
	// empty list means the file is still clean, and anything else means the
	// publication is awaited as usual.
	CleanCheck []ExecuteCommand `json:"clean_check,omitempty"`
	// PositionEncoding is what the server's columns count when it does not
	// say so in its capabilities (LSP 3.17 positionEncoding): "utf-16", the
	// protocol's and the default; "utf-8" (bytes); or "utf-32" (code
	// points: pylsp 1.7 counts Python string indices, so every column after
	// an emoji is off). Set, it wins over what the server announces.
	PositionEncoding string `json:"position_encoding,omitempty"`
	// OpenChanged is for a server that ignores
	// workspace/didChangeWatchedFiles (typescript-language-server leaves
	// files on disk to tsserver's own watchers, which notice a change a
	// moment later): source files created or changed by other means are
	// opened instead (up to maxOpenChanged per query), so the next answer
	// sees them.
	OpenChanged bool `json:"open_changed,omitempty"`
	// RepublishesOpen is for a server that, when a file changes, analyses
	// the open files that depend on it again and publishes their
	// diagnostics under their current version, and that ignores a change
	// repeating a file's text (clangd): a publication of a file's current
	// text that came after the other file's change is its answer, as no
	// publication comes for the repeat that is sent to ask for one.
	RepublishesOpen bool `json:"republishes_open,omitempty"`
	// Refresh is for a server that publishes a file's diagnostics again only
	// when they change (gopls): after other files changed, the last
	// publication for a file that did not change cannot be told from "not
	// updated yet". Each entry is a workspace/executeCommand request that
	// makes the server bring its publications up to date before it answers
	// ("${uri}" stands for the file's URI, "${file}" for its path); it is run
	// for a diagnostics query on such a file.
	Refresh []ExecuteCommand `json:"refresh,omitempty"`
	// ProjectIndex names files (relative to the root) of which the server
	// needs one to see the whole project (clangd: compile_commands.json).
	// Without any it answers from the files opened so far: references and
	// implementation then say they may be incomplete, and rename is refused
	// (it would miss the other files and break the build).
	ProjectIndex []string `json:"project_index,omitempty"`
	// ProjectIndexHint says how to create one of ProjectIndex.
	ProjectIndexHint string `json:"project_index_hint,omitempty"`
}

// ExecuteCommand is one workspace/executeCommand request. In Arguments the
// string "${file}" stands for the file's absolute path and "${uri}" for its
// file:// URI. Its answer counts as
// empty when it is [] or an object whose "body" is [].
type ExecuteCommand struct {
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

func (s *Server) settle(empty bool) time.Duration {
	if empty && s.EmptySettle > 0 {
		return s.EmptySettle
	}
	if s.Settle > 0 {
		return s.Settle
	}
	return 300 * time.Millisecond
}

// DefaultServers returns tether's built-in server table. The result is a fresh
// copy the caller may change.
func DefaultServers() []Server {
	return []Server{
		{
			Name: "gopls", Language: "go", Toolchain: "go", Binaries: []string{"gopls"}, Probe: []string{"version"},
			Extensions:  []string{".go"},
			RootMarkers: []string{"go.mod"},
			Checker:     []string{"go", "vet", "./..."},
			InitOptions: json.RawMessage(`{"symbolScope":"workspace"}`),
			// gopls diagnoses the workspace and publishes what changed
			// before it answers; unchanged diagnostics are not published
			// again, so silence after another file changed means nothing.
			Refresh: []ExecuteCommand{{Command: "gopls.diagnose_files", Arguments: []any{map[string]any{"Files": []any{"${uri}"}}}}},
			Settle:  50 * time.Millisecond, // one publication per version
		},
		{
			Name: "pyright", Language: "python", Toolchain: "node", Binaries: []string{"pyright-langserver"}, Args: []string{"--stdio"},
			Extensions:  []string{".py", ".pyi"},
			RootMarkers: []string{"pyproject.toml", "setup.py", "requirements.txt", "pyrightconfig.json"},
			Checker:     []string{"pyright"},
			Settings:    json.RawMessage(`{"analysis":{"diagnosticMode":"openFilesOnly","autoSearchPaths":true,"useLibraryCodeForTypes":true}}`),
			// pyright publishes an empty list for a file it is about to
			// analyse, then the result, up to a second or more later.
			EmptySettle: 2500 * time.Millisecond,
		},
		{
			Name: "typescript-language-server", Language: "typescript", Toolchain: "node", Binaries: []string{"typescript-language-server"}, Args: []string{"--stdio"}, Probe: []string{"--version"},
			Extensions:   []string{".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"},
			LanguageIDs:  map[string]string{".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact"},
			RootMarkers:  []string{"package.json", "tsconfig.json"},
			Checker:      []string{"tsc", "--noEmit"},
			CheckerNeeds: []string{"tsconfig.json", "jsconfig.json"},
			OpenChanged:  true,
			PinTSServer:  true,
			// It publishes only when a kind of diagnostic (syntactic,
			// semantic, suggestion) goes from or to non-empty; tsserver's
			// synchronous requests tell that a clean file is still clean.
			CleanCheck: []ExecuteCommand{
				{Command: "typescript.tsserverRequest", Arguments: []any{"syntacticDiagnosticsSync", map[string]any{"file": "${file}"}}},
				{Command: "typescript.tsserverRequest", Arguments: []any{"semanticDiagnosticsSync", map[string]any{"file": "${file}"}}},
				{Command: "typescript.tsserverRequest", Arguments: []any{"suggestionDiagnosticsSync", map[string]any{"file": "${file}"}}},
			},
		},
		{
			Name: "clangd", Language: "c", Toolchain: "native", Binaries: []string{"clangd", "clangd-19", "clangd-18", "clangd-17", "clangd-16"}, Probe: []string{"--version"},
			// A header's text as tether last sent it, not as on disk: what
			// diagnostics on write shows of a header before a write is
			// what its includers are compiled against.
			Args:            []string{"--use-dirty-headers"},
			RepublishesOpen: true,
			Extensions:      []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"},
			LanguageIDs:     map[string]string{".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp"},
			RootMarkers:     []string{"compile_commands.json", "CMakeLists.txt"},
			// clangd looks in the root and its build/ directory.
			ProjectIndex:     []string{"compile_commands.json", "build/compile_commands.json"},
			ProjectIndexHint: "cmake -B build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, or bear -- make",
		},
		{
			Name: "dart", Language: "dart", Toolchain: "dart", Binaries: []string{"dart"}, Args: []string{"language-server", "--protocol=lsp"}, Probe: []string{"--version"},
			Extensions:  []string{".dart"},
			RootMarkers: []string{"pubspec.yaml"},
			Checker:     []string{"dart", "analyze"},
			// analysis_options.yaml can name analyzer plugins, Dart code
			// that the analyzer runs.
			CheckerRunsCode: true,
		},
		{
			Name: "rust-analyzer", Language: "rust", Toolchain: "rust", Binaries: []string{"rust-analyzer"}, Probe: []string{"--version"},
			Extensions:  []string{".rs"},
			RootMarkers: []string{"Cargo.toml"},
			Checker:     []string{"cargo", "check", "--message-format=short"},
			// cargo check compiles and runs build.rs scripts and proc macros.
			CheckerRunsCode: true,
			// Nor may the server run them: build scripts and proc-macro
			// expansion off, and no cargo check on save.
			InitOptions: json.RawMessage(`{"cargo":{"buildScripts":{"enable":false}},"procMacro":{"enable":false},"checkOnSave":false}`),
		},
	}
}

func (s *Server) servesExt(ext string) bool {
	for _, e := range s.Extensions {
		if strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}

func (s *Server) languageID(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if id, ok := s.LanguageIDs[ext]; ok {
		return id
	}
	return s.Language
}

// partialView returns why s, running for root, sees only the files opened
// so far ("" when it sees the project).
func (s *Server) partialView(root, relRoot string) string {
	if len(s.ProjectIndex) == 0 {
		return ""
	}
	for _, f := range s.ProjectIndex {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			return ""
		}
	}
	why := fmt.Sprintf("%s found no %s in %s: it knows only the files opened so far", s.Name, strings.Join(s.ProjectIndex, " or "), relRoot)
	return why
}

func (s *Server) indexHint() string {
	if s.ProjectIndexHint == "" {
		return fmt.Sprintf("create %s", s.ProjectIndex[0])
	}
	return fmt.Sprintf("create %s (%s)", s.ProjectIndex[0], s.ProjectIndexHint)
}

// markerIn returns the first of s's root markers present in dir, or "".
func (s *Server) markerIn(dir string) string {
	for _, m := range s.RootMarkers {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			return m
		}
	}
	return ""
}

// lookPath finds name in the PATH of env (os.Environ form); a name with a
// slash is checked as is.
func lookPath(name string, env []string) string {
	isExec := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
	}
	if strings.ContainsRune(name, os.PathSeparator) {
		if isExec(name) {
			return name
		}
		return ""
	}
	path := os.Getenv("PATH")
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			path = kv[len("PATH="):]
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, name); isExec(p) {
			return p
		}
	}
	return ""
}

// binary returns the first of s's binaries found on env's PATH and its path,
// skipping any that is inside workdir (a link on PATH into the workspace).
func (s *Server) binary(env []string, workdir string) (name, path string) {
	for _, b := range s.Binaries {
		if strings.ContainsRune(b, os.PathSeparator) && !filepath.IsAbs(b) {
			continue // resolved against the project root: in the workspace
		}
		if p := lookPath(b, env); p != "" && !insideDir(workdir, p) {
			return b, p
		}
	}
	return "", ""
}

// trustedEnv returns env as language servers and checkers get it at read
// tier (no program from the workspace may run): PATH without entries that
// are relative (they resolve against the process's directory, a project
// root) or lie inside workdir (a project's node_modules/.bin, .venv/bin), so
// neither a server, a checker, nor a "#!/usr/bin/env node" line finds a
// program there; and GOTOOLCHAIN=local, so a go.mod toolchain line cannot
// make the go command that gopls and go vet run download and run another
// toolchain. dropped lists the PATH entries left out.
func trustedEnv(env []string, workdir string) (out, dropped []string) {
	path, hasPath := os.Getenv("PATH"), false
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "PATH="):
			path, hasPath = kv[len("PATH="):], true
		case strings.HasPrefix(kv, "GOTOOLCHAIN="):
		default:
			out = append(out, kv)
		}
	}
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) || insideDir(workdir, dir) {
			dropped = append(dropped, dir)
			continue
		}
		keep = append(keep, dir)
	}
	if hasPath || len(dropped) > 0 {
		out = append(out, "PATH="+strings.Join(keep, string(os.PathListSeparator)))
	}
	return append(out, "GOTOOLCHAIN=local"), dropped
}

// insideDir reports whether p, with symbolic links resolved, is dir or
// inside it (dir is absolute with its links resolved). A p that does not exist
// (yet) is judged by its deepest existing directory, resolved, with the rest
// appended: a PATH entry leading into the workspace through a link is inside
// before the directory it names is made.
func insideDir(dir, p string) bool {
	in := func(p string) bool {
		r, err := filepath.Rel(dir, filepath.Clean(p))
		return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
	}
	if in(p) {
		return true
	}
	p = filepath.Clean(p)
	for rest := ""; ; {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return in(filepath.Join(real, rest))
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// pinTSServer returns opts (initializationOptions) with tsserver.path set to a
// trusted tsserver.js: the typescript package the server at bin resolves as
// node does (its own node_modules, then those of the directories above it),
// else the package of tsserver on env's PATH. Neither may lie inside workdir.
func pinTSServer(opts json.RawMessage, bin string, env []string, workdir string) (json.RawMessage, error) {
	js := ""
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		for d := filepath.Dir(real); js == ""; d = filepath.Dir(d) {
			if c := filepath.Join(d, "node_modules", "typescript", "lib", "tsserver.js"); isFile(c, "") && !insideDir(workdir, c) {
				js = c
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if p := lookPath("tsserver", env); js == "" && p != "" {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			// node_modules/typescript/bin/tsserver -> lib/tsserver.js
			if c := filepath.Join(filepath.Dir(filepath.Dir(real)), "lib", "tsserver.js"); isFile(c, "") && !insideDir(workdir, c) {
				js = c
			}
		}
	}
	if js == "" {
		return nil, fmt.Errorf("no trusted TypeScript found for typescript-language-server (neither next to %s nor tsserver on PATH), and it would run the workspace's own node_modules/typescript; install typescript next to it (npm install -g typescript)", bin)
	}
	m := map[string]any{}
	if len(opts) > 0 {
		if err := json.Unmarshal(opts, &m); err != nil {
			return nil, fmt.Errorf("lsp: initialization_options: %w", err)
		}
	}
	ts, _ := m["tsserver"].(map[string]any)
	if ts == nil {
		ts = map[string]any{}
	}
	ts["path"] = js
	// Not fallbackPath: the workspace's copy comes before it.
	delete(ts, "fallbackPath")
	m["tsserver"] = ts
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("lsp: initialization_options: %w", err)
	}
	return out, nil
}
