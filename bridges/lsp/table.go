package lsp

import "encoding/json"
import "slices"
import "time"

// DefaultServers returns tether's built-in server table. The result is a fresh
// copy the caller may change. Order counts: a file's server is the first row
// that serves it and is no linter.
func DefaultServers() []Server {
	return slices.Concat(projectServers(), templateAndQueryServers(), scriptAndConfigServers(), linterServers(), uninstalledServers(), refusedServers())
}

// projectServers are the rows of the languages tether is tuned for most: Go,
// Python, TypeScript and JavaScript, C and C++, Dart and Rust.
func projectServers() []Server {
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
			Refresh:            []ExecuteCommand{{Command: "gopls.diagnose_files", Arguments: []any{map[string]any{"Files": []any{"${uri}"}}}}},
			Settle:             50 * time.Millisecond, // one publication per version
			AnalysisNeedsTypes: true,
			Install:            "go install (scripts/go-peers.txt)",
		},
		{
			Name: "pyright", Language: "python", Toolchain: "node", Binaries: []string{"pyright-langserver"}, Args: []string{"--stdio"},
			Extensions:  []string{".py", ".pyi"},
			RootMarkers: []string{"pyproject.toml", "setup.py", "requirements.txt", "pyrightconfig.json"},
			Checker:     []string{"pyright"},
			Settings:    json.RawMessage(`{"python":{"analysis":{"diagnosticMode":"openFilesOnly","autoSearchPaths":true,"useLibraryCodeForTypes":true}}}`),
			// Told that the client pulls, pyright answers
			// textDocument/diagnostic once it has analysed the file to
			// the end (its publications, with a file's checking cut into
			// time slices, can come before that), and publishes nothing.
			PullCapability:  true,
			PullDiagnostics: true,
			ReadyLog:        `^(Found \d+ source files?|No source files found)`,
			// Its interpreter is chosen as the project's (Interpreter).
			PythonInterpreter: true,
			Install:           "npm (scripts/npm/package.json)",
		},
		{
			Name: "typescript-language-server", Language: "typescript", Toolchain: "node", Binaries: []string{"typescript-language-server"}, Args: []string{"--stdio"}, Probe: []string{"--version"},
			Extensions:   []string{".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"},
			LanguageIDs:  map[string]string{".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact"},
			RootMarkers:  []string{"package.json", "tsconfig.json"},
			Checker:      []string{"tsc", "--noEmit"},
			CheckerNeeds: []string{"tsconfig.json", "jsconfig.json"},
			OpenChanged:  true,
			// Its publications merge tsserver's kinds of diagnostics as
			// they come; CleanCheck asks for them whole.
			PartialPublish: true,
			DiskReload:     []ExecuteCommand{{Command: "typescript.tsserverRequest", Arguments: []any{"reloadProjects", map[string]any{}}}},
			PinTSServer:    true,
			// It publishes only when a kind of diagnostic (syntactic,
			// semantic, suggestion) goes from or to non-empty; tsserver's
			// synchronous requests tell that a clean file is still clean.
			CleanCheck: []ExecuteCommand{
				{Command: "typescript.tsserverRequest", Arguments: []any{"syntacticDiagnosticsSync", map[string]any{"file": "${file}"}}},
				{Command: "typescript.tsserverRequest", Arguments: []any{"semanticDiagnosticsSync", map[string]any{"file": "${file}"}}},
				{Command: "typescript.tsserverRequest", Arguments: []any{"suggestionDiagnosticsSync", map[string]any{"file": "${file}"}}},
			},
			Install: "npm, with the typescript it runs (scripts/npm/package.json)",
		},
		{
			Name: "clangd", Language: "c", Toolchain: "native", Binaries: []string{"clangd", "clangd-19", "clangd-18", "clangd-17", "clangd-16"}, Probe: []string{"--version"},
			// A header's text as tether last sent it, not as on disk: what
			// diagnostics on write shows of a header before a write is
			// what its includers are compiled against.
			Args: []string{"--use-dirty-headers"},
			// clang stops at 20 errors by default ("too many errors
			// emitted"): a file's set would not be whole, and a write
			// that breaks more would look like 20 new errors. The user
			// configuration lifts the limit; the project's .clangd still
			// applies on top of it.
			ScratchEnv:      []string{"XDG_CONFIG_HOME"},
			ScratchFiles:    map[string]string{"clangd/config.yaml": "CompileFlags:\n  Add: [-ferror-limit=0]\n"},
			RepublishesOpen: true,
			InitOptions:     json.RawMessage(`{"clangdFileStatus":true}`),
			StatusNotice:    "textDocument/clangd.fileStatus",
			StatusIdle:      "idle",
			StatusPreamble:  "parsing includes",
			Extensions:      []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".m", ".mm"},
			LanguageIDs:     map[string]string{".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".m": "objective-c", ".mm": "objective-cpp"},
			RootMarkers:     []string{"compile_commands.json", "CMakeLists.txt"},
			// clangd looks in the root and its build/ directory.
			ProjectIndex:     []string{"compile_commands.json", "build/compile_commands.json"},
			ProjectIndexHint: "cmake -B build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, or bear -- make",
			Install:          "Debian 12: clangd-19",
		},
		{
			Name: "dart", Language: "dart", Toolchain: "dart", Binaries: []string{"dart"}, Args: []string{"language-server", "--protocol=lsp"}, Probe: []string{"--version"},
			Extensions:  []string{".dart"},
			RootMarkers: []string{"pubspec.yaml"},
			Checker:     []string{"dart", "analyze"},
			// analysis_options.yaml can name analyzer plugins, Dart code
			// that the analyzer runs.
			CheckerRunsCode: true,
			Install:         "not installed by scripts/install-deps.sh: the Dart SDK is served neither by Debian 12 nor npm nor the Go module proxy; install it and put dart on PATH",
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
			Install:     "not installed by scripts/install-deps.sh: rust-analyzer comes with a Rust toolchain (rustup component add rust-analyzer), which neither Debian 12 nor npm nor the Go module proxy serves",
		},
	}
}

// scriptAndConfigServers are the rows of shell scripts, data files (YAML,
// JSON, TOML), web files (CSS, HTML, PHP), Dockerfiles, protobuf and
// Terraform.
func scriptAndConfigServers() []Server {
	return []Server{
		{
			Name: "bash-language-server", Language: "bash", Toolchain: "node", Binaries: []string{"bash-language-server"}, Args: []string{"start"}, Probe: []string{"--version"},
			Extensions:  []string{".sh", ".bash"},
			LanguageIDs: map[string]string{".sh": "shellscript", ".bash": "shellscript"},
			// It runs shellcheck from the trusted PATH on every change:
			// shellcheck's findings are its diagnostics (source
			// "shellcheck"); .shellcheckrc is data, no code.
			Settings: json.RawMessage(`{"shellcheckPath":"shellcheck","backgroundAnalysisMaxFiles":500}`),
			Install:  "npm (scripts/npm/package.json), with shellcheck from Debian for its diagnostics",
		},
		{
			Name: "yaml-language-server", Language: "yaml", Toolchain: "node", Binaries: []string{"yaml-language-server"}, Args: []string{"--stdio"},
			Extensions: []string{".yaml", ".yml"},
			// No schema store: it would fetch schemas from the network.
			Settings: json.RawMessage(`{"validate":true,"schemaStore":{"enable":false},"format":{"enable":false}}`),
			Install:  "npm (scripts/npm/package.json)",
		},
		{
			Name: "vscode-json-language-server", Language: "json", Toolchain: "node", Binaries: []string{"vscode-json-language-server"}, Args: []string{"--stdio"},
			Extensions:  []string{".json", ".jsonc"},
			LanguageIDs: map[string]string{".jsonc": "jsonc"},
			InitOptions: json.RawMessage(`{"provideFormatter":false}`),
			Install:     "npm: vscode-langservers-extracted (scripts/npm/package.json)",
		},
		{
			Name: "vscode-css-language-server", Language: "css", Toolchain: "node", Binaries: []string{"vscode-css-language-server"}, Args: []string{"--stdio"},
			Extensions:  []string{".css", ".scss", ".less"},
			LanguageIDs: map[string]string{".scss": "scss", ".less": "less"},
			InitOptions: json.RawMessage(`{"provideFormatter":false}`),
			Settings:    json.RawMessage(`{"validate":true}`),
			Install:     "npm: vscode-langservers-extracted (scripts/npm/package.json)",
		},
		{
			Name: "vscode-html-language-server", Language: "html", Toolchain: "node", Binaries: []string{"vscode-html-language-server"}, Args: []string{"--stdio"},
			Extensions:  []string{".html", ".htm"},
			InitOptions: json.RawMessage(`{"provideFormatter":false,"embeddedLanguages":{"css":true,"javascript":true}}`),
			// Every section asked gets this: the html section's validate
			// turns on diagnostics for embedded scripts and styles; without
			// js/ts's implicitProjectConfig the script check fails and it
			// publishes nothing.
			Settings: json.RawMessage(`{"validate":{"scripts":true,"styles":true},"implicitProjectConfig":{"checkJs":false,"strictNullChecks":true}}`),
			Install:  "npm: vscode-langservers-extracted (scripts/npm/package.json)",
		},
		{
			Name: "intelephense", Language: "php", Toolchain: "node", Binaries: []string{"intelephense"}, Args: []string{"--stdio"},
			Extensions: []string{".php", ".phtml"},
			// Its index and caches go to the scratch directory the sandbox
			// gives it, not the home directory; the premium features need
			// a licence key, which tether does not pass.
			ScratchEnv:    []string{"XDG_CONFIG_HOME"},
			InitOptions:   json.RawMessage(`{"clearCache":true}`),
			Settings:      json.RawMessage(`{"telemetry":{"enabled":false},"files":{"maxSize":5000000}}`),
			IndexProgress: true,
			Install:       "npm (scripts/npm/package.json); no PHP runtime needed",
		},
		{
			Name: "dockerfile-language-server", Language: "dockerfile", Toolchain: "node", Binaries: []string{"docker-langserver"}, Args: []string{"--stdio"},
			Extensions: []string{".dockerfile"},
			FileNames:  []string{"Dockerfile", "Containerfile", "Dockerfile.*", "*.Dockerfile"},
			// Its settings section is docker.languageserver.diagnostics:
			// without them it leaves out every check that has a level.
			Settings: json.RawMessage(`{"deprecatedMaintainer":"warning","directiveCasing":"warning","emptyContinuationLine":"warning","instructionCasing":"warning","instructionCmdMultiple":"warning","instructionEntrypointMultiple":"warning","instructionHealthcheckMultiple":"warning","instructionJSONInSingleQuotes":"warning","instructionWorkdirRelative":"warning"}`),
			Install:  "npm: dockerfile-language-server-nodejs (scripts/npm/package.json)",
		},
		{
			Name: "tombi", Language: "toml", Toolchain: "node", Binaries: []string{"tombi"}, Args: []string{"lsp"}, Probe: []string{"--version"},
			Extensions: []string{".toml"},
			Install:    "npm: tombi, a native binary in its platform package (scripts/npm/package.json)",
		},
		{
			Name: "buf", Language: "proto", Toolchain: "go", Binaries: []string{"buf"}, Args: []string{"lsp", "serve"}, Probe: []string{"--version"},
			Extensions:  []string{".proto"},
			RootMarkers: []string{"buf.yaml", "buf.work.yaml"},
			// Its module cache goes to the scratch directory the sandbox
			// gives it; without network it resolves no remote dependency.
			ScratchEnv: []string{"BUF_CACHE_DIR"},
			Install:    "go install (scripts/go-peers.txt)",
		},
		{
			Name: "terraform-ls", Language: "terraform", Toolchain: "native", Binaries: []string{"terraform-ls"}, Args: []string{"serve"},
			Extensions:  []string{".tf", ".tfvars"},
			LanguageIDs: map[string]string{".tfvars": "terraform-vars"},
			RootMarkers: []string{".terraform.lock.hcl", "main.tf", "versions.tf"},
			Install:     "not installed by scripts/install-deps.sh: go install of terraform-ls fails, as the Go module proxy does not serve its dependency github.com/hashicorp/terraform-schema, and neither Debian 12 nor npm has it",
		},
	}
}

// linterServers are the rows whose diagnostics join those of a file's
// server (Linter).
func linterServers() []Server {
	return []Server{
		{
			Name: "eslint", Language: "javascript", Toolchain: "node", Binaries: []string{"vscode-eslint-language-server"}, Args: []string{"--stdio"},
			Linter:          true,
			Extensions:      []string{".js", ".jsx", ".mjs", ".cjs"},
			LanguageIDs:     map[string]string{".jsx": "javascriptreact"},
			RootMarkers:     []string{"eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts", ".eslintrc.json", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.yaml", ".eslintrc.yml", ".eslintrc"},
			PinESLint:       true,
			PullDiagnostics: true,
			Settings:        json.RawMessage(`{"validate":"on","run":"onType","useFlatConfig":true,"experimental":{},"problems":{"shortenToSingleLine":false},"codeActionOnSave":{"enable":false,"mode":"all"},"codeAction":{"disableRuleComment":{"enable":true,"location":"separateLine"},"showDocumentation":{"enable":false}},"rulesCustomizations":[],"onIgnoredFiles":"off","quiet":false,"format":false,"workingDirectory":{"mode":"location"}}`),
			Install:         "npm: vscode-langservers-extracted and eslint (scripts/npm/package.json)",
		},
		{
			Name: "biome", Language: "javascript", Toolchain: "node", Binaries: []string{"biome"}, Args: []string{"lsp-proxy"}, Probe: []string{"--version"},
			Linter:      true,
			Extensions:  []string{".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".json", ".jsonc", ".css"},
			LanguageIDs: map[string]string{".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact", ".jsx": "javascriptreact", ".json": "json", ".jsonc": "jsonc", ".css": "css"},
			// biome.json is data; biome's plugins are GritQL patterns, not
			// programs.
			RootMarkers: []string{"biome.json", "biome.jsonc"},
			// Its daemon's socket and logs go to the scratch directory
			// the sandbox gives it.
			ScratchEnv: []string{"XDG_CACHE_HOME", "XDG_DATA_HOME", "BIOME_LOG_PATH"},
			Install:    "npm: @biomejs/biome, a native binary in its platform package (scripts/npm/package.json)",
		},
	}
}

// uninstalledServers are the rows of servers scripts/install-deps.sh does
// not install (each Install says why), for a workspace that has them.
//
// One row per server, each of the same few fields: a table, read top to bottom.
func uninstalledServers() []Server {
	return []Server{
		{
			Name: "jdtls", Language: "java", Toolchain: "java", Binaries: []string{"jdtls"},
			Extensions:  []string{".java"},
			RootMarkers: []string{"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", ".project"},
			Install:     "not installed by scripts/install-deps.sh: Eclipse JDT LS is served neither by Debian 12 nor npm nor the Go module proxy; install it from Eclipse's releases and put jdtls on PATH",
		},
		{
			Name: "kotlin-language-server", Language: "kotlin", Toolchain: "java", Binaries: []string{"kotlin-language-server"},
			Extensions:  []string{".kt", ".kts"},
			RootMarkers: []string{"settings.gradle.kts", "settings.gradle", "build.gradle.kts", "build.gradle", "pom.xml"},
			Install:     "not installed by scripts/install-deps.sh: kotlin-language-server is served neither by Debian 12 nor npm nor the Go module proxy; install its release and put it on PATH",
		},
		{
			Name: "csharp-ls", Language: "csharp", Toolchain: "dotnet", Binaries: []string{"csharp-ls"},
			Extensions:  []string{".cs"},
			RootMarkers: []string{"*.sln", "*.csproj", "global.json"},
			Install:     "not installed by scripts/install-deps.sh: csharp-ls is a .NET tool from NuGet (dotnet tool install -g csharp-ls), a registry tether does not install from",
		},
		{
			Name: "ruby-lsp", Language: "ruby", Toolchain: "ruby", Binaries: []string{"ruby-lsp"},
			Extensions:  []string{".rb", ".rake", ".gemspec"},
			RootMarkers: []string{"Gemfile", ".ruby-version", "Rakefile"},
			Install:     "not installed by scripts/install-deps.sh: ruby-lsp and solargraph are gems (gem install ruby-lsp); Debian 12 packages neither",
		},
		{
			Name: "lua-language-server", Language: "lua", Toolchain: "native", Binaries: []string{"lua-language-server"},
			Extensions:  []string{".lua"},
			RootMarkers: []string{".luarc.json", ".luarc.jsonc", ".luacheckrc", "stylua.toml"},
			Install:     "not installed by scripts/install-deps.sh: lua-language-server is served neither by Debian 12 nor npm nor the Go module proxy; install its release and put it on PATH",
		},
		{
			Name: "sourcekit-lsp", Language: "swift", Toolchain: "native", Binaries: []string{"sourcekit-lsp"},
			Extensions:  []string{".swift"},
			RootMarkers: []string{"Package.swift"},
			Install:     "not installed by scripts/install-deps.sh: sourcekit-lsp comes with a Swift toolchain, which Debian 12 does not package",
		},
		{
			Name: "metals", Language: "scala", Toolchain: "java", Binaries: []string{"metals"},
			Extensions:  []string{".scala", ".sc"},
			RootMarkers: []string{"build.sbt", "build.sc", "build.mill", ".scala-build"},
			Install:     "not installed by scripts/install-deps.sh: Metals is published to Maven Central (coursier install metals), a registry tether does not install from",
		},
		{
			Name: "elixir-ls", Language: "elixir", Toolchain: "native", Binaries: []string{"elixir-ls"},
			Extensions:  []string{".ex", ".exs"},
			RootMarkers: []string{"mix.exs"},
			Install:     "not installed by scripts/install-deps.sh: ElixirLS is served neither by Debian 12 (which has Elixir itself) nor npm nor the Go module proxy; install its release and put elixir-ls on PATH",
		},
		{
			Name: "haskell-language-server", Language: "haskell", Toolchain: "native", Binaries: []string{"haskell-language-server-wrapper", "haskell-language-server"}, Args: []string{"--lsp"},
			Extensions:  []string{".hs", ".lhs"},
			RootMarkers: []string{"hie.yaml", "stack.yaml", "cabal.project", "*.cabal"},
			Install:     "not installed by scripts/install-deps.sh: haskell-language-server comes with GHCup, which neither Debian 12 nor npm nor the Go module proxy serves",
		},
		{
			Name: "nil", Language: "nix", Toolchain: "native", Binaries: []string{"nil"},
			Extensions:  []string{".nix"},
			RootMarkers: []string{"flake.nix", "default.nix", "shell.nix"},
			Install:     "not installed by scripts/install-deps.sh: nil is a Rust program served neither by Debian 12 nor npm nor the Go module proxy; install its release and put it on PATH",
		},
		{
			Name: "solidity-language-server", Language: "solidity", Toolchain: "node", Binaries: []string{"nomicfoundation-solidity-language-server"}, Args: []string{"--stdio"},
			Extensions:  []string{".sol"},
			RootMarkers: []string{"hardhat.config.js", "hardhat.config.ts", "foundry.toml", "remappings.txt"},
			Install:     "not installed by scripts/install-deps.sh: @nomicfoundation/solidity-language-server (npm) loads the project's hardhat.config.js, code from the workspace that no read-tier server may run",
		},
		{
			Name: "zls", Language: "zig", Toolchain: "native", Binaries: []string{"zls"},
			Extensions:  []string{".zig", ".zon"},
			RootMarkers: []string{"build.zig", "build.zig.zon"},
			Install:     "not installed by scripts/install-deps.sh: zls comes with a Zig toolchain, which neither Debian 12 nor npm nor the Go module proxy serves",
		},
		{
			Name: "marksman", Language: "markdown", Toolchain: "native", Binaries: []string{"marksman"}, Args: []string{"server"},
			Extensions:  []string{".md", ".markdown"},
			RootMarkers: []string{".marksman.toml"},
			Install:     "not installed by scripts/install-deps.sh: marksman is served neither by Debian 12 nor npm nor the Go module proxy, and vscode-markdown-language-server (npm) asks its client to parse the markdown, which tether does not",
		},
		{
			Name: "elm-language-server", Language: "elm", Toolchain: "node", Binaries: []string{"elm-language-server"}, Args: []string{"--stdio"},
			Extensions:  []string{".elm"},
			RootMarkers: []string{"elm.json"},
			Install:     "not installed by scripts/install-deps.sh: @elm-tooling/elm-language-server (npm) takes its diagnostics from the elm compiler, whose npm package downloads its binary at install, which cannot be had here",
		},
		{
			Name: "ocamllsp", Language: "ocaml", Toolchain: "native", Binaries: []string{"ocamllsp"},
			Extensions:  []string{".ml", ".mli"},
			RootMarkers: []string{"dune-project", "dune-workspace", "*.opam"},
			Install:     "not installed by scripts/install-deps.sh: ocaml-lsp-server comes from opam, which tether does not install from; Debian 12 does not package it",
		},
		{
			Name: "groovy-language-server", Language: "groovy", Toolchain: "java", Binaries: []string{"groovy-language-server"},
			Extensions:  []string{".groovy", ".gradle"},
			RootMarkers: []string{"build.gradle", "settings.gradle"},
			Install:     "not installed by scripts/install-deps.sh: groovy-language-server is served neither by Debian 12 nor npm nor the Go module proxy",
		},
		{
			Name: "r-languageserver", Language: "r", Toolchain: "native", Binaries: []string{"R"}, Args: []string{"--slave", "-e", "languageserver::run()"},
			Extensions:  []string{".r", ".R"},
			RootMarkers: []string{"DESCRIPTION", ".Rprofile", "*.Rproj"},
			Install:     "not installed by scripts/install-deps.sh: the R package languageserver comes from CRAN, which tether does not install from, and Debian 12 does not package it",
		},
		{
			Name: "perl-languageserver", Language: "perl", Toolchain: "native", Binaries: []string{"perl"}, Args: []string{"-MPerl::LanguageServer", "-e", "Perl::LanguageServer::run"},
			// perl is everywhere; the module is what may be missing.
			Probe:       []string{"-MPerl::LanguageServer", "-e", "print $Perl::LanguageServer::VERSION"},
			Extensions:  []string{".pl", ".pm", ".t"},
			RootMarkers: []string{"Makefile.PL", "Build.PL", "cpanfile"},
			Install:     "apt-get install libperl-languageserver-perl (scripts/install-deps.sh installs it for the perl debug adapter); not tested here as a language server: it indexes the workspace before it answers (over a minute on a small project here, which the wait reports as still indexing), and its diagnostics run perl -c, which runs the file's BEGIN blocks and use statements (in the sandbox)",
		},
		{
			Name: "julia-languageserver", Language: "julia", Toolchain: "native", Binaries: []string{"julia-languageserver"},
			Extensions:  []string{".jl"},
			RootMarkers: []string{"Project.toml", "JuliaProject.toml"},
			Install:     "not installed by scripts/install-deps.sh: LanguageServer.jl needs Julia, which Debian 12 does not package, and comes from Julia's own registry",
		},
		{
			Name: "powershell-editor-services", Language: "powershell", Toolchain: "dotnet", Binaries: []string{"pwsh"}, Args: []string{"-NoLogo", "-NoProfile", "-Command", "Import-Module PowerShellEditorServices; Start-EditorServices -Stdio"},
			Extensions:  []string{".ps1", ".psm1", ".psd1"},
			RootMarkers: []string{"*.psd1", ".vscode"},
			Install:     "not installed by scripts/install-deps.sh: PowerShell and PowerShellEditorServices come from Microsoft's packages and the PowerShell Gallery, which tether does not install from",
		},
		{
			Name: "svelte-language-server", Language: "svelte", Toolchain: "node", Binaries: []string{"svelteserver"}, Args: []string{"--stdio"},
			Extensions:  []string{".svelte"},
			RootMarkers: []string{"svelte.config.js", "svelte.config.mjs"},
			Install:     "not installed by scripts/install-deps.sh: svelte-language-server (npm) runs the workspace's svelte.config.js and its svelte compiler, code from the workspace that no read-tier server may run",
		},
		{
			Name: "verible", Language: "verilog", Toolchain: "native", Binaries: []string{"verible-verilog-ls"},
			Extensions:  []string{".v", ".sv", ".svh", ".vh"},
			RootMarkers: []string{"verible.filelist", ".rules.verible_lint"},
			Install:     "not installed by scripts/install-deps.sh: Verible is served neither by Debian 12 nor npm nor the Go module proxy; install its release and put verible-verilog-ls on PATH",
		},
		{
			Name: "lemminx", Language: "xml", Toolchain: "java", Binaries: []string{"lemminx"},
			Extensions:  []string{".xml", ".xsd", ".xsl", ".xslt"},
			RootMarkers: []string{"catalog.xml", ".lemminx"},
			Install:     "not installed by scripts/install-deps.sh: LemMinX is published to Maven Central, a registry tether does not install from; Debian 12 does not package it",
		},
	}
}
