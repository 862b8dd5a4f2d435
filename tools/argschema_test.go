package tools_test

import "context"
import "encoding/json"
import "errors"
import "strings"
import "testing"

import "github.com/tetherhq/tether/tools"

type sampleOption struct {
	Label string `json:"label" jsonschema:"the choice" bounds:"minLength=1,maxLength=5"`
}

type sampleArgs struct {
	Question string         `json:"question" jsonschema:"the question, one sentence" bounds:"minLength=1"`
	Mode     string         `json:"mode,omitempty" bounds:"enum=fast|good"`
	Count    int            `json:"count,omitempty" bounds:"minimum=1,maximum=500"`
	Lines    []int          `json:"lines,omitempty" bounds:"maxItems=3,items.minimum=1"`
	Options  []sampleOption `json:"options,omitempty"`
	Free     *bool          `json:"free,omitempty" jsonschema:"accept typed text"`
	Name     string         `json:"name,omitempty" bounds:"pattern=^[a-z,]+$"`
}

// TestSchemaFor: the schema inferred from an argument struct is what the
// registry validates with, tags and all, and refusals keep the registry's
// wording.
func TestSchemaFor(t *testing.T) {
	raw := tools.SchemaFor[sampleArgs]()
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if s["additionalProperties"] == nil || !strings.Contains(string(raw), `"required":["question"]`) {
		t.Errorf("schema = %s", raw)
	}
	if free := s["properties"].(map[string]any)["free"].(map[string]any); free["type"] != "boolean" {
		t.Errorf("pointer field type = %v, want boolean (no null)", free["type"])
	}
	r := startRun(t, tools.Config{WorkDir: t.TempDir(), Surface: tools.SurfaceReadonly})
	if err := r.Register(tools.Tool{Name: "t", Tier: tools.TierRead, InputSchema: raw,
		Handler: func(ctx context.Context, c *tools.Call) (*tools.Result, error) {
			var a sampleArgs
			return tools.Text("ok"), c.Decode(&a)
		}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args, err string }{
		{`{"question":"q","mode":"good","count":3,"lines":[1,2],"options":[{"label":"a"}],"free":true,"name":"a,b"}`, ""},
		{`{}`, `missing required argument "question" (a string: the question, one sentence)`},
		{`{"question":""}`, `argument "question": expected a non-empty string (the question, one sentence)`},
		{`{"question":"q","mode":"slow"}`, `argument "mode": expected one of "fast", "good", got string "slow"`},
		{`{"question":"q","count":501}`, `argument "count": expected a number <= 500, got 501`},
		{`{"question":"q","lines":[0]}`, `argument "lines[0]": expected a number >= 1, got 0`},
		{`{"question":"q","lines":[1,2,3,4]}`, `argument "lines": expected at most 3 items, got 4`},
		{`{"question":"q","options":[{"label":"toolong"}]}`, `argument "options[0].label": expected at most 5 characters, got 7`},
		{`{"question":"q","name":"A"}`, `argument "name": expected a string matching ^[a-z,]+$`},
		{`{"question":"q","extra":1}`, `unknown argument "extra": expected only count, free, lines, mode, name, options, question`},
	} {
		t.Run(tc.args, func(t *testing.T) {
			res, err := r.Call(context.Background(), "t", json.RawMessage(tc.args), tools.FromModel)
			if tc.err == "" {
				if err != nil || res.AllText() != "ok" {
					t.Fatalf("valid arguments refused: %v", err)
				}
				return
			}
			if !errors.Is(err, tools.ErrInvalidArgs) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want ErrInvalidArgs saying %q", err, tc.err)
			}
		})
	}
}

func TestSchemaForRejectsBadTags(t *testing.T) {
	type bad struct {
		X string `json:"x" bounds:"minLength"`
	}
	defer func() {
		if recover() == nil {
			t.Error("a malformed bounds tag did not panic")
		}
	}()
	tools.SchemaFor[bad]()
}

type sampleShared struct {
	Worker string `json:"worker" jsonschema:"the worker" bounds:"minLength=1"`
}

type sampleEmbedding struct {
	sampleShared
	Note string `json:"note,omitempty" bounds:"maxLength=3"`
}

// TestSchemaForEmbeddedAndEmpty: an embedded struct's fields are the
// struct's own, tags and all (several tools share one), and a struct without
// fields has "properties":{} (some clients refuse an object schema without).
func TestSchemaForEmbeddedAndEmpty(t *testing.T) {
	want := `{"type":"object","properties":{"worker":{"type":"string","description":"the worker","minLength":1},"note":{"type":"string","maxLength":3}},"required":["worker"],"additionalProperties":false}`
	if got := string(tools.SchemaFor[sampleEmbedding]()); got != want {
		t.Errorf("embedded:\n got %s\nwant %s", got, want)
	}
	want = `{"type":"object","properties":{},"additionalProperties":false}`
	if got := string(tools.SchemaFor[struct{}]()); got != want {
		t.Errorf("no fields:\n got %s\nwant %s", got, want)
	}
}
