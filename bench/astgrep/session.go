package main

import "bytes"
import "context"
import "encoding/json"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "runtime/debug"
import "strings"
import "syscall"
import "time"

import "github.com/tetherhq/tether/bench/internal/peer"
import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// SessionPatterns are an agent session's 20 different queries: rare tokens,
// common tokens and token-free shapes (no word a file must hold, so the
// prefilter rules nothing out).
var SessionPatterns = []string{
	`atomic.CompareAndSwapUintptr($$$)`, `runtime.KeepAlive($X)`, `unsafe.Slice($P, $N)`, `sort.Sort($X)`, `utf8.RuneLen($R)`, `os.Exit($C)`,
	`if err != nil { return $$$ }`, `$X.Lock()`, `for $I := range $X { $$$ }`, `fmt.Errorf($$$ARGS)`, `defer $F()`, `return nil, $E`, `len($X) == 0`, `errors.New($M)`,
	`$X++`, `$X[$I] = $V`, `$A += $B`, `$A <- $B`, `&$T{}`, `$A && $B`,
}

// tokenFree says whether SessionPatterns[i] has no word token (the last six).
func tokenFree(i int) bool { return i >= len(SessionPatterns)-6 }

// Proc is one process's wall time and peak RSS.
type Proc struct {
	Wall time.Duration
	RSS  int64 // KiB
	N    int   // matches (JSON lines)
}

// runProc runs a command (env added to the environment), counting its
// stdout's lines as matches.
func runProc(env []string, name string, args ...string) (Proc, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	t, out, err := peer.Run(cmd)
	return Proc{Wall: t.Wall, RSS: t.RSS, N: len(peer.Lines(out))}, err
}

// SessionRow is one pattern in the session benchmark.
type SessionRow struct {
	Pattern    string
	AstGrep    Proc
	Cold, Warm Proc          // separate tether processes: cold, then warm disk tier
	InRun      time.Duration // in the one-process session, in order
	// NoHead is InRun in a session whose first query comes as the warm-up
	// starts, as a first call right after initialize does
	NoHead            time.Duration
	InRunHits, Parsed int
	Floor             *FloorRow // nil: not measured
}

// childResult is what the session child prints a query.
type childResult struct {
	Pattern string
	Seconds float64
	Total   int
	Parsed  int
	Hits    int
	Indexed int // files the warm-up had parsed when the query came
}

// SessionModel is how the one-process session models tether serve.
type SessionModel struct {
	// FirstQuery is when the first query comes after the run's start, where
	// the warm-up starts (< 0: no warm-up).
	FirstQuery time.Duration
	// Whole parses whole files while the store has room (WholeWhileRoom).
	Whole bool
}

// serveMemoryLimit is the soft memory limit tether serve sets for a tree
// store of budget bytes (cmd/tether's softMemoryLimit): the budget plus
// 384 MiB for parsing.
func serveMemoryLimit(budget int64) int64 { return budget + 384<<20 }

// ServeModel is tether serve's: warm-up from the run's start, the first
// query 2 s after it (an agent's first call comes after its model's first
// turn), queries parsing chunks (the warm-up then takes their files whole
// first), and serve's soft memory limit (set in the child,
// search.SoftMemoryLimit, unless GOMEMLIMIT is set). Whole files in the
// queries cost the first common-token query 3.2x the CPU (bench/README.md).
var ServeModel = SessionModel{FirstQuery: 2 * time.Second}

// sessionChild answers every pattern in order in one process with the
// process's shared store (no disk tier), as tether serve's ast_grep does.
func sessionChild(corpus string, threads int, patterns []string, model SessionModel) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemoryLimit(store.SharedCache().Stats().Budget))
	}
	ctx := context.Background()
	e, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		return err
	}
	s := search.NewSearcher(e, search.Config{Workers: threads, WholeWhileRoom: model.Whole})
	if model.FirstQuery >= 0 {
		go s.WarmUp(ctx, corpus)
		time.Sleep(model.FirstQuery)
	}
	enc := json.NewEncoder(os.Stdout)
	for _, p := range patterns {
		t := time.Now()
		indexed := s.WarmStatus().Done
		r, err := s.Search(ctx, search.Query{Pattern: p, Language: "go", Paths: []string{corpus}, MaxResults: 50})
		if err != nil {
			return err
		}
		enc.Encode(childResult{p, time.Since(t).Seconds(), r.Total, r.Parsed, r.CacheHits, indexed})
	}
	return nil
}

// Session measures the agent-session benchmark; cache is an empty directory
// for the tether processes' user cache (XDG_CACHE_HOME).
func Session(ag, tether, self, corpus string, threads int, cache string) ([]SessionRow, Proc, Proc, Proc, error) {
	j := fmt.Sprint(threads)
	env := []string{"XDG_CACHE_HOME=" + cache}
	// wazero's compilation cache filled, the OS file cache warm; the tree
	// cache emptied after
	if _, err := runProc(env, tether, "ast-grep", "-p", "package $P", "-l", "go", "-j", j, "--json=stream", corpus); err != nil {
		return nil, Proc{}, Proc{}, Proc{}, err
	}
	if err := os.RemoveAll(filepath.Join(cache, "tether", "trees")); err != nil {
		return nil, Proc{}, Proc{}, Proc{}, err
	}
	if _, err := runProc(nil, ag, "run", "-p", "package $P", "-l", "go", "-j", j, "--json=stream", corpus); err != nil {
		return nil, Proc{}, Proc{}, Proc{}, err
	}
	rows := make([]SessionRow, len(SessionPatterns))
	var agTotal Proc
	for i, p := range SessionPatterns {
		rows[i].Pattern = p
		r, err := runProc(nil, ag, "run", "-p", p, "-l", "go", "-j", j, "--json=stream", corpus)
		if err != nil {
			return nil, Proc{}, Proc{}, Proc{}, err
		}
		rows[i].AstGrep = r
		agTotal.Wall += r.Wall
		agTotal.RSS = max(agTotal.RSS, r.RSS)
		if rows[i].Cold, err = runProc(env, tether, "ast-grep", "-p", p, "-l", "go", "-j", j, "--json=stream", corpus); err != nil {
			return nil, Proc{}, Proc{}, Proc{}, err
		}
	}
	for i, p := range SessionPatterns {
		var err error
		if rows[i].Warm, err = runProc(env, tether, "ast-grep", "-p", p, "-l", "go", "-j", j, "--json=stream", corpus); err != nil {
			return nil, Proc{}, Proc{}, Proc{}, err
		}
	}
	res, sess, err := sessionRun(self, corpus, j, env, ServeModel)
	if err != nil {
		return nil, Proc{}, Proc{}, Proc{}, err
	}
	for i := range rows {
		rows[i].InRun = time.Duration(res[i].Seconds * float64(time.Second))
		rows[i].InRunHits, rows[i].Parsed = res[i].Hits, res[i].Parsed
	}
	res, noHead, err := sessionRun(self, corpus, j, env, SessionModel{FirstQuery: 0, Whole: ServeModel.Whole})
	if err != nil {
		return nil, Proc{}, Proc{}, Proc{}, err
	}
	for i := range rows {
		rows[i].NoHead = time.Duration(res[i].Seconds * float64(time.Second))
	}
	return rows, agTotal, sess, noHead, nil
}

// sessionRun runs the one-process session of model in a child process
// (self -session-child) and returns what it answered a pattern.
func sessionRun(self, corpus, j string, env []string, model SessionModel) ([]childResult, Proc, error) {
	cmd := exec.Command(self, "-session-child", "-corpus", corpus, "-j", j,
		"-first-query", model.FirstQuery.String(), fmt.Sprintf("-whole=%v", model.Whole))
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, Proc{}, fmt.Errorf("session child: %v\n%s", err, errb.String())
	}
	sess := Proc{Wall: time.Since(t)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		sess.RSS = ru.Maxrss
	}
	dec := json.NewDecoder(&out)
	res := make([]childResult, len(SessionPatterns))
	for i := range res {
		if err := dec.Decode(&res[i]); err != nil {
			return nil, Proc{}, fmt.Errorf("session child output: %v", err)
		}
	}
	return res, sess, nil
}

// NoHeadTable renders the one-process session with and without the
// warm-up's head start, pattern by pattern, with totals for the first ten
// patterns and for all.
func NoHeadTable(rows []SessionRow, noHead Proc) string {
	var b strings.Builder
	b.WriteString("| # | pattern | ast-grep | one process, first query 2 s after the start | ratio | one process, first query at the start | ratio |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|\n")
	var ag, head, none time.Duration
	total := func(label string) {
		fmt.Fprintf(&b, "| | **%s** | %s | %s | %.3fx | %s | %.3fx |\n", label, secs(ag), secs(head), head.Seconds()/ag.Seconds(),
			secs(none), none.Seconds()/ag.Seconds())
	}
	for i, r := range rows {
		ag += r.AstGrep.Wall
		head += r.InRun
		none += r.NoHead
		fmt.Fprintf(&b, "| %d | `%s` | %s | %s | %.3fx | %s | %.3fx |\n", i+1, strings.ReplaceAll(r.Pattern, "|", `\|`), secs(r.AstGrep.Wall),
			msecs(r.InRun), r.InRun.Seconds()/r.AstGrep.Wall.Seconds(), msecs(r.NoHead), r.NoHead.Seconds()/r.AstGrep.Wall.Seconds())
		if i == 9 && len(rows) > 10 {
			total("total, the first 10")
		}
	}
	total(fmt.Sprintf("total, all %d", len(rows)))
	fmt.Fprintf(&b, "\nThe second session is the first's patterns in a new process whose first query comes as its warm-up starts, as an agent's first call right after `initialize` does: the warm-up and the queries share the cores from the start. Its peak RSS: %d MB (its whole run, %s).\n",
		noHead.RSS>>10, secs(noHead.Wall))
	return b.String()
}

// SessionTable renders the session benchmark.
func SessionTable(rows []SessionRow, agTotal, sess Proc, threads int, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Corpus: Go standard library (`$(go env GOROOT)/src`), %d threads for both tools, measured in one run, %s; load average at the start: %s.\n\n",
		threads, time.Now().UTC().Format("2006-01-02 15:04 UTC"), load)
	b.WriteString("| # | pattern | ast-grep | RSS | tether CLI, cold disk tier | ratio | RSS | parse floor | tether CLI, warm disk tier | ratio | read floor | one-process session, in order | ratio | trees from the store / parsed | floor: files needed / MB newly parsed |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var cold, warm, inRun, parse, read time.Duration
	var coldRSS, newBytes, readBytes int64
	floored := len(rows) > 0
	for i, r := range rows {
		cold += r.Cold.Wall
		warm += r.Warm.Wall
		inRun += r.InRun
		coldRSS = max(coldRSS, r.Cold.RSS)
		parseCell, readCell, needCell := "-", "-", "-"
		if f := r.Floor; f != nil {
			parse += f.Parse
			read += f.Read
			newBytes += f.NewBytes
			readBytes += f.ReadBytes
			parseCell, readCell, needCell = msecs(f.Parse), msecs(f.Read), fmt.Sprintf("%d / %s", f.Files, mb(f.NewBytes))
		} else {
			floored = false
		}
		kind := ""
		if tokenFree(i) {
			kind = " (token-free)"
		}
		fmt.Fprintf(&b, "| %d | `%s`%s | %s | %d MB | %s | %.2fx | %d MB | %s | %s | %.2fx | %s | %s | %.3fx | %d / %d | %s |\n", i+1,
			strings.ReplaceAll(r.Pattern, "|", `\|`), kind, secs(r.AstGrep.Wall), r.AstGrep.RSS>>10,
			secs(r.Cold.Wall), r.Cold.Wall.Seconds()/r.AstGrep.Wall.Seconds(), r.Cold.RSS>>10, parseCell,
			secs(r.Warm.Wall), r.Warm.Wall.Seconds()/r.AstGrep.Wall.Seconds(), readCell,
			msecs(r.InRun), r.InRun.Seconds()/r.AstGrep.Wall.Seconds(), r.InRunHits, r.Parsed, needCell)
	}
	parseTotal, readTotal, needTotal := "-", "-", "-"
	if floored {
		parseTotal, readTotal, needTotal = secs(parse), secs(read), fmt.Sprintf("%s MB parsed, %s MB read", mb(newBytes), mb(readBytes))
	} else {
		parse, read = 0, 0 // the ratios below say "-"
	}
	fmt.Fprintf(&b, "| | **total** | %s | peak %d MB | %s | %.2fx | peak %d MB | %s | %s | %.2fx | %s | %s | %.3fx | | %s |\n",
		secs(agTotal.Wall), agTotal.RSS>>10, secs(cold), cold.Seconds()/agTotal.Wall.Seconds(), coldRSS>>10, parseTotal,
		secs(warm), warm.Seconds()/agTotal.Wall.Seconds(), readTotal, secs(inRun), inRun.Seconds()/agTotal.Wall.Seconds(), needTotal)
	parseOfAG, readOfAG := "-", "-"
	if floored {
		parseOfAG, readOfAG = times(parse, agTotal.Wall), times(read, agTotal.Wall)
	}
	fmt.Fprintf(&b, "| | **tether / floor** | | | **%s** | | | %s of ast-grep | **%s** | | %s of ast-grep | **%s** | | | |\n",
		times(cold, parse), parseOfAG, times(warm, read), readOfAG, times(inRun, parse))
	fmt.Fprintf(&b, "\nratio = tether time / ast-grep time (lower is better for tether). The one-process session models `tether serve`: the warm-up starts at the run's start and the first query comes %s after it (the session's total counts the queries only, not that wait; the queries come back to back, so the warm-up has only that wait and what it takes between them); the files a query parsed in chunks are the warm-up's next; serve's soft memory limit (%d MiB). Its peak RSS: %d MB (its whole run, %s, includes starting the engine and the wait).\n",
		ServeModel.FirstQuery, serveMemoryLimit(store.DefaultCacheBudget)>>20, sess.RSS>>10, secs(sess.Wall))
	if !floored {
		b.WriteString("\nThe floor was not measured in this run (the benchmark's log says why): its cells are \"-\".\n")
	}
	b.WriteString("\nThe floor, measured after the rows in the benchmark's process with tether's engine and the same threads, no tree store and no disk tier. " +
		"**Parse floor**: each row's needs are what `search.Needs` says its search must parse: the files the token prefilter lets through and, where the query parses a file in chunks, only the runs of top-level declarations, or the statements every match is one of, that hold its tokens; " +
		"a row costs the wasm parse of the bytes no earlier row needed (parsed as whole ranges, the time spent inside the parser, the longest of the workers), so its total is one parse of everything the session needs. " +
		"It is the floor of the cold CLI rows (their disk tier keeps what earlier rows parsed) and of the one-process session, whose total leaves out what its warm-up parsed in the wait before the first query (on a small corpus, everything: the session then comes in under the floor). " +
		"**Read floor**: a warm CLI row is a new process that must see every file it needs is unchanged and load its trees, so its floor is reading the needed files and the trees of their needed chunks (one entry per range the parse floor parsed, written in binary form as the tier keeps them), from the OS file cache, with the kind sets of the warm rows' disk tier applied to the needs as they are to those rows. " +
		"Neither counts walking the corpus, the files the prefilter rules out (an index could rule them out unread), hashing, decoding, matching or output. " +
		"tether / floor = tether's total time / the floor's total (the cold CLI and the session against the parse floor, the warm CLI against the read floor).\n")
	return b.String()
}

// msecs is d in seconds with three decimals.
func msecs(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

// mb is n bytes in MB with two decimals.
func mb(n int64) string { return fmt.Sprintf("%.2f", float64(n)/1e6) }

// times is a/b as a ratio ("-" when b is zero).
func times(a, b time.Duration) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a.Seconds()/b.Seconds())
}
