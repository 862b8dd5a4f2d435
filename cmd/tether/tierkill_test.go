package main

import "bufio"
import "bytes"
import "errors"
import "fmt"
import "io/fs"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search/store"

// checkTierWhole checks every entry the index of the disk tier in dir
// points to and fails on one that is not whole. It returns the entries and
// the bytes of the tier's packs.
func checkTierWhole(t *testing.T, dir string) (entries int, bytesOnDisk int64) {
	t.Helper()
	c, err := store.VerifyDiskCache(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.Bad > 0 {
		t.Errorf("%d entries the tier's index points to are not whole", c.Bad)
	}
	return c.Entries, c.PackBytes
}

// packBytes is what the packs of the tier in dir hold so far.
func packBytes(dir string) (n int64) {
	filepath.WalkDir(filepath.Join(dir, "packs"), func(p string, de fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".pack") {
			if fi, err := de.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// TestSearchKilledDuringTierWrites: tether ast-grep prints its answer, then
// writes the trees it parsed to the disk tier's packs. Killed (SIGKILL)
// while it writes them, it leaves a tier whose index points only to whole
// entries (a torn pack's tail is pointed to by nothing); the next search
// reads the tier,
// finds every match, and leaves the tier within its budget with a ledger
// that counts at least what is on disk.
func TestSearchKilledDuringTierWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tether and searches 600 files twice")
	}
	bin := tetherBin(t)
	const files = 600
	src := t.TempDir()
	for i := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "package p\n\nfunc f%d(n int) int {\n\tmu.Lock()\n", i)
		for j := range 20 {
			fmt.Fprintf(&b, "\tif n > %d {\n\t\tn = n*%d + helper(n, %d)\n\t}\n", i+j, j+1, i)
		}
		b.WriteString("\treturn n\n}\n")
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("f%04d.go", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// a budget below what the trees make, so that the tier prunes
	const budget = 2 << 20
	run := func(t *testing.T, cache, tier string, kill bool) (matches int, killed bool) {
		t.Helper()
		cmd := exec.Command(bin, "ast-grep", "-p", "$X.Lock()", "-l", "go", "--cache-size", "2MiB", src)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out := testenv.StartReading(t, cmd)
		defer cmd.Process.Kill()
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "mu.Lock()") {
				matches++
			}
			if kill && matches == files {
				// the whole answer is out (the writes come after it): kill
				// once a pack holds something
				deadline := time.Now().Add(time.Minute)
				for time.Now().Before(deadline) && packBytes(tier) == 0 {
					time.Sleep(100 * time.Microsecond)
				}
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signaled() {
			return matches, true
		}
		if err != nil {
			t.Fatalf("tether ast-grep: %v\n%s", err, stderr.String())
		}
		return matches, false
	}
	// the kill may come after the last write: try again with an empty tier
	// until one lands among the writes
	for attempt := range 5 {
		cache := t.TempDir()
		tier := filepath.Join(cache, "tether", "trees")
		n, killed := run(t, cache, tier, true)
		if n != files {
			t.Fatalf("first search: %d matches, want %d", n, files)
		}
		left, packed := checkTierWhole(t, tier)
		if !killed {
			t.Logf("attempt %d: the search had ended before the kill (%d entries)", attempt, left)
			continue
		}
		t.Logf("killed with %d of %d entries indexed, %d bytes in packs", left, files, packed)
		if n, killed := run(t, cache, tier, false); killed || n != files {
			t.Fatalf("second search over the tier a kill left: %d matches, want %d", n, files)
		}
		entries, onDisk := checkTierWhole(t, tier)
		if entries == 0 {
			t.Fatal("the second search left an empty tier")
		}
		if onDisk > budget {
			t.Errorf("after the second search the tier holds %d bytes, over its budget of %d", onDisk, budget)
		}
		d, err := store.OpenDiskCache(tier, budget)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Stats().Bytes; got < onDisk {
			t.Errorf("the ledger says %d bytes, under the %d on disk: the tier would outgrow its budget", got, onDisk)
		}
		return
	}
	t.Fatal("no kill landed among the deferred writes in 5 attempts")
}
