package enginebench

import "bufio"
import "bytes"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "sync"
import "syscall"
import "time"

import "github.com/tetherhq/tether/internal/proc"

// Engine is one way of answering the suite's patterns: one process a
// pattern (one), or one process for them all (batch).
type Engine struct {
	// Name labels the engine's column ("ast-grep", "tether, warm tier").
	Name string `json:"name"`
	// Family is the program: tether, ast-grep, semgrep or comby.
	Family  string `json:"family"`
	Version string `json:"version,omitempty"`
	// Path is the executable run.
	Path string `json:"path"`

	one func(ctx context.Context, pattern string) (Sample, error)
	// batch: errs[i] says why pattern i has no answer; err, why none has
	batch func(ctx context.Context, patterns []string) (samples []Sample, errs []error, err error)
	// translate gives the engine's form of a pattern; false: it has none
	// (the cell says so rather than run something else)
	translate func(pattern string) (string, bool)
}

// Config says what to run where.
type Config struct {
	// Corpus is the directory searched; Label names it in the report
	// (default Corpus): a path that says nothing of the machine, such as
	// "$(go env GOROOT)/src".
	Corpus, Label string
	// Language is the suite's language, as tether and ast-grep name it.
	Language string
	// Threads is each engine's thread count where it takes one.
	Threads int
	// Tether is tether's own binary; TetherVersion its version.
	Tether, TetherVersion string
	// Cache is a private directory for tether's caches (XDG_CACHE_HOME):
	// the empty-tier engine's and the warm engine's trees live apart below
	// it, and wazero's compiled grammars in both.
	Cache string
}

// tetherSearchArgs are the arguments of one tether search.
func (c Config) tetherSearchArgs(pattern string, extra ...string) []string {
	args := []string{"ast-grep", "-p", pattern, "-l", c.Language, "-j", strconv.Itoa(c.Threads), "--json=stream"}
	return append(append(args, extra...), c.Corpus)
}

// TetherEngines are tether's four: an empty disk tier (its trees removed
// before every run; the compiled grammars stay), --no-cache, a warm tier (the
// trees the warm-up round wrote), and one process answering every pattern in
// turn, as a session does (`tether bench -one-process`).
func TetherEngines(c Config) []Engine {
	emptyHome := filepath.Join(c.Cache, "empty")
	warmHome := filepath.Join(c.Cache, "warm")
	mk := func(name string, home string, clear bool, extra ...string) Engine {
		return Engine{Name: name, Family: "tether", Version: c.TetherVersion, Path: c.Tether,
			one: func(ctx context.Context, p string) (Sample, error) {
				if clear {
					if err := os.RemoveAll(filepath.Join(home, "tether", "trees")); err != nil {
						return Sample{}, err
					}
				}
				return runProc(ctx, []string{"XDG_CACHE_HOME=" + home}, nil, countLines, []int{1}, c.Tether, c.tetherSearchArgs(p, extra...)...)
			}}
	}
	batch := Engine{Name: "tether, one process", Family: "tether", Version: c.TetherVersion, Path: c.Tether,
		batch: func(ctx context.Context, pats []string) ([]Sample, []error, error) {
			return runOneProcess(ctx, c, emptyHome, pats)
		}}
	return []Engine{
		mk("tether, empty tier", emptyHome, true),
		mk("tether --no-cache", emptyHome, false, "--no-cache"),
		mk("tether, warm tier", warmHome, false),
		batch,
	}
}

// OneProcessRequest is what `tether bench -one-process` reads on stdin.
type OneProcessRequest struct {
	Patterns []string `json:"patterns"`
}

// OneProcessLine is one line `tether bench -one-process` writes: a pattern's
// answer, measured inside the process (CPU from its own rusage, RSS its
// peak so far), or Error.
type OneProcessLine struct {
	Index  int    `json:"index"`
	Sample Sample `json:"sample"`
	Error  string `json:"error,omitempty"`
}

func runOneProcess(ctx context.Context, c Config, home string, pats []string) ([]Sample, []error, error) {
	req, err := json.Marshal(OneProcessRequest{Patterns: pats})
	if err != nil {
		return nil, nil, err
	}
	samples := make([]Sample, len(pats))
	errs := make([]error, len(pats))
	seen := 0
	read := func(r io.Reader) (int, error) {
		dec := json.NewDecoder(r)
		for {
			var l OneProcessLine
			if err := dec.Decode(&l); err == io.EOF {
				return seen, nil
			} else if err != nil {
				return seen, fmt.Errorf("reading tether bench -one-process: %w", err)
			}
			if l.Index < 0 || l.Index >= len(pats) {
				return seen, fmt.Errorf("tether bench -one-process answered pattern %d of %d", l.Index, len(pats))
			}
			if l.Error != "" {
				errs[l.Index] = errors.New(l.Error)
			}
			samples[l.Index] = l.Sample
			seen++
		}
	}
	args := []string{"bench", "-one-process", "-l", c.Language, "-j", strconv.Itoa(c.Threads), c.Corpus}
	if _, err := runProc(ctx, []string{"XDG_CACHE_HOME=" + home}, req, read, nil, c.Tether, args...); err != nil {
		return nil, nil, err
	}
	if seen != len(pats) {
		return nil, nil, fmt.Errorf("tether bench -one-process answered %d of %d patterns", seen, len(pats))
	}
	return samples, errs, nil
}

// AstGrep is ast-grep's engine (its `run` command, the same flags as tether's).
func AstGrep(ctx context.Context, c Config, path string) Engine {
	return Engine{Name: "ast-grep", Family: "ast-grep", Version: version(ctx, path), Path: path,
		one: func(ctx context.Context, p string) (Sample, error) {
			args := []string{"run", "-p", p, "-l", c.Language, "-j", strconv.Itoa(c.Threads), "--json=stream", c.Corpus}
			return runProc(ctx, nil, nil, countLines, []int{1}, path, args...)
		}}
}

// metaVar matches ast-grep's metavariables: $$$NAME, $$$, $NAME, $_.
var metaVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\$\$[A-Z0-9_]*|\$[A-Z_][A-Z0-9_]*`) })

// SemgrepPattern translates an ast-grep pattern to semgrep's: $$$ and
// $$$NAME become `...` (semgrep names no multi-node captures); $NAME stays.
func SemgrepPattern(p string) (string, bool) {
	return metaVar().ReplaceAllStringFunc(p, func(m string) string {
		if strings.HasPrefix(m, "$$$") {
			return "..."
		}
		if m == "$_" {
			return "$_X"
		}
		return m
	}), true
}

// semgrepLang maps tether's language names to semgrep's where they differ.
var semgrepLang = map[string]string{"typescript": "ts", "javascript": "js", "python": "py"}

// Semgrep is semgrep's engine (`semgrep scan -e`); not run in tether's own
// tests, where semgrep cannot be installed.
func Semgrep(ctx context.Context, c Config, path string) Engine {
	lang := c.Language
	if l, ok := semgrepLang[lang]; ok {
		lang = l
	}
	return Engine{Name: "semgrep", Family: "semgrep", Version: version(ctx, path), Path: path, translate: SemgrepPattern,
		one: func(ctx context.Context, p string) (Sample, error) {
			args := []string{"scan", "--metrics=off", "--quiet", "--json", "-j", strconv.Itoa(c.Threads), "--lang", lang, "-e", p, c.Corpus}
			return runProc(ctx, nil, nil, countJSONField("results"), nil, path, args...)
		}}
}

// CombyPattern translates an ast-grep pattern to comby's holes: $NAME
// becomes :[NAME], $$$NAME :[NAME] too (comby's holes match sequences), $$$
// and $_ anonymous holes. Comby matches balanced text, not syntax nodes, so
// its counts are expected to differ.
func CombyPattern(p string) (string, bool) {
	n := 0
	return metaVar().ReplaceAllStringFunc(p, func(m string) string {
		name := strings.TrimLeft(m, "$")
		if name == "" || name == "_" {
			n++
			name = fmt.Sprintf("_anon%d", n)
		}
		return ":[" + name + "]"
	}), true
}

// combyExt maps tether's language names to the file extension comby's
// -matcher and -extensions take.
var combyExt = map[string]string{"go": ".go", "python": ".py", "typescript": ".ts", "javascript": ".js", "rust": ".rs", "c": ".c", "java": ".java"}

// Comby is comby's engine; not run in tether's own tests, where comby
// cannot be installed.
func Comby(ctx context.Context, c Config, path string) Engine {
	ext := combyExt[c.Language]
	return Engine{Name: "comby", Family: "comby", Version: version(ctx, path), Path: path, translate: CombyPattern,
		one: func(ctx context.Context, p string) (Sample, error) {
			if ext == "" {
				return Sample{}, fmt.Errorf("comby: no matcher for %s here", c.Language)
			}
			args := []string{p, "", "-matcher", ext, "-extensions", ext, "-d", c.Corpus, "-json-lines", "-match-only", "-jobs", strconv.Itoa(c.Threads)}
			return runProc(ctx, nil, nil, countJSONField("matches"), nil, path, args...)
		}}
}

// OtherEngines finds the other engines on PATH: ast-grep (or sg), semgrep
// and comby. astGrep, when set, is ast-grep's path.
func OtherEngines(ctx context.Context, c Config, astGrep string) []Engine {
	var out []Engine
	if astGrep == "" {
		astGrep = lookPath("ast-grep")
	}
	if astGrep != "" {
		out = append(out, AstGrep(ctx, c, astGrep))
	}
	if p := lookPath("semgrep"); p != "" {
		out = append(out, Semgrep(ctx, c, p))
	}
	if p := lookPath("comby"); p != "" {
		out = append(out, Comby(ctx, c, p))
	}
	return out
}

func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// Sample is one run's measurements.
type Sample struct {
	Wall time.Duration `json:"wall_ns"`
	CPU  time.Duration `json:"cpu_ns"`
	// RSS is the peak resident set in bytes (the process's, or for a
	// pattern of the one-process engine the process's peak so far)
	RSS     int64 `json:"rss_bytes"`
	Matches int   `json:"matches"`
}

// counter reads an engine's whole output and returns how many matches it
// holds.
type counter func(io.Reader) (int, error)

// countLines counts the non-empty lines of a one-match-a-line output (ast-grep's
// and tether's --json=stream), however long a line is.
func countLines(r io.Reader) (int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	n, blank := 0, true
	for {
		chunk, err := br.ReadSlice('\n')
		if len(bytes.TrimSpace(chunk)) > 0 {
			blank = false
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(chunk) > 0 && !blank {
			n++
		}
		blank = true
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// countJSONField decodes a stream of JSON values and adds the lengths of
// the array field in each (semgrep's one document with "results", comby's
// one line per file with "matches").
func countJSONField(field string) counter {
	return func(r io.Reader) (int, error) {
		dec := json.NewDecoder(r)
		n := 0
		for {
			var v map[string]json.RawMessage
			if err := dec.Decode(&v); err == io.EOF {
				return n, nil
			} else if err != nil {
				return n, fmt.Errorf("reading the engine's JSON: %w", err)
			}
			var items []json.RawMessage
			if raw, ok := v[field]; ok {
				if err := json.Unmarshal(raw, &items); err != nil {
					return n, fmt.Errorf("reading the engine's JSON: %q is not an array: %w", field, err)
				}
			}
			n += len(items)
		}
	}
}

// stderrKeep is how much of a failed run's stderr an error quotes.
const stderrKeep = 2 << 10

// runProc runs one engine process with extra environment, feeding it stdin
// (nil: none), and counts its output with count while it runs. okExit lists
// exit codes other than 0 that mean success (ast-grep's 1: no match).
func runProc(ctx context.Context, env []string, stdin []byte, count counter, okExit []int, name string, args ...string) (Sample, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var errb tailBuffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Sample{}, err
	}
	t := time.Now()
	if err := proc.Start(cmd); err != nil {
		return Sample{}, fmt.Errorf("%s: %w", name, err)
	}
	n, cerr := count(out)
	_, _ = io.Copy(io.Discard, out) // a counter that stopped early must not block the engine
	werr := cmd.Wait()
	s := Sample{Wall: time.Since(t), Matches: n}
	if ps := cmd.ProcessState; ps != nil {
		s.CPU = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			s.RSS = int64(ru.Maxrss) * 1024
		}
	}
	if ee := (*exec.ExitError)(nil); errors.As(werr, &ee) {
		for _, c := range okExit {
			if ee.ExitCode() == c {
				werr = nil
			}
		}
	}
	if werr != nil {
		return s, fmt.Errorf("%s: %v: %s", filepath.Base(name), werr, strings.TrimSpace(errb.String()))
	}
	if cerr != nil {
		return s, fmt.Errorf("%s: %w", name, cerr)
	}
	return s, nil
}

// tailBuffer keeps the last stderrKeep bytes written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > stderrKeep {
		t.b = append(t.b[:0], t.b[len(t.b)-stderrKeep:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// version runs NAME --version and returns its first line ("" when it fails).
func version(ctx context.Context, name string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, "--version")
	cmd.Stdout = &out
	if err := proc.Run(cmd); err != nil {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	return first
}
