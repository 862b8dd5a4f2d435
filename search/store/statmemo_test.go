package store

import "crypto/sha256"
import "os"
import "path/filepath"
import "runtime"
import "testing"
import "time"

import "github.com/tetherhq/tether/engine/enginetest"

func mustStat(t *testing.T, p string) os.FileInfo {
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestRecentFileIsNotTrusted: a stamp taken while the file's times are
// within the racy window of the clock is not remembered; the same stamp
// taken later is.
func TestRecentFileIsNotTrusted(t *testing.T) {
	if _, ok := stampOf(mustStat(t, os.Args[0])); !ok {
		t.Skipf("no file stamps on %s: every file is read", runtime.GOOS)
	}
	p := filepath.Join(t.TempDir(), "a.go")
	if err := os.WriteFile(p, []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi := mustStat(t, p)
	var sm statMemo
	key := KeyOf("", enginetest.Language(t, "go"), []byte("package p\n"))
	sm.remember(p, "go", fi, fi.ModTime().Add(racyWindow/2), key)
	stat := func() (os.FileInfo, error) { return fi, nil }
	if _, ok := sm.lookup(p, "go", stat); ok {
		t.Errorf("a stamp taken %v after the file was written is trusted", racyWindow/2)
	}
	sm.remember(p, "go", fi, time.Now().Add(2*racyWindow), key)
	if k, ok := sm.lookup(p, "go", stat); !ok || k != key {
		t.Errorf("a settled stamp is not remembered")
	}
	if _, ok := sm.lookup(p, "c", stat); ok {
		t.Errorf("the stamp is remembered for another language")
	}
}

// TestKeyOfUnchanged: a key is the sha256 of the language's id, its
// module's sha256 and the source, as the disk tier's entries were
// written, so that they stay readable.
func TestKeyOfUnchanged(t *testing.T) {
	goLang := enginetest.Language(t, "go")
	src := []byte("package p\n")
	want := sha256.Sum256([]byte("go\x00" + goLang.Module.SHA256 + "\x00" + string(src)))
	if got := KeyOf("", goLang, src); got != Key(want) {
		t.Errorf("KeyOf = %x, want %x", got, want)
	}
	want = sha256.Sum256([]byte("partition\x00t\x00go\x00" + goLang.Module.SHA256 + "\x00" + string(src)))
	if got := KeyOf("t", goLang, src); got != Key(want) {
		t.Errorf("KeyOf in a partition = %x, want %x", got, want)
	}
}
