//go:build linux

package host_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const sessions = 50

type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer t-bench-0123456789")
	return http.DefaultTransport.RoundTrip(r)
}

// statusKB reads a field (VmRSS, VmHWM) of /proc/pid/status in KiB.
func statusKB(pid int, field string) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func BenchmarkHost50Sessions(b *testing.B) {
	base := b.TempDir()
	bin := filepath.Join(base, "tether")
	build := exec.Command("go", "build", "-o", bin, "github.com/tetherhq/tether/cmd/tether")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	root := filepath.Join(base, "root")
	for i := 0; i < sessions; i++ {
		ws := filepath.Join(root, fmt.Sprintf("w%02d", i))
		os.MkdirAll(ws, 0o755)
		// The shared corpus: the same 40 Go files in every workspace (the
		// tree store keys trees by content, so sessions share them).
		for f := 0; f < 40; f++ {
			var src strings.Builder
			fmt.Fprintf(&src, "package p\n\n")
			for fn := 0; fn < 30; fn++ {
				fmt.Fprintf(&src, "func f%d_%d(x int) int {\n\tif x > %d {\n\t\treturn helper(x)\n\t}\n\treturn x\n}\n\n", f, fn, fn)
			}
			os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%02d.go", f)), []byte(src.String()), 0o644)
		}
	}
	tokens := filepath.Join(base, "tokens.json")
	os.WriteFile(tokens, []byte(`{"t-bench-0123456789": ["*"]}`), 0o600)
	for i := 0; i < b.N; i++ {
		runHost(b, bin, root, tokens)
	}
}

func runHost(b *testing.B, bin, root, tokens string) {
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--root", root, "--tokens", tokens,
		"--approve", "allow", "--max-sessions", "100", "--max-sessions-per-token", "100", "--log-level", "info", "--lsp=false", "--no-cache")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	url := ""
	re := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
	for url == "" && sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			url = "http://" + m[1]
		}
	}
	if url == "" {
		b.Fatal("tether serve --http did not listen")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	pid := cmd.Process.Pid
	open := func(i int) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
			Endpoint: fmt.Sprintf("%s/mcp/w%02d", url, i), HTTPClient: &http.Client{Transport: bearer{}}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	work := []struct {
		name string
		args map[string]any
	}{
		{"read", map[string]any{"path": "f00.go", "limit": 40}},
		{"read", map[string]any{"path": "f07.go", "offset": 50, "limit": 40}},
		{"ast_grep", map[string]any{"pattern": "return helper($X)", "language": "go"}},
		{"eval", map[string]any{"language": "javascript", "code": "let s = 0; for (let i = 0; i < 1000; i++) s += i; s", "description": "sum the first thousand integers in javascript"}},
	}
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	do := func(cs *mcp.ClientSession) {
		for _, w := range work {
			t0 := time.Now()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: w.name, Arguments: w.args})
			d := time.Since(t0)
			mu.Lock()
			lat = append(lat, d)
			if err != nil || res.IsError {
				errs++
				if errs == 1 {
					b.Logf("%s failed: %v %+v", w.name, err, res)
				}
			}
			mu.Unlock()
		}
	}
	first := open(0)
	do(first)
	rss1 := statusKB(pid, "VmRSS")
	css := []*mcp.ClientSession{first}
	for i := 1; i < sessions; i++ {
		css = append(css, open(i))
	}
	lat = nil
	start := time.Now()
	var wg sync.WaitGroup
	for _, cs := range css {
		wg.Add(1)
		go func() { defer wg.Done(); do(cs) }()
	}
	wg.Wait()
	took := time.Since(start)
	rss50 := statusKB(pid, "VmRSS")
	hwm := statusKB(pid, "VmHWM")
	for _, cs := range css {
		cs.Close()
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	b.ReportMetric(float64(len(lat))/took.Seconds(), "calls/s")
	b.ReportMetric(float64(p(0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(hwm)/1024, "peak-RSS-MiB")
	b.ReportMetric(float64(rss50-rss1)/1024/float64(sessions-1), "RSS-MiB/extra-session")
	b.ReportMetric(float64(errs), "failed-calls")
}
