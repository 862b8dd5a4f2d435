package lsp_test

import "context"
import "maps"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// rowNav is a navigation query and the location its answer must hold; a
// server that does not offer the request is named by offers instead, and
// the query must fail saying so (never an empty answer posing as "none").
type rowNav struct {
	pos     lsp.Position
	path    string
	line    int
	offered bool
}

// rowCase is the small project one built-in row is tested on.
type rowCase struct {
	server string
	// tested names the test ("file:TestName", the file from the
	// repository's root) that drives this row against its server when it
	// is not this table: the rows that came first have tests of their own,
	// which do more, and the linters are tested through diagnostics on
	// write.
	tested string
	files  map[string]string
	def    rowNav
	refs   rowNav
	// diag is the diagnostic a write must bring.
	diag diagWrite
	// absent marks a row whose server cannot be installed here: without
	// its binary the test requires the start error to say why (its
	// Install), a file of files being asked about.
	absent string
	// broken, for an absent row whose binary is there but whose probe
	// fails, is what the start error must quote from it.
	broken string
}

var rowCases = []rowCase{
	{server: "gopls", tested: "bridges/lsp/gopls_test.go:TestGopls"},
	{server: "pyright", tested: "bridges/lsp/pyright_test.go:TestPyright"},
	{server: "typescript-language-server", tested: "bridges/lsp/tsserver_test.go:TestTypeScript"},
	{server: "clangd", tested: "bridges/lsp/clangd_test.go:TestClangd"},
	{server: "vim-language-server", tested: "bridges/lsp/rows_more_test.go:TestMoreRows"},
	{server: "some-sass-language-server", tested: "bridges/lsp/rows_more_test.go:TestMoreRows"},
	{server: "compose-language-service", tested: "bridges/lsp/rows_more_test.go:TestMoreRows"},
	{server: "postgres-language-server", tested: "bridges/lsp/rows_more_test.go:TestMoreRows"},
	{server: "dart", absent: "lib/a.dart", files: map[string]string{"pubspec.yaml": "name: p\n", "lib/a.dart": "void main() {}\n"}},
	{server: "rust-analyzer", absent: "src/main.rs", files: map[string]string{"Cargo.toml": "[package]\nname = \"p\"\n", "src/main.rs": "fn main() {}\n"}},
	{
		server: "bash-language-server",
		files: map[string]string{
			"lib.sh":  "#!/bin/bash\ngreet() {\n  echo \"hello $1\"\n}\n",
			"main.sh": "#!/bin/bash\nsource ./lib.sh\ngreet world\ngreet again\n",
		},
		def:  rowNav{lsp.Position{File: "main.sh", Line: 3, Symbol: "greet"}, "lib.sh", 2, true},
		refs: rowNav{lsp.Position{File: "main.sh", Line: 4, Symbol: "greet"}, "main.sh", 3, true},
		diag: diagWrite{"bad.sh", "#!/bin/bash\necho \"$undefined_thing\"\n", 2,
			`^shellcheck SC2154 undefined_thing is referenced but not assigned`},
	},
	{
		server: "yaml-language-server",
		files:  map[string]string{"a.yaml": "base: &base\n  name: demo\ncopy:\n  <<: *base\nother: *base\n"},
		def:    rowNav{lsp.Position{File: "a.yaml", Line: 5, Symbol: "base"}, "a.yaml", 2, true},
		refs:   rowNav{pos: lsp.Position{File: "a.yaml", Line: 1, Symbol: "base#2"}},
		diag: diagWrite{"bad.yaml", "key: [unclosed\nother: 1\n", 2,
			`^YAML`},
	},
	{
		server: "vscode-json-language-server",
		files: map[string]string{"schema.json": `{
  "definitions": {
    "item": {"type": "string"}
  },
  "properties": {
    "a": {"$ref": "#/definitions/item"}
  }
}
`},
		def:  rowNav{pos: lsp.Position{File: "schema.json", Line: 6, Symbol: "#/definitions/item"}},
		refs: rowNav{pos: lsp.Position{File: "schema.json", Line: 3, Symbol: "item"}},
		diag: diagWrite{"bad.json", "{\"a\": 1,, \"b\": 2}\n", 1,
			`(?i)json .*expected`},
	},
	{
		server: "vscode-css-language-server",
		files:  map[string]string{"a.css": ":root { --main: red; }\n.x { color: var(--main); }\n.y { background: var(--main); }\n"},
		def:    rowNav{lsp.Position{File: "a.css", Line: 2, Symbol: "--main"}, "a.css", 1, true},
		refs:   rowNav{lsp.Position{File: "a.css", Line: 1, Symbol: "--main"}, "a.css", 3, true},
		diag: diagWrite{"bad.css", ".ok { color: red; }\n.z { colr: red; }\n", 2,
			`^css unknownProperties Unknown property: 'colr'`},
	},
	{
		server: "vscode-html-language-server",
		files:  map[string]string{"index.html": "<html><body>\n<script>\nfunction hello() { return 1; }\nhello();\n</script>\n</body></html>\n"},
		def:    rowNav{lsp.Position{File: "index.html", Line: 4, Symbol: "hello"}, "index.html", 3, true},
		refs:   rowNav{lsp.Position{File: "index.html", Line: 3, Symbol: "hello"}, "index.html", 4, true},
		diag: diagWrite{"bad.html", "<html><body>\n<script>\nlet = ;\n</script>\n</body></html>\n", 3,
			`^javascript  Expression expected`},
	},
	{
		server: "intelephense",
		files: map[string]string{
			"lib.php":  "<?php\nfunction greet(string $n): string { return \"hi $n\"; }\n",
			"main.php": "<?php\nrequire 'lib.php';\necho greet('x');\necho greet('y');\n",
		},
		def:  rowNav{lsp.Position{File: "main.php", Line: 3, Symbol: "greet"}, "lib.php", 2, true},
		refs: rowNav{lsp.Position{File: "lib.php", Line: 2, Symbol: "greet"}, "main.php", 4, true},
		diag: diagWrite{"bad.php", "<?php\n$x = ;\n", 2,
			`^intelephense`},
	},
	{
		server: "dockerfile-language-server",
		files:  map[string]string{"Dockerfile": "FROM alpine AS base\nRUN echo hi\nFROM base\nCOPY --from=base /a /b\n"},
		def:    rowNav{lsp.Position{File: "Dockerfile", Line: 3, Symbol: "base"}, "Dockerfile", 1, true},
		refs:   rowNav{pos: lsp.Position{File: "Dockerfile", Line: 1, Symbol: "base"}},
		diag: diagWrite{"app.Dockerfile", "FROM alpine\nexpose 80\n", 2,
			`^dockerfile-utils 0 Instructions should be written in uppercase letters`},
	},
	{
		server: "tombi",
		// tombi's navigation follows Cargo workspaces: a member's
		// "workspace = true" dependency to the root's, and back.
		files: map[string]string{
			"Cargo.toml":      "[workspace]\nmembers = [\"app\"]\n\n[workspace.dependencies]\nserde = \"1\"\n",
			"app/Cargo.toml":  "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = { workspace = true }\n",
			"app/src/main.rs": "fn main() {}\n",
		},
		def:  rowNav{lsp.Position{File: "app/Cargo.toml", Line: 6, Symbol: "serde"}, "Cargo.toml", 5, true},
		refs: rowNav{lsp.Position{File: "Cargo.toml", Line: 5, Symbol: "serde"}, "app/Cargo.toml", 6, true},
		diag: diagWrite{"bad.toml", "[a]\nb = 1\nc =\n", 3,
			`^Tombi expected-value expected value`},
	},
	{
		server: "buf",
		files: map[string]string{
			"buf.yaml": "version: v2\n",
			"a.proto":  "syntax = \"proto3\";\n\npackage demo;\n\nmessage Item {\n  string name = 1;\n}\n\nmessage Order {\n  Item item = 1;\n  repeated Item more = 2;\n}\n",
		},
		def:  rowNav{lsp.Position{File: "a.proto", Line: 10, Symbol: "Item"}, "a.proto", 5, true},
		refs: rowNav{lsp.Position{File: "a.proto", Line: 5, Symbol: "Item"}, "a.proto", 11, true},
		diag: diagWrite{"bad.proto", "syntax = \"proto3\";\n\npackage demo;\n\nmessage Bad {\n  Missing m = 1;\n}\n", 6,
			`Missing`},
	},
	{server: "terraform-ls", absent: "main.tf", files: map[string]string{"main.tf": "variable \"region\" {}\n"}},
	{server: "eslint", tested: "tools/lsp_linters_test.go:TestLintersOnWrite"},
	{server: "biome", tested: "tools/lsp_linters_test.go:TestLintersOnWrite"},
	{server: "jdtls", absent: "src/A.java", files: map[string]string{"pom.xml": "<project/>\n", "src/A.java": "class A {}\n"}},
	{server: "kotlin-language-server", absent: "a.kt", files: map[string]string{"settings.gradle.kts": "\n", "a.kt": "fun main() {}\n"}},
	{server: "csharp-ls", absent: "A.cs", files: map[string]string{"p.csproj": "<Project/>\n", "A.cs": "class A {}\n"}},
	{server: "ruby-lsp", absent: "a.rb", files: map[string]string{"Gemfile": "\n", "a.rb": "puts 1\n"}},
	{server: "lua-language-server", absent: "a.lua", files: map[string]string{".luarc.json": "{}\n", "a.lua": "print(1)\n"}},
	{server: "sourcekit-lsp", absent: "a.swift", files: map[string]string{"Package.swift": "\n", "a.swift": "print(1)\n"}},
	{server: "metals", absent: "a.scala", files: map[string]string{"build.sbt": "\n", "a.scala": "object A\n"}},
	{server: "elixir-ls", absent: "a.ex", files: map[string]string{"mix.exs": "\n", "a.ex": "defmodule A do\nend\n"}},
	{server: "haskell-language-server", absent: "A.hs", files: map[string]string{"stack.yaml": "\n", "A.hs": "main = pure ()\n"}},
	{server: "nil", absent: "a.nix", files: map[string]string{"flake.nix": "{}\n", "a.nix": "{}\n"}},
	{server: "solidity-language-server", absent: "A.sol", files: map[string]string{"foundry.toml": "\n", "A.sol": "contract A {}\n"}},
	{server: "zls", absent: "a.zig", files: map[string]string{"build.zig": "\n", "a.zig": "pub fn main() void {}\n"}},
	{server: "marksman", absent: "a.md", files: map[string]string{".marksman.toml": "\n", "a.md": "# A\n"}},
	{server: "elm-language-server", absent: "A.elm", files: map[string]string{"elm.json": "{}\n", "A.elm": "module A exposing (..)\n"}},
	{server: "ocamllsp", absent: "a.ml", files: map[string]string{"dune-project": "(lang dune 3.0)\n", "a.ml": "let x = 1\n"}},
	{server: "groovy-language-server", absent: "a.groovy", files: map[string]string{"settings.gradle": "\n", "a.groovy": "println 1\n"}},
	{server: "r-languageserver", absent: "a.R", files: map[string]string{"DESCRIPTION": "Package: p\n", "a.R": "x <- 1\n"}},
	{server: "perl-languageserver", absent: "a.pl", broken: "Can't locate Perl/LanguageServer.pm", files: map[string]string{"cpanfile": "\n", "a.pl": "print 1;\n"}},
	{server: "julia-languageserver", absent: "a.jl", files: map[string]string{"Project.toml": "name = \"P\"\n", "a.jl": "x = 1\n"}},
	{server: "powershell-editor-services", absent: "a.ps1", files: map[string]string{"m.psd1": "@{}\n", "a.ps1": "Write-Output 1\n"}},
	{server: "svelte-language-server", absent: "A.svelte", files: map[string]string{"svelte.config.js": "export default {}\n", "A.svelte": "<p>a</p>\n"}},
	{server: "verible", absent: "a.sv", files: map[string]string{"verible.filelist": "a.sv\n", "a.sv": "module a; endmodule\n"}},
	{server: "lemminx", absent: "a.xml", files: map[string]string{"catalog.xml": "<catalog/>\n", "a.xml": "<a/>\n"}},
	{server: "vue-language-server", absent: "App.vue", files: map[string]string{"App.vue": "<template><p/></template>\n"}},
	{server: "astro-ls", absent: "a.astro", files: map[string]string{"astro.config.mjs": "export default {}\n", "a.astro": "<p>a</p>\n"}},
	{server: "graphql-lsp", absent: "a.graphql", files: map[string]string{".graphqlrc.yml": "schema: a.graphql\n", "a.graphql": "type Query { a: Int }\n"}},
	{server: "mdx-language-server", absent: "a.mdx", files: map[string]string{"a.mdx": "# A\n"}},
	{server: "prisma-language-server", absent: "schema.prisma", files: map[string]string{"schema.prisma": "model A {\n  id Int @id\n}\n"}},
	{server: "herb-language-server", absent: "a.html.erb", files: map[string]string{"a.html.erb": "<p><%= 1 %></p>\n"}},
	{server: "fish-lsp", absent: "a.fish", files: map[string]string{"a.fish": "echo 1\n"}},
	{server: "tsp-server", absent: "main.tsp", files: map[string]string{"tspconfig.yaml": "\n", "main.tsp": "model A {}\n"}},
	{server: "purescript-language-server", absent: "src/Main.purs", files: map[string]string{"spago.yaml": "\n", "src/Main.purs": "module Main where\n"}},
	{server: "gleam", absent: "src/a.gleam", files: map[string]string{"gleam.toml": "name = \"a\"\n", "src/a.gleam": "pub fn main() { 1 }\n"}},
	{server: "texlab", absent: "a.tex", files: map[string]string{".latexmkrc": "\n", "a.tex": "\\documentclass{article}\n"}},
	{server: "clojure-lsp", absent: "src/a.clj", files: map[string]string{"deps.edn": "{}\n", "src/a.clj": "(ns a)\n"}},
	{server: "cucumber-language-server", absent: "features/a.feature", files: map[string]string{"features/a.feature": "Feature: A\n"}},
	{server: "cue", absent: "a.cue", files: map[string]string{"cue.mod/module.cue": "module: \"a.example/a@v0\"\n", "a.cue": "package a\n"}},
	{server: "fortls", absent: "a.f90", files: map[string]string{"a.f90": "program a\nend program a\n"}},
}

// TestBuiltinRows drives every row of DefaultServers against its real
// server on a small project, one server start per row: definition,
// references and diagnostics on write; a server that lacks references
// must say so. A row whose server cannot be installed here must fail to
// start saying why. A row without a case here fails the test.
func TestBuiltinRows(t *testing.T) {
	cases := map[string]rowCase{}
	for _, c := range rowCases {
		cases[c.server] = c
	}
	for _, row := range lsp.DefaultServers() {
		c, ok := cases[row.Name]
		if !ok {
			t.Errorf("built-in row %s has no case in rowCases", row.Name)
			continue
		}
		delete(cases, row.Name)
		t.Run(row.Name, func(t *testing.T) {
			switch {
			case c.tested != "":
				requireTestFunc(t, c.tested)
			case c.absent != "":
				testAbsentRow(t, row, c)
			default:
				testRow(t, row, c)
			}
		})
	}
	for name := range cases {
		t.Errorf("rowCases has %s, which is no built-in row", name)
	}
}

// requireTestFunc requires the test that where ("file:TestName") names.
func requireTestFunc(t *testing.T, where string) {
	file, name, _ := strings.Cut(where, ":")
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), file))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\nfunc "+name+"(t *testing.T) {") {
		t.Fatalf("%s has no test %s, which this row's case names", file, name)
	}
}

func testAbsentRow(t *testing.T, row lsp.Server, c rowCase) {
	if c.broken != "" {
		// The binary is there (perl), its probe fails (the module is not).
		bin := testenv.RequireBinary(t, row.Binaries[0])
		if len(row.Probe) > 0 && exec.Command(bin, row.Probe...).Run() == nil {
			// The module is installed (the perl debug adapter's package):
			// then a file with a syntax error is never reported clean:
			// the server's diagnostics name it, or the answer says the
			// file could not be checked.
			files := maps.Clone(c.files)
			files[c.absent] = "print 1 +;\n"
			dir := testenv.Workspace(t, files)
			d, err := newSupervisor(t, dir).AfterWrite(ctxT(t), c.absent)
			switch {
			case err != nil && !strings.Contains(err.Error(), "retry"):
				t.Fatalf("%s: %v, want diagnostics or an answer that says to retry", row.Name, err)
			case err == nil && d.Ready && len(d.Items) == 0:
				t.Fatalf("%s reported a file with a syntax error as clean: %+v", row.Name, d)
			}
			return
		}
		dir := testenv.Workspace(t, c.files)
		_, err := newSupervisor(t, dir).AfterWrite(ctxT(t), c.absent)
		if err == nil || !strings.Contains(err.Error(), c.broken) || !strings.Contains(err.Error(), "install a working") {
			t.Fatalf("want %s's probe failure %q, got %v", row.Name, c.broken, err)
		}
		return
	}
	if p := testenv.LookPath(row.Binaries[0]); p != "" {
		// On PATH, but it may not run (a rustup proxy for a component
		// that is not installed): then the start must say why.
		dir := testenv.Workspace(t, c.files)
		_, err := newSupervisor(t, dir).AfterWrite(ctxT(t), c.absent)
		if err != nil && strings.Contains(err.Error(), "install a working "+row.Binaries[0]) {
			return
		}
		t.Skipf("%s is installed here (%s, it starts: %v), but this table has no project for it", row.Binaries[0], p, err)
	}
	if row.Install == "" || !strings.Contains(row.Install, "not installed by scripts/install-deps.sh") {
		t.Fatalf("%s cannot be installed here, and its row does not say why: Install %q", row.Name, row.Install)
	}
	dir := testenv.Workspace(t, c.files)
	s := newSupervisor(t, dir)
	_, err := s.AfterWrite(ctxT(t), c.absent)
	if err == nil || !strings.Contains(err.Error(), row.Binaries[0]+" not on PATH") || !strings.Contains(err.Error(), row.Install) {
		t.Fatalf("want %s not on PATH and why it is not installed (%s), got %v", row.Binaries[0], row.Install, err)
	}
}

func testRow(t *testing.T, row lsp.Server, c rowCase) {
	testenv.RequireBinary(t, row.Binaries[0])
	dir := testenv.Workspace(t, c.files)
	s := newSupervisor(t, dir)
	ctx := ctxT(t)
	nav := func(name string, call func() (*lsp.Locations, error), want rowNav, method string) {
		t.Run(name, func(t *testing.T) {
			got, err := call()
			if !want.offered {
				if err == nil || !strings.Contains(err.Error(), row.Name+" does not offer "+method) {
					t.Fatalf("want an error saying %s does not offer %s, got %v, %+v", row.Name, method, err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !hasLoc(got.Items, want.path, want.line) {
				t.Fatalf("want %s:%d in\n%s", want.path, want.line, locStrings(got.Items))
			}
		})
	}
	nav("definition", func() (*lsp.Locations, error) { return s.Definition(ctx, c.def.pos) }, c.def, "textDocument/definition")
	nav("references", func() (*lsp.Locations, error) { return s.References(ctx, c.refs.pos) }, c.refs, "textDocument/references")
	t.Run("diagnostics", func(t *testing.T) {
		requireDiagOnWrite(ctx, t, s, c.diag)
	})
}

// diagWrite is a file written with text, after which AfterWrite must
// report a diagnostic on line whose "source code message" matches the
// regular expression want.
type diagWrite struct {
	file, text string
	line       int
	want       string
}

// requireDiagOnWrite writes w.text to w.file, in s's workspace, and requires
// AfterWrite to report the diagnostic w wants.
func requireDiagOnWrite(ctx context.Context, t *testing.T, s *lsp.Supervisor, w diagWrite) {
	t.Helper()
	writeFile(t, filepath.Join(s.WorkDir(), w.file), w.text)
	d, err := s.AfterWrite(ctx, w.file)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(w.want)
	for _, it := range d.Items {
		if it.Line == w.line && re.MatchString(it.Source+" "+it.Code+" "+it.Message) {
			return
		}
	}
	t.Fatalf("want a diagnostic on line %d matching %q: %s", w.line, w.want, diagString(d))
}

// TestLinterWithoutServer: where the file's server cannot start (a .js file
// with biome.json but no package.json, so no root for
// typescript-language-server), the linter still answers, and the result
// says what did not.
func TestLinterWithoutServer(t *testing.T) {
	testenv.RequireBinary(t, "biome")
	dir := testenv.Workspace(t, map[string]string{"biome.json": "{}\n"})
	s := newSupervisor(t, dir)
	writeFile(t, filepath.Join(dir, "a.js"), "debugger;\n")
	d, err := s.AfterWrite(ctxT(t), "a.js")
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(d.Notes, "\n")
	if len(d.Items) == 0 || d.Items[0].Source != "biome" || d.Items[0].Code != "lint/suspicious/noDebugger" ||
		!strings.Contains(notes, "no root marker for typescript") || !strings.Contains(notes, "only its linters answered") {
		t.Fatalf("want biome's noDebugger and a note on typescript-language-server: %+v notes %q", d.Items, notes)
	}
}

// TestCheckLooksPastLinterConfig: a linter's configuration at the
// workspace root (biome.json) does not make the root a project of another
// language: diagnostics "*" still finds the Go project below it.
func TestCheckLooksPastLinterConfig(t *testing.T) {
	testenv.RequireBinary(t, "go")
	var rows []lsp.Server
	for _, r := range lsp.DefaultServers() {
		if r.Name == "gopls" || r.Name == "biome" {
			rows = append(rows, r)
		}
	}
	dir := testenv.Workspace(t, map[string]string{
		"biome.json": "{}\n",
		"svc/go.mod": "module example.com/svc\n\ngo 1.21\n",
		"svc/vet.go": "package svc\n\nimport \"fmt\"\n\nfunc Bad() { fmt.Printf(\"%d\\n\", \"x\") }\n",
	})
	s := newSupervisor(t, dir, lsp.WithOnlyServers(rows...))
	rep, err := s.Check(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Ran) != 1 || !strings.Contains(rep.Ran[0], "in svc") {
		t.Fatalf("want go vet run in svc: ran %v, items %+v", rep.Ran, rep.Items)
	}
}

// TestTableReadyLogs: each built-in server's ReadyLog compiles, and
// pyright's matches the messages pyright logs once it has looked for the
// project's files, not the ones before.
func TestTableReadyLogs(t *testing.T) {
	for _, s := range lsp.DefaultServers() {
		if s.ReadyLog == "" {
			continue
		}
		re, err := regexp.Compile(s.ReadyLog)
		if err != nil {
			t.Fatalf("%s: ReadyLog %q: %v", s.Name, s.ReadyLog, err)
		}
		if s.Name != "pyright" {
			continue
		}
		for msg, want := range map[string]bool{
			"Found 5 source files":                      true,
			"Found 1 source file":                       true,
			"No source files found.":                    true,
			"Assuming Python version 3.11.7.final.0":    false,
			"No include entries specified; assuming /w": false,
		} {
			if re.MatchString(msg) != want {
				t.Errorf("pyright's ReadyLog on %q: %v, want %v", msg, !want, want)
			}
		}
	}
}
