package tools

import "encoding/json"
import "slices"
import "strconv"
import "strings"
import "testing"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/bridges/dap"

// TestSchemasSayTheHandlersTables: what a tag cannot say comes from the
// tables and constants the handlers use (tuneSchema), and reaches the schema
// the model sees.
func TestSchemasSayTheHandlersTables(t *testing.T) {
	schemaOf := func(raw json.RawMessage) *jsonschema.Schema {
		t.Helper()
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	enum := func(s *jsonschema.Schema, prop string) []string {
		var out []string
		for _, v := range s.Properties[prop].Enum {
			out = append(out, v.(string))
		}
		return out
	}
	if got := enum(schemaOf(SchemaFor[lspArgs]()), "action"); !slices.Equal(got, lspActions) {
		t.Errorf("lsp action enum = %v, want lspActions %v", got, lspActions)
	}
	table := dap.DefaultAdapters()
	debug := schemaOf(debugTool(dap.NewSupervisor(dap.Config{Adapters: table}), "", "").InputSchema)
	if got := enum(debug, "adapter"); !slices.Equal(got, dap.AdapterIDs(table)) {
		t.Errorf("debug adapter enum = %v, want the table's %v", got, dap.AdapterIDs(table))
	}
	for _, a := range table {
		if (a.GoExecutables || a.Executables) && !strings.Contains(debug.Properties["program"].Description, a.ID) {
			t.Errorf("debug program says %q, not which executables go to %s", debug.Properties["program"].Description, a.ID)
		}
	}
	if got := enum(debug, "op"); !slices.Equal(got, debugOps) {
		t.Errorf("debug op enum = %v, want debugOps %v", got, debugOps)
	}
	start := debug.Properties["start"].Description
	for _, n := range []int{dap.MaxVariables, dap.MaxStackFrames} {
		if !strings.Contains(start, strconv.Itoa(n)) {
			t.Errorf("debug start says %q, not the page size %d", start, n)
		}
	}
	if d := debug.Properties["test"].Description; !strings.Contains(d, strconv.Quote(dap.AllTests)) {
		t.Errorf("debug test says %q, not %q", d, dap.AllTests)
	}
	if got := enum(schemaOf(SchemaFor[grepArgs]()), "output"); !slices.Equal(got, []string{AstGrepOutputLines, AstGrepOutputFull, AstGrepOutputCaptures}) {
		t.Errorf("ast_grep output enum = %v", got)
	}
	if m := schemaOf(SchemaFor[waitArgs]()).Properties["timeout_seconds"].Maximum; m == nil || *m != MaxWaitSeconds {
		t.Errorf("vibe_wait timeout_seconds maximum = %v, want MaxWaitSeconds %d", m, MaxWaitSeconds)
	}
}
