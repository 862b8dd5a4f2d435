package lsp_test

import "bufio"
import "context"
import "encoding/json"
import "fmt"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// serverProject is the workspace a built-in row is started on, and the file
// whose diagnostics are asked for (which starts the server and waits until
// it answers).
type serverProject struct {
	copyOf string            // a project under testdata/lsp, or ""
	files  map[string]string // written on top
	file   string
}

var serverProjects = map[string]serverProject{
	"gopls":                       {copyOf: "goproj", file: "use.go"},
	"pyright":                     {copyOf: "pyproj", file: "app.py"},
	"typescript-language-server":  {copyOf: "tsproj", file: "src/app.ts"},
	"clangd":                      {copyOf: "cproj", file: "main.c"},
	"bash-language-server":        {files: map[string]string{"a.sh": "#!/bin/bash\ngreet() { echo \"hi $1\"; }\ngreet x\n"}, file: "a.sh"},
	"yaml-language-server":        {files: map[string]string{"a.yaml": "base: &base\n  name: demo\nother: *base\n"}, file: "a.yaml"},
	"vscode-json-language-server": {files: map[string]string{"a.json": "{\"a\": 1}\n"}, file: "a.json"},
	"vscode-css-language-server":  {files: map[string]string{"a.css": ".a { color: red; }\n"}, file: "a.css"},
	"vscode-html-language-server": {files: map[string]string{"a.html": "<html><body><script>let x = 1;</script></body></html>\n"}, file: "a.html"},
	"intelephense":                {files: map[string]string{"a.php": "<?php\nfunction greet(): string { return 'hi'; }\n"}, file: "a.php"},
	"dockerfile-language-server":  {files: map[string]string{"Dockerfile": "FROM alpine AS base\nRUN echo hi\n"}, file: "Dockerfile"},
	"tombi":                       {files: map[string]string{"a.toml": "[a]\nb = 1\n"}, file: "a.toml"},
	"buf":                         {files: map[string]string{"buf.yaml": "version: v2\n", "a.proto": "syntax = \"proto3\";\n\nmessage A {\n  string n = 1;\n}\n"}, file: "a.proto"},
	"vim-language-server":         {copyOf: "rows/vim", file: "plugin.vim"},
	"some-sass-language-server":   {copyOf: "rows/sass", file: "main.sass"},
	"compose-language-service":    {copyOf: "rows/compose", file: "compose.yaml"},
	"postgres-language-server":    {copyOf: "rows/sql", file: "schema.sql"},
	// A linter starts with the file's server: its start time includes
	// typescript-language-server's; its memory is its own.
	"eslint": {files: map[string]string{"package.json": "{}\n", "eslint.config.js": "export default [];\n", "a.js": "let unused = 1;\n"}, file: "a.js"},
	"biome":  {files: map[string]string{"package.json": "{}\n", "biome.json": "{}\n", "a.js": "let unused = 1;\n"}, file: "a.js"},
}

// BenchmarkServerStart starts each built-in row that is installed here on
// a small project, once per iteration: the time from a new supervisor to
// the first answered diagnostics query for a file (the server started,
// initialized, and answering), and then the memory of the server's process
// tree (RSS and PSS from /proc/PID/smaps_rollup, summed over its
// processes). A row whose binary is not installed is skipped, saying so.
func BenchmarkServerStart(b *testing.B) {
	for _, row := range lsp.DefaultServers() {
		p, ok := serverProjects[row.Name]
		b.Run(row.Name, func(b *testing.B) {
			if !ok {
				b.Skipf("%s: no project in serverProjects (a row not installed here: %s)", row.Name, row.Install)
			}
			found := false
			for _, bin := range row.Binaries {
				found = found || testenv.LookPath(bin) != ""
			}
			if !found {
				testenv.RequireBinary(b, row.Binaries[0])
			}
			var start time.Duration
			var rss, pss int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := b.TempDir()
				if p.copyOf != "" {
					dir = testenv.LSPProject(b, p.copyOf)
				}
				testenv.WriteFiles(b, dir, p.files)
				if row.Name == "clangd" {
					writeCompileCommands(b, dir)
				}
				b.StartTimer()
				t0 := time.Now()
				sup, err := lsp.New(dir, lsp.WithEnv(testenv.WithPeersOnPath()), lsp.WithDiagnosticsTimeout(30*time.Second))
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				d, err := sup.Diagnostics(ctx, p.file)
				cancel()
				if err != nil {
					sup.Close()
					b.Fatal(err)
				}
				start += time.Since(t0)
				b.StopTimer()
				if !d.Ready {
					b.Logf("%s: diagnostics not ready: %v", row.Name, d.Notes)
				}
				pid := 0
				for _, st := range sup.Status() {
					if st.Server == row.Name && st.Running {
						pid = st.PID
					}
				}
				if pid == 0 {
					sup.Close()
					b.Fatalf("%s is not running after a diagnostics query: %v", row.Name, sup.Status())
				}
				r, ps := treeMemory(pid)
				rss += r
				pss += ps
				sup.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(start.Milliseconds())/float64(b.N), "start-ms")
			b.ReportMetric(float64(rss)/float64(b.N)/(1<<20), "rss-MiB")
			b.ReportMetric(float64(pss)/float64(b.N)/(1<<20), "pss-MiB")
		})
	}
}

// treeMemory sums Rss and Pss (bytes) over pid and its descendants.
func treeMemory(pid int) (rss, pss int64) {
	seen := map[int]bool{}
	var walk func(int)
	walk = func(p int) {
		if seen[p] || len(seen) > 1000 {
			return
		}
		seen[p] = true
		r, ps := smapsRollup(p)
		rss += r
		pss += ps
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		for _, t := range tasks {
			kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", p, t.Name()))
			for _, k := range strings.Fields(string(kids)) {
				if c, err := strconv.Atoi(k); err == nil {
					walk(c)
				}
			}
		}
	}
	walk(pid)
	return rss, pss
}

func smapsRollup(pid int) (rss, pss int64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(fields[1], 10, 64)
		switch fields[0] {
		case "Rss:":
			rss = kb << 10
		case "Pss:":
			pss = kb << 10
		}
	}
	return rss, pss
}

// writeCompileCommands gives clangd the whole of testdata/lsp/cproj.
func writeCompileCommands(b *testing.B, dir string) {
	var cmds []map[string]string
	for _, f := range []string{"main.c", "shapes.c"} {
		cmds = append(cmds, map[string]string{"directory": dir, "file": filepath.Join(dir, f), "command": "cc -c " + f})
	}
	out, _ := json.Marshal(cmds)
	if err := os.WriteFile(filepath.Join(dir, "compile_commands.json"), out, 0o644); err != nil {
		b.Fatal(err)
	}
}
