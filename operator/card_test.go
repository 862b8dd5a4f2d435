package operator_test

import "slices"
import "strings"
import "testing"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/operator"

var card = operator.Question{
	Question: "Setting up the service",
	Questions: []operator.Question{
		{Question: "Which database?", Options: []operator.Option{{Label: "Postgres"}, {Label: "SQLite"}}, Recommended: "Postgres"},
		{Question: "Which checks?", Options: []operator.Option{{Label: "tests"}, {Label: "lint"}}, MultiSelect: true},
		{Question: "Which port?", AllowFreeText: true},
	},
}

// TestElicitationCard: a multi-question card through a real go-sdk client's
// elicitation: each question's field is read back, an empty one is a skip,
// a decline skips the whole card, and a foreign label is refused (by the SDK's schema check, before the port's own).
func TestElicitationCard(t *testing.T) {
	for _, tc := range []struct {
		name    string
		result  *mcp.ElicitResult
		want    []operator.Answer
		wantErr string
	}{
		{"filled in part", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"q1": "SQLite", "q2": []any{"lint", "tests"}}},
			[]operator.Answer{{Outcome: operator.Answered, Labels: []string{"SQLite"}}, {Outcome: operator.Answered, Labels: []string{"tests", "lint"}}, {Outcome: operator.Skipped}}, ""},
		{"decline skips all", &mcp.ElicitResult{Action: "decline"},
			[]operator.Answer{{Outcome: operator.Skipped}, {Outcome: operator.Skipped}, {Outcome: operator.Skipped}}, ""},
		{"foreign label", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"q1": "MySQL"}}, nil, "does not match requested schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err, seen := mcpAsk(t, card, func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) { return tc.result, nil })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Answers) != len(tc.want) {
				t.Fatalf("answers = %+v, want %+v", a.Answers, tc.want)
			}
			for i, w := range tc.want {
				if g := a.Answers[i]; g.Outcome != w.Outcome || !slices.Equal(g.Labels, w.Labels) {
					t.Errorf("Q%d = %+v, want %+v", i+1, g, w)
				}
			}
			if !strings.Contains(seen.Message, "Q2. Which checks?") || !strings.Contains(seen.Message, "1) Postgres (recommended)") {
				t.Errorf("message = %q", seen.Message)
			}
		})
	}
}

// TestCardValidate: a card's rules, each refusal saying what to do.
func TestCardValidate(t *testing.T) {
	many := operator.Question{}
	for range operator.MaxQuestions + 1 {
		many.Questions = append(many.Questions, operator.Question{Question: "q?", AllowFreeText: true})
	}
	withOptions := card
	withOptions.Options = []operator.Option{{Label: "x"}}
	nested := operator.Question{Questions: []operator.Question{card}}
	for _, tc := range []struct {
		q    operator.Question
		want string
	}{
		{many, "ask the rest in another call"},
		{withOptions, "put options, free text and the recommendation on each question"},
		{nested, "a card's questions are plain questions"},
		{operator.Question{Questions: []operator.Question{{Question: "A?", Options: []operator.Option{{Label: "a"}}, Recommended: "b"}}}, `question 1: operator: the recommended option "b"`},
	} {
		if err := tc.q.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate = %v, want %q", err, tc.want)
		}
	}
	if err := card.Validate(); err != nil {
		t.Errorf("valid card: %v", err)
	}
	if err := operator.CheckAnswer(card, operator.Answer{Outcome: operator.Answered, Answers: []operator.Answer{{Outcome: operator.Skipped}}}); err == nil {
		t.Error("one answer for a card of three was accepted")
	}
	// A port cannot pass off an answer as the operator's default.
	invented := operator.Answer{Outcome: operator.Answered, Answers: []operator.Answer{
		{Outcome: operator.Answered, Labels: []string{"Postgres"}, Defaulted: true}, {Outcome: operator.Skipped}, {Outcome: operator.Skipped}}}
	if err := operator.CheckAnswer(card, invented); err == nil || !strings.Contains(err.Error(), "never answers for the human") {
		t.Errorf("a port's defaulted answer: %v", err)
	}
}
