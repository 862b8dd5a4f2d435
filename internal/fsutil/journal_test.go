package fsutil

import "errors"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "testing"

// TestApplyJournalUnwritable: when the journal cannot be written, a change
// of several files changes nothing and says why and what to do; a change of
// one file (atomic by itself) needs no journal.
func TestApplyJournalUnwritable(t *testing.T) {
	r, dir, _ := setup(t)
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	t.Setenv("XDG_CACHE_HOME", blocker) // a file: no directory can be made below it
	_, err := r.Apply([]Change{{Path: "a/b/f.txt", Content: []byte("g")}, {Path: "new.txt", Content: []byte("n")}})
	if err == nil || !strings.Contains(err.Error(), "journal") || !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), "XDG_CACHE_HOME") {
		t.Fatalf("err = %v", err)
	}
	requireContent(t, filepath.Join(dir, "a", "b", "f.txt"), "f")
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("new.txt written")
	}
	if _, err := r.Apply([]Change{{Path: "a/b/f.txt", Content: []byte("g")}}); err != nil {
		t.Errorf("one file: %v", err)
	}
}

// TestApplyJournalCap: a change whose originals exceed the journal's cap is
// refused before anything is written, saying to split it.
func TestApplyJournalCap(t *testing.T) {
	r, dir, _ := setup(t)
	defer func(n int64) { maxJournalBytes = n }(maxJournalBytes)
	maxJournalBytes = 1
	os.WriteFile(filepath.Join(dir, "big"), []byte("0123456789"), 0o644)
	_, err := r.Apply([]Change{{Path: "big", Content: []byte("x")}, {Path: "a/b/f.txt", Content: []byte("y")}})
	if err == nil || !strings.Contains(err.Error(), "split it") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err = %v", err)
	}
	requireContent(t, filepath.Join(dir, "big"), "0123456789")
	requireNoJournal(t)
}

// TestRecoverLeavesLiveChange: a Recover while another Apply is half way
// (in this process; the lock is the same across processes) leaves it alone,
// and the Apply completes.
func TestRecoverLeavesLiveChange(t *testing.T) {
	r, dir, _ := setup(t)
	var recs []Recovery
	var rerr error
	SetApplyHook(func(done int) {
		if done == 1 {
			recs, rerr = Recover()
		}
	})
	defer SetApplyHook(nil)
	if _, err := r.Apply([]Change{{Path: "a/b/f.txt", Content: []byte("g")}, {Path: "new.txt", Content: []byte("n")}}); err != nil {
		t.Fatal(err)
	}
	if rerr != nil || len(recs) != 0 {
		t.Fatalf("Recover during a live change: %v %v", recs, rerr)
	}
	requireContent(t, filepath.Join(dir, "a", "b", "f.txt"), "g")
	requireNoJournal(t)
}

// TestRecoverConflict: a file that something else changed after the crash
// is left as it is and named; the others are rolled back and the journal
// (holding that file's original) is kept aside.
func TestRecoverConflict(t *testing.T) {
	dir := crashWorkspace(t)
	crashAt(t, dir, 5)
	mine := filepath.Join(dir, "src", "f003.txt")
	os.WriteFile(mine, []byte("mine"), 0o644)
	recs, err := Recover()
	if err != nil || len(recs) != 1 {
		t.Fatalf("Recover = %v, %v", recs, err)
	}
	rec := recs[0]
	if len(rec.Conflicts) != 1 || rec.Conflicts[0] != "src/f003.txt" || len(rec.RolledBack) != 4 || rec.Kept == "" {
		t.Fatalf("%+v", rec)
	}
	if !strings.Contains(rec.String(), "src/f003.txt") || !strings.Contains(rec.String(), "left as they are") {
		t.Errorf("message: %s", rec)
	}
	requireContent(t, filepath.Join(dir, "src", "f000.txt"), oldContent(0))
	requireContent(t, mine, "mine")
	if _, err := os.Stat(rec.Kept); err != nil {
		t.Errorf("kept journal: %v", err)
	}
	requireRecoveredOnce(t)
	os.Remove(rec.Kept)
}

// TestRecoverDamagedJournal: a journal that fails its checksum is not acted
// on; it is set aside and reported once.
func TestRecoverDamagedJournal(t *testing.T) {
	jdir, _ := JournalDir()
	os.MkdirAll(jdir, 0o700)
	p := filepath.Join(jdir, "0123.journal")
	os.WriteFile(p, []byte(journalMagic+`{"root":"/","entries":[{"path":"etc/passwd","existed":true,"size":1}]}`+"\nx\nend 00\n"), 0o600)
	recs, err := Recover()
	if err != nil || len(recs) != 1 || recs[0].Err == nil || !strings.Contains(recs[0].String(), "could not be recovered") {
		t.Fatalf("Recover = %v, %v", recs, err)
	}
	requireRecoveredOnce(t)
	os.Remove(recs[0].Kept)
}

// TestApplyLargeChange: a change of 200 files (16 MiB of originals) is
// journaled and applied whole, and leaves no journal.
func TestApplyLargeChange(t *testing.T) {
	r, dir, _ := setup(t)
	old := strings.Repeat("o", 80<<10)
	var cs []Change
	for i := range 200 {
		name := filepath.Join("big", strconv.Itoa(i%10), strconv.Itoa(i))
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(old), 0o644)
		cs = append(cs, Change{Path: name, Content: []byte("n" + strconv.Itoa(i)), Expected: []byte(old)})
	}
	got, err := r.Apply(cs)
	if err != nil || len(got) != len(cs) {
		t.Fatalf("Apply: %d, %v", len(got), err)
	}
	requireContent(t, filepath.Join(dir, "big", "9", "199"), "n199")
	requireNoJournal(t)
}

// TestRecoverRootGone: the journal of a change whose working directory was
// removed since is set aside and reported once, not at every start.
func TestRecoverRootGone(t *testing.T) {
	dir := crashWorkspace(t)
	crashAt(t, dir, 3)
	os.RemoveAll(dir)
	recs, err := Recover()
	if err != nil || len(recs) != 1 || !errors.Is(recs[0].Err, errRootGone) || !strings.HasSuffix(recs[0].Kept, ".kept") {
		t.Fatalf("Recover = %+v, %v", recs, err)
	}
	requireRecoveredOnce(t)
	os.Remove(recs[0].Kept)
}

// TestRecoverBetweenCreateAndLock: another process's Recover that removes a
// journal in the moment between its create and its lock (unlocked, so it
// looks unfinished) does not fail the change: the journal is made again.
func TestRecoverBetweenCreateAndLock(t *testing.T) {
	r, dir, _ := setup(t)
	var rerr error
	removed := 0
	testHookCreated = func() {
		if removed < 2 {
			removed++
			_, rerr = Recover()
		}
	}
	defer func() { testHookCreated = nil }()
	if _, err := r.Apply([]Change{{Path: "a/b/f.txt", Content: []byte("g")}, {Path: "new.txt", Content: []byte("n")}}); err != nil {
		t.Fatalf("a change whose journal was removed before its lock: %v", err)
	}
	if rerr != nil || removed != 2 {
		t.Fatalf("Recover ran %d times: %v", removed, rerr)
	}
	requireContent(t, filepath.Join(dir, "a", "b", "f.txt"), "g")
	requireContent(t, filepath.Join(dir, "new.txt"), "n")
	requireNoJournal(t)
}
