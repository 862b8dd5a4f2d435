package search

import "context"
import "fmt"
import "os"
import "path/filepath"
import "runtime"
import "sync"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search/store"

// memoSearcher returns a searcher over its own store that counts the files
// it reads.
func memoSearcher(t *testing.T) (*Searcher, func() int) {
	s := NewSearcher(fuzzParser(t), Config{Cache: store.NewCache(0), WholeFiles: true})
	var mu sync.Mutex
	reads := 0
	s.testHookRead = func(string) {
		mu.Lock()
		reads++
		mu.Unlock()
	}
	return s, func() int {
		mu.Lock()
		defer mu.Unlock()
		n := reads
		reads = 0
		return n
	}
}

func memoSearch(t *testing.T, s *Searcher, dir, pattern string) *Result {
	t.Helper()
	r, err := s.Search(context.Background(), Query{Pattern: pattern, Language: "go", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// settle makes s trust every stamp at once (it times its reads an hour
// late, so no file times are too recent), so that what is tested is the
// stamp's comparison.
func settle(s *Searcher) {
	s.testHookNow = func() time.Time { return time.Now().Add(time.Hour) }
}

// requireStamps skips the test where the store's stat memo reads no stamps
// (store/statmemo_stat.go's systems) and every file is read.
func requireStamps(t *testing.T) {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "netbsd":
	default:
		t.Skipf("no file stamps on %s: every file is read", runtime.GOOS)
	}
}

// TestUnchangedFilesAreNotRead: a second, different query over files whose
// stat is as it was and whose trees are in the store reads none of them, and
// finds what a fresh search finds.
func TestUnchangedFilesAreNotRead(t *testing.T) {
	requireStamps(t)
	dir := t.TempDir()
	for i := range 5 {
		src := fmt.Sprintf("package p\n\nfunc f%d(err error) error {\n\tmu.Lock()\n\treturn fmt.Errorf(\"f%d: %%w\", err)\n}\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, reads := memoSearcher(t)
	settle(s)
	if r := memoSearch(t, s, dir, "fmt.Errorf($$$A)"); r.Total != 5 {
		t.Fatalf("first query: %d matches, want 5", r.Total)
	}
	if n := reads(); n != 5 {
		t.Fatalf("first query read %d files, want 5", n)
	}
	got := memoSearch(t, s, dir, "$M.Lock()")
	if n := reads(); n != 0 {
		t.Errorf("a second query read %d unchanged files, want none", n)
	}
	fresh, _ := memoSearcher(t)
	want := memoSearch(t, fresh, dir, "$M.Lock()")
	if got.Total != 5 || fmt.Sprint(got.Matches) != fmt.Sprint(want.Matches) || got.CacheHits != 5 {
		t.Errorf("from the memo: %d matches (%d from the store), fresh: %d; equal: %v", got.Total, got.CacheHits, want.Total, fmt.Sprint(got.Matches) == fmt.Sprint(want.Matches))
	}
	// a token the files lack rules them out from the trees' text, unread
	if r := memoSearch(t, s, dir, "os.Exit($C)"); r.Total != 0 || r.Prefiltered != 5 {
		t.Errorf("absent token: %d matches, %d prefiltered, want 0 and 5", r.Total, r.Prefiltered)
	}
	if n := reads(); n != 0 {
		t.Errorf("the absent-token query read %d files, want none", n)
	}
}

// TestChangedFileIsNeverServedStale: a file rewritten with the same size
// after its stamp was taken is read again, whether its modification time is
// put back (the status-change time moves), it is replaced by a rename with
// the same size and times (another inode), or it is rewritten at once
// without touching its times (within the racy window: its stamp was never
// trusted).
func TestChangedFileIsNeverServedStale(t *testing.T) {
	requireStamps(t)
	const before, after = "package p\n\nvar _ = fmt.Errorf(\"aaaa\")\n", "package p\n\nvar _ = fmt.Errorf(\"bbbb\")\n"
	cases := []struct {
		name    string
		settled bool
		change  func(t *testing.T, p string)
	}{
		{"same size, modification time put back", true, func(t *testing.T, p string) {
			testenv.WriteTimedAs(t, p, p, after)
		}},
		{"replaced by a rename, same size and times", true, func(t *testing.T, p string) {
			tmp := p + ".new"
			testenv.WriteTimedAs(t, tmp, p, after)
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		}},
		{"rewritten at once, times untouched", false, func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(after), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "a.go")
			if err := os.WriteFile(p, []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
			s, reads := memoSearcher(t)
			if c.settled {
				settle(s)
			}
			if r := memoSearch(t, s, dir, "fmt.Errorf($S)"); r.Total != 1 || r.Matches[0].Bindings[0].Text != `"aaaa"` {
				t.Fatalf("before the change: %+v", r.Matches)
			}
			reads()
			c.change(t, p)
			r := memoSearch(t, s, dir, "fmt.Errorf($S)")
			if r.Total != 1 || r.Matches[0].Bindings[0].Text != `"bbbb"` {
				t.Errorf("after the change: %+v, want the new text \"bbbb\"", r.Matches)
			}
			if n := reads(); n != 1 {
				t.Errorf("after the change the file was read %d times, want once", n)
			}
		})
	}
}
