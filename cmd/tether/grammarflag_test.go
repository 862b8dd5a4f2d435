package main

import "bytes"
import "os"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/internal/testenv"

// TestGrammarFlag: --grammar gives tether ast-grep and tether scan a
// custom language from a grammar's web module (tree-sitter-properties'
// .wasm), and a project's customLanguages give it to tether ast-grep run
// in the project; a bad --grammar is a usage error that says what to give.
func TestGrammarFlag(t *testing.T) {
	wasmPath, wasm := enginetest.PropertiesModule(t)
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"conf/app.cprops": "url = jdbc:x\npassword = hunter2\n",
		"sgconfig.yml":    "ruleDirs: [rules]\ncustomLanguages:\n  projprops:\n    libraryPath: g/props.wasm\n    extensions: [pprops]\n    languageSymbol: tree_sitter_properties\n",
		"rules/.keep":     "",
		"g/props.wasm":    string(wasm),
		"conf/dev.pprops": "password = dev\n",
	})
	t.Chdir(dir)
	flagVal := "name=cprops,wasm=" + wasmPath + ",ext=cprops,symbol=tree_sitter_properties"
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := dispatch(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ast-grep", "--grammar", flagVal, "-p", "password = $V", "--json=compact", "conf/app.cprops"}, 0, `"text":"password = hunter2"`},
		{[]string{"ast-grep", "--grammar", flagVal, "-p", "password = $V", "-r", "password = $V-2", "-U", "conf/app.cprops"}, 0, "Applied 1 changes"},
		{[]string{"scan", "--grammar", flagVal, "--inline-rules", "id: pw\nlanguage: cprops\nseverity: warning\nmessage: plain $V\nrule: {pattern: password = $V}\n", "conf"}, 0, "plain hunter2-2"},
		{[]string{"ast-grep", "-p", "password = $V", "-l", "projprops", "conf"}, 0, "conf/dev.pprops"},
		{[]string{"parse", "--grammar", flagVal, "conf/app.cprops"}, 0, "(file (property (key) (value)) (property (key) (value)))"},
		{[]string{"ast-grep", "--grammar", "name=x", "-p", "a", "conf"}, 2, "name= and wasm= are needed"},
		{[]string{"scan", "--grammar", "name=python,wasm=" + wasmPath + ",ext=pyx", "--inline-rules", "id: a\nlanguage: go\nrule: {pattern: a}\n"}, 2, "names a shipped language"},
	} {
		code, out, errs := run(c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("tether %s = %d\n%s%s\nwant %d and %q", strings.Join(c.args, " "), code, out, errs, c.code, c.want)
		}
	}
	if got, _ := os.ReadFile("conf/app.cprops"); string(got) != "url = jdbc:x\npassword = hunter2-2\n" {
		t.Errorf("after -U: %q", got)
	}
	// tether languages lists the custom languages after the shipped ones,
	// --grammar's and the project's, each marked custom
	code, out, errs := run("languages", "--grammar", flagVal)
	if code != 0 {
		t.Fatalf("tether languages = %d: %s", code, errs)
	}
	custom := map[string]string{}
	for _, row := range strings.Split(out, "\n") {
		if f := strings.Fields(row); len(f) > 0 && f[len(f)-1] == "custom" {
			custom[f[0]] = strings.Join(f, " ")
		}
	}
	if !strings.Contains(custom["cprops"], ".cprops "+wasmPath) || !strings.Contains(custom["projprops"], ".pprops") || custom["go"] != "" {
		t.Errorf("tether languages: custom rows %q, want cprops (.cprops, %s) and projprops (.pprops):\n%s", custom, wasmPath, out)
	}
	if code, _, errs := run("languages", "extra"); code != 2 || !strings.Contains(errs, "takes no arguments") {
		t.Errorf("tether languages extra = %d %q, want 2 and what it takes", code, errs)
	}
}
