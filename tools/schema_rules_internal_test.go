package tools

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "sort"
import "strings"
import "testing"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/std"
import "github.com/tetherhq/tether/operator"
import "github.com/tetherhq/tether/workers"

// breaking returns values that break each rule s states, each with what the
// refusal must say: a value outside the enum, one past each bound, a string
// the pattern does not match.
func breaking(s *jsonschema.Schema) map[string]struct {
	value any
	says  []string
} {
	out := map[string]struct {
		value any
		says  []string
	}{}
	add := func(rule string, v any, says ...string) {
		out[rule] = struct {
			value any
			says  []string
		}{v, says}
	}
	if len(s.Enum) > 0 {
		var vals []string
		for _, e := range s.Enum {
			b, _ := json.Marshal(e)
			vals = append(vals, string(b))
		}
		var bad any = "none-of-these"
		if _, ok := s.Enum[0].(string); !ok {
			bad = json.Number("987654321")
		}
		add("enum", bad, "expected one of "+strings.Join(vals, ", "))
	}
	if s.Minimum != nil {
		add("minimum", json.Number(fmt.Sprint(*s.Minimum-1)), fmt.Sprintf(">= %v", *s.Minimum))
	}
	if s.Maximum != nil {
		add("maximum", json.Number(fmt.Sprint(*s.Maximum+1)), fmt.Sprintf("<= %v", *s.Maximum))
	}
	if s.MinLength != nil && *s.MinLength > 0 {
		want := fmt.Sprintf("at least %d characters", *s.MinLength)
		if *s.MinLength == 1 {
			want = "expected a non-empty string"
		}
		add("minLength", strings.Repeat("x", *s.MinLength-1), want)
	}
	if s.MaxLength != nil {
		add("maxLength", strings.Repeat("x", *s.MaxLength+1), fmt.Sprintf("at most %d characters", *s.MaxLength))
	}
	if s.MaxItems != nil {
		add("maxItems", make([]any, *s.MaxItems+1), fmt.Sprintf("at most %d items", *s.MaxItems))
	}
	if s.MinItems != nil && *s.MinItems > 0 {
		add("minItems", []any{}, fmt.Sprintf("at least %d items", *s.MinItems))
	}
	if s.Pattern != "" {
		for _, c := range []string{" ", "x", "\t", "!! !!", "a b c", "1", "xx xx", ""} {
			if !matches(s.Pattern, c) && (s.MinLength == nil || len(c) >= *s.MinLength) {
				add("pattern", c, "matching "+s.Pattern)
				break
			}
		}
	}
	return out
}

// TestSchemaRulesReachTheError walks every tool's schema, argument by
// argument (list elements and their fields too), and breaks each rule it
// states (enum, bounds, lengths, item counts, pattern): the validator
// refuses the value and the refusal names the rule.
func TestSchemaRulesReachTheError(t *testing.T) {
	checked := map[string]bool{}
	for _, f := range allFamilies() {
		for _, tool := range f.tools() {
			var root jsonschema.Schema
			if err := json.Unmarshal(tool.InputSchema, &root); err != nil {
				t.Fatalf("%s: %v", tool.Name, err)
			}
			var walk func(at string, s *jsonschema.Schema)
			walk = func(at string, s *jsonschema.Schema) {
				for rule, bad := range breaking(s) {
					checked[tool.Name+" "+at+" "+rule] = true
					res, err := s.Resolve(nil)
					if err != nil {
						t.Fatalf("%s %s: %v", tool.Name, at, err)
					}
					if res.Validate(numbersAsFloats(bad.value)) == nil {
						t.Errorf("%s %s: %s: the validator took %v", tool.Name, at, rule, bad.value)
					}
					e := explain(s, bad.value, at)
					for _, want := range bad.says {
						if e == nil || !strings.Contains(e.Error(), want) {
							t.Errorf("%s %s: breaking %s says %v, want %q", tool.Name, at, rule, e, want)
						}
					}
				}
				names := make([]string, 0, len(s.Properties))
				for n := range s.Properties {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					walk(join(at, n), s.Properties[n])
				}
				if s.Items != nil {
					walk(at+"[0]", s.Items)
				}
			}
			walk("", &root)
		}
	}
	// The rules this walk must have reached, among the others.
	for _, k := range []string{
		"eval description pattern", "eval language enum", "lsp action enum", "lsp direction enum", "lsp kind enum",
		"lsp line minimum", "ast_grep max_results minimum", "ask_user options maxItems", "ask_user options[0].label pattern",
		"ask_user question maxLength", "vibe_spawn brief pattern", "vibe_wait timeout_seconds maximum", "debug op enum", "resolve action enum",
	} {
		if !checked[k] {
			t.Errorf("the walk did not check %q", k)
		}
	}
	t.Logf("%d rules checked", len(checked))
}

// wiredRun is a run with every resource wired, on a temporary directory.
func wiredRun(t *testing.T) (*Run, string) {
	t.Helper()
	dir := t.TempDir()
	sup, err := lsp.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(context.Background(), engine.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	ws, err := workers.New(workers.Config{Commands: map[string]string{workers.Fast: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRun(context.Background(), Config{
		WorkDir:        dir,
		ConversationID: "c",
		Policy:         PolicyOf(Allow),
		Debug:          dap.NewSupervisor(dap.Config{}),
		LSP:            sup,
		Search:         SearchConfig{Parser: eng},
		Ask:            AskConfig{Questions: operator.NewConsole(), TargetSpace: "s"},
		Vibe:           VibeConfig{On: true, Workers: ws},
		Eval:           EvalConfig{Kernels: std.NewFactory(kernels.Config{}, nil)},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, dir
}

// TestHandlerRulesAreInTheSchema: each rule a handler enforces is stated in
// its tool's schema. Those a schema keyword can say are refused by the
// schema before the handler runs (ErrInvalidArgs), with the rule; those it
// cannot (one argument against another, bytes rather than characters, a
// reserved word) are refused by the handler with the rule, and the
// argument's description in the schema states it.
func TestHandlerRulesAreInTheSchema(t *testing.T) {
	r, dir := wiredRun(t)
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc Old() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	many := make([]map[string]string, operator.MaxOptions+1)
	for i := range many {
		many[i] = map[string]string{"label": fmt.Sprint("option ", i)}
	}
	cases := []struct {
		tool string
		args any
		// says is what the refusal says; stated, when set, is the argument
		// whose description states the rule (the schema cannot check it).
		says   string
		stated string
	}{
		{"eval", map[string]any{"code": "1", "description": "four words only here"}, `argument "description": expected a string matching`, ""},
		{"eval", map[string]any{"code": "1", "description": "one two three four five six seven eight nine ten eleven"}, "5-10 words saying what the cell does", ""},
		{"eval", map[string]any{"code": "1", "description": ""}, "5-10 words", ""},
		{"ask_user", map[string]any{"question": "   "}, `argument "question": expected a string matching \S (the question, one or two sentences; not blank`, ""},
		{"ask_user", map[string]any{"question": "which?", "options": []map[string]string{{"label": " "}}}, `argument "options[0].label": expected a string matching \S`, ""},
		{"ask_user", map[string]any{"question": "which?", "options": many}, `argument "options": expected at most 20 items`, ""},
		{"vibe_spawn", map[string]any{"brief": " \n ", "label": "x"}, `argument "brief": expected a string matching \S`, ""},
		{"lsp", map[string]any{"action": "call_hierarchy", "file": "a.go", "line": 3, "symbol": "Old", "direction": "up"}, `argument "direction": expected one of "incoming", "outgoing", "supertypes", "subtypes"`, ""},
		{"lsp", map[string]any{"action": "callers"}, `argument "action": expected one of`, ""},
		{"ast_grep", map[string]any{"pattern": "x", "output": "json"}, `argument "output": expected one of "lines", "full", "captures"`, ""},
		{"ast_grep", map[string]any{"pattern": "x", "max_results": 0}, `argument "max_results": expected a number >= 1`, ""},
		{"resolve", map[string]any{"edit_id": "edit_1", "action": "apply"}, `expected one of "accept", "discard"`, ""},
		// Rules no schema keyword can say: the description states them.
		{"edit", map[string]any{"path": "f.txt", "old_string": "same", "new_string": "same"}, "old_string and new_string are the same", "new_string"},
		{"ask_user", map[string]any{"question": "which?", "multi_select": true}, "multi_select needs options", "multi_select"},
		{"ask_user", map[string]any{"question": strings.Repeat("é", 1500)}, "over the 2000 limit", "question"},
		{"ask_user", map[string]any{"question": "which?", "options": []map[string]string{{"label": "a"}, {"label": "a"}}}, "labels must be unique", "options"},
		{"lsp_rename", map[string]any{"file": "a.go", "line": 3, "symbol": "Old", "new_name": "func"}, `"func" is a reserved word in Go`, "new_name"},
		{"lsp", map[string]any{"action": "type_hierarchy", "file": "a.go", "line": 3, "symbol": "Old", "direction": "incoming"}, "type_hierarchy takes direction supertypes (the default) or subtypes", "direction"},
		{"ast_grep", map[string]any{"pattern": "x", "language": "cobol"}, `unknown language "cobol"`, "language"},
		{"debug", map[string]any{"op": "breakpoints", "lines": []int{3}}, "breakpoints needs file", "file"},
		{"debug", map[string]any{"op": "launch"}, "launch needs program", "program"},
	}
	for _, tc := range cases {
		t.Run(tc.tool+"/"+tc.says, func(t *testing.T) {
			b, _ := json.Marshal(tc.args)
			_, err := r.Call(context.Background(), tc.tool, b, FromModel)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want it to say %q", err, tc.says)
			}
			if tc.stated == "" {
				if !errors.Is(err, ErrInvalidArgs) {
					t.Errorf("the handler refused it, not the schema: %v", err)
				}
				return
			}
			var tool Tool
			for _, x := range r.reg.All() {
				if x.Name == tc.tool {
					tool = x
				}
			}
			var s jsonschema.Schema
			if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
				t.Fatal(err)
			}
			desc := s.Properties[tc.stated].Description
			rule := map[string]string{
				"new_string":   "must differ from old_string",
				"multi_select": "needs options",
				"question":     fmt.Sprintf("at most %d bytes", operator.MaxQuestionBytes),
				"options":      "labels unique",
				"new_name":     "not a reserved word",
				"direction":    "type_hierarchy: supertypes (default) or subtypes",
				"language":     "one of ",
				"file":         "breakpoints (required)",
				"program":      "launch (required)",
			}[tc.stated]
			if !strings.Contains(desc, rule) {
				t.Errorf("%s's %s says %q, not the rule %q", tc.tool, tc.stated, desc, rule)
			}
		})
	}
}
