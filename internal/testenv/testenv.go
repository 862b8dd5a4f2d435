package testenv

import "bytes"
import "fmt"
import "io"
import "io/fs"
import "os"
import "os/exec"
import "path/filepath"
import "runtime"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/proc"

// RequirePeers reports whether missing peers must fail tests instead of skipping them.
func RequirePeers() bool { return os.Getenv("TETHER_REQUIRE_PEERS") == "1" }

// Missing fails (under TETHER_REQUIRE_PEERS=1) or skips the test, saying what is
// missing and how to install it.
func Missing(t testing.TB, what string) {
	t.Helper()
	msg := what + " is not available; run scripts/install-deps.sh (make test does)"
	if RequirePeers() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// LookPath finds a binary on PATH, in GOPATH/bin, or in the project's npm
// prefix (.deps/npm/node_modules/.bin). It returns "" when none has it.
func LookPath(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range ExtraPath() {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// RequireBinary returns the path of the named binary or fails/skips the test.
func RequireBinary(t testing.TB, name string) string {
	t.Helper()
	p := LookPath(name)
	if p == "" {
		Missing(t, name)
	}
	return p
}

// ExtraPath lists the directories where the install script puts peers that are
// not on a default PATH.
func ExtraPath() []string {
	dirs := proc.GoBinDirs()
	if root := RepoRoot(); root != "" {
		dirs = append(dirs, filepath.Join(root, ".deps", "npm", "node_modules", ".bin"))
	}
	return dirs
}

// RepoRoot returns the repository's root directory (where go.mod is).
func RepoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// BuildTether builds the cgo-free tether binary, as `make build` does, into
// a directory of the test's own and returns its path.
func BuildTether(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "tether")
	build := exec.Command("go", "build", "-o", bin, "./cmd/tether")
	build.Dir = RepoRoot()
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	var out bytes.Buffer
	build.Stdout, build.Stderr = &out, &out
	if err := proc.Run(build); err != nil {
		tb.Fatalf("go build ./cmd/tether: %v\n%s", err, out.Bytes())
	}
	return bin
}

// StartPiped starts cmd with a pipe to its stdin and one from its stdout,
// failing t when it cannot.
func StartPiped(t testing.TB, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	return in, StartReading(t, cmd)
}

// StartReading starts cmd (through proc, as tether starts every process)
// with a pipe from its stdout, failing t when it cannot.
func StartReading(t testing.TB, cmd *exec.Cmd) io.ReadCloser {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Start(cmd); err != nil {
		t.Fatal(err)
	}
	return out
}

// WithPeersOnPath returns os.Environ() with ExtraPath prepended to PATH, for
// starting peers from tests.
func WithPeersOnPath() []string {
	env := os.Environ()
	path := os.Getenv("PATH")
	for _, d := range ExtraPath() {
		path = d + string(os.PathListSeparator) + path
	}
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) >= 5 && kv[:5] == "PATH=" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+path)
}

// FuzzInputBound is how long one fuzz input may take before Bounded calls it
// pathological. It is generous (a loaded 2-core CI machine runs each corpus
// input in milliseconds): it catches inputs that make work grow without bound,
// not slow machines.
const FuzzInputBound = 20 * time.Second

// Bounded runs fn on the calling goroutine (so fn may call t.Fatal) and ends
// the test process with a panic naming what and the bound if fn has not
// returned within FuzzInputBound: a fuzz target's per-input time bound, so an
// input that makes a parser or matcher loop or blow up is a recorded crasher
// instead of a hung fuzzer.
func Bounded(t testing.TB, what string, fn func()) {
	t.Helper()
	timer := time.AfterFunc(FuzzInputBound, func() {
		panic(fmt.Sprintf("%s: %s took longer than %s on this input: work that grows without bound", t.Name(), what, FuzzInputBound))
	})
	defer timer.Stop()
	fn()
}

// WriteFiles writes files (slash-separated relative path to content) under
// dir, creating directories as needed.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ReadText returns the text of the file at path, failing t when it cannot
// be read.
func ReadText(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FileText returns the text of the file at path or, when it cannot be
// read, the error in angle brackets in its place: a test compares it with
// the text it wants, and a missing file is a mismatch that shows why.
func FileText(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// WriteTimedAs writes body to the file dst and sets its modification time
// to the one from had before the write (dst and from may be one file):
// with the size unchanged, a change that a stat does not show.
func WriteTimedAs(t testing.TB, dst, from, body string) {
	t.Helper()
	fi, err := os.Stat(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(dst, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// Workspace makes a new temporary directory holding files (see WriteFiles)
// and returns its path with symbolic links resolved, so that the paths a peer
// reports compare equal to it.
func Workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	WriteFiles(t, dir, files)
	return dir
}

// Siblings makes directories named names side by side in a new temporary
// directory and returns their paths, in order.
func Siblings(t testing.TB, names ...string) []string {
	t.Helper()
	base := t.TempDir()
	dirs := make([]string, len(names))
	for i, n := range names {
		dirs[i] = filepath.Join(base, n)
		if err := os.Mkdir(dirs[i], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}

// LSPProject copies the sample project testdata/lsp/name into a new
// temporary directory (tests change its files) and returns that directory,
// its symbolic links resolved (see Workspace).
func LSPProject(t testing.TB, name string) string {
	t.Helper()
	dst := Workspace(t, nil)
	CopyTree(t, filepath.Join(RepoRoot(), "testdata", "lsp", name), dst)
	return dst
}

// CopyTree copies the directories and files under from into to (created
// as needed), failing t when it cannot.
func CopyTree(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ManyArgs is Go source with one call of n arguments, the last two y and
// x: with f($$$A, $$$A, $$$A, y, x) a matcher tries every pair of splits,
// the pathological case the matchers' budgets are for.
func ManyArgs(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\nvar _ = f(")
	for i := 0; i < n-2; i++ {
		fmt.Fprintf(&b, "a%d, ", i)
	}
	b.WriteString("y, x)\n")
	return b.String()
}
