package server_test

import "context"
import "strings"
import "sync"
import "testing"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/server"

// TestAskCardBothRevisions: a three-question ask_user card reaches an MCP
// client as one form, through elicitation for a 2025-11-25 client and
// through an input request for a 2026-07-28 one: every question with its
// numbered options and recommendation, a field per question; the answer
// the client fills in (the second left empty) comes back per question. An
// edit's approval shows its diff there too.
func TestAskCardBothRevisions(t *testing.T) {
	th := newTestHostPolicy(t, server.HostOptions{}, "write=ask")
	var mu sync.Mutex
	var seen []*mcp.ElicitParams
	co := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		seen = append(seen, req.Params)
		mu.Unlock()
		if strings.Contains(req.Params.Message, "[permission]") {
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"q1": "SQLite", "q3_answer": "9090"}}, nil
	}}
	card := map[string]any{"question": "Setting up the service", "questions": []map[string]any{
		{"question": "Which database?", "options": []map[string]any{{"label": "Postgres"}, {"label": "SQLite"}}, "recommended": "Postgres"},
		{"question": "Add a cache?", "options": []map[string]any{{"label": "Redis"}, {"label": "none"}}},
		{"question": "Which port?", "allow_free_text": true},
	}}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			seen = nil
			cs := th.openAt(t, rev, "alpha", tokOps, "", co)
			text, isErr := callText(t, cs, "ask_user", card)
			for _, want := range []string{"2 of 3 questions answered", "1. Chosen: SQLite", "2. Skipped.", "3. Text: 9090"} {
				if isErr || !strings.Contains(text, want) {
					t.Errorf("ask_user card: error %v, result lacks %q:\n%s", isErr, want, text)
				}
			}
			if len(seen) != 1 {
				t.Fatalf("the client was asked %d times, want once", len(seen))
			}
			msg := seen[0].Message
			for _, want := range []string{"Setting up the service", "3 questions", "Q1. Which database?", "1) Postgres (recommended)", "Q2. Add a cache?", "Q3. Which port?"} {
				if !strings.Contains(msg, want) {
					t.Errorf("elicitation message lacks %q:\n%s", want, msg)
				}
			}
			props, _ := seen[0].RequestedSchema.(map[string]any)["properties"].(map[string]any)
			for _, f := range []string{"q1", "q2", "q3_answer"} {
				if _, ok := props[f]; !ok {
					t.Errorf("the form lacks field %s: %v", f, props)
				}
			}

			seen = nil
			file := "notes-" + rev + ".txt"
			if text, isErr := callText(t, cs, "write", map[string]any{"path": file, "content": "hello\n"}); isErr {
				t.Fatalf("write: %s", text)
			}
			if text, isErr := callText(t, cs, "edit", map[string]any{"path": file, "old_string": "hello", "new_string": "there"}); isErr {
				t.Fatalf("edit: %s", text)
			}
			if len(seen) != 2 || !strings.Contains(seen[1].Message, "-hello") || !strings.Contains(seen[1].Message, "+there") || strings.Contains(seen[1].Message, "old_string") {
				t.Errorf("the edit's approval did not show its diff: %+v", seen)
			}
		})
	}
}
