package lsp_test

import "context"
import "fmt"
import "sync"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// sharedSessions is how many sessions BenchmarkSharedServers opens on one
// workspace.
const sharedSessions = 10

// BenchmarkSharedServers opens sharedSessions sessions on one copy of
// testdata/lsp/goproj, each asking for use.go's diagnostics and a
// definition, once with the sessions sharing a host's pool (one gopls) and
// once each with its own supervisor (one gopls per session, as with
// --share-lsp=false), and reports the servers' memory: RSS and PSS summed
// over every server process tree (/proc/PID/smaps_rollup), the number of
// server processes, and the time for all sessions to answer.
func BenchmarkSharedServers(b *testing.B) {
	testenv.RequireBinary(b, "gopls")
	for _, mode := range []string{"shared", "separate"} {
		b.Run(mode, func(b *testing.B) {
			var rss, pss, procs int64
			var took time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := testenv.LSPProject(b, "goproj")
				pool := lsp.NewPool()
				opts := []lsp.Option{lsp.WithEnv(testenv.WithPeersOnPath()), lsp.WithDiagnosticsTimeout(30 * time.Second)}
				sups := make([]*lsp.Supervisor, sharedSessions)
				closers := make([]func(), sharedSessions)
				for j := range sups {
					if mode == "shared" {
						sv, release, _, err := pool.Get(dir, "", opts...)
						if err != nil {
							b.Fatal(err)
						}
						sups[j], closers[j] = sv, release
					} else {
						sv, err := lsp.New(dir, opts...)
						if err != nil {
							b.Fatal(err)
						}
						sups[j], closers[j] = sv, func() { sv.Close() }
					}
				}
				b.StartTimer()
				t0 := time.Now()
				errs := make([]error, sharedSessions)
				var wg sync.WaitGroup
				for j, sv := range sups {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs[j] = session(sv)
					}()
				}
				wg.Wait()
				took += time.Since(t0)
				b.StopTimer()
				pids := map[int]bool{}
				for j, sv := range sups {
					if errs[j] != nil {
						b.Errorf("session %d: %v", j, errs[j])
					}
					for _, st := range sv.Status() {
						if st.Server == "gopls" && st.Running {
							pids[st.PID] = true
						}
					}
				}
				for pid := range pids {
					r, ps := treeMemory(pid)
					rss += r
					pss += ps
				}
				procs += int64(len(pids))
				for _, c := range closers {
					c()
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(rss)/float64(b.N)/(1<<20), "rss-MiB")
			b.ReportMetric(float64(pss)/float64(b.N)/(1<<20), "pss-MiB")
			b.ReportMetric(float64(procs)/float64(b.N), "servers")
			b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "all-answered-ms")
		})
	}
}

// session is what each session asks: diagnostics of a file and a
// definition.
func session(sv *lsp.Supervisor) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	d, err := sv.Diagnostics(ctx, "use.go")
	if err != nil {
		return err
	}
	if !d.Ready {
		return fmt.Errorf("use.go diagnostics not ready: %v", d.Notes)
	}
	locs, err := sv.Definition(ctx, lsp.Position{File: "use.go", Line: 11, Symbol: "Total"})
	if err != nil {
		return err
	}
	if len(locs.Items) == 0 {
		return fmt.Errorf("no definition of Total")
	}
	return nil
}
