package tools_test

import "strings"
import "testing"

// hierarchyProjects are small multi-package projects whose IsLoopback is
// called from a method and a function in other packages (modules).
var hierarchyProjects = []struct {
	name, bin string
	files     map[string]string
	args      map[string]any
	want      []string
}{
	{"gopls", "gopls", map[string]string{
		"go.mod":                "module example.com/m\n\ngo 1.22\n",
		"internal/util/util.go": "package util\n\n// IsLoopback says whether host is a loopback name.\nfunc IsLoopback(host string) bool { return host == \"localhost\" }\n",
		"auth/server.go": "package auth\n\nimport (\n\t\"net/http\"\n\n\t\"example.com/m/internal/util\"\n)\n\n// Server serves.\ntype Server struct{}\n\n" +
			"func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n\t_ = util.IsLoopback(r.Host)\n}\n",
		"mcp/check.go": "package mcp\n\nimport \"example.com/m/internal/util\"\n\ntype handler struct{}\n\nfunc (handler) ServeHTTP(host string) bool { return util.IsLoopback(host) }\n\nfunc Check(h string) bool {\n\treturn util.IsLoopback(h)\n}\n",
	}, map[string]any{"action": "call_hierarchy", "file": "internal/util/util.go", "line": 4, "symbol": "IsLoopback"}, []string{
		"callers of function IsLoopback (internal/util/util.go:4): 3\n",
		"method (*Server).ServeHTTP  auth/server.go:12:18  example.com/m/auth • server.go\n  calls at auth/server.go:13",
		"method (handler).ServeHTTP  mcp/check.go:7:16  example.com/m/mcp • check.go\n  calls at mcp/check.go:7",
		"function Check  mcp/check.go:9:6  example.com/m/mcp • check.go\n  calls at mcp/check.go:10",
	}},
	{"pyright", "pyright-langserver", map[string]string{
		"pyproject.toml":       "[project]\nname = \"p\"\nversion = \"0.1.0\"\n",
		"pkg/__init__.py":      "",
		"pkg/util.py":          "def is_loopback(host):\n    return host == \"localhost\"\n",
		"pkg/auth/__init__.py": "",
		"pkg/auth/server.py":   "from pkg.util import is_loopback\n\n\nclass Server:\n    def serve(self, host):\n        return is_loopback(host)\n\n\ndef check(h):\n    return is_loopback(h)\n",
	}, map[string]any{"action": "call_hierarchy", "file": "pkg/util.py", "line": 1, "symbol": "is_loopback"}, []string{
		"callers of function is_loopback (pkg/util.py:1): 2\n",
		"function serve  pkg/auth/server.py:5:9  class Server (server.py)\n  calls at pkg/auth/server.py:6",
		"function check  pkg/auth/server.py:9:5  (server.py)\n  calls at pkg/auth/server.py:10",
	}},
	{"typescript", "typescript-language-server", map[string]string{
		"package.json":       `{"name":"p","version":"1.0.0"}`,
		"tsconfig.json":      `{"compilerOptions":{"strict":true},"include":["src"]}`,
		"src/util.ts":        "export function isLoopback(host: string): boolean {\n  return host === \"localhost\";\n}\n",
		"src/auth/server.ts": "import { isLoopback } from \"../util\";\n\nexport class Server {\n  serve(host: string): boolean {\n    return isLoopback(host);\n  }\n}\n\nexport function check(h: string): boolean {\n  return isLoopback(h);\n}\n",
	}, map[string]any{"action": "call_hierarchy", "file": "src/util.ts", "line": 1, "symbol": "isLoopback"}, []string{
		"callers of function isLoopback (src/util.ts:1): 2\n",
		"method serve  src/auth/server.ts:4:3  Server\n  calls at src/auth/server.ts:5",
		"function check  src/auth/server.ts:9:17\n  calls at src/auth/server.ts:10",
	}},
}

// TestLSPCallHierarchyLabels: each caller is labelled with its own package
// and, for a method, its receiver or class: gopls's own labels named the
// callee's package (internal/util) for callers in auth and mcp, and
// ServeHTTP without its receiver. The outgoing calls of a method name the
// callee in its package.
func TestLSPCallHierarchyLabels(t *testing.T) {
	for _, tc := range hierarchyProjects {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := projectRun(t, tc.bin, tc.files)
			out := lspText(t, r, "lsp", tc.args)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("want %q in:\n%s", w, out)
				}
			}
			if tc.name != "gopls" {
				return
			}
			if strings.Contains(out, "internal/util • server.go") || strings.Contains(out, "internal/util • check.go") {
				t.Errorf("a caller is labelled with the callee's package:\n%s", out)
			}
			out = lspText(t, r, "lsp", map[string]any{"action": "call_hierarchy", "file": "auth/server.go", "line": 12, "symbol": "ServeHTTP", "direction": "outgoing"})
			if !strings.Contains(out, "callees of method (*Server).ServeHTTP (auth/server.go:12)") || !strings.Contains(out, "function IsLoopback  internal/util/util.go:4:6  example.com/m/internal/util • util.go") {
				t.Errorf("outgoing calls of ServeHTTP:\n%s", out)
			}
		})
	}
}
