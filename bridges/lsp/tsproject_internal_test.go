package lsp

import "testing"

func TestTSProjectHolds(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		holds, not   []string
	}{
		{"include a directory", `{"compilerOptions": {"strict": true}, // the sources
			"include": ["src"],}`, []string{"src/a.ts", "src/deep/b.ts"}, []string{"test/a.ts", "srcx/a.ts", "a.ts"}},
		{"include globs and exclude", `{"include": ["src/**/*.ts", "*.ts"], "exclude": ["src/**/*.test.ts"]}`,
			[]string{"src/a.ts", "src/x/y.ts", "top.ts"}, []string{"src/a.test.ts", "test/a.ts", "src/a.js"}},
		{"files", `{"files": ["main.ts"]}`, []string{"main.ts"}, []string{"other.ts"}},
		{"default include", `{"compilerOptions": {}}`, []string{"a.ts", "test/b.ts"}, []string{"node_modules/x/index.ts"}},
		{"url in a string is no comment", `{"include": ["src"], "compilerOptions": {"baseUrl": "http://x/*"}}`, []string{"src/a.ts"}, []string{"b.ts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := parseTSConfig("tsconfig.json", []byte(tc.config))
			if !ok {
				t.Fatal("not read")
			}
			for _, f := range tc.holds {
				if !p.Holds(f) {
					t.Errorf("%s not held", f)
				}
			}
			for _, f := range tc.not {
				if p.Holds(f) {
					t.Errorf("%s held", f)
				}
			}
		})
	}
	if _, ok := parseTSConfig("tsconfig.json", []byte(`{"extends": "./base.json"}`)); ok {
		t.Error("a config that extends another and names no files was read as holding everything")
	}
	p, _ := parseTSConfig("web/tsconfig.json", []byte(`{"include": ["src"]}`))
	if !p.Holds("web/src/a.ts") || p.Holds("src/a.ts") {
		t.Error("a nested config's include is relative to its directory")
	}
}
