package tools

import "reflect"
import "testing"

import "github.com/tetherhq/tether/search"

// TestMergeResultsAddsEveryCount: a search over several languages reports
// each count as the sum of its languages' counts, every integer field of
// search.Result included (KindSkipped was left at the first language's);
// unexported ones are the search's own bookkeeping.
func TestMergeResultsAddsEveryCount(t *testing.T) {
	a, b := &search.Result{}, &search.Result{}
	rt := reflect.TypeOf(*a)
	var counts []string
	for i := range rt.NumField() {
		if f := rt.Field(i); f.IsExported() && f.Type.Kind() == reflect.Int {
			reflect.ValueOf(a).Elem().Field(i).SetInt(int64(i + 1))
			reflect.ValueOf(b).Elem().Field(i).SetInt(int64(10 * (i + 1)))
			counts = append(counts, f.Name)
		}
	}
	if len(counts) < 5 {
		t.Fatalf("only %v are counts: has search.Result changed?", counts)
	}
	m := reflect.ValueOf(mergeResults([]*search.Result{a, b}, 0)).Elem()
	for _, name := range counts {
		f, _ := rt.FieldByName(name)
		if got, want := m.FieldByName(name).Int(), int64(11*(f.Index[0]+1)); got != want {
			t.Errorf("%s: merged %d, want the sum %d", name, got, want)
		}
	}
}
