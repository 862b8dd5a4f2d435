package kernels_test

import "bufio"
import "context"
import "encoding/json"
import "fmt"
import "io"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/dop251/goja"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/js"
import "github.com/tetherhq/tether/kernels/python"
import "github.com/tetherhq/tether/kernels/std"
import "github.com/tetherhq/tether/tools"

const debianPython = "/usr/bin/python3"

func requirePython(b *testing.B) {
	b.Helper()
	if _, err := os.Stat(debianPython); err != nil {
		testenv.Missing(b, "Debian's python3")
	}
}

func execute(b *testing.B, k kernels.Kernel, code, want string) {
	b.Helper()
	r, err := k.Execute(context.Background(), kernels.Cell{Code: code, Label: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if r.Error != nil {
		b.Fatalf("%s: %s", r.Error.Name, r.Error.Message)
	}
	if want != "" && (r.Value == nil || r.Value.Text != want) {
		b.Fatalf("%q echoed %+v, want %q", code, r.Value, want)
	}
}

// barePython is the peer: python3 reading one expression per line from a
// pipe, printing repr(eval(line)), no framing, no capture, no driver.
type barePython struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startBarePython(b *testing.B) *barePython {
	b.Helper()
	cmd := exec.Command(debianPython, "-u", "-c", "import sys\nfor line in sys.stdin:\n    print(repr(eval(line)), flush=True)")
	in, out := testenv.StartPiped(b, cmd)
	p := &barePython{cmd: cmd, in: in, out: bufio.NewReader(out)}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	return p
}

func (p *barePython) eval(b *testing.B, expr, want string) {
	if _, err := io.WriteString(p.in, expr+"\n"); err != nil {
		b.Fatal(err)
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	if strings.TrimSpace(line) != want {
		b.Fatalf("bare python: %q", line)
	}
}

// BenchmarkCell is the round trip of a trivial cell ("1 + 1") per kernel,
// with its bare peer.
func BenchmarkCell(b *testing.B) {
	b.Run("python/kernel", func(b *testing.B) {
		requirePython(b)
		k, _ := python.New(kernels.Config{Python: debianPython, Dir: b.TempDir()})
		defer k.Close()
		execute(b, k, "1 + 1", "2") // start the interpreter outside the timing
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			execute(b, k, "1 + 1", "2")
		}
	})
	b.Run("python/bare-pipe", func(b *testing.B) {
		requirePython(b)
		p := startBarePython(b)
		p.eval(b, "1 + 1", "2")
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p.eval(b, "1 + 1", "2")
		}
	})
	b.Run("javascript/kernel", func(b *testing.B) {
		k, _ := js.New(kernels.Config{})
		defer k.Close()
		execute(b, k, "1 + 1", "2")
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			execute(b, k, "1 + 1", "2")
		}
	})
	b.Run("javascript/bare-goja", func(b *testing.B) {
		vm := goja.New()
		for i := 0; i < b.N; i++ {
			v, err := vm.RunString("1 + 1")
			if err != nil || v.ToInteger() != 2 {
				b.Fatal(v, err)
			}
		}
	})
}

const bridgeCalls = 20

func noop(ctx context.Context, name string, args json.RawMessage) (kernels.ToolReply, error) {
	return kernels.ToolReply{Text: "ok"}, nil
}

// BenchmarkBridge is the cost of one tool() call from inside a cell: each
// iteration runs a cell making 20 calls; ns/call is the time per call with the
// cell's own round trip included (compare with BenchmarkCell). "direct" calls a
// Go function; "run" goes through tools.Run.Call to the real read tool, with
// surface, approval and validation.
func BenchmarkBridge(b *testing.B) {
	cases := []struct {
		lang kernels.Language
		code string
	}{
		{kernels.Python, fmt.Sprintf("for _ in range(%d):\n    r = tool('read', {'path': 'a.txt'})\nlen(r) > 0", bridgeCalls)},
		{kernels.JavaScript, fmt.Sprintf("let r; for (let i = 0; i < %d; i++) r = tool('read', {path: 'a.txt'}); r.length > 0", bridgeCalls)},
	}
	want := map[kernels.Language]string{kernels.Python: "True", kernels.JavaScript: "true"}
	for _, c := range cases {
		b.Run(string(c.lang)+"/direct", func(b *testing.B) {
			if c.lang == kernels.Python {
				requirePython(b)
			}
			k, err := std.NewFactory(kernels.Config{Python: debianPython}, nil).New(c.lang, b.TempDir(), noop)
			if err != nil {
				b.Fatal(err)
			}
			defer k.Close()
			execute(b, k, c.code, want[c.lang])
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				execute(b, k, c.code, want[c.lang])
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bridgeCalls), "ns/call")
		})
		b.Run(string(c.lang)+"/run", func(b *testing.B) {
			if c.lang == kernels.Python {
				requirePython(b)
			}
			dir := b.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			run, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), Eval: tools.EvalConfig{Kernels: std.NewFactory(kernels.Config{Python: debianPython}, nil)}})
			if err != nil {
				b.Fatal(err)
			}
			defer run.Close()
			args, _ := json.Marshal(map[string]any{"code": c.code, "description": "call the read tool in a loop", "language": string(c.lang)})
			call := func() {
				res, err := run.Call(context.Background(), "eval", args, tools.FromModel)
				if err != nil || res.IsError || !strings.Contains(res.AllText(), "out:\n"+want[c.lang]) {
					b.Fatalf("%v\n%s", err, res.AllText())
				}
			}
			call()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				call()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bridgeCalls), "ns/call")
		})
	}
}

// outputLines is how many lines an output benchmark cell prints.
const outputLines = 20000

// outputCells print outputLines lines, to stdout only or alternating between
// stdout and stderr line by line.
var outputCells = []struct{ name, code string }{
	{"stdout", fmt.Sprintf("for i in range(%d):\n    print('line', i)", outputLines)},
	{"alternating", fmt.Sprintf("import sys\nfor i in range(%d):\n    print('line', i, file=sys.stderr if i %% 2 else sys.stdout)", outputLines)},
}

// BenchmarkOutput is the cost of a cell's printed output: tether's kernel
// (capture, ordering of stdout and stderr, framing, bounds) against a bare
// python3 printing the same lines to two pipes the benchmark reads to the end.
func BenchmarkOutput(b *testing.B) {
	for _, c := range outputCells {
		b.Run("python/kernel/"+c.name, func(b *testing.B) {
			requirePython(b)
			k, _ := python.New(kernels.Config{Python: debianPython, Dir: b.TempDir()})
			defer k.Close()
			execute(b, k, c.code, "")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				execute(b, k, c.code, "")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*outputLines), "ns/line")
		})
		b.Run("python/bare-pipe/"+c.name, func(b *testing.B) {
			requirePython(b)
			// Started per iteration: subtract the start-up measured once.
			bare := func(code string) {
				cmd := exec.Command(debianPython, "-c", code)
				cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			t0 := time.Now()
			for i := 0; i < b.N; i++ {
				bare("pass")
			}
			startup := time.Since(t0)
			b.StartTimer()
			for i := 0; i < b.N; i++ {
				bare(c.code)
			}
			b.ReportMetric(float64((b.Elapsed()-startup).Nanoseconds())/float64(b.N*outputLines), "ns/line")
		})
	}
}
