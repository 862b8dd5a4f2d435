package tools_test

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/tools"

// TestAstGrepCustomLanguage: the working directory's sgconfig.yml
// customLanguages make ast_grep and ast_edit search and rewrite a language
// tether does not ship, parsed by the grammar's web module (here
// tree-sitter-properties' .wasm) in the engine's sandbox; a libraryPath
// that leaves the workspace is refused with what to do.
func TestAstGrepCustomLanguage(t *testing.T) {
	_, wasm := enginetest.PropertiesModule(t)
	const cfg = "ruleDirs: [rules]\ncustomLanguages:\n  javaprops:\n    libraryPath: grammars/props.wasm\n    extensions: [properties]\n    languageSymbol: tree_sitter_properties\n"
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{
		"sgconfig.yml":        cfg,
		"grammars/props.wasm": string(wasm),
		"conf/app.properties": "# app\nurl = jdbc:x\npassword = hunter2\n",
	})
	res := callResult(t, r, "ast_grep", `{"pattern":"password = $V","language":"javaprops"}`)
	if txt := res.AllText(); !strings.Contains(txt, "1 match") || !strings.Contains(txt, "conf/app.properties:3:1") {
		t.Errorf("ast_grep: want the password line of conf/app.properties:\n%s", txt)
	}
	res, err := call(t, r, "ast_edit", `{"pattern":"password = $V","rewrite":"password = $V-2","path":"conf/app.properties"}`)
	if err != nil || !strings.Contains(res.AllText(), "(proposed) 1 replacement in 1 file") {
		t.Fatalf("ast_edit: %v\n%s", err, res.AllText())
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "conf/app.properties")); string(got) != "# app\nurl = jdbc:x\npassword = hunter2-2\n" {
		t.Errorf("after the edit:\n%s", got)
	}

	outside := strings.Replace(cfg, "grammars/props.wasm", "../props.wasm", 1)
	if err := os.WriteFile(filepath.Join(dir, "sgconfig.yml"), []byte(outside), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = call(t, r, "ast_grep", `{"pattern":"password = $V","language":"javaprops"}`)
	if err == nil || !strings.Contains(err.Error(), "customLanguages") || !strings.Contains(err.Error(), "leads outside the project") {
		t.Errorf("a libraryPath outside the workspace: %v", err)
	}
	if _, err = call(t, r, "ast_tree", `{"code":"a = b\n","language":"javaprops"}`); err == nil || !strings.Contains(err.Error(), "ast_tree: the project's customLanguages") {
		t.Errorf("ast_tree with a libraryPath outside the workspace: %v", err)
	}
}

// TestAstTreeCustomLanguage: ast_tree reads the project's customLanguages
// as ast_grep does, before any other tool has registered them (the name is
// this test's own): by name, by a path's extension, and in a pattern
// tested on code.
func TestAstTreeCustomLanguage(t *testing.T) {
	_, wasm := enginetest.PropertiesModule(t)
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{
		"sgconfig.yml":  "customLanguages:\n  treeprops:\n    libraryPath: g/props.wasm\n    extensions: [tprops]\n    languageSymbol: tree_sitter_properties\n",
		"g/props.wasm":  string(wasm),
		"conf/a.tprops": "# app\npassword = hunter2\n",
	})
	for _, c := range []struct{ args, want string }{
		{`{"code":"a = b\n","language":"treeprops"}`, `property 1:1-1:6 "a = b"`},
		{`{"path":"conf/a.tprops"}`, `property 2:1-2:19 "password = hunter2"`},
		{`{"pattern":"password = $V","code":"password = x\n","language":"treeprops"}`, "1 match"},
	} {
		res, err := call(t, r, "ast_tree", c.args)
		if err != nil {
			t.Errorf("ast_tree %s: %v", c.args, err)
		} else if txt := res.AllText(); !strings.Contains(txt, c.want) {
			t.Errorf("ast_tree %s: want %q in:\n%s", c.args, c.want, txt)
		}
	}
}
