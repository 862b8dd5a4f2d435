package tools

import "context"
import "errors"
import "fmt"
import "strings"
import "time"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/operator"

// ask_user (docs/tools.md, "ask_user and vibe mode"). Registered only when the run
// has a question port and a target space.

func init() {
	addFamily(family{
		name:  "operator",
		wired: func(cfg *Config) bool { return cfg.Ask.Questions != nil && cfg.Ask.TargetSpace != "" },
		register: func(r *Run) (func() error, error) {
			ask := r.cfg.Ask
			return nil, r.reg.Register(askTool(ask.Questions, ask.TargetSpace, operator.Wait{Timeout: ask.Timeout, DefaultAfter: ask.DefaultAfter}))
		},
		tools: func() []Tool { return []Tool{askTool(nil, "", operator.Wait{})} },
	})
}

// askArgs are ask_user's arguments.
type askArgs struct {
	Question      string        `json:"question,omitempty" jsonschema:"the question, one or two sentences" bounds:"maxLength=2000"`
	Context       string        `json:"context,omitempty" jsonschema:"why you ask, what depends on the answer, and what you will assume if skipped" bounds:"maxLength=8000"`
	Options       []askOption   `json:"options,omitempty" jsonschema:"the choices, shown numbered" bounds:"maxItems=20"`
	Recommended   string        `json:"recommended,omitempty" jsonschema:"the label of the option you recommend"`
	AllowFreeText *bool         `json:"allow_free_text,omitempty" jsonschema:"accept a typed answer (default: true when there are no options, else false)"`
	MultiSelect   bool          `json:"multi_select,omitempty" jsonschema:"let several options be chosen (default false)"`
	Questions     []askQuestion `json:"questions,omitempty" jsonschema:"several questions on one card, answered together" bounds:"maxItems=10"`
}

// askQuestion is one question of ask_user's questions.
type askQuestion struct {
	Question      string      `json:"question" jsonschema:"the question, one or two sentences" bounds:"minLength=1,maxLength=2000"`
	Context       string      `json:"context,omitempty" jsonschema:"why you ask this one (optional)" bounds:"maxLength=8000"`
	Options       []askOption `json:"options,omitempty" jsonschema:"the choices, shown numbered" bounds:"maxItems=20"`
	Recommended   string      `json:"recommended,omitempty" jsonschema:"the label of the option you recommend"`
	AllowFreeText *bool       `json:"allow_free_text,omitempty" jsonschema:"accept a typed answer (default: true when there are no options, else false)"`
	MultiSelect   bool        `json:"multi_select,omitempty" jsonschema:"let several options be chosen (default false)"`
}

// card turns the arguments into the card the operator sees.
func (a askArgs) card(space string) (operator.Question, error) {
	q := operator.Question{Kind: operator.KindQuestion, Question: a.Question, Context: a.Context, Space: space}
	if len(a.Questions) == 0 {
		if strings.TrimSpace(a.Question) == "" {
			return q, errors.New("tools: ask_user: give question (one question) or questions (several on one card)")
		}
		q.Options, q.Recommended, q.MultiSelect = options(a.Options), a.Recommended, a.MultiSelect
		q.AllowFreeText = len(a.Options) == 0
		if a.AllowFreeText != nil {
			q.AllowFreeText = *a.AllowFreeText
		}
		return q, nil
	}
	if len(a.Options) > 0 || a.Recommended != "" || a.AllowFreeText != nil || a.MultiSelect {
		return q, errors.New("tools: ask_user: with questions, put options, recommended, allow_free_text and multi_select on each question; question and context are then the card's heading")
	}
	for _, sub := range a.Questions {
		sq := operator.Question{Question: sub.Question, Context: sub.Context, Options: options(sub.Options), Recommended: sub.Recommended,
			AllowFreeText: len(sub.Options) == 0, MultiSelect: sub.MultiSelect}
		if sub.AllowFreeText != nil {
			sq.AllowFreeText = *sub.AllowFreeText
		}
		q.Questions = append(q.Questions, sq)
	}
	return q, nil
}

// tuneSchema states operator.Question.Validate's rules: the limits are in
// bytes of UTF-8 (maxLength counts characters, so it is the same number as
// a looser bound), the question and labels must hold more than whitespace,
// labels are unique, and multi_select needs options.
func (askArgs) tuneSchema(s *jsonschema.Schema) {
	q := s.Properties["question"]
	q.Pattern = `\S`
	q.MaxLength = jsonschema.Ptr(operator.MaxQuestionBytes)
	q.Description = fmt.Sprintf("the question, one or two sentences; not blank, at most %d bytes. Needed unless questions is given, when it is the card's optional heading", operator.MaxQuestionBytes)
	s.Properties["recommended"].Description = "the label of the option you recommend, exactly; marked on the card, and taken if the operator set a default timeout and nobody answers"
	qs := s.Properties["questions"]
	qs.MaxItems = jsonschema.Ptr(operator.MaxQuestions)
	qs.Description = fmt.Sprintf("several questions on one card (at most %d), each with its own options, recommended option and free text; the answer lists each one's answer or says it was skipped. Leave options, recommended, allow_free_text and multi_select at the top level unset", operator.MaxQuestions)
	sq := qs.Items.Properties["question"]
	sq.Pattern = `\S`
	sq.MaxLength = jsonschema.Ptr(operator.MaxQuestionBytes)
	sq.Description = fmt.Sprintf("the question, one or two sentences; not blank, at most %d bytes", operator.MaxQuestionBytes)
	qs.Items.Properties["recommended"].Description = s.Properties["recommended"].Description
	c := s.Properties["context"]
	c.MaxLength = jsonschema.Ptr(operator.MaxContextBytes)
	c.Description = fmt.Sprintf("why you ask, what depends on the answer, and what you will assume if skipped; at most %d bytes", operator.MaxContextBytes)
	o := s.Properties["options"]
	o.MaxItems = jsonschema.Ptr(operator.MaxOptions)
	o.Description = fmt.Sprintf("the choices, shown numbered; at most %d, their labels unique", operator.MaxOptions)
	l := o.Items.Properties["label"]
	l.Pattern = `\S`
	l.MaxLength = jsonschema.Ptr(operator.MaxLabelBytes)
	l.Description = fmt.Sprintf("the choice, short; not blank, unique among the options, at most %d bytes (detail goes in description)", operator.MaxLabelBytes)
	s.Properties["allow_free_text"].Description = "accept a typed answer (default: true when there are no options, else false; false with no options leaves nothing to answer and is refused)"
	s.Properties["multi_select"].Description = "let several options be chosen (default false); needs options"
}

// askOption is one choice of ask_user's options.
type askOption struct {
	Label       string `json:"label" bounds:"minLength=1,maxLength=200"`
	Description string `json:"description,omitempty"`
}

// AskResult is ask_user's Structured result. A card of several questions
// has one entry of Answers per question, in order.
type AskResult struct {
	Outcome operator.Outcome `json:"outcome"`
	Labels  []string         `json:"labels,omitempty"`
	Text    string           `json:"text,omitempty"`
	// Defaulted: nobody answered before the operator's default timeout, and
	// the recommended option was taken (or, with none, the question skipped).
	Defaulted bool        `json:"defaulted,omitempty"`
	Answers   []AskResult `json:"answers,omitempty"`
}

func askResult(a operator.Answer) AskResult {
	r := AskResult{Outcome: a.Outcome, Labels: a.Labels, Text: a.Text, Defaulted: a.Defaulted}
	for _, sub := range a.Answers {
		r.Answers = append(r.Answers, askResult(sub))
	}
	return r
}

// askTool returns the ask_user tool asking through port in space; wait
// bounds the wait and may take the recommended option (operator.Wait).
func askTool(port operator.QuestionPort, space string, wait operator.Wait) Tool {
	return Typed(Tool{
		Name: "ask_user",
		Tier: TierRead,
		Description: "Ask the human operator a question and wait for the answer. The only way to ask the operator: never ask the operator in your reply text " +
			"instead (nobody answers it while you work); use it " +
			"for decisions you cannot make from the code (intent, trade-offs, credentials, scope), not for things you can look up. " +
			"State your assumption in context. Give options when the choices are known (each a short label, optional description); " +
			"set allow_free_text to accept a typed answer and multi_select to let several options be chosen, and recommended to mark the option you suggest. " +
			"To ask several related things at once, give questions (each with its own options, recommended and allow_free_text) instead of question. " +
			"Returns the chosen labels and any text (per question for a card). A skip is not an error: continue on your stated assumption and do not ask again. " +
			"If the operator set a default timeout, an unanswered question takes its recommended option and the result says so. " +
			"A timeout is an error with the same instruction. With no human connected the call fails at once; decide yourself and say so.",
	}, func(ctx context.Context, call *Call, a askArgs) (*Result, AskResult, error) {
		q, err := a.card(space)
		if err != nil {
			return nil, AskResult{}, err
		}
		ans, err := operator.AskWith(ctx, port, q, wait)
		if err != nil {
			return nil, AskResult{}, err
		}
		return Text(ans.Report()), askResult(ans), nil
	})
}

// QuestionApprover returns an Approver that asks permission prompts through
// port as the same numbered card ask_user shows (Allow / Deny). Deny and a skip
// decline; no human connected fails closed (ErrNoApprover); a timeout is an
// error, so the call is refused.
func QuestionApprover(port operator.QuestionPort, space string, timeout time.Duration) Approver {
	return ApproverFunc(func(ctx context.Context, req ApprovalRequest) (bool, error) {
		detail := req.Detail()
		if req.Origin == FromBridge {
			detail += "\n(called from an eval cell)"
		}
		ok, err := operator.Permit(ctx, port, operator.Permission{Tool: req.Tool, Tier: req.Tier.String(), Detail: detail, Space: space}, timeout)
		if errors.Is(err, operator.ErrNoHuman) {
			return false, fmt.Errorf("%w: %v", ErrNoApprover, err)
		}
		return ok, err
	})
}

// ElicitationPort returns the question port that asks through an MCP
// client's elicitation (tether serve's Elicitor). An Elicitor that reports
// ErrNoApprover (no client, or one without elicitation) means no human is
// connected: the question fails at once.
func ElicitationPort(e Elicitor) operator.QuestionPort {
	if e == nil {
		return operator.NewElicitation(nil)
	}
	return operator.NewElicitation(noHuman{e})
}

// noHuman maps an Elicitor's ErrNoApprover to operator.ErrNoHuman.
type noHuman struct{ e Elicitor }

func (n noHuman) Elicit(ctx context.Context, message string, schema any) (string, map[string]any, error) {
	action, content, err := n.e.Elicit(ctx, message, schema)
	if errors.Is(err, ErrNoApprover) {
		return "", nil, fmt.Errorf("%w: %s", operator.ErrNoHuman, withoutSentinel(err, ErrNoApprover))
	}
	return action, content, err
}

// options converts ask_user's choices to the card's.
func options(in []askOption) []operator.Option {
	out := make([]operator.Option, len(in))
	for i, o := range in {
		out[i] = operator.Option{Label: o.Label, Description: o.Description}
	}
	return out
}
