package main

import "context"
import "fmt"
import "os"
import "path/filepath"
import "reflect"
import "runtime"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"

func chunks(pairs ...int) []search.Chunk {
	var cs []search.Chunk
	for i := 0; i+1 < len(pairs); i += 2 {
		cs = append(cs, search.Chunk{Start: pairs[i], End: pairs[i+1]})
	}
	return cs
}

// The needed sets' union across rows: a row costs only what no earlier row
// needed, file by file.
func TestCoverageAddsOnlyWhatIsNew(t *testing.T) {
	type step struct {
		file      string
		need      []search.Chunk
		fresh     []search.Chunk
		afterward []search.Chunk // the file's coverage after the step
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"first need is all new", []step{
			{"a", chunks(0, 10, 20, 30), chunks(0, 10, 20, 30), chunks(0, 10, 20, 30)},
		}},
		{"the same need again costs nothing", []step{
			{"a", chunks(5, 15), chunks(5, 15), chunks(5, 15)},
			{"a", chunks(5, 15), nil, chunks(5, 15)},
		}},
		{"files are apart", []step{
			{"a", chunks(0, 10), chunks(0, 10), chunks(0, 10)},
			{"b", chunks(0, 10), chunks(0, 10), chunks(0, 10)},
		}},
		{"a whole file after its chunks costs the gaps", []step{
			{"a", chunks(10, 20, 40, 50), chunks(10, 20, 40, 50), chunks(10, 20, 40, 50)},
			{"a", chunks(0, 60), chunks(0, 10, 20, 40, 50, 60), chunks(0, 60)},
			{"a", chunks(10, 20), nil, chunks(0, 60)},
		}},
		{"a chunk within an earlier whole file is free", []step{
			{"a", chunks(0, 100), chunks(0, 100), chunks(0, 100)},
			{"a", chunks(30, 40, 60, 70), nil, chunks(0, 100)},
		}},
		{"touching ranges merge", []step{
			{"a", chunks(10, 20), chunks(10, 20), chunks(10, 20)},
			{"a", chunks(0, 10, 20, 30), chunks(0, 10, 20, 30), chunks(0, 30)},
		}},
		{"overlaps on both sides", []step{
			{"a", chunks(10, 20, 30, 40), chunks(10, 20, 30, 40), chunks(10, 20, 30, 40)},
			{"a", chunks(15, 35), chunks(20, 30), chunks(10, 40)},
			{"a", chunks(0, 5, 38, 50), chunks(0, 5, 40, 50), chunks(0, 5, 10, 50)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cv := coverage{}
			for i, s := range tc.steps {
				if got := cv.add(s.file, s.need); !reflect.DeepEqual(got, s.fresh) {
					t.Errorf("step %d: add(%s, %v) = %v, want %v", i, s.file, s.need, got, s.fresh)
				}
				if got := cv[s.file]; !reflect.DeepEqual(got, s.afterward) {
					t.Errorf("step %d: coverage of %s = %v, want %v", i, s.file, got, s.afterward)
				}
			}
		})
	}
}

// Floor over a real corpus: the rows' new bytes add up to one parse of the
// union of their needs, a query repeated costs no parse, and every row that
// needs files reads them.
func TestFloorParsesEachNeededByteOnce(t *testing.T) {
	corpus := filepath.Join(runtime.GOROOT(), "src", "sync")
	patterns := []string{`$X.Lock()`, `$X.Unlock()`, `$X.Lock()`, `$X++`, `atomic.AddInt32($$$)`}
	rows, err := Floor(context.Background(), corpus, 2, patterns, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(patterns) {
		t.Fatalf("%d rows for %d patterns", len(rows), len(patterns))
	}
	var all int64
	for i, r := range rows {
		t.Logf("%s: %d files, %d bytes new, parse %v, read %d bytes in %v", patterns[i], r.Files, r.NewBytes, r.Parse, r.ReadBytes, r.Read)
		all += r.NewBytes
		if r.Files == 0 || r.ReadBytes == 0 || r.Read <= 0 {
			t.Errorf("%s: %d files needed, %d bytes read: every pattern here has matches in sync", patterns[i], r.Files, r.ReadBytes)
		}
		if (r.NewBytes == 0) != (r.Parse == 0) {
			t.Errorf("%s: %d new bytes parsed in %v", patterns[i], r.NewBytes, r.Parse)
		}
	}
	if rows[2].NewBytes != 0 {
		t.Errorf("the repeated %s parsed %d bytes again", patterns[2], rows[2].NewBytes)
	}
	if rows[1].NewBytes == 0 {
		t.Errorf("%s needs declarations %s did not", patterns[1], patterns[0])
	}
	if rows[4].NewBytes != 0 {
		t.Errorf("%s after the token-free %s parsed %d bytes again", patterns[4], patterns[3], rows[4].NewBytes)
	}
	// the token-free row makes the session need every Go file whole
	var want int64
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && !e.IsDir() && filepath.Ext(e.Name()) == ".go" {
			want += fi.Size()
		}
	}
	if all < want {
		t.Errorf("the session parsed %d bytes, less than the %d of the corpus's top-level Go files", all, want)
	}
	if rows[3].Read <= rows[0].Read && rows[3].ReadBytes <= rows[0].ReadBytes {
		t.Errorf("the token-free row read %d bytes, no more than %s's %d", rows[3].ReadBytes, patterns[0], rows[0].ReadBytes)
	}
}

// The table puts each floor beside what it bounds and the totals' ratios
// under them; a floor not measured leaves its cells "-", never 0.
func TestSessionTableFloorColumns(t *testing.T) {
	row := func(p string, f *FloorRow) SessionRow {
		return SessionRow{Pattern: p, AstGrep: Proc{Wall: 10 * time.Second}, Cold: Proc{Wall: 2 * time.Second},
			Warm: Proc{Wall: time.Second}, InRun: 3 * time.Second, Floor: f}
	}
	measured := []SessionRow{
		row("a", &FloorRow{Parse: time.Second, Read: 100 * time.Millisecond, NewBytes: 2e6, ReadBytes: 5e6, Files: 7}),
		row("b", &FloorRow{Read: 150 * time.Millisecond, ReadBytes: 5e6, Files: 7}),
	}
	got := SessionTable(measured, Proc{Wall: 20 * time.Second}, Proc{}, 2, "0.1 0.1 0.1")
	testenv.WantAll(t, "table", got,
		"| 1.000 s | 1.00 s | 0.10x | 0.100 s |", // row a: parse floor, then warm CLI, its ratio, read floor
		"| 7 / 2.00 |",
		"| 0.000 s | 1.00 s | 0.10x | 0.150 s |", // row b needs nothing new
		"| **total** | 20.00 s |",
		"| 1.00 s | 2.00 s | 0.10x | 0.25 s |",
		"| 2.00 MB parsed, 10.00 MB read |",
		"| **tether / floor** | | | **4.00x** | | | 0.05x of ast-grep | **8.00x** | | 0.01x of ast-grep | **6.00x** |",
	)
	missing := []SessionRow{row("a", nil), row("b", nil)}
	got = SessionTable(missing, Proc{Wall: 20 * time.Second}, Proc{}, 2, "0.1 0.1 0.1")
	testenv.WantAll(t, "table without a floor", got,
		"| 2.00 s | 0.20x | 0 MB | - | 1.00 s | 0.10x | - |",
		"| **tether / floor** | | | **-** | | | - of ast-grep | **-** | | - of ast-grep | **-** |",
		"The floor was not measured in this run",
	)
}

// TestNoHeadTable: the session with and without the warm-up's head start,
// a row a pattern, with the first ten patterns' total and the whole one.
func TestNoHeadTable(t *testing.T) {
	var rows []SessionRow
	for i := 0; i < 12; i++ {
		rows = append(rows, SessionRow{Pattern: fmt.Sprintf("p%d", i), AstGrep: Proc{Wall: 10 * time.Second},
			InRun: time.Second, NoHead: 2 * time.Second})
	}
	rows[3].Pattern = "$A || $B"
	got := NoHeadTable(rows, Proc{Wall: 30 * time.Second, RSS: 2048})
	testenv.WantAll(t, "table", got,
		"| 1 | `p0` | 10.00 s | 1.000 s | 0.100x | 2.000 s | 0.200x |",
		"| 4 | `$A \\|\\| $B` |",
		"| | **total, the first 10** | 100.00 s | 10.00 s | 0.100x | 20.00 s | 0.200x |",
		"| | **total, all 12** | 120.00 s | 12.00 s | 0.100x | 24.00 s | 0.200x |",
		"Its peak RSS: 2 MB (its whole run, 30.00 s)",
	)
}
