package sandbox_test

import "context"
import "os/exec"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/python"

// modes are the two sides of every measurement.
var modes = []struct {
	name string
	off  bool
}{{"sandbox", false}, {"nosandbox", true}}

// BenchmarkStart: one op is a fresh peer from nothing to its first answer
// (a language server started, initialized and asked for a file's symbols;
// a Python kernel started and a cell run), then closed.
func BenchmarkStart(b *testing.B) {
	defer proc.Configure(proc.Options{})
	servers := []struct{ name, bin, project, file string }{
		{"gopls", "gopls", "goproj", "shapes.go"},
		{"pyright", "pyright-langserver", "pyproj", "app.py"},
	}
	table := map[string]lsp.Server{}
	for _, sv := range lsp.DefaultServers() {
		table[sv.Name] = sv
	}
	for _, sv := range servers {
		for _, m := range modes {
			b.Run(sv.name+"/"+m.name, func(b *testing.B) {
				testenv.RequireBinary(b, sv.bin)
				proc.Configure(proc.Options{Off: m.off})
				dir := testenv.LSPProject(b, sv.project)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					s, err := lsp.New(dir, lsp.WithOnlyServers(table[sv.name]))
					if err != nil {
						b.Fatal(err)
					}
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					if _, err := s.DocumentSymbols(ctx, sv.file); err != nil {
						b.Fatal(err)
					}
					cancel()
					s.Close()
				}
			})
		}
	}
	for _, m := range modes {
		b.Run("python/"+m.name, func(b *testing.B) {
			testenv.RequireBinary(b, "python3")
			proc.Configure(proc.Options{Off: m.off})
			dir := testenv.Workspace(b, nil)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k, err := python.New(kernels.Config{Dir: dir})
				if err != nil {
					b.Fatal(err)
				}
				r, err := k.Execute(context.Background(), kernels.Cell{Code: "1 + 1", Label: "start"})
				if err != nil || r.Error != nil {
					b.Fatal(err, r)
				}
				k.Close()
			}
		})
	}
}

// BenchmarkLaunch: the launcher's fixed cost alone, one op a /bin/true
// started and waited for, as a language server (PID, mount and network
// namespaces) and as a kernel (user namespace only) is started.
func BenchmarkLaunch(b *testing.B) {
	defer proc.Configure(proc.Options{})
	dir := testenv.Workspace(b, nil)
	for _, f := range []proc.Family{proc.Servers, proc.Kernels} {
		for _, m := range modes {
			b.Run(string(f)+"/"+m.name, func(b *testing.B) {
				proc.Configure(proc.Options{Off: m.off})
				for i := 0; i < b.N; i++ {
					cmd := exec.Command("/bin/true")
					if err := proc.Sandbox(cmd, proc.Policy{Peer: "true", Family: f, RW: []string{dir}}); err != nil {
						b.Fatal(err)
					}
					if err := proc.Run(cmd); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
