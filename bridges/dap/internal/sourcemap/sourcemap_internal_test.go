package sourcemap

import "encoding/base64"
import "path/filepath"
import "strings"
import "testing"

// TestVLQ decodes base64 VLQ numbers as the source map format writes them.
func TestVLQ(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"A", 0}, {"C", 1}, {"D", -1}, {"E", 2}, {"2H", 123}, {"3H", -123}, {"gB", 16}, {"qxmvrH", 123456789},
	} {
		got, next, err := vlq(tc.in, 0)
		if err != nil || got != tc.want || next != len(tc.in) {
			t.Errorf("vlq(%q) = %d, %d, %v; want %d", tc.in, got, next, err, tc.want)
		}
	}
	for _, bad := range []string{"", "g", "!", "gggggggggA"} {
		if _, _, err := vlq(bad, 0); err == nil {
			t.Errorf("vlq(%q) should fail", bad)
		}
	}
}

// tsMap is the map tsc 5.9 writes (tsc --sourceMap --outDir dist --rootDir
// src) for src/app.ts, whose first three lines are an interface (no code)
// and whose function tick starts at line 5; dist/app.js starts with it.
const tsMap = `{"version":3,"file":"app.js","sourceRoot":"","sources":["../src/app.ts"],"names":[],"mappings":"AAIA,SAAS,IAAI,CAAC,IAAU;IACtB,MAAM,KAAK,GAAW,IAAI,CAAC,CAAC,GAAG,EAAE,CAAC;IAClC,OAAO,KAAK,CAAC;AACf,CAAC"}`

// TestSourceMap maps a .ts line to its generated line and back, slides a
// line without code to the next one with some, and reads an inline map.
func TestSourceMap(t *testing.T) {
	dir := t.TempDir()
	gen := filepath.Join(dir, "dist", "app.js")
	m, err := Parse([]byte(tsMap), gen+".map", gen)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src", "app.ts")
	i := m.HasSource(src)
	if i != 0 {
		t.Fatalf("sources %v, want %s", m.sources, src)
	}
	gl, _, found, ok := m.GeneratedFor(i, 5) // app.ts line 6: const total
	if !ok || gl != 1 || found != 5 {
		t.Fatalf("app.ts:6 -> generated line %d (found %d, %v), want 2", gl+1, found+1, ok)
	}
	if f, l, _, ok := m.Original(1, 4); !ok || f != src || l != 5 {
		t.Fatalf("generated 2:5 -> %s:%d %v, want app.ts:6", f, l+1, ok)
	}
	if _, _, found, ok := m.GeneratedFor(i, 0); !ok || found != 4 {
		t.Fatalf("a line without code should slide to line 5, got %d %v", found+1, ok)
	}
	if _, _, _, ok := m.GeneratedFor(i, 100); ok {
		t.Fatal("a line past the end maps to nothing")
	}
	data, err := Inline("data:application/json;charset=utf-8;base64," + base64.StdEncoding.EncodeToString([]byte(tsMap)))
	if err != nil || !strings.Contains(string(data), `"mappings"`) {
		t.Fatalf("inline map: %v %q", err, data)
	}
	for _, bad := range []string{`{"version":2,"sources":[],"mappings":""}`, `{"version":3,"sources":["a"],"mappings":"AACA,Z!"}`, `{"version":3,"sources":[],"mappings":"AAAA"}`} {
		if _, err := Parse([]byte(bad), gen, gen); err == nil {
			t.Errorf("%s should be refused", bad)
		}
	}
}

// FuzzSourceMap: any map text parses or is refused, and lookups on what
// parses stay in bounds.
func FuzzSourceMap(f *testing.F) {
	f.Add(tsMap)
	f.Add(`{"version":3,"sources":["a.ts","b.ts"],"mappings":"AAAA;;CACC,EAAE;gBAAgB"}`)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := Parse([]byte(s), "/p/x.js.map", "/p/x.js")
		if err != nil {
			return
		}
		for l := 0; l < len(m.lines)+1; l++ {
			m.Original(l, 0)
			m.Original(l, 1<<20)
		}
		for i := range m.sources {
			m.GeneratedFor(i, 0)
		}
	})
}
