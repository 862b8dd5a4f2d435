package enginebench

import "context"
import "fmt"
import "io"
import "os"
import "runtime"
import "sort"
import "strings"
import "time"

// Cell is one engine's runs of one pattern.
type Cell struct {
	Engine  string   `json:"engine"`
	Samples []Sample `json:"samples,omitempty"`
	// Median holds each measure's median over the rounds.
	Median *Sample `json:"median,omitempty"`
	// Pattern is the engine's own form of the pattern where it differs.
	Pattern string `json:"pattern,omitempty"`
	// Error says why the engine has no answer (it failed, or cannot read
	// the pattern): never a count of 0.
	Error string `json:"error,omitempty"`
	// Unstable: the rounds disagreed on the match count.
	Unstable bool `json:"unstable,omitempty"`
}

// Row is one pattern across the engines.
type Row struct {
	Pattern string `json:"pattern"`
	Cells   []Cell `json:"cells"`
	// Differ: engines that answered found different numbers of matches.
	Differ bool `json:"differ,omitempty"`
}

// Report is a whole run.
type Report struct {
	Suite   Suite     `json:"suite"`
	Corpus  string    `json:"corpus"`
	Threads int       `json:"threads"`
	Rounds  int       `json:"rounds"`
	When    time.Time `json:"when"`
	Machine Machine   `json:"machine"`
	Engines []Engine  `json:"engines"`
	Rows    []Row     `json:"rows"`
}

// Machine says where the run was measured.
type Machine struct {
	OS    string `json:"os"`
	Arch  string `json:"arch"`
	CPUs  int    `json:"cpus"`
	Go    string `json:"go"`
	Load  string `json:"load_before,omitempty"`
	After string `json:"load_after,omitempty"`
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// MaxRounds bounds the rounds: each runs every engine on every pattern.
const MaxRounds = 50

// Run runs the suite: a warm-up round (untimed: it fills the OS file cache,
// the compiled grammars and the warm tier), then rounds rounds, each
// running every pattern by every engine, the engines' order turning one
// place each round. A failing engine's cell says why and the rest goes on;
// a cancelled ctx ends the run with ctx's error. progress, when not nil,
// gets a line a round.
func Run(ctx context.Context, c Config, engines []Engine, suite Suite, rounds int, progress io.Writer) (*Report, error) {
	if rounds < 1 || rounds > MaxRounds {
		return nil, fmt.Errorf("rounds must be 1 to %d, not %d", MaxRounds, rounds)
	}
	if len(engines) == 0 {
		return nil, fmt.Errorf("no engine to run")
	}
	label := c.Label
	if label == "" {
		label = c.Corpus
	}
	rep := &Report{Suite: suite, Corpus: label, Threads: c.Threads, Rounds: rounds, When: time.Now().UTC(),
		Machine: Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version(), Load: loadavg()},
		Engines: engines}
	rep.Rows = make([]Row, len(suite.Patterns))
	for i, p := range suite.Patterns {
		rep.Rows[i] = Row{Pattern: p, Cells: make([]Cell, len(engines))}
		for k, e := range engines {
			cell := &rep.Rows[i].Cells[k]
			cell.Engine = e.Name
			if e.translate != nil {
				if tp, ok := e.translate(p); !ok {
					cell.Error = "the engine has no form of this pattern"
				} else if tp != p {
					cell.Pattern = tp
				}
			}
		}
	}
	for round := -1; round < rounds; round++ {
		if progress != nil {
			if round < 0 {
				fmt.Fprintf(progress, "tether bench: warm-up round (untimed)\n")
			} else {
				fmt.Fprintf(progress, "tether bench: round %d of %d\n", round+1, rounds)
			}
		}
		for j := range engines {
			k := (j + max(round, 0)) % len(engines)
			if err := runEngine(ctx, rep, k, round >= 0); err != nil {
				return nil, err
			}
		}
	}
	rep.Machine.After = loadavg()
	rep.summarize()
	return rep, nil
}

// runEngine runs engine k over every pattern; keep records the samples.
func runEngine(ctx context.Context, rep *Report, k int, keep bool) error {
	e := rep.Engines[k]
	record := func(i int, s Sample, err error) {
		cell := &rep.Rows[i].Cells[k]
		switch {
		case err != nil && cell.Error == "":
			cell.Error = oneLine(err.Error())
		case err == nil && keep:
			cell.Samples = append(cell.Samples, s)
		}
	}
	if e.batch != nil {
		samples, errs, err := e.batch(ctx, rep.Suite.Patterns)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for i := range rep.Rows {
			switch {
			case err != nil:
				record(i, Sample{}, err)
			default:
				record(i, samples[i], errs[i])
			}
		}
		return nil
	}
	for i, row := range rep.Rows {
		cell := row.Cells[k]
		if cell.Error != "" {
			continue
		}
		p := row.Pattern
		if cell.Pattern != "" {
			p = cell.Pattern
		}
		s, err := e.one(ctx, p)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		record(i, s, err)
	}
	return nil
}

// oneLine shortens an error for a table cell.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// summarize takes the medians and compares the counts.
func (r *Report) summarize() {
	for i := range r.Rows {
		row := &r.Rows[i]
		counts := map[int]bool{}
		for k := range row.Cells {
			c := &row.Cells[k]
			if len(c.Samples) == 0 {
				if c.Error == "" {
					c.Error = "no run finished"
				}
				continue
			}
			m := median(c.Samples)
			c.Median = &m
			for _, s := range c.Samples {
				if s.Matches != m.Matches {
					c.Unstable = true
				}
			}
			counts[m.Matches] = true
		}
		row.Differ = len(counts) > 1
	}
}

// median takes each measure's median on its own; the match count is the
// last round's.
func median(ss []Sample) Sample {
	pick := func(get func(Sample) int64) int64 {
		v := make([]int64, len(ss))
		for i, s := range ss {
			v[i] = get(s)
		}
		sort.Slice(v, func(a, b int) bool { return v[a] < v[b] })
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return Sample{
		Wall:    time.Duration(pick(func(s Sample) int64 { return int64(s.Wall) })),
		CPU:     time.Duration(pick(func(s Sample) int64 { return int64(s.CPU) })),
		RSS:     pick(func(s Sample) int64 { return s.RSS }),
		Matches: ss[len(ss)-1].Matches,
	}
}
