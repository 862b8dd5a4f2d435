package lsp

import "encoding/json"

// templateAndQueryServers are the rows of editor scripts (Vim script), stylesheets in Sass's indented syntax,
// and Compose files and SQL. They come before
// scriptAndConfigServers: a Compose file's name must win over
// yaml-language-server's extension.
func templateAndQueryServers() []Server {
	return []Server{
		{
			Name: "vim-language-server", Language: "vim", Toolchain: "node", Binaries: []string{"vim-language-server"}, Args: []string{"--stdio"},
			Extensions: []string{".vim"},
			FileNames:  []string{".vimrc", "_vimrc", ".gvimrc"},
			// No runtime path: it would index Vim's own runtime files, and
			// the operator's plugins, outside the workspace.
			InitOptions: json.RawMessage(`{"isNeovim":false,"iskeyword":"@,48-57,_,192-255,-#","vimruntime":"","runtimepath":"","diagnostic":{"enable":true},"indexes":{"runtimepath":false,"gap":100,"count":3,"projectRootPatterns":[".git","autoload","plugin"]},"suggest":{"fromVimruntime":false,"fromRuntimepath":false}}`),
			Diagnoses:   "Vim script parse errors",
			Install:     "npm (scripts/npm/package.json); no Vim needed",
		},
		{
			Name: "some-sass-language-server", Language: "sass", Toolchain: "node", Binaries: []string{"some-sass-language-server"}, Args: []string{"--stdio"},
			// Only Sass's indented syntax: vscode-css-language-server
			// serves .scss.
			Extensions: []string{".sass"},
			// Without its settings section it never finishes starting.
			Settings:  json.RawMessage(`{"workspace":{"loadPaths":[],"exclude":["**/.git/**","**/node_modules/**"]},"sass":{"diagnostics":{"enabled":true}}}`),
			Diagnoses: "Sass parse errors",
			Install:   "npm (scripts/npm/package.json)",
		},
		{
			Name: "compose-language-service", Language: "dockercompose", Toolchain: "node", Binaries: []string{"docker-compose-langserver"}, Args: []string{"--stdio"},
			FileNames: []string{"compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml", "compose.*.yaml", "compose.*.yml", "docker-compose.*.yaml", "docker-compose.*.yml"},
			Diagnoses: "YAML syntax errors",
			Install:   "npm: @microsoft/compose-language-service (scripts/npm/package.json)",
		},
		{
			Name: "postgres-language-server", Language: "sql", Toolchain: "node", Binaries: []string{"postgres-language-server"}, Args: []string{"lsp-proxy"}, Probe: []string{"--version"},
			Extensions: []string{".sql"},
			// Its daemon's socket and logs go to the scratch directory the
			// sandbox gives it. Without network it reaches no database
			// that postgres-language-server.jsonc names: the queries and
			// checks that need the schema say nothing.
			ScratchEnv: []string{"XDG_CACHE_HOME", "XDG_DATA_HOME", "PGT_LOG_PATH"},
			Diagnoses:  "SQL syntax errors, from Postgres's own parser; none that need a database",
			Install:    "npm: @postgres-language-server/cli, a native binary in its platform package (scripts/npm/package.json)",
		},
	}
}

// refusedServers are rows of servers that can be had here but run code
// from the workspace or do not work in tether's sandbox or with its
// diagnostics, or that need what cannot be had here; like
// uninstalledServers, scripts/install-deps.sh does not install them and
// each Install says why.
func refusedServers() []Server {
	return []Server{
		{
			Name: "vue-language-server", Language: "vue", Toolchain: "node", Binaries: []string{"vue-language-server"}, Args: []string{"--stdio"},
			Extensions: []string{".vue"},
			Install:    "not installed by scripts/install-deps.sh: @vue/language-server (npm) loads the plugins that tsconfig.json's vueCompilerOptions names, JavaScript from the workspace that no read-tier server may run",
		},
		{
			Name: "astro-ls", Language: "astro", Toolchain: "node", Binaries: []string{"astro-ls"}, Args: []string{"--stdio"},
			Extensions:  []string{".astro"},
			RootMarkers: []string{"astro.config.mjs", "astro.config.ts", "astro.config.js"},
			Install:     "not installed by scripts/install-deps.sh: @astrojs/language-server (npm) imports the workspace's own Svelte and Vue integrations and prettier from its node_modules, code from the workspace that no read-tier server may run",
		},
		{
			Name: "graphql-lsp", Language: "graphql", Toolchain: "node", Binaries: []string{"graphql-lsp"}, Args: []string{"server", "-m", "stream"},
			Extensions:  []string{".graphql", ".graphqls", ".gql"},
			RootMarkers: []string{".graphqlrc", ".graphqlrc.yml", ".graphqlrc.json", "graphql.config.js", "graphql.config.ts"},
			Install:     "not installed by scripts/install-deps.sh: graphql-language-service-cli (npm) reads its project through graphql-config, which loads graphql.config.js or .ts and its extensions, code from the workspace that no read-tier server may run",
		},
		{
			Name: "mdx-language-server", Language: "mdx", Toolchain: "node", Binaries: []string{"mdx-language-server"}, Args: []string{"--stdio"},
			Extensions: []string{".mdx"},
			Install:    "not installed by scripts/install-deps.sh: @mdx-js/language-server (npm) loads the remark plugins that tsconfig.json's mdx section names from the workspace's node_modules, code from the workspace that no read-tier server may run",
		},
		{
			Name: "prisma-language-server", Language: "prisma", Toolchain: "node", Binaries: []string{"prisma-language-server"}, Args: []string{"--stdio"},
			Extensions: []string{".prisma"},
			Install:    "not installed by scripts/install-deps.sh: @prisma/language-server (npm) loads the project's prisma.config.ts, TypeScript from the workspace that it runs through jiti and no read-tier server may run",
		},
		{
			Name: "herb-language-server", Language: "erb", Toolchain: "node", Binaries: []string{"herb-language-server"}, Args: []string{"--stdio"},
			Extensions: []string{".erb"},
			Install:    "not installed by scripts/install-deps.sh: @herb-tools/language-server (npm) imports the project's custom linter rules (.herb/rules/*.mjs), JavaScript from the workspace that no read-tier server may run",
		},
		{
			Name: "fish-lsp", Language: "fish", Toolchain: "node", Binaries: []string{"fish-lsp"}, Args: []string{"start"},
			Extensions: []string{".fish"},
			Install:    "not installed by scripts/install-deps.sh: fish-lsp (npm) answers through fish's completions (complete --do-complete), which run the commands they complete for (git, which reads the workspace's .git/config): programs the workspace can steer, which no read-tier server may run",
		},
		{
			Name: "tsp-server", Language: "typespec", Toolchain: "node", Binaries: []string{"tsp-server"},
			Extensions:  []string{".tsp"},
			RootMarkers: []string{"tspconfig.yaml"},
			Install:     "not installed by scripts/install-deps.sh: tsp-server (npm @typespec/compiler) runs the workspace's own @typespec/compiler and the libraries a .tsp file imports, code from the workspace that no read-tier server may run",
		},
		{
			Name: "purescript-language-server", Language: "purescript", Toolchain: "node", Binaries: []string{"purescript-language-server"}, Args: []string{"--stdio"},
			Extensions:  []string{".purs"},
			RootMarkers: []string{"spago.yaml", "spago.dhall", "bower.json"},
			Install:     "not installed by scripts/install-deps.sh: purescript-language-server (npm) takes its diagnostics from the purs compiler, whose npm package (purescript) downloads its binary at install, which cannot be had here",
		},
		{
			Name: "gleam", Language: "gleam", Toolchain: "native", Binaries: []string{"gleam"}, Args: []string{"lsp"}, Probe: []string{"--version"},
			Extensions:  []string{".gleam"},
			RootMarkers: []string{"gleam.toml"},
			Install:     "not installed by scripts/install-deps.sh: gleam lsp comes with the Gleam compiler, which neither Debian 12 nor npm nor the Go module proxy serves",
		},
		{
			Name: "texlab", Language: "latex", Toolchain: "native", Binaries: []string{"texlab"},
			Extensions:  []string{".tex", ".bib", ".sty", ".cls"},
			LanguageIDs: map[string]string{".bib": "bibtex"},
			RootMarkers: []string{".latexmkrc", "latexmkrc", ".texlabroot", "texlabroot", "Tectonic.toml"},
			Install:     "not installed by scripts/install-deps.sh: texlab is a Rust program served neither by Debian 12 nor npm nor the Go module proxy; install its release and put it on PATH",
		},
		{
			Name: "clojure-lsp", Language: "clojure", Toolchain: "native", Binaries: []string{"clojure-lsp"},
			Extensions:  []string{".clj", ".cljs", ".cljc", ".edn"},
			RootMarkers: []string{"deps.edn", "project.clj", "shadow-cljs.edn", "bb.edn"},
			Install:     "not installed by scripts/install-deps.sh: clojure-lsp is served neither by Debian 12 nor npm nor the Go module proxy; install its release and put it on PATH",
		},
		{
			Name: "cucumber-language-server", Language: "gherkin", Toolchain: "node", Binaries: []string{"cucumber-language-server"}, Args: []string{"--stdio"},
			Extensions:  []string{".feature"},
			LanguageIDs: map[string]string{".feature": "cucumber"},
			Install:     "not installed by scripts/install-deps.sh: @cucumber/language-server (npm; 1.7.0 and 1.6.0 tried) failed here to parse any step definition file, in JavaScript, TypeScript or Python (web-tree-sitter: Parsing failed), so it reported every step as undefined",
		},
		{
			Name: "cue", Language: "cue", Toolchain: "native", Binaries: []string{"cue"}, Args: []string{"lsp"}, Probe: []string{"version"},
			Extensions:  []string{".cue"},
			RootMarkers: []string{"cue.mod"},
			ScratchEnv:  []string{"CUE_CACHE_DIR"},
			Install:     "not installed by scripts/install-deps.sh: cue lsp (cuelang.org/go v0.17, go install) publishes diagnostics only for a file with syntax errors and nothing for one without, so diagnostics on write could not tell a clean file from one not analysed yet",
		},
		{
			Name: "fortls", Language: "fortran", Toolchain: "python", Binaries: []string{"fortls"}, Probe: []string{"--version"},
			Extensions: []string{".f90", ".f95", ".f03", ".f08", ".f", ".for", ".fpp"},
			Install:    "not installed by scripts/install-deps.sh: fortls (Debian 12: fortran-language-server) parses the workspace in a multiprocessing pool, whose semaphores need /dev/shm, which tether's sandbox does not give a server: it fails to initialize",
		},
	}
}
