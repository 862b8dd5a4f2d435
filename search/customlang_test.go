package search_test

import "context"
import "errors"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search"

// customProject writes a project whose sgconfig.yml registers
// tree-sitter-properties' web module (the .wasm its npm package ships) as
// the custom language "props" (extra sgconfig keys in extra), with a rule
// and two .properties files, and returns its directory.
func customProject(t *testing.T, name, extra string) string {
	t.Helper()
	_, wasm := enginetest.PropertiesModule(t)
	dir := t.TempDir()
	files := map[string]string{
		"grammars/props.wasm": string(wasm),
		"sgconfig.yml": "ruleDirs: [rules]\ncustomLanguages:\n  " + name + ":\n    libraryPath: grammars/props.wasm\n" +
			"    extensions: [properties, props]\n    languageSymbol: tree_sitter_properties\n" + extra,
		"rules/password.yml": "id: plain-password\nlanguage: " + name + "\nseverity: error\nmessage: a password in plain text ($V)\n" +
			"rule:\n  pattern: password = $V\nfix: password = CHANGE_ME\n",
		"conf/app.properties": "# app\nurl = jdbc:x\npassword = hunter2\n",
		"conf/dev.props":      "password = dev\nuser = x\n",
		"conf/main.go":        "package main\n\nvar s = \"password = hunter2\"\n",
	}
	testenv.WriteFiles(t, dir, files)
	return dir
}

// TestCustomLanguageProject: a project's customLanguages (sgconfig.yml)
// make search, rewrite and scan parse its files with the grammar's web
// module in the engine's sandbox, as ast-grep's customLanguages does with
// a native library: by the language's name, by its extensions, with its
// rules.
func TestCustomLanguageProject(t *testing.T) {
	ctx := context.Background()
	p := parser(t)
	dir := customProject(t, "props", "")
	proj, err := search.LoadProject(ctx, p, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	s := search.NewSearcher(p, search.Config{MaxText: -1})

	res, err := s.Scan(ctx, search.ScanQuery{Rules: proj.Rules, Base: proj.Dir})
	if err != nil || len(res.Errors) > 0 {
		t.Fatalf("Scan = %v, errors %v", err, res.Errors)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Path+": "+f.Message+" -> "+deref(f.Replacement))
	}
	want := []string{"conf/app.properties: a password in plain text (hunter2) -> password = CHANGE_ME", "conf/dev.props: a password in plain text (dev) -> password = CHANGE_ME"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("scan findings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	for _, q := range []search.Query{
		{Pattern: "password = $V", Language: "props", Paths: []string{"."}},
		{Pattern: "password = $V", Paths: []string{"conf/app.properties", "conf/dev.props"}},
	} {
		r, err := s.Search(ctx, q)
		if err != nil {
			t.Fatalf("Search(%+v) = %v", q, err)
		}
		var ms []string
		for _, m := range r.Matches {
			ms = append(ms, m.Path+" "+m.Language+" "+m.Text+" V="+m.Bindings[0].Text)
		}
		if got, want := strings.Join(ms, "; "), "conf/app.properties props password = hunter2 V=hunter2; conf/dev.props props password = dev V=dev"; got != want {
			t.Errorf("Search(%v) = %s, want %s", q.Paths, got, want)
		}
	}

	rw := "password = $V-rotated"
	plan, err := s.Rewrite(ctx, search.Query{Pattern: "password = $V", Language: "props", Paths: []string{"conf"}}, rw)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Replacements != 2 || len(plan.Changes) != 2 || !strings.Contains(string(plan.Changes[0].New), "password = hunter2-rotated\n") {
		t.Errorf("Rewrite = %d replacements, changes %+v", plan.Replacements, plan.Changes)
	}
}

// TestCustomLanguageExpando: expandoChar is what '$' becomes in a
// pattern's metavariables before it is parsed, as in ast-grep, so a
// metavariable may be written with it too: with expandoChar µ, "µK = dev"
// binds K; with none, it is the literal key µK and matches nothing.
func TestCustomLanguageExpando(t *testing.T) {
	ctx := context.Background()
	p := parser(t)
	cases := []struct {
		name, extra string
		expando     rune
		want        int
		dir         string
	}{
		{name: "props-x", extra: "    expandoChar: µ\n", expando: 'µ', want: 1},
		{name: "props-plain", expando: '$'},
	}
	for i := range cases {
		cases[i].dir = customProject(t, cases[i].name, cases[i].extra)
	}
	for _, c := range cases {
		dir := c.dir
		if _, err := search.LoadProject(ctx, p, dir); err != nil {
			t.Fatal(err)
		}
		l, ok := grammars.Lookup(c.name)
		if !ok || l.Custom.Expando != c.expando {
			t.Fatalf("Lookup(%s) = %+v", c.name, l)
		}
		t.Chdir(dir)
		s := search.NewSearcher(p, search.Config{MaxText: -1})
		for _, pat := range []string{"$K = dev", "µK = dev"} {
			r, err := s.Search(ctx, search.Query{Pattern: pat, Language: c.name, Paths: []string{"conf"}})
			if err != nil {
				t.Fatal(err)
			}
			want := 1
			if strings.HasPrefix(pat, "µ") {
				want = c.want
			}
			if len(r.Matches) != want || want == 1 && (len(r.Matches[0].Bindings) != 1 || r.Matches[0].Bindings[0].Text != "password") {
				t.Errorf("%s: %q: matches %+v, want %d binding K", c.name, pat, r.Matches, want)
			}
		}
	}
}

// TestCustomLanguageConfigErrors: a customLanguages entry tether cannot
// use is refused when the project loads, saying what to give instead.
func TestCustomLanguageConfigErrors(t *testing.T) {
	p := parser(t)
	for _, c := range []struct{ name, lang, want string }{
		{"native library", "  nat:\n    libraryPath: nat.so\n    extensions: [nat]\n", "not a .wasm module: tether runs grammars as WebAssembly"},
		{"outside", "  out:\n    libraryPath: ../out.wasm\n    extensions: [out]\n", "leads outside the project"},
		{"absolute", "  abs:\n    libraryPath: /x/abs.wasm\n    extensions: [abs]\n", "is absolute"},
		{"missing file", "  miss:\n    libraryPath: miss.wasm\n    extensions: [miss]\n", "libraryPath \"miss.wasm\""},
		{"no extensions", "  noext:\n    libraryPath: grammars/props.wasm\n", "extensions is missing"},
		{"shipped name", "  python:\n    libraryPath: grammars/props.wasm\n    extensions: [pyx]\n", "names a shipped language"},
		{"unknown key", "  k:\n    libraryPath: grammars/props.wasm\n    extensions: [k]\n    dynamic: true\n", "dynamic: unknown key"},
		{"long expando", "  e:\n    libraryPath: grammars/props.wasm\n    extensions: [e]\n    expandoChar: ab\n", "expandoChar must be one character"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := customProject(t, "props", "")
			cfg := "ruleDirs: [rules]\ncustomLanguages:\n" + c.lang
			if err := os.WriteFile(filepath.Join(dir, "sgconfig.yml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := search.LoadProject(context.Background(), p, dir)
			if !errors.Is(err, rule.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("LoadProject = %v, want %q", err, c.want)
			}
		})
	}
}

// TestCustomLanguageBroken: a module that fails in the engine is a file
// error of the search that names the grammar, not a silent "no matches".
func TestCustomLanguageBroken(t *testing.T) {
	ctx := context.Background()
	dir := customProject(t, "props-broken", "")
	// not a side module: the project loads (the engine reads modules on
	// first use), the search says why nothing was searched
	if err := os.WriteFile(filepath.Join(dir, "grammars", "props.wasm"), []byte("\x00asm\x01\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := search.LoadCustomLanguages(filepath.Join(dir, "sgconfig.yml")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	s := search.NewSearcher(parser(t), search.Config{MaxText: -1})
	r, err := s.Search(ctx, search.Query{Pattern: "password = $V", Language: "props-broken", Paths: []string{"conf"}})
	msg := ""
	if err != nil {
		msg = err.Error()
	} else {
		for _, e := range r.Errors {
			msg += e.Err + "\n"
		}
	}
	if !errors.Is(err, engine.ErrBadModule) && !strings.Contains(msg, "custom language props-broken (grammars/props.wasm") {
		t.Errorf("Search = %+v, %v: want an error naming the broken module", r, err)
	}
	t.Log(msg)
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
