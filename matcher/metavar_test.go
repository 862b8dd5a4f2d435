package matcher

import "testing"

func TestSubstitute(t *testing.T) {
	tests := []struct {
		in      string
		expando rune
		want    string
	}{
		{"fmt.Errorf($$$ARGS)", 'µ', "fmt.Errorf(µµµARGS)"},
		{"$X.Lock()", 'µ', "µX.Lock()"},
		{"f($_, $$$)", 'µ', "f(µ_, µµµ)"},
		{"f($$A)", 'µ', "f(µµA)"},
		{"$x + $1 + $", 'µ', "$x + $1 + $"}, // not metavariables: left alone
		{"foo($A)", '$', "foo($A)"},
		{"a $$$$B", 'µ', "a µµµµB"},
		{"$A1_B", 'µ', "µA1_B"},
	}
	for _, tt := range tests {
		if got := substitute(tt.in, tt.expando); got != tt.want {
			t.Errorf("substitute(%q, %q) = %q, want %q", tt.in, tt.expando, got, tt.want)
		}
	}
}

func TestParseMeta(t *testing.T) {
	tests := []struct {
		text string
		ok   bool
		want metaVar
	}{
		{"µX", true, metaVar{kind: metaSingle, name: "X"}},
		{"µµµARGS", true, metaVar{kind: metaMulti, name: "ARGS"}},
		{"µµµ", true, metaVar{kind: metaMulti}},
		{"µ_", true, metaVar{kind: metaSingle}},
		{"µ_IGNORED", true, metaVar{kind: metaSingle}},
		{"µµA", true, metaVar{kind: metaAny, name: "A"}},
		{"µ", false, metaVar{}},
		{"µx", false, metaVar{}},
		{"µX.y", false, metaVar{}},
		{"X", false, metaVar{}},
		{"µµ", false, metaVar{}},
	}
	for _, tt := range tests {
		got, ok := parseMeta(tt.text, 'µ')
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseMeta(%q) = %+v, %v; want %+v, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
	if got, ok := parseMeta("$$$B", '$'); !ok || got.kind != metaMulti || got.name != "B" {
		t.Errorf("parseMeta($$$B, $) = %+v, %v", got, ok)
	}
}

func TestUnsubstitute(t *testing.T) {
	for in, want := range map[string]string{
		`"cost µX"`: `"cost $X"`,
		"µµµ":       "$$$",
		"µm":        "µm", // a real µ stays
	} {
		if got := unsubstitute(in, 'µ'); got != want {
			t.Errorf("unsubstitute(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLaddersCoverLanguages(t *testing.T) {
	for _, id := range []string{"go", "python", "javascript", "typescript", "tsx", "rust", "c", "cpp", "java",
		"dart", "ruby", "bash", "json", "c_sharp", "php", "kotlin", "swift", "scala", "lua", "yaml", "css", "html"} {
		spec, ok := langs[id]
		if !ok || len(spec.ladder) == 0 {
			t.Errorf("%s: no context ladder", id)
			continue
		}
		for _, c := range spec.ladder {
			src, s, e := c.scaffold("X\nY")
			if src[s:e] != "X\n"+c.indent+"Y" {
				t.Errorf("%s/%s: scaffold range %q", id, c.name, src[s:e])
			}
		}
	}
	if got := contextNames(langs["dart"].ladder); got != "statement, expression, member, declaration, catch clause, case clause, annotation, parameter, named parameter, type or enum constant" {
		t.Errorf("contextNames(dart) = %q", got)
	}
}

// TestLadderRowsBelong: every language with an expando has a ladder, and
// every group of ladderRows belongs to a language's ladder (a row under a
// mistyped id would be read by none).
func TestLadderRowsBelong(t *testing.T) {
	used := map[string]bool{}
	for id, spec := range langs {
		if len(spec.ladder) == 0 {
			t.Errorf("%s: no context ladder", id)
		}
		groups, ok := ladderGroups[id]
		if !ok {
			groups = []string{id}
		}
		for _, g := range groups {
			used[g] = true
		}
	}
	for _, r := range ladderRows {
		if !used[r.lang] {
			t.Errorf("ladderRows: %s/%s is in no language's ladder", r.lang, r.name)
		}
	}
	for id := range langExtras {
		if langs[id] == nil {
			t.Errorf("langExtras: %s has no expando", id)
		}
	}
}
