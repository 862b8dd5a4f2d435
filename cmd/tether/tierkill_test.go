package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherhq/tether/search/store"
)

// tierEntryMagic starts every disk tier entry (search/store/disk.go); the key's
// 32 bytes and the sha256 of the rest follow it.
const tierEntryMagic = "tether-tree-v1\n\x00"

// checkTierWhole reads every entry of the disk tier in dir and fails on one
// that is not whole (its body's sha256 is not the one its header holds). It
// returns the entries and their bytes; temporary files a killed writer left
// are not entries.
func checkTierWhole(t *testing.T, dir string) (entries int, bytesOnDisk int64) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(p, ".tree") || strings.HasPrefix(de.Name(), ".") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		head := len(tierEntryMagic) + 2*sha256.Size
		if len(b) < head || string(b[:len(tierEntryMagic)]) != tierEntryMagic {
			t.Errorf("%s: not a whole entry (%d bytes, no header)", p, len(b))
			return nil
		}
		if sum := sha256.Sum256(b[head:]); !bytes.Equal(sum[:], b[len(tierEntryMagic)+sha256.Size:head]) {
			t.Errorf("%s: torn entry: its body does not match its checksum", p)
		}
		entries++
		bytesOnDisk += int64(len(b))
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return entries, bytesOnDisk
}

// TestSearchKilledDuringTierWrites: tether ast-grep prints its answer, then
// writes the trees it parsed to the disk tier. Killed (SIGKILL) while it
// writes them, it leaves only whole entries; the next search reads the tier,
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
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "mu.Lock()") {
				matches++
			}
			if kill && matches == files {
				// the whole answer is out (the writes come after it): kill
				// once an entry is made
				deadline := time.Now().Add(time.Minute)
				for time.Now().Before(deadline) {
					if n, _ := checkTierWhole(t, tier); n > 0 {
						break
					}
					time.Sleep(time.Millisecond)
				}
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		err = cmd.Wait()
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
		left, _ := checkTierWhole(t, tier)
		if !killed || left == 0 {
			t.Logf("attempt %d: the search had ended before the kill (%d entries)", attempt, left)
			continue
		}
		t.Logf("killed with %d of %d entries written", left, files)
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
