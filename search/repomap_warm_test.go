package search_test

import "context"
import "os"
import "path/filepath"
import "reflect"
import "slices"
import "testing"
import "time"

import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// TestMapWarmEqualsCold: a map from the outlines the store keeps (the same
// process, and a new one that has only the disk tier, which reads no tree)
// answers what the cold map, which parsed every file, answered.
func TestMapWarmEqualsCold(t *testing.T) {
	dir := mapProject(t, rankedProject())
	tier := t.TempDir()
	d, err := store.OpenDiskCache(tier, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := store.NewCache(0)
	c.SetDisk(d)
	s := search.NewSearcher(parser(t), search.Config{Root: dir, Cache: c})
	ctx := context.Background()
	queries := []search.MapQuery{
		{Paths: []string{dir}},
		{Paths: []string{dir}, Focus: []string{filepath.Join(dir, "web")}, Words: []string{"render"}, Symbols: []string{"lonelyThing"}},
	}
	var cold []*search.MapResult
	for _, q := range queries {
		res, err := s.Map(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		cold = append(cold, res)
	}
	if st := c.Stats(); st.Outlines == 0 || st.OutlineBytes == 0 {
		t.Fatalf("the store keeps no outline after a map: %+v", st)
	}
	d.Settle(time.Minute) // as a process exits
	fresh := store.NewCache(0)
	fresh.SetDisk(d)
	other := search.NewSearcher(parser(t), search.Config{Root: dir, Cache: fresh})
	for i, q := range queries {
		for _, w := range []struct {
			name string
			s    *search.Searcher
		}{{"same process", s}, {"new process", other}} {
			res, err := w.s.Map(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res, cold[i]) {
				t.Errorf("query %d, warm (%s):\n%+v\nwant the cold answer:\n%+v", i, w.name, res, cold[i])
			}
		}
	}
	if st := fresh.Stats(); st.Entries != 0 || st.Misses != 0 {
		t.Errorf("the new process's map read or parsed trees (%d held, %d lookups): its outlines are on disk", st.Entries, st.Misses)
	}
}

// TestMapOutlinesChangedFile: a file changed since the last map is outlined
// again (its new definition listed, its old one gone), never answered from
// the outline of what it held.
func TestMapOutlinesChangedFile(t *testing.T) {
	dir := mapProject(t, rankedProject())
	s := search.NewSearcher(parser(t), search.Config{Root: dir, Cache: store.NewCache(0)})
	ctx := context.Background()
	q := search.MapQuery{Paths: []string{dir}}
	before, err := s.Map(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !hasDef(before, "lonelyThing") || hasDef(before, "freshThing") {
		t.Fatalf("first map: lonelyThing %v, freshThing %v", hasDef(before, "lonelyThing"), hasDef(before, "freshThing"))
	}
	helper := filepath.Join(dir, "util/helper.go")
	body := "package util\n\nfunc parseConfig(path string) (map[string]string, error) {\n\treturn nil, nil\n}\n\nfunc freshThing(n int) int { return n }\n\nfunc useIt() { freshThing(1) }\n"
	if err := os.WriteFile(helper, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second) // another mtime, whatever the clock's grain
	if err := os.Chtimes(helper, later, later); err != nil {
		t.Fatal(err)
	}
	after, err := s.Map(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if hasDef(after, "lonelyThing") || !hasDef(after, "freshThing") || !hasDef(after, "useIt") {
		t.Errorf("after the change: lonelyThing %v (want gone), freshThing %v, useIt %v (want listed)",
			hasDef(after, "lonelyThing"), hasDef(after, "freshThing"), hasDef(after, "useIt"))
	}
	if i := slices.IndexFunc(after.Files, func(f search.MapFile) bool { return f.Path == helper }); i < 0 || after.Files[i].Defs[0].Line != 3 {
		t.Errorf("the changed file's outline: %+v", after.Files)
	}
}

func hasDef(res *search.MapResult, name string) bool {
	return slices.ContainsFunc(rankedDefs(res), func(d search.MapDef) bool { return d.Name == name })
}
