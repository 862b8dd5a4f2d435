package operator

import "context"
import "errors"
import "fmt"
import "strings"

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Elicitor asks the human behind an MCP client through form elicitation. The
// action is "accept", "decline" or "cancel"; content holds the accepted form.
// `tether serve` implements it over its MCP session (SessionElicitor does).
type Elicitor interface {
	Elicit(ctx context.Context, message string, schema any) (action string, content map[string]any, err error)
}

// CapabilityReporter is implemented by an Elicitor that knows whether its
// client can elicit at all. A client without the capability means no human is
// connected.
type CapabilityReporter interface {
	CanElicit() bool
}

// Elicitation is the QuestionPort that lets the MCP client render the card.
type Elicitation struct {
	e Elicitor
}

// NewElicitation returns a port over e. A nil e has no human behind it.
func NewElicitation(e Elicitor) *Elicitation { return &Elicitation{e: e} }

// The form fields of an elicited card.
const (
	fieldChoice  = "choice"
	fieldChoices = "choices"
	fieldText    = "answer"
)

// Schema returns the flat form schema the client renders for q: one enum field
// (an array of enums when multi-select) with each option's number and
// description in its title ("1. Postgres - managed"), and a text field when free text is allowed. No field is required, so a
// human may submit only text.
func Schema(q Question) map[string]any {
	props := map[string]any{}
	if q.Kind == KindPermission {
		// A permission prompt is a plain confirmation: accept allows, decline denies.
		return map[string]any{"type": "object", "properties": props}
	}
	if len(q.Questions) > 0 {
		// A card of several questions: the fields of each, named after its
		// number ("q2", "q2_answer"), still one flat form.
		for i, sub := range q.Questions {
			prefix := fmt.Sprintf("Q%d. %s: ", i+1, sub.Question)
			for name, f := range Schema(sub)["properties"].(map[string]any) {
				f := f.(map[string]any)
				f["title"] = prefix + f["title"].(string)
				props[cardField(i, name)] = f
			}
		}
		return map[string]any{"type": "object", "properties": props}
	}
	var entries []any
	for i, o := range q.Options {
		title := fmt.Sprintf("%d. %s", i+1, o.Label)
		if o.Label == q.Recommended {
			// Marked, not a schema default: the SDK fills defaults into the
			// reply, and an empty field must stay a skip.
			title += " (recommended)"
		}
		if o.Description != "" {
			title += " - " + o.Description
		}
		entries = append(entries, map[string]any{"const": o.Label, "title": title})
	}
	switch {
	case len(q.Options) > 0 && q.MultiSelect:
		props[fieldChoices] = map[string]any{
			"type":        "array",
			"title":       "Choose one or more",
			"items":       map[string]any{"anyOf": entries},
			"uniqueItems": true,
		}
	case len(q.Options) > 0:
		props[fieldChoice] = map[string]any{"type": "string", "title": "Choose one", "oneOf": entries}
	}
	if q.AllowFreeText {
		title := "Your answer"
		if len(q.Options) > 0 {
			title = "Or your own answer"
		}
		props[fieldText] = map[string]any{"type": "string", "title": title}
	}
	return map[string]any{"type": "object", "properties": props}
}

// Message returns the text an elicitation shows above the form.
func Message(q Question) string {
	var b strings.Builder
	if q.Kind == KindPermission {
		b.WriteString("[permission] ")
	}
	b.WriteString(q.Question)
	if len(q.Questions) > 0 {
		if q.Question != "" {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "%d questions; leave a question empty to skip it.", len(q.Questions))
		if q.Context != "" {
			b.WriteString("\n\n" + q.Context)
		}
		for i, sub := range q.Questions {
			fmt.Fprintf(&b, "\n\nQ%d. %s", i+1, sub.Question)
			if sub.Context != "" {
				b.WriteString("\n" + sub.Context)
			}
			writeOptions(&b, sub)
		}
		if q.Space != "" {
			fmt.Fprintf(&b, "\n\n(asked in %s)", q.Space)
		}
		return b.String()
	}
	if q.Kind == KindPermission {
		b.WriteString(" Accept to allow, decline to deny.")
	}
	if q.Context != "" {
		b.WriteString("\n\n")
		b.WriteString(q.Context)
	}
	if q.Kind != KindPermission && len(q.Options) > 0 {
		// The numbered card, as the terminal and the console show it.
		b.WriteString("\n")
		writeOptions(&b, q)
	}
	if q.Space != "" {
		fmt.Fprintf(&b, "\n\n(asked in %s)", q.Space)
	}
	return b.String()
}

// Ask implements QuestionPort. Decline and cancel are skips; an accepted empty
// form is a skip too, since nothing was answered. A permission prompt is a
// plain confirmation: accept chooses Allow, decline chooses Deny, cancel skips.
func (p *Elicitation) Ask(ctx context.Context, q Question) (Answer, error) {
	if p == nil || p.e == nil {
		return Answer{}, fmt.Errorf("%w: no MCP client session", ErrNoHuman)
	}
	if cr, ok := p.e.(CapabilityReporter); ok && !cr.CanElicit() {
		return Answer{}, fmt.Errorf("%w: the MCP client does not support elicitation", ErrNoHuman)
	}
	action, content, err := p.e.Elicit(ctx, Message(q), Schema(q))
	if err != nil {
		if errors.Is(err, ErrNoHuman) {
			return Answer{}, err
		}
		if strings.Contains(err.Error(), "does not support") && strings.Contains(err.Error(), "elicitation") {
			return Answer{}, fmt.Errorf("%w: %v", ErrNoHuman, err)
		}
		if ctx.Err() != nil {
			return Answer{}, ctx.Err()
		}
		return Answer{}, fmt.Errorf("operator: elicitation failed: %w", err)
	}
	if q.Kind == KindPermission {
		switch action {
		case "accept":
			return Answer{Outcome: Answered, Labels: []string{Allow}}, nil
		case "decline":
			return Answer{Outcome: Answered, Labels: []string{Deny}}, nil
		}
	}
	switch action {
	case "decline", "cancel":
		return Answer{Outcome: Skipped}, nil
	case "accept":
	default:
		return Answer{}, fmt.Errorf("operator: the MCP client answered with unknown action %q", action)
	}
	if len(q.Questions) > 0 {
		a := Answer{Outcome: Answered}
		for i, sub := range q.Questions {
			part := map[string]any{}
			for _, name := range []string{fieldChoice, fieldChoices, fieldText} {
				if v, ok := content[cardField(i, name)]; ok {
					part[name] = v
				}
			}
			sa, err := formAnswer(sub, part)
			if err != nil {
				return Answer{}, fmt.Errorf("question %d: %w", i+1, err)
			}
			a.Answers = append(a.Answers, sa)
		}
		return a, nil
	}
	return formAnswer(q, content)
}

// cardField names question i's form field name on a multi-question card.
func cardField(i int, name string) string {
	if name == fieldText {
		return fmt.Sprintf("q%d_answer", i+1)
	}
	return fmt.Sprintf("q%d", i+1)
}

// writeOptions writes q's numbered options, the recommended one marked.
func writeOptions(b *strings.Builder, q Question) {
	for i, o := range q.Options {
		fmt.Fprintf(b, "\n  %d) %s", i+1, o.Label)
		if o.Label == q.Recommended {
			b.WriteString(" (recommended)")
		}
		if o.Description != "" {
			b.WriteString(" - " + o.Description)
		}
	}
}

// formAnswer reads one question's answer from an accepted form; nothing
// chosen and nothing typed is a skip.
func formAnswer(q Question, content map[string]any) (Answer, error) {
	var a Answer
	if s, ok := content[fieldChoice].(string); ok && s != "" {
		a.Labels = append(a.Labels, s)
	}
	if list, ok := content[fieldChoices].([]any); ok {
		for _, v := range list {
			s, ok := v.(string)
			if !ok {
				return Answer{}, fmt.Errorf("operator: the MCP client chose a non-string option %v", v)
			}
			a.Labels = append(a.Labels, s)
		}
	}
	if s, ok := content[fieldText].(string); ok {
		a.Text = strings.TrimSpace(s)
	}
	a.Labels = normalize(q, a.Labels)
	if len(a.Labels) == 0 && a.Text == "" {
		return Answer{Outcome: Skipped}, nil
	}
	a.Outcome = Answered
	return a, nil
}

// SessionElicitor is an Elicitor over a go-sdk server session.
type SessionElicitor struct {
	Session *mcp.ServerSession
}

// CanElicit reports whether the client declared the elicitation capability.
func (s SessionElicitor) CanElicit() bool {
	if s.Session == nil {
		return false
	}
	ip := s.Session.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil
}

// Elicit sends a form elicitation request to the client.
func (s SessionElicitor) Elicit(ctx context.Context, message string, schema any) (string, map[string]any, error) {
	if s.Session == nil {
		return "", nil, errors.New("operator: no MCP session")
	}
	res, err := s.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema})
	if err != nil {
		return "", nil, err
	}
	return res.Action, res.Content, nil
}
