package format_test

import "bytes"
import "context"
import "os"
import "path/filepath"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/format"

func parser(t testing.TB) matcher.Parser {
	t.Helper()
	return enginetest.Engine(t)
}

// WriteHuman prints each line once, as ast-grep does, when matches share it
// (a call nested in another on one line).
func TestWriteHumanLineOnce(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "n.py")
	if err := os.WriteFile(file, []byte("f(1)\nf(a, f(b, c))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := search.NewSearcher(parser(t), search.Config{})
	res, err := s.Search(context.Background(), search.Query{Pattern: "f($$$A)", Language: "python", Paths: []string{file}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 3 {
		t.Fatalf("got %d matches, want 3 (one nested)", len(res.Matches))
	}
	var b bytes.Buffer
	if err := format.WriteHumanOpts(&b, res.Matches, format.HumanOptions{}); err != nil {
		t.Fatal(err)
	}
	want := file + ":1:f(1)\n" + file + ":2:f(a, f(b, c))\n"
	if b.String() != want {
		t.Errorf("WriteHumanOpts:\n%s\nwant:\n%s", b.String(), want)
	}
}
