// Command diagdiff is a differential harness for tether's diagnostics on
// write: it applies seeded changes to pinned real projects (Go, Python,
// TypeScript, C) through tether's own writers (edit, apply_patch,
// lsp_rename), each then reverted, and compares every write's report of new
// and cleared diagnostics (tools.Result.Diagnostics) with the delta of the
// language's own checker from its command line (gopls check, pyright
// --outputjson, tsc --noEmit, clang -fsyntax-only with a compile database).
// Diagnostics are compared as multisets keyed by file, severity, code and
// message, positions left out, as tether's registry keys them. Every change
// runs twice: on an idle machine, and with a CPU-bound process on every
// core beside the write. It prints a markdown table per language and
// writer (bench/README.md, "diagdiff").
//
// A benchmark command: it may import whatever it measures, and nothing
// imports it.
//
//	go run ./bench/diagdiff -n 30 -seed 1
package main

import "context"
import "errors"
import "flag"
import "fmt"
import "io"
import "os"
import "path/filepath"
import "slices"
import "sort"
import "strings"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"

func main() {
	n := flag.Int("n", 30, "changes per language")
	seed := flag.Int64("seed", 1, "the generator's seed")
	langs := flag.String("langs", "go,python,typescript,c", "languages to run, comma-separated")
	busy := flag.Bool("busy", true, "also run every change with a CPU-bound process on every core")
	cache, _ := os.UserCacheDir()
	cacheDir := flag.String("cache", filepath.Join(cache, "tether-diagdiff"), "where fetched archives are kept")
	logFile := flag.String("log", "", "write every write's score here (default stderr)")
	budget := flag.Duration("time", 0, "stop starting changes after this long per language (0: no limit)")
	kindList := flag.String("kinds", strings.Join(kinds, ","), "the change kinds drawn in turn, comma-separated; also: "+strings.Join(moreKinds, ", "))
	var one change
	flag.StringVar(&one.file, "edit-file", "", "run only this change, idle and busy: an edit of this file (relative to the project)...")
	editOld := flag.String("edit-old", "", "...replacing this text (unique in the file)...")
	editNew := flag.String("edit-new", "", "...with this one; the revert puts it back")
	flag.Parse()
	if one.file != "" {
		one.kind, one.writer, one.what = "given", "edit", *editOld
		one.apply = map[string]any{"path": one.file, "old_string": *editOld, "new_string": *editNew}
		one.undo = map[string]any{"path": one.file, "old_string": *editNew, "new_string": *editOld}
		if *editNew == "" {
			fail(errors.New("-edit-new is empty: an edit that deletes text needs the text after it in both -edit-old and -edit-new, so that the revert can find its place"))
		}
	}
	drawn := strings.Split(*kindList, ",")
	for _, k := range drawn {
		if !slices.Contains(kinds, k) && !slices.Contains(moreKinds, k) {
			fail(fmt.Errorf("-kinds: no change kind %q; the kinds are %s", k, strings.Join(append(slices.Clone(kinds), moreKinds...), ", ")))
		}
	}
	var log io.Writer = os.Stderr
	if *logFile != "" {
		f, err := os.Create(*logFile)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		log = f
	}
	ctx := context.Background()
	work, err := os.MkdirTemp("", "diagdiff-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	tab := table{}
	for _, pn := range pins {
		if !slices.Contains(strings.Split(*langs, ","), pn.lang) {
			continue
		}
		p, err := fetch(ctx, pn, *cacheDir, work)
		if err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "diagdiff: %s (%s %s)\n", p.name, pn.how, pn.what)
		if one.file != "" {
			err = runOne(ctx, p, one, *busy, log, tab)
		} else {
			err = runProject(ctx, p, *n, *seed, drawn, *busy, *budget, log, tab)
		}
		if err != nil {
			fail(err)
		}
	}
	fmt.Print(tab.markdown())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "diagdiff:", err)
	os.Exit(1)
}

// row names one line of the table.
type row struct{ lang, writer, mode string }

type table map[row]*counts

func (t table) add(r row, c counts) {
	if t[r] == nil {
		t[r] = &counts{}
	}
	t[r].add(c)
}

// runOne runs the one change c of p, idle and (when busy) loaded: a
// change a seeded run found wrong, again, without the changes before it.
func runOne(ctx context.Context, p *project, c change, busy bool, log io.Writer, tab table) error {
	h, err := newHarness(ctx, p, lsp.NewPool(), log)
	if err != nil {
		return err
	}
	defer h.close()
	for _, b := range []bool{false, true}[:map[bool]int{false: 1, true: 2}[busy]] {
		apply, undo, err := h.runChange(ctx, "given", c, b)
		if err != nil {
			return err
		}
		apply.add(undo)
		tab.add(row{p.lang, c.writer, map[bool]string{false: "idle", true: "busy"}[b]}, apply)
	}
	return nil
}

// runProject runs n changes of p, of the kinds drawn in turn, each idle
// and (when busy) loaded.
func runProject(ctx context.Context, p *project, n int, seed int64, drawn []string, busy bool, budget time.Duration, log io.Writer, tab table) error {
	pool := lsp.NewPool()
	h, err := newHarness(ctx, p, pool, log)
	if err != nil {
		return err
	}
	defer h.close()
	g, err := newGenerator(p, seed)
	if err != nil {
		return err
	}
	g.setErrLines(h.errLines())
	g.kinds = drawn
	start := time.Now()
	modes := []bool{false}
	if busy {
		modes = append(modes, true)
	}
	refused := 0
	for i := 0; i < n; i++ {
		if budget > 0 && time.Since(start) > budget {
			fmt.Fprintf(log, "%s: time budget spent after %d changes\n", p.name, i)
			break
		}
		c, err := g.next()
		if err != nil {
			return err
		}
		for _, b := range modes {
			mode := map[bool]string{false: "idle", true: "busy"}[b]
			apply, undo, err := h.runChange(ctx, fmt.Sprint(i), c, b)
			if errors.Is(err, errRefused) && !b && refused < 3*n {
				// Refused before anything was written: another change.
				fmt.Fprintf(log, "%s %d: %v; drawing another change\n", p.name, i, err)
				refused++
				i--
				g.n-- // the same kind again, on another declaration
				break
			}
			if err != nil {
				fmt.Fprintf(log, "%s %d %s: %v\n", p.name, i, mode, err)
				tab.add(row{p.lang, c.writer, mode}, counts{RevertFailed: 1})
				continue
			}
			apply.add(undo)
			tab.add(row{p.lang, c.writer, mode}, apply)
		}
	}
	return nil
}

// markdown renders the table: per language, writer and load, the writes
// scored, the four error counts, and the report time's median and max.
func (t table) markdown() string {
	var rows []row
	for r := range t {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		return a.lang+a.writer+a.mode < b.lang+b.writer+b.mode
	})
	var sb strings.Builder
	sb.WriteString("| language | writer | load | writes | false new | missed new (in files named unchecked) | false cleared | missed cleared | files named unchecked or without baseline | failed | report time median / max |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		c := t[r]
		sort.Slice(c.Times, func(i, j int) bool { return c.Times[i] < c.Times[j] })
		med, mx := time.Duration(0), time.Duration(0)
		if len(c.Times) > 0 {
			med, mx = c.Times[len(c.Times)/2], c.Times[len(c.Times)-1]
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %d | %d | %d (%d) | %d | %d | %d | %d | %s / %s |\n",
			r.lang, r.writer, r.mode, c.Writes, c.FalseNew, c.MissedNew, c.MissedNamed, c.FalseCleared, c.MissedCleared,
			c.Unknown+c.NotChecked, c.RevertFailed, med.Round(10*time.Millisecond), mx.Round(10*time.Millisecond))
	}
	return sb.String()
}
