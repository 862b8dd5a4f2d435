package main

import "encoding/json"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestAstGrepCLINotebook: tether ast-grep names a match in a notebook's
// cell as the tools do, "nb.ipynb[cell 3 id=timed]:line:text" with context
// lines from the cell's source; --json adds the cell and counts the range
// in its source (characters, as ast-grep's columns); -r shows the cells'
// diff, -U writes a notebook whose other cells keep their bytes; an R
// notebook is named as skipped on stderr.
func TestAstGrepCLINotebook(t *testing.T) {
	dir, nb, nbText := notebookCLIDir(t)

	code, out, errs := runCLI(t, "-p", "print($$$A)", "-l", "python", "-B", "1", dir)
	want := nb + "[cell 2 id=shell]:2:files = !ls data\n" +
		nb + "[cell 2 id=shell]:3:print(len(files))\n" +
		nb + "[cell 3 id=timed]:2:names = [\"café\", \"naïve\", \"Zürich\"]\n" +
		nb + "[cell 3 id=timed]:3:print(\"say \\\"hi\\\" to\", names)\n" +
		"--\n" +
		nb + "[cell 3 id=timed]:5:for n in names:\n" +
		nb + "[cell 3 id=timed]:6:    print(n.upper())\n" +
		nb + "[cell 5 id=frame]:2:df?\n" +
		nb + "[cell 5 id=frame]:3:print(df[\"Größe\"].sum())\n"
	if code != 0 || out != want {
		t.Errorf("human output (exit %d):\n%s\nwant:\n%s", code, out, want)
	}
	if !strings.Contains(errs, "skipped 1 (1 notebook: "+filepath.Join(dir, "o.ipynb")+" (kernel language octave, which no shipped grammar reads))") {
		t.Errorf("stderr does not name the Octave notebook:\n%s", errs)
	}

	code, out, _ = runCLI(t, "-p", "$D[\"Größe\"]", "--json=compact", nb)
	var ms []struct {
		File string `json:"file"`
		Cell *struct {
			Index int    `json:"index"`
			ID    string `json:"id"`
		} `json:"cell"`
		Range struct {
			ByteOffset struct{ Start, End int }   `json:"byteOffset"`
			Start      struct{ Line, Column int } `json:"start"`
			End        struct{ Line, Column int } `json:"end"`
		} `json:"range"`
	}
	if err := json.Unmarshal([]byte(out), &ms); err != nil || code != 0 {
		t.Fatalf("--json (exit %d): %v\n%s", code, err, out)
	}
	// df["Größe"] on the cell's third line: characters 0 to 11, bytes of
	// the source from its start
	src := "df = pd.DataFrame({\"Größe\": [1.5, 2.0], \"prix €\": [3, 4]})\ndf?\n"
	if len(ms) != 1 || ms[0].File != nb || ms[0].Cell == nil || ms[0].Cell.Index != 5 || ms[0].Cell.ID != "frame" ||
		ms[0].Range.Start.Line != 2 || ms[0].Range.Start.Column != 6 || ms[0].Range.End.Column != 17 ||
		ms[0].Range.ByteOffset.Start != len(src)+6 || ms[0].Range.ByteOffset.End != len(src)+19 {
		t.Errorf("--json: %s", out)
	}

	code, out, _ = runCLI(t, "-p", "print($$$A)", "-r", "log($$$A)", nb)
	if code != 0 || !strings.Contains(out, "@@ -1,6 +1,6 @@ cell 3 id=timed\n %%time\n") || !strings.Contains(out, "-    print(n.upper())\n+    log(n.upper())\n") {
		t.Errorf("-r diff (exit %d):\n%s", code, out)
	}
	if code, _, errs = runCLI(t, "-p", "print($$$A)", "-r", "log($$$A)", "-U", nb); code != 0 || !strings.Contains(errs, "Applied 4 changes") {
		t.Fatalf("-U (exit %d): %s", code, errs)
	}
	changed, a := testenv.ChangedCellsOf(t, nbText, nb)
	if fmt.Sprint(changed) != "[2 3 5]" {
		t.Errorf("cells %v changed, want those with a print: 2, 3 and 5", changed)
	}
	if !strings.Contains(a.Cells[5].Source, "log(df[\"Größe\"].sum())") {
		t.Errorf("cell 5 after -U: %q", a.Cells[5].Source)
	}
}

// TestScanCLINotebook: tether scan runs a Python rule on a notebook's
// cells, placing each finding at "nb.ipynb[cell N id=ID]:line:column",
// names the Octave notebook it could not scan on stderr, and -U writes the fixes
// into the cells' sources.
func TestScanCLINotebook(t *testing.T) {
	dir, nb, nbText := notebookCLIDir(t)
	rule := "id: upper\nlanguage: python\nseverity: warning\nrule: {pattern: $S.upper()}\nfix: $S.casefold()\n"
	code, out, errs := runScanCLI(t, "--inline-rules", rule, dir)
	if code != 0 || !strings.Contains(out, "warning[upper]\n  --> "+nb+"[cell 3 id=timed]:6:11\n   |     print(n.upper())\n  fix: n.casefold()\n") {
		t.Errorf("scan (exit %d):\n%s", code, out)
	}
	if !strings.Contains(errs, "tether scan: notebook not scanned: "+filepath.Join(dir, "o.ipynb")+" (kernel language octave, which no shipped grammar reads)") {
		t.Errorf("stderr does not name the Octave notebook:\n%s", errs)
	}
	if code, _, errs = runScanCLI(t, "--inline-rules", rule, "-U", nb); code != 0 || !strings.Contains(errs, "Applied 1 changes") {
		t.Fatalf("scan -U (exit %d): %s", code, errs)
	}
	changed, a := testenv.ChangedCellsOf(t, nbText, nb)
	if fmt.Sprint(changed) != "[3]" || !strings.HasSuffix(a.Cells[3].Source, "\n    print(n.casefold())") {
		t.Errorf("cells %v changed; cell 3: %q", changed, a.Cells[3].Source)
	}
}

// notebookCLIDir writes the pinned notebook with magics as m.ipynb (nb,
// its text nbText) and a notebook of Octave, which no shipped grammar
// reads, as o.ipynb in a new directory.
func notebookCLIDir(t *testing.T) (dir, nb string, nbText []byte) {
	t.Helper()
	nbText, err := os.ReadFile("../../testdata/notebook/magics-and-unicode.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	o := `{"cells": [], "metadata": {"kernelspec": {"language": "octave", "name": "octave", "display_name": "Octave"}}, "nbformat": 4, "nbformat_minor": 4}`
	for name, text := range map[string]string{"m.ipynb": string(nbText), "o.ipynb": o} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, "m.ipynb"), nbText
}
