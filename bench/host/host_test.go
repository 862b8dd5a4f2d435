//go:build linux

package host_test

import "bufio"
import "context"
import "flag"
import "fmt"
import "net/http"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "slices"
import "sort"
import "strconv"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/testenv"

// sessionsFlag is how many sessions the host serves at once: 50 by default,
// -sessions 100 or 200 for the larger hosts (go test ... -args -sessions 200).
var sessionsFlag = flag.Int("sessions", 50, "concurrent sessions on the host (at least 2)")

// binFlag is a tether binary to measure instead of one built from this
// checkout (another build, or one kept for a profiler's symbols).
var binFlag = flag.String("tether", "", "the tether binary to serve with (default: go build ./cmd/tether)")

// hostBinary is -tether's binary, or a fresh build of this checkout.
func hostBinary(b *testing.B) string {
	if *binFlag != "" {
		return *binFlag
	}
	return testenv.BuildTether(b)
}

// zygoteFlag is the host's --eval-python-zygote: -zygote=false starts an
// interpreter per Python kernel, to compare.
var zygoteFlag = flag.Bool("zygote", true, "fork Python kernels from a shared interpreter (the host's --eval-python-zygote)")

// children returns pid's descendants (every kernel process and the small
// sandbox init each runs under), from /proc's parent links.
func children(pid int) []int {
	kids := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			if pp := parent(p); pp > 0 {
				kids[pp] = append(kids[pp], p)
			}
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, k := range kids[p] {
			out = append(out, k)
			walk(k)
		}
	}
	walk(pid)
	return out
}

// parent returns p's parent pid (0 when p is gone).
func parent(p int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
	if err != nil {
		return 0
	}
	// the fields after the command's closing parenthesis: state, ppid
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
}

// pssKB is the proportional set size of pid and all its descendants in KiB
// (shared pages counted once, split among the processes that map them).
func pssKB(pid int) int {
	total := 0
	for _, n := range pssByKind(pid) {
		total += n
	}
	return total
}

// pssByKind splits pssKB by kind of process (memByKind).
func pssByKind(pid int) map[string]int {
	out := map[string]int{}
	for kind, m := range memByKind(pid) {
		out[kind] = m.pss
	}
	return out
}

// kindMem is the memory of the processes of one kind in KiB, how many
// there are, and how many of them another of that kind did not start (a
// gopls server starts a gopls child to report its crashes: two processes,
// one server).
type kindMem struct{ pss, rss, procs, tops int }

// memByKind sums the PSS and RSS (/proc/PID/smaps_rollup) of pid and its
// descendants by process: the host, JavaScript kernels, Python kernels,
// gopls, and the rest (the sandbox inits the kernels and servers run
// under, the go commands gopls runs).
func memByKind(pid int) map[string]kindMem {
	out := map[string]kindMem{}
	kinds := map[int]string{}
	for _, p := range append([]int{pid}, children(pid)...) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p))
		pss := regexp.MustCompile(`(?m)^Pss:\s+(\d+) kB`).FindSubmatch(b)
		rss := regexp.MustCompile(`(?m)^Rss:\s+(\d+) kB`).FindSubmatch(b)
		if pss == nil || rss == nil {
			continue
		}
		argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p))
		kind := "init"
		switch {
		case p == pid:
			kind = "host"
		case strings.Contains(string(argv), "__tether-js-kernel"):
			kind = "js"
		case strings.Contains(string(argv), "python"):
			kind = "python"
		case strings.TrimSpace(string(comm)) == "gopls":
			kind = "gopls"
		}
		kinds[p] = kind
		m := out[kind]
		n, _ := strconv.Atoi(string(pss[1]))
		r, _ := strconv.Atoi(string(rss[1]))
		m.pss, m.rss, m.procs = m.pss+n, m.rss+r, m.procs+1
		if kinds[parent(p)] != kind {
			m.tops++
		}
		out[kind] = m
	}
	return out
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

// BenchmarkHostSessions serves -sessions workspaces (50 by default) on one
// tether serve --http; each session reads, searches and runs a JavaScript
// and a Python cell (bench/README.md, "host").
func BenchmarkHostSessions(b *testing.B) {
	sessions := *sessionsFlag
	if sessions < 2 {
		b.Fatalf("-sessions %d: give 2 or more", sessions)
	}
	base := b.TempDir()
	bin := hostBinary(b)
	root := filepath.Join(base, "root")
	for i := 0; i < sessions; i++ {
		ws := filepath.Join(root, fmt.Sprintf("w%03d", i))
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
	for i := 0; i < b.N; i++ {
		runHost(b, bin, root, sessions)
	}
}

// benchToken is the bearer token of the hosts the benchmarks start.
const benchToken = "t-bench-0123456789"

// startHost starts bin serve --http on loopback for the workspaces under
// root, allowing sessions (and a few more) with benchToken, with flags
// added; it returns the URL it listens on, its pid, and the function that
// stops it.
func startHost(tb testing.TB, bin, root string, sessions int, flags ...string) (url string, pid int, stop func()) {
	tokens := filepath.Join(tb.TempDir(), "tokens.json")
	if err := os.WriteFile(tokens, []byte(`{"`+benchToken+`": ["*"]}`), 0o600); err != nil {
		tb.Fatal(err)
	}
	limit := strconv.Itoa(sessions + 10)
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0", "--root", root, "--tokens", tokens,
		"--approve", "allow", "--max-sessions", limit, "--max-sessions-per-token", limit, "--log-level", "info"}, flags...)...)
	cmd.Env = testenv.WithPeersOnPath()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	stop = func() { cmd.Process.Kill(); cmd.Wait() }
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
	for url == "" && sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			url = "http://" + m[1]
		}
	}
	if url == "" {
		stop()
		tb.Fatal("tether serve --http did not listen")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return url, cmd.Process.Pid, stop
}

// openSession opens an MCP session on the host at url, on its workspace ws.
func openSession(tb testing.TB, url, ws string) *mcp.ClientSession {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url + "/mcp/" + ws, HTTPClient: &http.Client{Transport: testenv.Bearer(benchToken)}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

func runHost(b *testing.B, bin, root string, sessions int) {
	url, pid, stop := startHost(b, bin, root, sessions, "--lsp=false", "--no-cache", "--eval-python-zygote="+strconv.FormatBool(*zygoteFlag))
	defer stop()
	open := func(i int) *mcp.ClientSession { return openSession(b, url, fmt.Sprintf("w%03d", i)) }
	work := []struct {
		name string
		args map[string]any
	}{
		{"read", map[string]any{"path": "f00.go", "limit": 40}},
		{"read", map[string]any{"path": "f07.go", "offset": 50, "limit": 40}},
		{"ast_grep", map[string]any{"pattern": "return helper($X)", "language": "go"}},
		{"eval", map[string]any{"language": "javascript", "code": "let s = 0; for (let i = 0; i < 1000; i++) s += i; s", "description": "sum the first thousand integers in javascript"}},
		{"eval", map[string]any{"language": "python", "code": "sum(range(1000))", "description": "sum the first thousand integers in python"}},
	}
	var mu sync.Mutex
	var lat []time.Duration
	byKind := map[string][]time.Duration{} // a tool's calls (eval's by language)
	errs := 0
	do := func(cs *mcp.ClientSession) {
		for _, w := range work {
			t0 := time.Now()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: w.name, Arguments: w.args})
			d := time.Since(t0)
			kind := w.name
			if l, ok := w.args["language"].(string); ok && w.name == "eval" {
				kind += "-" + l
			}
			mu.Lock()
			lat = append(lat, d)
			byKind[kind] = append(byKind[kind], d)
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
	pss1 := pssKB(pid)
	procs1 := len(children(pid))
	css := []*mcp.ClientSession{first}
	for i := 1; i < sessions; i++ {
		css = append(css, open(i))
	}
	// a session's kernels start on its first cell, not when it opens
	if started := len(children(pid)) - procs1; started > 0 {
		b.Errorf("%d processes started when %d sessions opened, before any cell", started, sessions-1)
	}
	lat = nil
	byKind = map[string][]time.Duration{}
	start := time.Now()
	var wg sync.WaitGroup
	for _, cs := range css {
		wg.Add(1)
		go func() { defer wg.Done(); do(cs) }()
	}
	wg.Wait()
	took := time.Since(start)
	rssAll := statusKB(pid, "VmRSS")
	hwm := statusKB(pid, "VmHWM")
	kinds := pssByKind(pid)
	pssAll := 0
	for _, n := range kinds {
		pssAll += n
	}
	procs := len(children(pid))
	for _, cs := range css {
		cs.Close()
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	b.ReportMetric(float64(len(lat))/took.Seconds(), "calls/s")
	b.ReportMetric(float64(p(0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p(0.99).Microseconds())/1000, "p99-ms")
	for kind, l := range byKind {
		slices.Sort(l)
		b.ReportMetric(float64(l[int(0.99*float64(len(l)-1))].Microseconds())/1000, "p99-ms-"+kind)
	}
	b.ReportMetric(float64(hwm)/1024, "peak-RSS-MiB")
	b.ReportMetric(float64(rssAll-rss1)/1024/float64(sessions-1), "RSS-MiB/extra-session")
	b.ReportMetric(float64(pssAll)/1024, "PSS-MiB")
	b.ReportMetric(float64(pssAll-pss1)/1024/float64(sessions-1), "PSS-MiB/extra-session")
	b.ReportMetric(float64(procs), "processes")
	for kind, n := range kinds {
		b.ReportMetric(float64(n)/1024/float64(sessions), "PSS-MiB/session-"+kind)
	}
	b.ReportMetric(float64(errs), "failed-calls")
}
