//go:build linux

package host_test

import "context"
import "encoding/json"
import "flag"
import "fmt"
import "path/filepath"
import "sync"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/testenv"

// lspSessions is how many sessions BenchmarkHostSharedLSP opens on one
// workspace.
const lspSessions = 20

// lspFigures is what hostLSP measured once every session had answered.
type lspFigures struct {
	// mem is the memory of the host and every process under it, by kind
	// (memByKind); gopls is how many gopls servers ran (each a process
	// and its crash reporter).
	mem   map[string]kindMem
	gopls int
	// pids are the gopls pids the sessions' lsp status named, and shared
	// the most sessions a status row said share its server.
	pids   map[int]bool
	shared int
	took   time.Duration
}

// total sums f's memory over every kind of process.
func (f lspFigures) total() kindMem {
	var t kindMem
	for _, m := range f.mem {
		t.pss, t.rss, t.procs = t.pss+m.pss, t.rss+m.rss, t.procs+m.procs
	}
	return t
}

// hostLSP starts a tether serve --http on a copy of testdata/lsp/goproj
// (its language servers shared by the sessions of the workspace, or with
// share false, --share-lsp=false: one each), opens sessions on that one
// workspace, has each ask lsp definition and then lsp status at once, and
// measures the host's process tree before it stops it.
func hostLSP(tb testing.TB, bin string, sessions int, share bool) lspFigures {
	testenv.RequireBinary(tb, "gopls")
	ws := testenv.LSPProject(tb, "goproj")
	flags := []string{"--no-cache"}
	if !share {
		flags = append(flags, "--share-lsp=false")
	}
	url, pid, stop := startHost(tb, bin, filepath.Dir(ws), sessions, flags...)
	defer stop()
	css := make([]*mcp.ClientSession, sessions)
	for i := range css {
		css[i] = openSession(tb, url, filepath.Base(ws))
		defer css[i].Close()
	}
	f := lspFigures{pids: map[int]bool{}}
	var mu sync.Mutex
	errs := make([]error, sessions)
	start := time.Now()
	var wg sync.WaitGroup
	for i, cs := range css {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row, err := lspSession(cs)
			mu.Lock()
			defer mu.Unlock()
			errs[i] = err
			f.pids[row.PID] = true
			f.shared = max(f.shared, row.Sessions)
		}()
	}
	wg.Wait()
	f.took = time.Since(start)
	for i, err := range errs {
		if err != nil {
			tb.Fatalf("session %d: %v", i, err)
		}
	}
	f.mem = memByKind(pid)
	f.gopls = f.mem["gopls"].tops
	return f
}

// goplsRow is the part of gopls's lsp status row hostLSP reads.
type goplsRow struct {
	Server   string `json:"server"`
	Running  bool   `json:"running"`
	PID      int    `json:"pid"`
	Sessions int    `json:"sessions"`
}

// lspSession is one session's work: a definition (which starts gopls for
// the first), then status, whose gopls row it returns.
func lspSession(cs *mcp.ClientSession) (goplsRow, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var def struct {
		Items []struct {
			Path      string `json:"path"`
			Line, Col int
		} `json:"items"`
	}
	err := callLSP(ctx, cs, map[string]any{"action": "definition", "file": "use.go", "line": 11, "symbol": "Total"}, &def)
	if err != nil || len(def.Items) != 1 || def.Items[0].Path != "shapes.go" || def.Items[0].Line != 17 {
		return goplsRow{}, fmt.Errorf("definition of Total: want shapes.go:17, got %+v (%v)", def, err)
	}
	var st struct {
		Servers []goplsRow `json:"servers"`
	}
	if err := callLSP(ctx, cs, map[string]any{"action": "status"}, &st); err != nil {
		return goplsRow{}, err
	}
	for _, r := range st.Servers {
		if r.Server == "gopls" && r.Running {
			return r, nil
		}
	}
	return goplsRow{}, fmt.Errorf("status: no running gopls in %+v", st)
}

// callLSP calls the lsp tool with args and decodes its structured part
// into out.
func callLSP(ctx context.Context, cs *mcp.ClientSession, args map[string]any, out any) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp", Arguments: args})
	if err != nil {
		return fmt.Errorf("lsp %v: %w", args["action"], err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError || json.Unmarshal(b, out) != nil {
		content, _ := json.Marshal(res.Content)
		return fmt.Errorf("lsp %v: want an answer, got %s", args["action"], content)
	}
	return nil
}

// TestHostSharedLSP: the sessions of one workspace on a host share one
// gopls server, and lsp status in each names that one process and says
// how many sessions share it; with --share-lsp=false each session runs its
// own. Only processes are counted, nothing is timed.
func TestHostSharedLSP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tether and starts gopls")
	}
	bin := testenv.BuildTether(t)
	f := hostLSP(t, bin, 3, true)
	if f.gopls != 1 || len(f.pids) != 1 || f.shared != 3 {
		t.Errorf("3 sessions sharing: want 1 gopls server, named by every status and shared by 3 sessions; got %d servers, status pids %v, shared by %d", f.gopls, f.pids, f.shared)
	}
	f = hostLSP(t, bin, 2, false)
	if f.gopls != 2 || len(f.pids) != 2 || f.shared > 1 {
		t.Errorf("2 sessions, --share-lsp=false: want 2 gopls servers, one per status; got %d servers, status pids %v, shared by %d", f.gopls, f.pids, f.shared)
	}
}

var separateFlag = flag.Bool("separate", false, "BenchmarkHostSharedLSP: also measure a server per session (--share-lsp=false)")

// BenchmarkHostSharedLSP serves lspSessions sessions on one Go workspace
// from one tether serve --http, each asking lsp definition and status, and
// reports the memory of tether and every process under it (PSS and RSS,
// /proc/PID/smaps_rollup), the servers' part, and how many gopls servers
// ran: shared (the default) and separate (--share-lsp=false). Nothing is
// asserted about time (bench/README.md, "host").
//
// The separate mode starts 20 gopls servers, minutes of CPU on a small
// machine, so `make bench-once` runs the shared mode alone; -separate adds it.
func BenchmarkHostSharedLSP(b *testing.B) {
	bin := hostBinary(b)
	modes := []string{"shared"}
	if *separateFlag {
		modes = append(modes, "separate")
	}
	for _, mode := range modes {
		b.Run(mode, func(b *testing.B) {
			var sum lspFigures
			var tot, srv kindMem
			for i := 0; i < b.N; i++ {
				f := hostLSP(b, bin, lspSessions, mode == "shared")
				t, g := f.total(), f.mem["gopls"]
				tot.pss, tot.rss, tot.procs = tot.pss+t.pss, tot.rss+t.rss, tot.procs+t.procs
				srv.pss, srv.rss = srv.pss+g.pss, srv.rss+g.rss
				sum.gopls += f.gopls
				sum.took += f.took
			}
			n := float64(b.N)
			b.ReportMetric(float64(tot.pss)/1024/n, "PSS-MiB")
			b.ReportMetric(float64(tot.rss)/1024/n, "RSS-MiB")
			b.ReportMetric(float64(srv.pss)/1024/n, "gopls-PSS-MiB")
			b.ReportMetric(float64(srv.rss)/1024/n, "gopls-RSS-MiB")
			b.ReportMetric(float64(tot.procs)/n, "processes")
			b.ReportMetric(float64(sum.gopls)/n, "gopls-servers")
			b.ReportMetric(float64(sum.took.Milliseconds())/n, "all-answered-ms")
		})
	}
}
