package main

import "context"
import "encoding/json"
import "flag"
import "fmt"
import "io"
import "os"
import "path/filepath"
import "runtime"
import "runtime/debug"
import "strings"
import "syscall"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/enginebench"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

func init() {
	register("bench", "compare tether's structural search with the other engines on PATH (ast-grep; semgrep, comby): tether bench [-suite go|python|typescript|rust|FILE] CORPUS", runBench)
}

// benchFlags are tether bench's flags.
type benchFlags struct {
	suite, lang, astGrep, engines, jsonOut, svgOut, label string
	threads, rounds                                       int
	oneProcess                                            bool
	corpus                                                string
}

func (f *benchFlags) parse(args []string, stderr io.Writer) bool {
	fs := flag.NewFlagSet("tether bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.suite, "suite", "go", "the patterns: a built-in suite ("+strings.Join(enginebench.BuiltinSuites(), ", ")+") or a file with one pattern a line (`language: NAME` in it, or -l)")
	fs.StringVar(&f.lang, "l", "", "the suite's language (default the suite's own)")
	fs.IntVar(&f.threads, "j", runtime.NumCPU(), "threads for every engine that takes a number")
	fs.IntVar(&f.rounds, "rounds", 3, fmt.Sprintf("timed rounds after the untimed warm-up, 1 to %d: each runs every pattern by every engine", enginebench.MaxRounds))
	fs.StringVar(&f.astGrep, "ast-grep", "", "ast-grep's executable (default: ast-grep on PATH)")
	fs.StringVar(&f.engines, "engines", "", "run only these engines, comma-separated families: tether, ast-grep, semgrep, comby (default every one found)")
	fs.StringVar(&f.label, "name", "", "how the report names the corpus (default its path, with Go's GOROOT written as $(go env GOROOT))")
	fs.StringVar(&f.jsonOut, "json", "", "write the whole report, every run's measures included, as JSON to this file")
	fs.StringVar(&f.svgOut, "svg", "", "write a chart of the wall times as SVG to this file")
	fs.BoolVar(&f.oneProcess, "one-process", false, "internal: answer the patterns a JSON request on stdin gives, in this one process, a JSON line each")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tether bench [-suite go|python|typescript|rust|FILE] [-l LANG] [-j N] [-rounds N] [-engines LIST] [-json FILE] [-svg FILE] CORPUS")
		fmt.Fprintln(stderr, "Runs each pattern over CORPUS by tether (an empty disk tier, --no-cache, a warm tier, one process for all) and by every other engine found, in alternating order; prints wall time, CPU time, peak RSS and match counts as markdown tables. Exits 0 when every engine answered every pattern, 1 when one did not (the table says why), 2 on bad flags.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return false
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "tether bench: give one corpus directory, such as: tether bench -suite go \"$(go env GOROOT)/src\"")
		return false
	}
	f.corpus = fs.Arg(0)
	if st, err := os.Stat(f.corpus); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "tether bench: %s is not a directory: give the corpus to search\n", f.corpus)
		return false
	}
	if f.threads < 1 {
		fmt.Fprintln(stderr, "tether bench: -j takes 1 or more threads")
		return false
	}
	return true
}

// loadSuite is the built-in suite or the file -suite names.
func (f *benchFlags) loadSuite() (enginebench.Suite, error) {
	if s, ok := enginebench.BuiltinSuite(f.suite); ok {
		if f.lang != "" && f.lang != s.Language {
			return s, fmt.Errorf("the built-in suite %s is %s: drop -l, or give a suite file for %s", f.suite, s.Language, f.lang)
		}
		return s, nil
	}
	r, err := os.Open(f.suite)
	if err != nil {
		return enginebench.Suite{}, fmt.Errorf("-suite %s is neither a built-in suite (%s) nor a readable file: %v", f.suite, strings.Join(enginebench.BuiltinSuites(), ", "), err)
	}
	defer r.Close()
	return enginebench.ReadSuite(r, f.suite, f.lang)
}

func runBench(args []string, stdout, stderr io.Writer) int {
	var f benchFlags
	if !f.parse(args, stderr) {
		return 2
	}
	if f.oneProcess {
		return benchOneProcess(signalCtx, f, os.Stdin, stdout, stderr)
	}
	suite, err := f.loadSuite()
	if err != nil {
		fmt.Fprintln(stderr, "tether bench:", err)
		return 2
	}
	if _, ok := grammars.Lookup(suite.Language); !ok {
		fmt.Fprintf(stderr, "tether bench: no language %q: `tether languages` lists them\n", suite.Language)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "tether bench: cannot find tether's own binary to run:", err)
		return 2
	}
	cache, err := os.MkdirTemp("", "tether-bench-")
	if err != nil {
		fmt.Fprintln(stderr, "tether bench:", err)
		return 2
	}
	defer os.RemoveAll(cache)
	ctx := signalCtx
	c := enginebench.Config{Corpus: f.corpus, Language: suite.Language, Threads: f.threads, Label: corpusLabel(f), Tether: self, TetherVersion: tetherVersion(), Cache: cache}
	engines, err := pickEngines(append(enginebench.TetherEngines(c), enginebench.OtherEngines(ctx, c, f.astGrep)...), f.engines)
	if err != nil {
		fmt.Fprintln(stderr, "tether bench:", err)
		return 2
	}
	rep, err := enginebench.Run(ctx, c, engines, suite, f.rounds, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "tether bench:", err)
		return 2
	}
	fmt.Fprint(stdout, rep.Table())
	if !writeBenchFiles(rep, f, stderr) {
		return 2
	}
	for _, row := range rep.Rows {
		for _, c := range row.Cells {
			if c.Median == nil {
				return 1
			}
		}
	}
	return 0
}

// corpusLabel is -name, else the corpus's path with GOROOT (the usual
// corpus) written as the command that finds it.
func corpusLabel(f benchFlags) string {
	if f.label != "" {
		return f.label
	}
	abs, err := filepath.Abs(f.corpus)
	if err != nil {
		return f.corpus
	}
	if root := runtime.GOROOT(); root != "" {
		if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(filepath.Join("$(go env GOROOT)", rel))
		}
	}
	return abs
}

// pickEngines keeps the engines of the families only lists ("" keeps all).
func pickEngines(all []enginebench.Engine, only string) ([]enginebench.Engine, error) {
	if only == "" {
		return all, nil
	}
	var out []enginebench.Engine
	for _, fam := range strings.Split(only, ",") {
		fam = strings.TrimSpace(fam)
		n := len(out)
		for _, e := range all {
			if e.Family == fam {
				out = append(out, e)
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("-engines: %s is not among the engines found (tether, ast-grep, semgrep, comby: the others must be on PATH)", fam)
		}
	}
	return out, nil
}

func writeBenchFiles(rep *enginebench.Report, f benchFlags, stderr io.Writer) bool {
	if f.jsonOut != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.WriteFile(f.jsonOut, append(b, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "tether bench: the JSON report was not written:", err)
			return false
		}
	}
	if f.svgOut != "" {
		if err := os.WriteFile(f.svgOut, rep.SVG(), 0o644); err != nil {
			fmt.Fprintln(stderr, "tether bench: the chart was not written:", err)
			return false
		}
	}
	return true
}

// tetherVersion is the module version this binary was built from.
func tetherVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return "tether " + bi.Main.Version
	}
	return "tether"
}

// benchOneProcess answers the request's patterns in turn in this process,
// as a session does: the trees the first search parsed stay in memory for
// the next (no disk tier). Each line gives the pattern's wall time, the
// process's CPU time it took and the process's peak RSS so far.
func benchOneProcess(ctx context.Context, f benchFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	var req enginebench.OneProcessRequest
	if err := json.NewDecoder(io.LimitReader(stdin, 16<<20)).Decode(&req); err != nil {
		fmt.Fprintln(stderr, "tether bench -one-process: reading the request on stdin:", err)
		return 2
	}
	e, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		fmt.Fprintln(stderr, "tether bench -one-process:", err)
		return 2
	}
	defer e.Close(ctx)
	store.SharedCache().SetBudget(store.DefaultCacheBudget)
	s := search.NewSearcher(e, search.Config{Workers: f.threads})
	enc := json.NewEncoder(stdout)
	for i, p := range req.Patterns {
		cpu0 := selfCPU()
		t := time.Now()
		res, err := s.Search(ctx, search.Query{Pattern: p, Language: f.lang, Paths: []string{f.corpus}})
		line := enginebench.OneProcessLine{Index: i}
		line.Sample.Wall, line.Sample.CPU = time.Since(t), selfCPU()-cpu0
		line.Sample.RSS = selfPeakRSS()
		if err == nil && len(res.Errors) > 0 {
			err = fmt.Errorf("%d files could not be searched (first: %v)", len(res.Errors), res.Errors[0])
		}
		if err != nil {
			line.Error = err.Error()
		} else {
			line.Sample.Matches = res.Total
		}
		if err := enc.Encode(line); err != nil {
			return 2
		}
		if ctx.Err() != nil {
			return 2
		}
	}
	return 0
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func selfPeakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024
}
