package tools

import "encoding/json"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// FuzzApplyPatch feeds arbitrary patches and files to the patch parser and the
// hunk applier: they must never panic, and a parsed update either applies or
// says which hunk failed.
func FuzzApplyPatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ x\n-a\n+b\n*** End of File\n*** End Patch", "x\na\n")
	f.Add("*** Begin Patch\n*** Add File: n\n+1\n*** Delete File: d\n*** End Patch", "")
	f.Add("*** Begin Patch\n*** Update File: a\n*** Move to: b\n c\n-d\n+e\n\n*** End Patch", "c\r\nd\r\n")
	f.Add("*** Begin Patch\n*** Update File: a\n+only added\n*** End Patch", "no newline")
	f.Fuzz(func(t *testing.T, patch, content string) {
		testenv.Bounded(t, "parsing and applying the patch", func() { checkPatch(t, patch, content) })
	})
}

// checkPatch parses patch and applies its updates to content.
func checkPatch(t *testing.T, patch, content string) {
	ops, err := parsePatch(patch)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "tools: apply_patch: ") {
			t.Errorf("error without prefix: %v", err)
		}
		return
	}
	for _, op := range ops {
		if op.kind != opUpdate {
			continue
		}
		if _, err := applyHunks(op, content); err != nil && !strings.Contains(err.Error(), "hunk") {
			t.Errorf("hunk error does not name the hunk: %v", err)
		}
	}
}

// FuzzValidateArgs: the argument validator never panics and every refusal
// names what was expected.
func FuzzValidateArgs(f *testing.F) {
	s, err := compileSchema([]byte(`{"type":"object","properties":{
		"path":{"type":"string","minLength":1,"pattern":"^[a-z]"},
		"n":{"type":"integer","minimum":1,"maximum":9},
		"xs":{"type":"array","items":{"type":"number"},"maxItems":3},
		"k":{"enum":["a","b",1]},
		"o":{"type":"object","properties":{"b":{"type":"boolean"}},"required":["b"],"additionalProperties":false},
		"u":{"anyOf":[{"type":"string"},{"type":"null"}]}},
		"required":["path"],"additionalProperties":false}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(`{"path":"a","n":3,"xs":[1,2.5],"k":"a","o":{"b":true},"u":null}`)
	f.Add(`{"path":"","n":1e400}`)
	f.Add(`[{"path":1}]`)
	f.Add(`{"path":"a","n":3.0,"o":{"b":true,"b":false}}`)
	f.Fuzz(func(t *testing.T, args string) {
		out, err := s.validateArgs([]byte(args))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		// What passes decodes as the handler declares it, and passes again
		// unchanged.
		var a struct {
			N int `json:"n"`
		}
		if err := json.Unmarshal(out, &a); err != nil {
			t.Fatalf("%s passed as %s, which does not decode: %v", args, out, err)
		}
		if again, err := s.validateArgs(out); err != nil || string(again) != string(out) {
			t.Fatalf("%s passed as %s, then as %s (%v)", args, out, again, err)
		}
	})
}
