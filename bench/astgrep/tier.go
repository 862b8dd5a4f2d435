package main

import "fmt"
import "os"
import "path/filepath"
import "runtime"
import "slices"
import "strings"
import "syscall"
import "time"

import "github.com/tetherhq/tether/bench/internal/readme"

// TierPatterns are the rows of the disk tier benchmark (-tier): three with
// tokens in hundreds of files and one that matches nowhere.
var TierPatterns = []string{
	`$X.Lock()`,
	`if err != nil { return $$$ }`,
	`for $I := range $X { $$$ }`,
	`$A.Unsubscribe($$$)`,
}

// oneFile is the one-file search of the -tier benchmark: a small file, in
// GOROOT so that every machine has it.
var oneFile = struct{ rel, pattern string }{"src/errors/errors.go", "return $X"}

// Timing is the runs of one command: wall and CPU (user + system) times.
type Timing struct {
	Wall, CPU []time.Duration
}

func (t *Timing) add(p Proc, cpu time.Duration) {
	t.Wall = append(t.Wall, p.Wall)
	t.CPU = append(t.CPU, cpu)
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TierRow is one search of the -tier benchmark: tether with an empty disk
// tier, tether with --no-cache and ast-grep, run in turn in each round.
type TierRow struct {
	Pattern                 string
	Empty, NoCache, AstGrep Timing
	TetherN, AstGrepN       int
}

// timedProc runs a command (runProc) and returns its CPU time as well.
func timedProc(env []string, name string, args ...string) (Proc, time.Duration, error) {
	before := childCPU()
	p, err := runProc(env, name, args...)
	return p, childCPU() - before, err
}

// childCPU is the user and system time of the waited-for children so far.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TierRun measures each search in rounds: an empty tier (the tier's
// directory removed before the run; wazero's compilation cache, in the
// same private cache dir, stays warm), --no-cache, then ast-grep.
func TierRun(ag, tether, corpus string, threads, rounds int, searches []TierSearch) ([]TierRow, error) {
	cache, err := os.MkdirTemp("", "tether-bench-tier-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cache)
	env := []string{"XDG_CACHE_HOME=" + cache}
	tier := filepath.Join(cache, "tether", "trees")
	j := fmt.Sprint(threads)
	rows := make([]TierRow, len(searches))
	for round := -1; round < rounds; round++ { // round -1 warms the caches, untimed
		for i, s := range searches {
			r := &rows[i]
			r.Pattern = s.Pattern
			if err := os.RemoveAll(tier); err != nil {
				return nil, err
			}
			targs := []string{"ast-grep", "-p", s.Pattern, "-l", "go", "-j", j, "--json=stream", s.Path}
			p, cpu, err := timedProc(env, tether, targs...)
			if err != nil {
				return nil, err
			}
			if round >= 0 {
				r.Empty.add(p, cpu)
			}
			r.TetherN = p.N
			p, cpu, err = timedProc(env, tether, append(targs[:len(targs)-1:len(targs)-1], "--no-cache", s.Path)...)
			if err != nil {
				return nil, err
			}
			if round >= 0 {
				r.NoCache.add(p, cpu)
			}
			p, cpu, err = timedProc(nil, ag, "run", "-p", s.Pattern, "-l", "go", "-j", j, "--json=stream", s.Path)
			if err != nil {
				return nil, err
			}
			if round >= 0 {
				r.AstGrep.add(p, cpu)
			}
			r.AstGrepN = p.N
		}
	}
	return rows, nil
}

// TierSearch is a pattern and the path it searches.
type TierSearch struct{ Pattern, Path string }

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

// TierTable renders the rows: medians, and the ratios of the medians of
// the same run.
func TierTable(rows []TierRow, what string, rounds, threads int, loadStart, loadEnd string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s; %d threads for both tools; %d rounds, each running the three commands in turn; medians. %s, %s (%d cores); load average %s at the start, %s at the end.\n\n",
		what, threads, rounds, time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), loadStart, loadEnd)
	b.WriteString("| search | tether, empty tier | tether `--no-cache` | ast-grep 0.51.1 | empty / no-cache | no-cache / ast-grep | empty / ast-grep | CPU: empty / no-cache / ast-grep | matches tether / ast-grep |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		e, n, a := median(r.Empty.Wall), median(r.NoCache.Wall), median(r.AstGrep.Wall)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %.2fx | %.2fx | %.2fx | %s / %s / %s | %d / %d |\n",
			strings.ReplaceAll(r.Pattern, "|", `\|`), ms(e), ms(n), ms(a), e.Seconds()/n.Seconds(), n.Seconds()/a.Seconds(), e.Seconds()/a.Seconds(),
			ms(median(r.Empty.CPU)), ms(median(r.NoCache.CPU)), ms(median(r.AstGrep.CPU)), r.TetherN, r.AstGrepN)
	}
	return b.String()
}

// loadAvg is the first three fields of /proc/loadavg ("" elsewhere).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// runOneFile runs the one-file search of the disk tier benchmark and
// returns its table.
func runOneFile(ag, tether string, threads, rounds int) (string, error) {
	start := loadAvg()
	file := filepath.Join(runtime.GOROOT(), oneFile.rel)
	one, err := TierRun(ag, tether, filepath.Dir(file), threads, rounds, []TierSearch{{oneFile.pattern, file}})
	if err != nil {
		return "", err
	}
	return TierTable(one, fmt.Sprintf("One file, `$(go env GOROOT)/%s`", oneFile.rel), rounds, threads, start, loadAvg()), nil
}

// runTier runs the disk tier benchmark: the patterns over the corpus, then
// the one-file search, and writes both tables into the README.
func runTier(ag, tether, corpus string, patterns []string, threads, rounds, oneRounds int, readmePath string) error {
	var searches []TierSearch
	for _, p := range patterns {
		searches = append(searches, TierSearch{p, corpus})
	}
	start := loadAvg()
	rows, err := TierRun(ag, tether, corpus, threads, rounds, searches)
	if err != nil {
		return err
	}
	table := TierTable(rows, fmt.Sprintf("Corpus `%s`", goRootName(corpus)), rounds, threads, start, loadAvg())
	one, err := runOneFile(ag, tether, threads, oneRounds)
	if err != nil {
		return err
	}
	table += "\n" + one
	fmt.Print(table)
	if readmePath == "" {
		return nil
	}
	return readme.WriteSection(readmePath, "<!-- tier-bench:begin -->", "<!-- tier-bench:end -->",
		"## Disk tier: an empty tier against --no-cache and ast-grep\n\n`go run ./bench/astgrep -tier` (after `make build`) regenerates these tables.\n\n", table)
}

// goRootName writes a path under GOROOT as $(go env GOROOT)/..., so that
// a table says nothing of the machine it ran on.
func goRootName(p string) string {
	root := filepath.Clean(runtime.GOROOT())
	if rel, err := filepath.Rel(root, filepath.Clean(p)); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(filepath.Join("$(go env GOROOT)", rel))
	}
	return p
}
