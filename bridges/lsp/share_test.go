package lsp_test

import "context"
import "fmt"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// shareProject writes a two-file Go module: b.go uses a.go's Helper.
func shareProject(t *testing.T) string {
	t.Helper()
	testenv.RequireBinary(t, "gopls")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module share\n\ngo 1.21\n")
	writeFile(t, filepath.Join(dir, "a.go"), "package share\n\n// Helper is used by b.go.\nfunc Helper() int { return 1 }\n")
	writeFile(t, filepath.Join(dir, "b.go"), "package share\n\nvar X = Helper()\n")
	return dir
}

// goplsDescendants counts the gopls servers under this test process
// (sandbox helpers in between included; a gopls's own gopls children,
// such as its telemetry helper, are part of it).
func goplsDescendants(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to count processes: %v", err)
	}
	parent := map[int]int{}
	comm := map[int]string{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		f := strings.Fields(s[close+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		if strings.HasPrefix(f[0], "Z") {
			continue // exited, not yet reaped
		}
		parent[pid], comm[pid] = ppid, s[open+1:close]
	}
	me, n := os.Getpid(), 0
	for pid, c := range comm {
		if c != "gopls" || comm[parent[pid]] == "gopls" {
			continue // gopls's own helper children are part of one server
		}
		for p, hops := parent[pid], 0; p > 1 && hops < 64; p, hops = parent[p], hops+1 {
			if p == me {
				n++
				break
			}
		}
	}
	return n
}

func definitionOK(t *testing.T, ctx context.Context, s *lsp.Supervisor) {
	t.Helper()
	got, err := s.Definition(ctx, lsp.Position{File: "b.go", Line: 3, Symbol: "Helper"})
	if err != nil {
		t.Fatal(err)
	}
	if !hasLoc(got.Items, "a.go", 4) {
		t.Fatalf("definition of Helper: want a.go:4, got:\n%s", locStrings(got.Items))
	}
}

// pooled gets a supervisor for dir and the server config from pool, with the
// options these tests share.
func pooled(t *testing.T, pool *lsp.Pool, dir, config string) (*lsp.Supervisor, func(), bool) {
	t.Helper()
	s, release, shared, err := pool.Get(dir, config, lsp.WithEnv(testenv.WithPeersOnPath()), lsp.WithDiagnosticsTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return s, release, shared
}

func TestPoolSharesOneGopls(t *testing.T) {
	dir := shareProject(t)
	ctx := ctxT(t)
	before := goplsDescendants(t)
	pool := lsp.NewPool()
	a, releaseA, sharedA := pooled(t, pool, dir, "")
	defer releaseA()
	b, releaseB, sharedB := pooled(t, pool, dir+string(filepath.Separator)+".", "")
	defer releaseB()
	if a != b || sharedA || !sharedB {
		t.Fatalf("two sessions on one workspace: same supervisor %v, shared %v then %v; want the same, false then true", a == b, sharedA, sharedB)
	}
	other, releaseOther, sharedOther := pooled(t, pool, dir, "other servers")
	releaseOther()
	if other == a || sharedOther {
		t.Fatal("a session with another server config was given the shared supervisor")
	}

	definitionOK(t, ctx, a)
	definitionOK(t, ctx, b)
	if n := goplsDescendants(t) - before; n != 1 {
		t.Fatalf("two sessions started %d gopls processes, want 1", n)
	}
	var pid int
	for _, r := range b.Status() {
		if r.Server == "gopls" && r.Running {
			pid = r.PID
			if r.Sessions != 2 || !strings.Contains(r.String(), "shared by 2 sessions") {
				t.Errorf("status row %q: want it shared by 2 sessions", r)
			}
		}
	}
	if pid == 0 {
		t.Fatalf("no running gopls in status: %v", b.Status())
	}

	// One session's close leaves the other's server running; so does a
	// run closing the supervisor it was given.
	a.Close()
	releaseA()
	releaseA() // idempotent: must not release B's share
	definitionOK(t, ctx, b)
	for _, r := range b.Status() {
		if r.Server == "gopls" && r.Running && r.PID != pid {
			t.Errorf("gopls restarted after a session closed: pid %d, was %d", r.PID, pid)
		}
	}
	if pool.Len() != 1 {
		t.Fatalf("pool holds %d supervisors after one of two sessions closed, want 1", pool.Len())
	}
	// The last close stops it.
	releaseB()
	if pool.Len() != 0 {
		t.Fatalf("pool holds %d supervisors after every session closed", pool.Len())
	}
	if _, err := b.Definition(ctx, lsp.Position{File: "b.go", Line: 3, Symbol: "Helper"}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("query after the last session closed: %v, want the supervisor closed", err)
	}
	if n := goplsDescendants(t) - before; n != 0 {
		t.Fatalf("%d gopls processes left after the last session closed", n)
	}
}

func TestSeparateSupervisorsEachStartGopls(t *testing.T) {
	dir := shareProject(t)
	ctx := ctxT(t)
	before := goplsDescendants(t)
	a, b := newSupervisor(t, dir), newSupervisor(t, dir)
	definitionOK(t, ctx, a)
	definitionOK(t, ctx, b)
	if n := goplsDescendants(t) - before; n != 2 {
		t.Fatalf("two unshared supervisors run %d gopls processes, want 2", n)
	}
}

// A session's view (content shown without writing it) is not seen by a
// query from another session sharing the server: the query waits for the
// view to end and answers for the disk.
func TestViewNotSeenByOtherSession(t *testing.T) {
	dir := shareProject(t)
	ctx := ctxT(t)
	pool := lsp.NewPool()
	s, release, _ := pooled(t, pool, dir, "")
	defer release()
	_, release2, _ := pooled(t, pool, dir, "")
	defer release2()
	if d, err := s.Diagnostics(ctx, "b.go"); err != nil || !d.Ready || len(d.Items) != 0 {
		t.Fatalf("b.go before any view: %+v, %v; want ready and clean", d, err)
	}

	if _, err := s.ShowContent(ctx, "a.go", []byte("package share\n")); err == nil {
		t.Fatal("ShowContent without the view held succeeded")
	}
	vctx, done, err := s.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ShowContent(vctx, "a.go", []byte("package share\n")); err != nil {
		done()
		t.Fatal(err)
	}
	type answer struct {
		d   *lsp.Diagnostics
		err error
	}
	other := make(chan answer, 1)
	go func() {
		d, err := s.Diagnostics(ctx, "b.go") // another session: no view in ctx
		other <- answer{d, err}
	}()
	// The holder's own query sees the shown text: Helper is gone.
	mine, err := s.Diagnostics(vctx, "b.go")
	if err != nil {
		done()
		t.Fatal(err)
	}
	if !strings.Contains(diagText(mine), "Helper") {
		done()
		t.Fatalf("the view's own query of b.go: %q, want Helper undefined", diagText(mine))
	}
	select {
	case a := <-other:
		done()
		t.Fatalf("another session's query answered while the view was held: %+v, %v", a.d, a.err)
	default:
	}
	done()
	a := <-other
	if a.err != nil {
		t.Fatal(a.err)
	}
	if !a.d.Ready || len(a.d.Items) != 0 {
		t.Fatalf("another session's b.go diagnostics after the view: %q (ready %v), want clean: it saw the view", diagText(a.d), a.d.Ready)
	}
}

// A query waiting behind another session's view gives up with its context.
func TestQueryWaitingForViewIsCancellable(t *testing.T) {
	dir := shareProject(t)
	s := newSupervisor(t, dir)
	_, done, err := s.View(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = s.Diagnostics(ctx, "b.go")
	if err == nil || !strings.Contains(err.Error(), "another session's view") {
		t.Fatalf("query behind a held view with a cancelled context: %v, want it to say it gave up waiting", err)
	}
}

// A host hands every session on a workspace the same supervisor; the last
// session to give it back closes its servers.
func ExamplePool() {
	dir, err := os.MkdirTemp("", "pool")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	pool := lsp.NewPool()
	first, release1, _, err := pool.Get(dir, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	second, release2, shared, err := pool.Get(dir, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("same supervisor:", first == second, "shared:", shared)
	release1()
	fmt.Println("after one session:", pool.Len())
	release2()
	fmt.Println("after both:", pool.Len())
	// Output:
	// same supervisor: true shared: true
	// after one session: 1
	// after both: 0
}
