package search_test

import "context"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/search"

// sampleCase is a search over a language's ok fixture (testdata/parse/ID):
// a pattern with a metavariable, and an ast-grep rule (a kind that has a
// pattern) whose message names what its metavariable bound.
type sampleCase struct {
	lang string
	// pattern's first match is want, its first metavariable bound to bind.
	pattern, want, bind string
	// rule is the rule: object of a YAML rule; its findings' messages,
	// "$B" substituted, are ruleWant.
	rule     string
	ruleWant []string
}

// sampleCases covers the languages added after the first 46: each finds a
// construct of its real sample with a pattern and with a rule.
var sampleCases = []sampleCase{
	{lang: "apex", pattern: "System.debug($X)", want: "System.debug(greet(a.Name))", bind: "greet(a.Name)",
		rule: "  kind: method_declaration\n  has: {stopBy: end, pattern: return $B;}\n", ruleWant: []string{"'hello, world'", "accounts"}},
	{lang: "soql", pattern: "SELECT LastName FROM $T", want: "SELECT LastName FROM Contacts", bind: "Contacts",
		rule: "  kind: where_clause\n  has: {stopBy: end, kind: comparison_expression, has: {kind: int, pattern: $B}}\n", ruleWant: []string{"1000000"}},
	{lang: "sosl", pattern: "RETURNING $$$R", want: "RETURNING Account(Id, Name WHERE Industry = 'Energy' ORDER BY Name LIMIT 5), Contact(FirstName, LastName)", bind: "Account(Id, Name WHERE Industry = 'Energy' ORDER BY Name LIMIT 5), Contact(FirstName, LastName)",
		rule: "  kind: returning_clause\n  has: {kind: sobject_return, pattern: \"$B(FirstName, LastName)\"}\n", ruleWant: []string{"Contact"}},
	{lang: "bicep", pattern: "param $N string", want: "param location string = resourceGroup().location", bind: "location",
		rule: "  kind: object\n  has: {kind: object_property, pattern: \"name: $B\"}\n", ruleWant: []string{"storageName", "'Standard_LRS'"}},
	{lang: "commonlisp", pattern: "(incf $X)", want: "(incf *count*)", bind: "*count*",
		rule: "  kind: defun\n  has: {stopBy: end, pattern: (format nil $B $$$)}\n", ruleWant: []string{"\"~a, ~a\""}},
	{lang: "cuda", pattern: "cudaMalloc(&$X, $$$)", want: "cudaMalloc(&a, n * sizeof(float))", bind: "a",
		rule: "  kind: function_definition\n  has: {stopBy: end, pattern: \"$B<<<$$$>>>($$$)\"}\n", ruleWant: []string{"add"}},
	{lang: "devicetree", pattern: "gpios = <$$$C>;", want: "gpios = <&gpio0 13 GPIO_ACTIVE_LOW>;", bind: "&gpio0 13 GPIO_ACTIVE_LOW",
		rule: "  kind: node\n  has: {kind: property, pattern: \"$B = <$$$>;\"}\n", ruleWant: []string{"gpios", "current-speed"}},
	{lang: "elisp", pattern: "(format $$$A)", want: "(format \"hello, %s\" name)", bind: "\"hello, %s\" name",
		rule: "  kind: function_definition\n  has: {stopBy: end, pattern: (mapcar $B $$$)}\n", ruleWant: []string{"#'greeter-greet"}},
	{lang: "embedded_template", pattern: "<%= $X %>", want: "<%= @title %>", bind: " @title ",
		rule: "  kind: output_directive\n  inside: {kind: template}\n  has: {kind: code, pattern: $B}\n", ruleWant: []string{" @title ", " g.kind ", " g.name ", " @footer "}},
	{lang: "gdscript", pattern: "emit_signal($$$A)", want: "emit_signal(\"greeted\", name)", bind: "\"greeted\", name",
		rule: "  kind: function_definition\n  has: {stopBy: end, pattern: return $B}\n", ruleWant: []string{"text"}},
	{lang: "glsl", pattern: "texture($$$A)", want: "texture(tex, uv)", bind: "tex, uv",
		rule: "  kind: function_definition\n  has: {stopBy: end, pattern: return $B;}\n", ruleWant: []string{"c * (0.5 + 0.5 * sin(t))"}},
	{lang: "kdl", pattern: "version $V", want: "version \"0.1.0\"\n", bind: "\"0.1.0\"",
		rule: "  kind: node\n  has: {kind: node_children, has: {kind: node, pattern: name $B}}\n", ruleWant: []string{"\"tether\""}},
	{lang: "openscad", pattern: "cube($$$A);", want: "cube(s, center = true);", bind: "s, center = true",
		rule: "  kind: module_declaration\n  has: {stopBy: end, pattern: \"cylinder(h = $B, $$$);\"}\n", ruleWant: []string{"s[2] + 1"}},
	{lang: "pascal", pattern: "Inc($X)", want: "Inc(Count)", bind: "Count",
		rule: "  kind: defProc\n  has: {stopBy: end, pattern: \"Result := $B\"}\n", ruleWant: []string{"'hello, world'"}},
	{lang: "prisma", pattern: "provider = $V", want: "provider = \"postgresql\"", bind: "\"postgresql\"",
		rule: "  kind: model_declaration\n  has: {stopBy: end, pattern: \"$B String @unique\"}\n", ruleWant: []string{"email"}},
	{lang: "ron", pattern: "Some($X)", want: "Some(true)", bind: "true",
		rule: "  kind: struct_entry\n  all:\n    - has: {kind: map}\n    - has: {kind: identifier, pattern: $B}\n", ruleWant: []string{"key_bindings"}},
	{lang: "thrift", pattern: "1: required string $N", want: "1: required string name,", bind: "name",
		rule: "  kind: struct_definition\n  all:\n    - has: {stopBy: end, kind: field_modifier, regex: ^optional$}\n    - has: {kind: identifier, pattern: $B}\n", ruleWant: []string{"Greeting"}},
	{lang: "tlaplus", pattern: "UNCHANGED $X", want: "UNCHANGED log", bind: "log",
		rule: "  kind: operator_definition\n  has: {stopBy: end, pattern: \"$B' = 0\"}\n", ruleWant: []string{"count"}},
	{lang: "wgsl", pattern: "return $X;", want: "return out;", bind: "out",
		rule: "  kind: function_decl\n  has: {stopBy: end, pattern: \"return $B;\"}\n", ruleWant: []string{"out", "in.color"}},
}

// TestLanguageSamples searches each language's ok fixture with a pattern
// and scans it with a rule, so a grammar's metavariables work both in a
// bare pattern and inside a rule's relational pattern.
func TestLanguageSamples(t *testing.T) {
	ctx := context.Background()
	p := parser(t)
	s := search.NewSearcher(p, search.Config{MaxText: -1})
	for _, c := range sampleCases {
		t.Run(c.lang, func(t *testing.T) {
			enginetest.RequireLoads(t, c.lang)
			files, _ := filepath.Glob(filepath.Join("..", "testdata", "parse", c.lang, "ok.*"))
			if len(files) != 1 {
				t.Fatalf("testdata/parse/%s has %d ok.* files, want 1", c.lang, len(files))
			}
			if l, ok := grammars.ForPath(files[0]); !ok || l.ID != c.lang {
				t.Fatalf("ForPath(%s) = %v, want %s", files[0], l, c.lang)
			}
			res, err := s.Search(ctx, search.Query{Pattern: c.pattern, Paths: files})
			if err != nil {
				t.Fatalf("pattern %q: %v", c.pattern, err)
			}
			if len(res.Matches) == 0 {
				t.Fatalf("pattern %q found nothing in %s (read as %s)", c.pattern, files[0], res.Pattern)
			}
			m := res.Matches[0]
			if m.Text != c.want || len(m.Bindings) == 0 || m.Bindings[0].Text != c.bind {
				t.Errorf("pattern %q: first match %q bindings %+v, want %q with %q", c.pattern, m.Text, m.Bindings, c.want, c.bind)
			}
			yml := "id: sample\nlanguage: " + c.lang + "\nmessage: found $B\nrule:\n" + c.rule
			rules, err := search.CompileRules(ctx, p, []byte(yml), "sample.yml", nil)
			if err != nil {
				t.Fatalf("rule:\n%s\n%v", yml, err)
			}
			sr, err := s.Scan(ctx, search.ScanQuery{Rules: rules, Paths: files})
			if err != nil || len(sr.Errors) > 0 {
				t.Fatalf("scan: %v %v", err, sr.Errors)
			}
			var got []string
			for _, f := range sr.Findings {
				got = append(got, strings.TrimPrefix(f.Message, "found "))
			}
			if strings.Join(got, "\n") != strings.Join(c.ruleWant, "\n") {
				t.Errorf("rule:\n%s\nfound %q, want %q", c.rule, got, c.ruleWant)
			}
		})
	}
}
