package lsp

import "encoding/json"
import "time"

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
	// FileNames are names (or patterns, "*.Dockerfile") of files served
	// whatever their extension ("Dockerfile", which has none).
	FileNames []string `json:"file_names,omitempty"`
	// LanguageIDs maps an extension to the LSP languageId sent in didOpen; an
	// extension missing here uses Language.
	LanguageIDs map[string]string `json:"language_ids,omitempty"`
	// RootMarkers are file names whose presence makes a directory a project
	// root for this server ("go.mod"); a name with a wildcard is a pattern
	// ("*.csproj"). None means the workspace is the root, for a language
	// without project files (bash, yaml, json).
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
	// FormatOnWrite, when set, says whether the files this server serves
	// are formatted by it after tether's writers write them, whatever
	// WithFormatOnWrite says for the others.
	FormatOnWrite *bool `json:"format_on_write,omitempty"`
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
	// DiskReload is for a server that learns of files created or deleted
	// by other means only from its own watchers, a moment later, and may
	// miss a creation for good: tsserver drops its watcher's event for a
	// file that is open by then (OpenChanged opens it), so an import of it
	// that failed before stays "Cannot find module", and a caller of a
	// deleted file that is not open reads clean until the watcher fires.
	// Each entry is a workspace/executeCommand request that makes the
	// server take the disk as it is now; they run before the next answer
	// whenever the rescan finds files created or deleted, and again on the
	// next query when one failed.
	DiskReload []ExecuteCommand `json:"disk_reload,omitempty"`
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
	// ScratchEnv names environment variables set to the server's scratch
	// directory (the one the sandbox lets it write besides the workspace,
	// removed when it ends), for a server that keeps state under a
	// directory it takes from one (intelephense: XDG_CONFIG_HOME).
	ScratchEnv []string `json:"scratch_env,omitempty"`
	// ScratchFiles are written into the scratch directory (slash-separated
	// path to content) before the server starts: a user-level configuration
	// the server reads through ScratchEnv (clangd:
	// XDG_CONFIG_HOME/clangd/config.yaml), never the operator's own.
	ScratchFiles map[string]string `json:"scratch_files,omitempty"`
	// PullDiagnostics is for a server that publishes no diagnostics and
	// answers textDocument/diagnostic (LSP 3.17's pull model) instead
	// (vscode-eslint-language-server): a file's diagnostics are asked for
	// once its change is sent.
	PullDiagnostics bool `json:"pull_diagnostics,omitempty"`
	// PullCapability announces LSP 3.17 pull diagnostics to the server
	// (textDocument.diagnostic, with dynamic registration), for a server
	// that answers textDocument/diagnostic only when the client says it
	// pulls, and then stops publishing (pyright): set PullDiagnostics too.
	PullCapability bool `json:"pull_capability,omitempty"`
	// ReadyLog, a regular expression, is the window/logMessage with which
	// the server says it has found the project's files (pyright's "Found 5
	// source files"): readiness waits for it too. pyright asks the client
	// to pull diagnostics once before it has looked for the files and once
	// after, so the first ask alone let a rename see only the open file.
	ReadyLog string `json:"ready_log,omitempty"`
	// PythonInterpreter is for a Python server that resolves imports
	// against an interpreter's packages (pyright): it is given the
	// project's interpreter (Supervisor.pythonFor) as python.pythonPath
	// in its settings, and status says which and why.
	PythonInterpreter bool `json:"python_interpreter,omitempty"`
	// PartialPublish is for a server whose publications can hold part of
	// a file's diagnostics (typescript-language-server publishes
	// tsserver's syntactic diagnostics before its semantic ones): a
	// publication is then not taken for the file's whole set.
	PartialPublish bool `json:"partial_publish,omitempty"`
	// AnalysisNeedsTypes is for a server whose findings other than errors
	// come from analyzers that do not run on a package with type errors
	// (gopls): while a file's directory has errors, its warnings that
	// vanished were not fixed but not computed (Diagnostics.NeedsTypes).
	AnalysisNeedsTypes bool `json:"analysis_needs_types,omitempty"`
	// StatusNotice is the method of a server's per-file status
	// notification ({uri, state}: clangd's textDocument/clangd.fileStatus,
	// asked for with InitOptions) and StatusIdle the state it reports when
	// it has no more work on the file. A publication is then taken as the
	// file's answer only once the file went idle after it: clangd may
	// publish from an AST built on its previous includes while it
	// rebuilds them, and publish again, under the same version, after.
	StatusNotice string `json:"status_notice,omitempty"`
	StatusIdle   string `json:"status_idle,omitempty"`
	// StatusPreamble begins the states a StatusNotice server reports
	// while it rebuilds a file's includes (clangd: "parsing includes",
	// "parsing includes, running Build AST"). After an edit that changed
	// the #include lines at the top of a file, clangd may first publish
	// for the new version from an AST built on the old includes, report
	// that it is still rebuilding them, and publish again once done: a
	// publication followed by such a state is not the edit's answer.
	StatusPreamble string `json:"status_preamble,omitempty"`
	// IndexProgress is for a server that publishes its first diagnostics
	// before it announces indexing the workspace with work-done progress
	// (intelephense): it is ready only once that progress has ended, not
	// at its first publication.
	IndexProgress bool `json:"index_progress,omitempty"`
	// Linter marks a server that only reports diagnostics (eslint, biome):
	// it answers no query, and its diagnostics join those of the server
	// that serves the file (the first row for its extension that is not a
	// linter), each marked with its source. It runs where one of its root
	// markers is found (the project uses it); elsewhere it is left out
	// without a word, as the project does not lint with it.
	Linter bool `json:"linter,omitempty"`
	// PinESLint is for vscode-eslint-language-server, which loads the eslint
	// library from the workspace's node_modules and the project's
	// eslint.config.js (JavaScript from the workspace): tether points its
	// nodePath at the eslint installed next to the server and passes
	// TrustedESLintRules as the whole configuration, so neither the
	// workspace's eslint nor its configuration runs; without a trusted
	// eslint the server does not start.
	PinESLint bool `json:"pin_eslint,omitempty"`
	// Diagnoses says what the server's diagnostics on write report
	// ("syntax errors and unknown names"), for the table in
	// docs/languages.md; empty leaves it unsaid.
	Diagnoses string `json:"diagnoses,omitempty"`
	// Install says how scripts/install-deps.sh installs the server, or why
	// it cannot be had from the registries tether installs from; a start
	// that finds no binary says it.
	Install string `json:"install,omitempty"`
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
