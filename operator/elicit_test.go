package operator_test

import "context"
import "encoding/json"
import "errors"
import "os"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/operator"

// mcpAsk connects a go-sdk server whose "ask" tool asks through the
// elicitation port to a go-sdk client with the given elicitation handler (nil:
// the client lacks the capability), calls the tool with q, and returns what
// the port returned, together with the elicitation request the client saw.
func mcpAsk(t *testing.T, q operator.Question, handler func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)) (operator.Answer, error, *mcp.ElicitParams) {
	t.Helper()
	ctx := context.Background()
	type result struct {
		a   operator.Answer
		err error
	}
	got := make(chan result, 1)
	// Like tether serve, offer only protocol versions that allow server-initiated
	// elicitation during a call (2026-07-28 moved it to multi round-trip results).
	server := mcp.NewServer(&mcp.Implementation{Name: "tether-test", Version: "0"},
		&mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18"}})
	server.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			port := operator.NewElicitation(operator.SessionElicitor{Session: req.Session})
			a, err := operator.Ask(ctx, port, q, time.Hour)
			got <- result{a, err}
			text := ""
			if err != nil {
				text = err.Error()
			} else {
				text = a.Report()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: err != nil}, nil
		})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var seen *mcp.ElicitParams
	opts := &mcp.ClientOptions{}
	if handler != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			seen = req.Params
			return handler(req)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "operator-test", Version: "0"}, opts)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	r := <-got
	if text := res.Content[0].(*mcp.TextContent).Text; r.err == nil && !strings.Contains(text, "operator") {
		t.Errorf("tool result = %q", text)
	}
	return r.a, r.err, seen
}

func TestElicitation(t *testing.T) {
	single := operator.Question{
		Question: "Which database?",
		Context:  "The migration depends on it.",
		Options:  []operator.Option{{Label: "Postgres", Description: "managed"}, {Label: "SQLite"}},
	}
	multi := operator.Question{
		Question:      "Which checks?",
		Options:       []operator.Option{{Label: "tests"}, {Label: "lint"}, {Label: "bench"}},
		MultiSelect:   true,
		AllowFreeText: true,
	}
	perm := operator.Permission{Tool: "write", Tier: "write", Detail: `{"path":"a.go"}`}.Question()
	accept := func(content map[string]any) func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		}
	}
	action := func(a string) func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: a}, nil }
	}
	tests := []struct {
		name    string
		q       operator.Question
		handler func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)
		want    operator.Answer
		wantErr error
	}{
		{"answer one", single, accept(map[string]any{"choice": "SQLite"}), operator.Answer{Outcome: operator.Answered, Labels: []string{"SQLite"}}, nil},
		{"answer several with text", multi, accept(map[string]any{"choices": []any{"lint", "tests"}, "answer": "and vet"}),
			operator.Answer{Outcome: operator.Answered, Labels: []string{"tests", "lint"}, Text: "and vet"}, nil},
		{"decline is a skip", single, action("decline"), operator.Answer{Outcome: operator.Skipped}, nil},
		{"cancel is a skip", single, action("cancel"), operator.Answer{Outcome: operator.Skipped}, nil},
		{"empty form is a skip", multi, accept(map[string]any{}), operator.Answer{Outcome: operator.Skipped}, nil},
		{"no capability", single, nil, operator.Answer{}, operator.ErrNoHuman},
		{"permission accepted", perm, action("accept"), operator.Answer{Outcome: operator.Answered, Labels: []string{operator.Allow}}, nil},
		{"permission declined", perm, action("decline"), operator.Answer{Outcome: operator.Answered, Labels: []string{operator.Deny}}, nil},
		{"permission cancelled", perm, action("cancel"), operator.Answer{Outcome: operator.Skipped}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err, seen := mcpAsk(t, tc.q, tc.handler)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), operator.ContinueInstruction) {
					t.Fatalf("err = %v, want %v with the continue instruction", err, tc.wantErr)
				}
				if seen != nil {
					t.Errorf("the client was asked although it lacks elicitation")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Outcome != tc.want.Outcome || !slices.Equal(a.Labels, tc.want.Labels) || a.Text != tc.want.Text {
				t.Errorf("answer = %+v, want %+v", a, tc.want)
			}
			if seen == nil || !strings.Contains(seen.Message, tc.q.Question) {
				t.Fatalf("elicitation message = %+v", seen)
			}
			if tc.q.Context != "" && !strings.Contains(seen.Message, tc.q.Context) {
				t.Errorf("message %q lacks the context", seen.Message)
			}
		})
	}
}

// TestElicitationRejectsForeignLabels: a client that answers with a label the
// question does not offer gets no answer through; nothing is invented.
func TestElicitationRejectsForeignLabels(t *testing.T) {
	q := operator.Question{Question: "Pick", Options: []operator.Option{{Label: "a"}, {Label: "b"}}}
	port := operator.NewElicitation(elicitFunc(func(context.Context, string, any) (string, map[string]any, error) {
		return "accept", map[string]any{"choice": "c"}, nil
	}))
	if _, err := operator.Ask(context.Background(), port, q, 0); err == nil || !strings.HasPrefix(err.Error(), "operator: ") {
		t.Fatalf("foreign label: err = %v, want an operator: error", err)
	}
	if _, err := operator.Ask(context.Background(), operator.NewElicitation(nil), q, 0); !errors.Is(err, operator.ErrNoHuman) {
		t.Fatalf("nil elicitor: %v, want ErrNoHuman", err)
	}
}

type elicitFunc func(ctx context.Context, message string, schema any) (string, map[string]any, error)

func (f elicitFunc) Elicit(ctx context.Context, message string, schema any) (string, map[string]any, error) {
	return f(ctx, message, schema)
}

// TestFirstConnected: the first port with a human answers; with none, the
// question fails at once naming why.
func TestFirstConnected(t *testing.T) {
	q := operator.Question{Question: "Pick", Options: []operator.Option{{Label: "a"}, {Label: "b"}}}
	console := operator.NewConsole() // no page open
	defer console.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	term := operator.NewTerminal(r, w) // not a terminal
	_, err = operator.Ask(context.Background(), operator.FirstConnected(console, term), q, 0)
	if !errors.Is(err, operator.ErrNoHuman) || !strings.Contains(err.Error(), "console") || !strings.Contains(err.Error(), "not a terminal") {
		t.Fatalf("no port connected: %v", err)
	}
	answering := operator.NewElicitation(elicitFunc(func(context.Context, string, any) (string, map[string]any, error) {
		return "accept", map[string]any{"choice": "b"}, nil
	}))
	a, err := operator.Ask(context.Background(), operator.FirstConnected(console, answering), q, 0)
	if err != nil || !slices.Equal(a.Labels, []string{"b"}) {
		t.Fatalf("fallback to elicitation: %+v %v", a, err)
	}
}

// TestElicitationCardIsNumbered: the form the client renders numbers the
// options as the terminal card and the console do, and the message lists
// them too, so "option 2" means the same thing on every port.
func TestElicitationCardIsNumbered(t *testing.T) {
	for _, q := range []operator.Question{
		{Question: "Which database?", Options: []operator.Option{{Label: "Postgres", Description: "managed"}, {Label: "SQLite"}}},
		{Question: "Which checks?", Options: []operator.Option{{Label: "Postgres", Description: "managed"}, {Label: "SQLite"}}, MultiSelect: true},
	} {
		b, err := json.Marshal(operator.Schema(q))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"const":"Postgres","title":"1. Postgres - managed"`, `"const":"SQLite","title":"2. SQLite"`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("multi %v: schema lacks %s: %s", q.MultiSelect, want, b)
			}
		}
		if msg := operator.Message(q); !strings.Contains(msg, "\n  1) Postgres - managed\n  2) SQLite") {
			t.Errorf("message does not list the numbered options:\n%s", msg)
		}
	}
}
