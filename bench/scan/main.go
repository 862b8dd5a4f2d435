package main

import "context"
import _ "embed"
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

// Rules are the ten rules scanned: relational, composite, pattern and kind
// rules of the kind a project's sgconfig.yml holds.
//
//go:embed rules.yml
var Rules []byte

// Result is one tool's scan: its time and findings per rule.
type Result struct {
	Time  time.Duration
	Count map[string]int
}

func main() {
	log.SetFlags(0)
	corpus := flag.String("corpus", filepath.Join(runtime.GOROOT(), "src"), "directory to scan")
	threads := flag.Int("j", runtime.NumCPU(), "threads for both tools")
	tether := flag.String("tether", "bin/tether", "tether binary (make build)")
	agBin := flag.String("ast-grep", "", "ast-grep binary (default: the pinned one, or ast-grep on PATH)")
	readmePath := flag.String("readme", "bench/README.md", "file whose scan section gets the table (\"\" prints only)")
	flag.Parse()
	ag := *agBin
	if ag == "" {
		ag = ".deps/npm/node_modules/.bin/ast-grep"
		if _, err := os.Stat(ag); err != nil {
			if ag, err = exec.LookPath("ast-grep"); err != nil {
				log.Fatal("no ast-grep: install the pinned one (scripts/install-deps.sh) or pass -ast-grep")
			}
		}
	}
	table, err := Run(context.Background(), ag, *tether, *corpus, *threads)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(table)
	if *readmePath != "" {
		if err := writeSection(*readmePath, table); err != nil {
			log.Fatal(err)
		}
	}
}

// Run scans corpus with both tools and returns the Markdown table.
func Run(ctx context.Context, ag, tether, corpus string, threads int) (string, error) {
	dir, err := os.MkdirTemp("", "scan-bench")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	rules := filepath.Join(dir, "rules.yml")
	if err := os.WriteFile(rules, Rules, 0o644); err != nil {
		return "", err
	}
	j := fmt.Sprint(threads)
	agRes, err := scan(ctx, nil, ag, "scan", "-r", rules, "-j", j, "--json=stream", corpus)
	if err != nil {
		return "", fmt.Errorf("ast-grep: %w", err)
	}
	// tether's disk tier in a directory of its own: empty for the cold run,
	// holding the cold run's trees for the warm one
	env := append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "HOME="+dir)
	cold, err := scan(ctx, env, tether, "scan", "-r", rules, "-j", j, "--json=stream", corpus)
	if err != nil {
		return "", fmt.Errorf("tether: %w", err)
	}
	warm, err := scan(ctx, env, tether, "scan", "-r", rules, "-j", j, "--json=stream", corpus)
	if err != nil {
		return "", fmt.Errorf("tether: %w", err)
	}
	version, _ := exec.CommandContext(ctx, ag, "--version").Output()
	var ids []string
	for _, l := range strings.Split(string(Rules), "\n") {
		if id, ok := strings.CutPrefix(l, "id: "); ok {
			ids = append(ids, strings.TrimSpace(id))
		}
	}
	files := countGo(corpus)
	var b strings.Builder
	fmt.Fprintf(&b, "Corpus: Go %s standard library (`$(go env GOROOT)/src`, %d .go files), 10 rules (bench/scan/rules.yml), %d threads for both tools, one run on %s/%s (%d cores), %s.\n\n",
		runtime.Version(), files, threads, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "| scan | time | ratio (%s / tether) |\n|---|---:|---:|\n", strings.TrimSpace(string(version)))
	fmt.Fprintf(&b, "| %s | %.2f s | |\n", strings.TrimSpace(string(version)), agRes.Time.Seconds())
	fmt.Fprintf(&b, "| tether scan, cold (no stored trees) | %.2f s | %.1fx |\n", cold.Time.Seconds(), agRes.Time.Seconds()/cold.Time.Seconds())
	fmt.Fprintf(&b, "| tether scan, disk tier warm | %.2f s | %.1fx |\n\n", warm.Time.Seconds(), agRes.Time.Seconds()/warm.Time.Seconds())
	b.WriteString("| rule | findings ast-grep / tether |\n|---|---:|\n")
	for _, id := range ids {
		fmt.Fprintf(&b, "| %s | %d / %d |\n", id, agRes.Count[id], cold.Count[id])
	}
	b.WriteString("\nratio = ast-grep time / tether time (higher is better for tether).\n")
	return b.String(), nil
}

// scan runs one tool's scan and counts its findings per rule from the
// JSON stream (one finding a line).
func scan(ctx context.Context, env []string, bin string, args ...string) (*Result, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	t, out, err := peer.Run(cmd)
	if err != nil {
		return nil, err
	}
	r := &Result{Time: t.Wall, Count: map[string]int{}}
	for _, line := range peer.Lines(out) {
		var f struct {
			RuleID string `json:"ruleId"`
		}
		if err := json.Unmarshal(line, &f); err != nil {
			return nil, fmt.Errorf("%s: bad JSON line: %v", bin, err)
		}
		r.Count[f.RuleID]++
	}
	return r, nil
}

func countGo(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			n++
		}
		return nil
	})
	return n
}

const (
	beginMark = "<!-- scan-bench:begin -->"
	endMark   = "<!-- scan-bench:end -->"
)

// writeSection puts table into path between the scan markers, adding the
// section at the end when the file has none.
func writeSection(path, table string) error {
	return readme.WriteSection(path, beginMark, endMark, "## Rule scan vs ast-grep\n\n`go run ./bench/scan` (after `make build`) regenerates this table.\n\n", table)
}
