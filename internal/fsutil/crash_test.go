package fsutil

import "bufio"
import "errors"
import "fmt"
import "io/fs"
import "math/rand/v2"
import "os"
import "os/exec"
import "path/filepath"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

// The crash child: FSUTIL_CRASH_DIR names the working directory it applies
// crashChange to; FSUTIL_CRASH_AFTER=N kills itself with SIGKILL once N files
// are changed (0: right after the journal is written, crashFiles: after the
// last file, before the journal is removed); -1 slows each file down instead
// and prints "step N" lines, for the parent to kill it at a moment of its own.
const (
	crashDirEnv   = "FSUTIL_CRASH_DIR"
	crashAfterEnv = "FSUTIL_CRASH_AFTER"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashChild(dir)
		os.Exit(3) // not reached when the child kills itself
	}
	// Every test's journals go to a cache directory of its own, so that
	// Recover here never meets another program's journal.
	cache, err := os.MkdirTemp("", "fsutil-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}

const crashFiles = 150

// crashWorkspace makes a new directory holding the files crashChange
// changes: 120 to modify (one executable), 10 to delete; 20 are created,
// some in new directories.
func crashWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 130 {
		p := filepath.Join(dir, "src", fmt.Sprintf("f%03d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		mode := fs.FileMode(0o644)
		if i == 7 {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(oldContent(i)), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	return dir
}

func oldContent(i int) string { return fmt.Sprintf("old %d\n", i) }
func newContent(i int) string { return strings.Repeat(fmt.Sprintf("new content %d\n", i), i%5+1) }

func crashChange() []Change {
	var cs []Change
	for i := range 120 {
		cs = append(cs, Change{Path: fmt.Sprintf("src/f%03d.txt", i), Content: []byte(newContent(i)), Expected: []byte(oldContent(i))})
	}
	for i := 120; i < 130; i++ {
		cs = append(cs, Change{Path: fmt.Sprintf("src/f%03d.txt", i), Delete: true})
	}
	for i := 130; i < crashFiles; i++ {
		cs = append(cs, Change{Path: fmt.Sprintf("gen/d%d/f%03d.txt", i%3, i), Content: []byte(newContent(i)), MustNotExist: true})
	}
	return cs
}

// crashSingle as FSUTIL_CRASH_AFTER makes the child write src/f000.txt alone
// and kill itself once the temporary file is written, before the rename.
const crashSingle = -2

func crashChild(dir string) {
	after, _ := strconv.Atoi(os.Getenv(crashAfterEnv))
	if after == crashSingle {
		testHookBeforeRename = func(string) {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
		r, err := NewRoot(dir)
		if err == nil {
			_, err = r.Apply([]Change{{Path: "src/f000.txt", Content: []byte("new")}})
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	SetApplyHook(func(done int) {
		switch {
		case after < 0:
			fmt.Printf("step %d\n", done)
			time.Sleep(time.Millisecond)
		case done == after:
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	})
	r, err := NewRoot(dir)
	if err == nil {
		_, err = r.Apply(crashChange())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// checkAllOrNone fails unless every file of crashChange is as before the
// change, or every file as after it, and no temporary file is left.
func checkAllOrNone(t *testing.T, dir string) (isNew bool) {
	t.Helper()
	cs := crashChange()
	var olds, news []string
	for i, c := range cs {
		b, err := os.ReadFile(filepath.Join(dir, c.Path))
		exists := err == nil
		isOld := exists && string(b) == oldContent(i) || !exists && c.MustNotExist
		isNew := c.Delete && !exists || !c.Delete && exists && string(b) == newContent(i)
		switch {
		case isOld:
			olds = append(olds, c.Path)
		case isNew:
			news = append(news, c.Path)
		default:
			t.Errorf("%s is neither old nor new: %q (%v)", c.Path, b, err)
		}
	}
	if len(olds) > 0 && len(news) > 0 {
		t.Errorf("half a change: %d files old, %d new (new: %s)", len(olds), len(news), listShort(news))
	}
	if fi, err := os.Stat(filepath.Join(dir, "src", "f007.txt")); err == nil && fi.Mode().Perm() != 0o755 {
		t.Errorf("f007.txt has mode %v, want 0755", fi.Mode().Perm())
	}
	if len(news) == 0 {
		if _, err := os.Stat(filepath.Join(dir, "gen")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the directories the change created are left after a roll back: %v", err)
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tether-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
	return len(news) > 0
}

// runCrashChild runs the crash child on dir (see crashAfterEnv), calls kill
// (when not nil) with it and its step lines, waits for it and reports whether
// a signal ended it.
func runCrashChild(t *testing.T, dir string, after int, kill func(cmd *exec.Cmd, steps *bufio.Scanner)) bool {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashAfterEnv+"="+strconv.Itoa(after))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	if kill != nil {
		kill(cmd, sc)
	}
	for sc.Scan() {
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	killed := errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled()
	if (after >= 0 || after == crashSingle) && !killed {
		t.Fatalf("the child was not killed: %v", err)
	}
	return killed
}

// crashAt leaves dir as a process killed after changing after files of
// crashChange leaves it.
func crashAt(t *testing.T, dir string, after int) {
	t.Helper()
	runCrashChild(t, dir, after, nil)
}

// requireRecoveredOnce requires a second Recover to find nothing: a journal
// is acted on, or set aside and reported, once.
func requireRecoveredOnce(t *testing.T) {
	t.Helper()
	if again, _ := Recover(); len(again) > 0 {
		t.Errorf("a second Recover found %v", again)
	}
}

// requireContent requires the file at path to hold want.
func requireContent(t *testing.T, path, want string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("%s holds %q (%v), want %q", path, b, err, want)
	}
}

// requireNoJournal requires the journal directory to be empty.
func requireNoJournal(t *testing.T) {
	t.Helper()
	if names := journalFiles(t); len(names) > 0 {
		t.Errorf("journal left: %v", names)
	}
}

func journalFiles(t *testing.T) []string {
	t.Helper()
	dir, err := JournalDir()
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestApplyCrash kills a process applying a 150-file change at many points
// (SIGKILL: no deferred code runs), then runs Recover as the next start
// would: every file is then either as before the change or as after it,
// never a mix, and no temporary file or journal is left.
func TestApplyCrash(t *testing.T) {
	run := func(t *testing.T, after int, kill func(cmd *exec.Cmd, steps *bufio.Scanner)) {
		dir := crashWorkspace(t)
		killed := runCrashChild(t, dir, after, kill)
		recs, err := Recover()
		if err != nil {
			t.Fatal(err)
		}
		isNew := checkAllOrNone(t, dir)
		if killed && after > 0 && after < crashFiles {
			// Cut short after some files: the journal must have been found.
			if len(recs) != 1 || recs[0].Completed || len(recs[0].RolledBack) != after || recs[0].Err != nil {
				t.Errorf("Recover = %+v, want one roll back of %d files", recs, after)
			} else if !strings.Contains(recs[0].String(), "rolled back") {
				t.Errorf("message %q", recs[0])
			}
			if isNew {
				t.Error("rolled forward")
			}
		}
		if after == crashFiles && (len(recs) != 1 || !recs[0].Completed || !isNew) {
			t.Errorf("killed after the last file: Recover = %+v, new=%v; want the change kept", recs, isNew)
		}
		for _, r := range recs {
			if r.Err != nil || len(r.Conflicts) > 0 {
				t.Errorf("recovery: %s", r)
			}
		}
		requireNoJournal(t)
		requireRecoveredOnce(t)
	}
	for _, after := range []int{0, 1, 2, 75, 121, 149, crashFiles} {
		t.Run(fmt.Sprintf("after %d", after), func(t *testing.T) { run(t, after, nil) })
	}
	// Kills at moments the child does not choose: part way through the
	// files, and (delay 0) possibly before or while the journal is written.
	for k := range 6 {
		t.Run(fmt.Sprintf("timed %d", k), func(t *testing.T) {
			run(t, -1, func(cmd *exec.Cmd, steps *bufio.Scanner) {
				if k == 0 {
					cmd.Process.Kill()
					return
				}
				want := fmt.Sprintf("step %d", rand.IntN(crashFiles))
				for steps.Scan() {
					if steps.Text() == want {
						break
					}
				}
				time.Sleep(time.Duration(rand.IntN(500)) * time.Microsecond)
				cmd.Process.Kill()
			})
		})
	}
}

// TestWriteCrashLeavesNoTemporary: a one-file write killed after writing
// its temporary file, before the rename, leaves the file as it was, and the
// next Recover removes the temporary file.
func TestWriteCrashLeavesNoTemporary(t *testing.T) {
	dir := crashWorkspace(t)
	runCrashChild(t, dir, crashSingle, nil)
	ents, _ := os.ReadDir(filepath.Join(dir, "src"))
	if len(ents) != 131 {
		t.Fatalf("the child left %d files, want the 130 and its temporary file", len(ents))
	}
	recs, err := Recover()
	if err != nil || len(recs) != 1 || recs[0].Temps != 1 || recs[0].Err != nil {
		t.Fatalf("Recover = %+v, %v", recs, err)
	}
	if !strings.Contains(recs[0].String(), "had not changed any file") {
		t.Errorf("message: %s", recs[0])
	}
	checkAllOrNone(t, dir)
	requireNoJournal(t)
}

// TestRecoverUnfinishedJournal: a journal whose writer died before it was
// complete (ID.tmp) is removed without touching any file (none was changed
// before the journal was complete).
func TestRecoverUnfinishedJournal(t *testing.T) {
	jdir, _ := JournalDir()
	os.MkdirAll(jdir, 0o700)
	os.WriteFile(filepath.Join(jdir, "0123.tmp"), []byte(journalMagic+"{"), 0o600)
	recs, err := Recover()
	if err != nil || len(recs) != 0 {
		t.Fatalf("Recover = %v, %v", recs, err)
	}
	requireNoJournal(t)
}
