package main

import "context"
import "encoding/json"
import "flag"
import "fmt"
import "log"
import "os"
import "os/exec"
import "path/filepath"
import "runtime"
import "strings"
import "time"

import "github.com/tetherhq/tether/bench/internal/peer"
import "github.com/tetherhq/tether/bench/internal/readme"
import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"

// Patterns is the benchmark's pattern set: common shapes and one rare one.
var Patterns = []string{
	`if err != nil { return $$$ }`,
	`$X.Lock()`,
	`for $I := range $X { $$$ }`,
	`fmt.Errorf($$$ARGS)`,
	`atomic.CompareAndSwapUintptr($$$)`,
}

// Row is one pattern's measurements.
type Row struct {
	Pattern                 string
	AstGrep, Cold, Warm     time.Duration
	AstGrepN, TetherN       int
	Parsed, Prefiltered, Of int
}

func main() {
	log.SetFlags(0)
	corpus := flag.String("corpus", filepath.Join(runtime.GOROOT(), "src"), "directory to search")
	threads := flag.Int("j", runtime.NumCPU(), "threads for both tools")
	tether := flag.String("tether", "bin/tether", "tether binary (make build)")
	readmePath := flag.String("readme", "bench/README.md", "file whose matcher section gets the table (\"\" prints only)")
	session := flag.Bool("session", false, "run the agent-session benchmark (20 patterns: ast-grep processes, tether processes with a cold then warm disk tier, one tether process) instead")
	child := flag.Bool("session-child", false, "internal: answer the session's patterns in this process")
	firstQuery := flag.Duration("first-query", ServeModel.FirstQuery, "with -session-child: when the first query comes after the warm-up starts (negative: no warm-up)")
	whole := flag.Bool("whole", ServeModel.Whole, "with -session-child: parse whole files while the store has room")
	only := flag.String("patterns", "", "with -session-child or -tier: the patterns, one a line (default the session's 20, or the tier benchmark's 4)")
	tierBench := flag.Bool("tier", false, "run the disk tier benchmark (tether with an empty disk tier, with --no-cache, and ast-grep, in turn: the corpus with 4 patterns, then one small file) instead")
	rounds := flag.Int("rounds", 5, "with -tier: rounds over the corpus (the one-file search runs 6 times as many)")
	oneOnly := flag.Bool("one", false, "with -tier: only the one-file search (-rounds times; its table is printed, the README left alone)")
	flag.Parse()
	if *child {
		pats := SessionPatterns
		if *only != "" {
			pats = strings.Split(strings.TrimSpace(*only), "\n")
		}
		if err := sessionChild(*corpus, *threads, pats, SessionModel{FirstQuery: *firstQuery, Whole: *whole}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ag := testenv.LookPath("ast-grep")
	if ag == "" {
		log.Fatal("astgrep bench: ast-grep not found; run scripts/install-deps.sh")
	}
	if *session {
		runSession(ag, *tether, *corpus, *threads, *readmePath)
		return
	}
	if *tierBench && *oneOnly {
		table, err := runOneFile(ag, *tether, *threads, *rounds)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(table)
		return
	}
	if *tierBench {
		pats := TierPatterns
		if *only != "" {
			pats = strings.Split(strings.TrimSpace(*only), "\n")
		}
		if err := runTier(ag, *tether, *corpus, pats, *threads, *rounds, 6**rounds, *readmePath); err != nil {
			log.Fatal(err)
		}
		return
	}
	rows, err := Run(context.Background(), ag, *tether, *corpus, *threads, Patterns)
	if err != nil {
		log.Fatal(err)
	}
	table := Table(rows, *corpus, *threads)
	fmt.Print(table)
	if *readmePath != "" {
		if err := WriteSection(*readmePath, table); err != nil {
			log.Fatal(err)
		}
	}
}

// timed runs a command and returns its wall time and stdout.
func timed(name string, args ...string) (time.Duration, []byte, error) {
	t, out, err := peer.Run(exec.Command(name, args...))
	return t.Wall, out, err
}

func count(js []byte) int {
	var v []json.RawMessage
	if json.Unmarshal(js, &v) != nil {
		return -1
	}
	return len(v)
}

// Run measures every pattern: ast-grep and tether cold (new processes), then
// tether warm (each query twice in one process, the second timed).
func Run(ctx context.Context, ag, tether, corpus string, threads int, patterns []string) ([]Row, error) {
	j := fmt.Sprint(threads)
	// warm the OS file cache and tether's wasm compilation cache
	if _, _, err := timed(tether, "ast-grep", "-p", "package $P", "-l", "go", "-j", j, "--json", corpus); err != nil {
		return nil, err
	}
	if _, _, err := timed(ag, "run", "-p", "package $P", "-l", "go", "-j", j, "--json=compact", corpus); err != nil {
		return nil, err
	}
	var rows []Row
	for _, p := range patterns {
		r := Row{Pattern: p}
		d, out, err := timed(ag, "run", "-p", p, "-l", "go", "-j", j, "--json=compact", corpus)
		if err != nil {
			return nil, err
		}
		r.AstGrep, r.AstGrepN = d, count(out)
		d, out, err = timed(tether, "ast-grep", "-p", p, "-l", "go", "-j", j, "--json", corpus)
		if err != nil {
			return nil, err
		}
		r.Cold, r.TetherN = d, count(out)
		rows = append(rows, r)
	}
	e, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		return nil, err
	}
	defer e.Close(ctx)
	s := search.NewSearcher(e, search.Config{Workers: threads})
	for i := range rows {
		q := search.Query{Pattern: rows[i].Pattern, Language: "go", Paths: []string{corpus}}
		if _, err := s.Search(ctx, q); err != nil {
			return nil, err
		}
		t := time.Now()
		res, err := s.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		rows[i].Warm = time.Since(t)
		rows[i].Parsed, rows[i].Prefiltered, rows[i].Of = res.Parsed, res.Prefiltered, res.Searched
	}
	return rows, nil
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// Table renders the rows as the README's markdown table.
func Table(rows []Row, corpus string, threads int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Corpus: Go %s standard library (`%s`), %d threads for both tools, measured in one run on %s (%d cores), %s.\n\n",
		runtime.Version(), "$(go env GOROOT)/src", threads, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"))
	b.WriteString("| pattern | ast-grep 0.51.1 | tether cold | ratio cold | tether warm | ratio warm | matches ast-grep / tether | files parsed / prefiltered out / searched |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %.1fx | %s | %.0fx | %d / %d | %d / %d / %d |\n",
			strings.ReplaceAll(r.Pattern, "|", `\|`), secs(r.AstGrep), secs(r.Cold), r.AstGrep.Seconds()/r.Cold.Seconds(),
			fmt.Sprintf("%.3f s", r.Warm.Seconds()), r.AstGrep.Seconds()/r.Warm.Seconds(), r.AstGrepN, r.TetherN, r.Parsed, r.Prefiltered, r.Of)
	}
	b.WriteString("\nratio = ast-grep time / tether time (higher is better for tether). Match counts differ where ast-grep 0.51.1 misses matches: see matcher/README.md, \"Differences from ast-grep\".\n")
	_ = corpus
	return b.String()
}

const (
	beginMark = "<!-- matcher-bench:begin -->"
	endMark   = "<!-- matcher-bench:end -->"
)

// WriteSection puts table into path between the matcher markers, adding the
// section (with its heading) at the end when the file has none.
func WriteSection(path, table string) error {
	return readme.WriteSection(path, beginMark, endMark, "## Structural search vs ast-grep\n\n`go run ./bench/astgrep` (after `make build`) regenerates this table.\n\n", table)
}

func runSession(ag, tether, corpus string, threads int, readmePath string) {
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	cache, err := os.MkdirTemp("", "tether-bench-cache-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(cache)
	load, _ := os.ReadFile("/proc/loadavg")
	rows, agTotal, sess, noHead, err := Session(ag, tether, self, corpus, threads, cache)
	if err != nil {
		log.Fatal(err)
	}
	// the rows took minutes: a floor that cannot be measured leaves its
	// columns empty rather than losing them
	if floor, err := Floor(context.Background(), corpus, threads, SessionPatterns, filepath.Join(cache, "tether", "trees")); err != nil {
		log.Printf("astgrep bench: the session's floor was not measured, its columns are left empty: %v", err)
	} else {
		for i := range rows {
			rows[i].Floor = &floor[i]
		}
	}
	table := SessionTable(rows, agTotal, sess, threads, strings.Join(strings.Fields(string(load))[:3], " ")) +
		"\n" + NoHeadTable(rows, noHead)
	fmt.Print(table)
	if readmePath != "" {
		if err := readme.WriteSection(readmePath, "<!-- session-bench:begin -->", "<!-- session-bench:end -->", "## Agent session: 20 different queries\n\n`go run ./bench/astgrep -session` (after `make build`) regenerates this table.\n\n", table); err != nil {
			log.Fatal(err)
		}
	}
}
