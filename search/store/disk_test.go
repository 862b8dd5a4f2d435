package store_test

import "context"
import "fmt"
import "io/fs"
import "os"
import "os/exec"
import "path/filepath"
import "reflect"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/internal/searchtest"
import "github.com/tetherhq/tether/search/store"

// diskChildEnv makes the test binary a process that searches with a disk
// tier in the named directory and exits (TestMain).
const diskChildEnv = "TETHER_TEST_DISK_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(diskChildEnv); dir != "" {
		os.Exit(diskChild(dir))
	}
	os.Exit(m.Run())
}

func diskChild(dir string) int {
	d, err := store.OpenDiskCache(dir, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c := store.NewCache(0)
	c.SetDisk(d)
	e, err := engine.New(context.Background(), engine.NewConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s := search.NewSearcher(e, search.Config{Cache: c, WholeFiles: true})
	for _, p := range storePatterns[:3] {
		if _, err := s.Search(context.Background(), search.Query{Pattern: p, Language: "go", Paths: []string{filepath.Join(testenv.RepoRoot(), "search")}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	d.Settle(time.Minute)
	return 0
}

// withDisk returns a searcher with an empty memory store over the disk tier
// in dir, as a new process has.
func withDisk(t *testing.T, dir string, budget int64, whole bool) (*search.Searcher, *store.DiskCache) {
	t.Helper()
	d, err := openTier(t, dir, budget)
	if err != nil {
		t.Fatal(err)
	}
	c := store.NewCache(0)
	c.SetDisk(d)
	return search.NewSearcher(parser(t), search.Config{Cache: c, WholeFiles: whole}), d
}

// diskEntries lists the entries the tier's index points to.
func diskEntries(t *testing.T, dir string) []store.TierEntry {
	t.Helper()
	return store.TierEntries(dir)
}

// checkFromDisk searches the search package with each pattern through a new
// memory store over dir's disk tier and wants the matches of a fresh parse
// and, when warm, every tree from the disk.
func checkFromDisk(t *testing.T, dir string, patterns []string, warm bool) {
	t.Helper()
	src := filepath.Join(testenv.RepoRoot(), "search")
	s, d := withDisk(t, dir, 0, true)
	defer d.Settle(time.Minute) // as a process exits
	for _, p := range patterns {
		q := search.Query{Pattern: p, Language: "go", Paths: []string{src}}
		got, want := searchtest.SearchBoth(t, s, q)
		if got.Total == 0 || got.Total != want.Total || !reflect.DeepEqual(got.Matches, want.Matches) {
			t.Fatalf("%s: through the disk tier %d matches, fresh %d", p, got.Total, want.Total)
		}
		if warm && got.CacheHits != got.Parsed {
			t.Errorf("%s: %d of %d trees from the disk tier, want all", p, got.CacheHits, got.Parsed)
		}
	}
}

// TestDiskTierServesNewProcess: trees one store wrote are read, not parsed,
// by a store with an empty memory (a new process), and give the same matches.
func TestDiskTierServesNewProcess(t *testing.T) {
	dir := t.TempDir()
	checkFromDisk(t, dir, storePatterns, false)
	if len(diskEntries(t, dir)) == 0 {
		t.Fatal("nothing written to the disk tier")
	}
	checkFromDisk(t, dir, storePatterns, true)
}

// TestDiskTierIgnoresDamage: entries in their packs flipped, cut short,
// zeroed, overwritten by another key's or by foreign data are misses (parsed
// again and written anew), never trees.
func TestDiskTierIgnoresDamage(t *testing.T) {
	dir := t.TempDir()
	checkFromDisk(t, dir, storePatterns[:1], false)
	es := diskEntries(t, dir)
	if len(es) < 5 {
		t.Fatalf("%d entries", len(es))
	}
	read := func(e store.TierEntry) []byte {
		f, err := os.Open(e.Pack)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := make([]byte, e.Len)
		if _, err := f.ReadAt(b, e.Off); err != nil {
			t.Fatal(err)
		}
		return b
	}
	for i, e := range es {
		b := read(e)
		switch i % 5 {
		case 0: // a bit flipped in the node table
			b[len(b)-3] ^= 0x40
		case 1: // cut short: its second half zeros
			clear(b[len(b)/2:])
		case 2:
			clear(b)
		case 3: // another key's entry in its place
			copy(b, read(es[(i+1)%len(es)]))
		case 4:
			copy(b, "not a tree at all\n")
		}
		f, err := os.OpenFile(e.Pack, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteAt(b, e.Off)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	s, d := withDisk(t, dir, 0, true)
	q := search.Query{Pattern: storePatterns[0], Language: "go", Paths: []string{filepath.Join(testenv.RepoRoot(), "search")}}
	r, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	d.Settle(time.Minute)
	if r.CacheHits != r.Parsed-len(es) {
		t.Errorf("%d trees from a damaged disk tier, want %d (the undamaged)", r.CacheHits, r.Parsed-len(es))
	}
	checkFromDisk(t, dir, storePatterns[:1], true)
}

// TestDiskTierConcurrentProcesses: two processes filling the same disk tier
// at once leave it readable: every entry checks out and serves a third.
func TestDiskTierConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for range 2 {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), diskChildEnv+"="+dir)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	n := len(diskEntries(t, dir))
	checkFromDisk(t, dir, storePatterns[:3], true)
	if m := len(diskEntries(t, dir)); m != n || n == 0 {
		t.Errorf("%d entries after the children, %d after reading them all", n, m)
	}
	if c, err := store.VerifyDiskCache(dir); err != nil || c.Bad != 0 || c.Entries != n {
		t.Errorf("verify: %+v (%v), want %d entries and none bad", c, err, n)
	}
	var temps []string
	filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(de.Name(), ".") {
			temps = append(temps, p)
		}
		return nil
	})
	if len(temps) > 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

// TestDiskTierBudget: the files stay within the budget, the least recently
// used going first.
func TestDiskTierBudget(t *testing.T) {
	dir := t.TempDir()
	s, d := withDisk(t, dir, 200<<10, true)
	q := search.Query{Pattern: storePatterns[0], Language: "go", Paths: []string{filepath.Join(testenv.RepoRoot(), "search")}}
	if _, err := s.Search(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	d.Settle(time.Minute) // the prune runs in the background
	total, _ := tierBytes(t, dir)
	// the count may be over what is on disk (writes made while a prune
	// listed the tier are counted on top of its listing, until a later
	// prune), never under it
	if st := d.Stats(); total > st.Budget || total == 0 || st.Bytes < total {
		t.Errorf("%d bytes on disk (stats %d), budget %d", total, st.Bytes, st.Budget)
	}
}

// openTier opens a disk tier for a test and settles it when the test ends,
// before its temporary directory is removed: a new tier counts itself and
// prunes in the background, and a goroutine still writing there would make
// the removal fail.
func openTier(t testing.TB, dir string, budget int64) (*store.DiskCache, error) {
	d, err := store.OpenDiskCache(dir, budget)
	if d != nil {
		t.Cleanup(func() { d.Settle(time.Minute) })
	}
	return d, err
}
