package tools_test

import "context"
import "encoding/json"
import "errors"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/tools"

// TestArgumentsReachHandlerAsValidated: what the schema accepts, the handler
// can decode (an integer written 3.0 or 1e2 is an integer), and what the
// handler would read differently from what the validator and the approver
// saw (a key given twice: encoding/json keeps the last one) is refused.
func TestArgumentsReachHandlerAsValidated(t *testing.T) {
	type args struct {
		Path  string `json:"path"`
		Line  int    `json:"line"`
		Lines []int  `json:"lines"`
		Opts  struct {
			Deep bool `json:"deep"`
		} `json:"opts"`
	}
	var got args
	var asked string
	r := startRun(t, tools.Config{WorkDir: t.TempDir(), Approver: tools.ApproverFunc(func(ctx context.Context, q tools.ApprovalRequest) (bool, error) {
		asked = string(q.Args)
		return true, nil
	})})
	err := r.Register(tools.Tool{Name: "t", Tier: tools.TierWrite,
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"path":{"type":"string"},
			"line":{"type":"integer"},
			"lines":{"type":"array","items":{"type":"integer"}},
			"opts":{"type":"object","properties":{"deep":{"type":"boolean"}}}},
			"additionalProperties":false}`),
		Handler: func(ctx context.Context, c *tools.Call) (*tools.Result, error) {
			got = args{}
			if err := c.Decode(&got); err != nil {
				return nil, err
			}
			return tools.Text("ok"), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args string
		line int    // when valid
		want string // "" = valid; else a substring of the ErrInvalidArgs error
	}{
		{`{"line":3}`, 3, ""},
		{`{"line":3.0}`, 3, ""},
		{`{"line":1e2}`, 100, ""},
		{`{"line":-2.0E1}`, -20, ""},
		{`{"line":2.0,"lines":[3.0,1e1]}`, 2, ""},
		{`{"line":1e20}`, 0, `argument "line": 1e20 is out of range for an integer`},
		{`{"line":99999999999999999999}`, 0, `argument "line": 99999999999999999999 is out of range for an integer`},
		{`{"path":"a.txt","path":"../b.txt"}`, 0, `argument "path" is given twice`},
		{`{"opts":{"deep":false,"deep":true}}`, 0, `argument "opts.deep" is given twice`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			asked = ""
			res, err := r.Call(context.Background(), "t", json.RawMessage(tt.args), tools.FromModel)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("valid arguments failed: %v", err)
				}
				if got.Line != tt.line {
					t.Errorf("handler got line %d, want %d", got.Line, tt.line)
				}
				if strings.Contains(tt.args, "lines") && !slices.Equal(got.Lines, []int{3, 10}) {
					t.Errorf("handler got lines %v, want [3 10]", got.Lines)
				}
				var back args
				if err := json.Unmarshal([]byte(asked), &back); err != nil || back.Line != tt.line {
					t.Errorf("the approver was shown %s, not what the handler ran with (line %d)", asked, tt.line)
				}
				return
			}
			if !errors.Is(err, tools.ErrInvalidArgs) || !strings.Contains(res.AllText(), tt.want) {
				t.Fatalf("err = %v, want ErrInvalidArgs saying %q", err, tt.want)
			}
			if asked != "" {
				t.Errorf("the approver was asked about invalid arguments %s", asked)
			}
		})
	}
}
