package operator

import "context"
import "errors"
import "fmt"
import "slices"
import "strings"
import "time"

// Kind says what a card asks.
type Kind string

const (
	// KindQuestion is a question asked by the agent through ask_user.
	KindQuestion Kind = "question"
	// KindPermission is a permission prompt from an approval gate ("may I do this?").
	KindPermission Kind = "permission"
)

// Option is one numbered choice on a card.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Question is what a card shows.
type Question struct {
	// Kind is KindQuestion (the default) or KindPermission.
	Kind Kind `json:"kind"`
	// Question is the question itself, one or two sentences.
	Question string `json:"question"`
	// Context says why it is asked and what depends on the answer (optional).
	Context string `json:"context,omitempty"`
	// Options are the numbered choices; labels are unique.
	Options []Option `json:"options,omitempty"`
	// AllowFreeText lets the human type an answer of their own.
	AllowFreeText bool `json:"allowFreeText,omitempty"`
	// MultiSelect lets the human choose several options.
	MultiSelect bool `json:"multiSelect,omitempty"`
	// Space names the target space the question is asked in (a conversation, a
	// workspace); ports show it so the human knows who is asking.
	Space string `json:"space,omitempty"`
	// Recommended is the label of the option the asker suggests (optional).
	// Ports mark it, and the operator's default-after timeout takes it
	// (AskWith).
	Recommended string `json:"recommended,omitempty"`
	// Questions, when set, makes this a card of several questions answered
	// together, each with its own options, recommendation and free text
	// (their Kind, Space and Questions stay empty). Question is then the
	// card's optional heading, and the card itself has no options.
	Questions []Question `json:"questions,omitempty"`
}

// Limits on what a card may hold, so a card stays readable.
const (
	MaxOptions       = 20
	MaxQuestionBytes = 2000
	MaxContextBytes  = 8000
	MaxLabelBytes    = 200
	MaxTextBytes     = 16000
)

// Validate checks that the question can be rendered and answered.
func (q Question) Validate() error {
	if len(q.Questions) > 0 {
		return q.validateCard()
	}
	if strings.TrimSpace(q.Question) == "" {
		return errors.New("operator: the question is empty: say what you want the operator to decide")
	}
	if err := q.checkSizes("the question"); err != nil {
		return err
	}
	if len(q.Options) > MaxOptions {
		return fmt.Errorf("operator: %d options, over the %d limit: offer fewer choices", len(q.Options), MaxOptions)
	}
	if len(q.Options) == 0 && !q.AllowFreeText {
		return errors.New("operator: the question has no options and does not allow free text, so it cannot be answered: give options or set allow_free_text")
	}
	if len(q.Options) == 0 && q.MultiSelect {
		return errors.New("operator: multi_select needs options")
	}
	seen := map[string]bool{}
	for i, o := range q.Options {
		l := strings.TrimSpace(o.Label)
		if l == "" {
			return fmt.Errorf("operator: option %d has an empty label", i+1)
		}
		if len(l) > MaxLabelBytes {
			return fmt.Errorf("operator: option %d's label is over %d bytes: put the detail in its description", i+1, MaxLabelBytes)
		}
		if seen[l] {
			return fmt.Errorf("operator: option label %q appears twice: labels must be unique", l)
		}
		seen[l] = true
	}
	if q.Recommended != "" && !seen[q.Recommended] {
		return fmt.Errorf("operator: the recommended option %q is not one of the options: give the label of one of them exactly", q.Recommended)
	}
	switch q.Kind {
	case "", KindQuestion, KindPermission:
	default:
		return fmt.Errorf("operator: unknown card kind %q", q.Kind)
	}
	return nil
}

// checkSizes checks the question text, named heading in the error, and the
// context against their byte limits.
func (q Question) checkSizes(heading string) error {
	if len(q.Question) > MaxQuestionBytes {
		return fmt.Errorf("operator: %s is %d bytes, over the %d limit: move the detail into context", heading, len(q.Question), MaxQuestionBytes)
	}
	if len(q.Context) > MaxContextBytes {
		return fmt.Errorf("operator: the context is %d bytes, over the %d limit: shorten it", len(q.Context), MaxContextBytes)
	}
	return nil
}

// Outcome is how a question ended without error.
type Outcome string

const (
	// Answered: the human chose options and/or typed text.
	Answered Outcome = "answered"
	// Skipped: the human declined to answer. A success: continue on the stated
	// assumption and do not ask again.
	Skipped Outcome = "skipped"
)

// Answer is the human's reply.
type Answer struct {
	Outcome Outcome `json:"outcome"`
	// Labels are the chosen options' labels, in option order.
	Labels []string `json:"labels,omitempty"`
	// Text is free text the human typed (only when the question allows it).
	Text string `json:"text,omitempty"`
	// Defaulted says nobody answered before the operator's default-after
	// timeout: Labels hold the recommended option, or the question is
	// Skipped when it had none.
	Defaulted bool `json:"defaulted,omitempty"`
	// Answers are a multi-question card's answers, one per question in
	// order, each answered or skipped.
	Answers []Answer `json:"answers,omitempty"`
}

// ContinueInstruction is what the agent is told when no answer came.
const ContinueInstruction = "Continue on your stated assumption and do not ask this question again."

// ErrNoHuman means no human can see the question right now; the question failed
// at once instead of blocking.
var ErrNoHuman = errors.New("operator: no human is connected to answer questions")

// ErrTimedOut means the question was shown but nobody answered in time.
var ErrTimedOut = errors.New("operator: nobody answered the question in time")

// QuestionPort reaches a human. Ask shows the question and blocks until the
// human answers or skips, or ctx is done (a port that asks a card's
// questions one by one may then return those already answered in Answers,
// along with the error). When no human can see the question it
// returns an error wrapping ErrNoHuman at once. A port never invents an answer.
type QuestionPort interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// DefaultTimeout is how long Ask waits when no timeout is given.
const DefaultTimeout = 10 * time.Minute

// Ask asks q through p and checks the reply. With timeout > 0 (DefaultTimeout
// when 0) an unanswered question ends with an error wrapping ErrTimedOut. The
// answer is checked against the question: labels must be the question's own,
// one only unless multi-select, text only when free text is allowed.
func Ask(ctx context.Context, p QuestionPort, q Question, timeout time.Duration) (Answer, error) {
	return AskWith(ctx, p, q, Wait{Timeout: timeout})
}

// Wait says how long a question waits for the human.
type Wait struct {
	// Timeout ends an unanswered question with ErrTimedOut (0:
	// DefaultTimeout).
	Timeout time.Duration
	// DefaultAfter, when > 0, is the operator's choice to take the
	// recommended options of a question nobody answered in that time: each
	// question with a recommendation gets it and the rest are skipped, all
	// marked Defaulted. It applies only to questions with a recommended
	// option (a card with none waits for Timeout as usual), never to a
	// permission prompt, and never by default. One past Timeout never comes.
	DefaultAfter time.Duration
}

// AskWith is Ask with the operator's default-after timeout.
func AskWith(ctx context.Context, p QuestionPort, q Question, w Wait) (Answer, error) {
	timeout := w.Timeout
	if q.Kind == "" {
		q.Kind = KindQuestion
	}
	if err := q.Validate(); err != nil {
		return Answer{}, err
	}
	// A question that got no answer tells the agent to go on with its
	// assumption; a permission prompt that got none refuses the call, and the
	// approval gate says what to do instead.
	next := ". " + ContinueInstruction
	if q.Kind == KindPermission {
		next = ""
	}
	if p == nil {
		return Answer{}, fmt.Errorf("%w: no question port is wired for this run%s", ErrNoHuman, next)
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	timedOut := errors.New("question timeout")
	tctx, cancel := context.WithTimeoutCause(ctx, timeout, timedOut)
	defer cancel()
	defaulted := errors.New("default-after timeout")
	if w.DefaultAfter > 0 && q.Kind != KindPermission && hasRecommendation(q) {
		var dcancel context.CancelFunc
		tctx, dcancel = context.WithTimeoutCause(tctx, w.DefaultAfter, defaulted)
		defer dcancel()
	}
	a, err := p.Ask(tctx, q)
	if err != nil {
		if errors.Is(err, ErrNoHuman) {
			return Answer{}, fmt.Errorf("%w%s", err, next)
		}
		if ctx.Err() == nil && errors.Is(context.Cause(tctx), defaulted) {
			return defaults(q, a), nil
		}
		if ctx.Err() == nil && errors.Is(context.Cause(tctx), timedOut) {
			return Answer{}, fmt.Errorf("%w (no answer within %s)%s", ErrTimedOut, timeout, next)
		}
		return Answer{}, err
	}
	a = fillCard(q, a)
	return a, CheckAnswer(q, a)
}

// CheckAnswer reports whether a is a possible reply to q, so that no port can
// hand back an answer the human could not have given.
func CheckAnswer(q Question, a Answer) error {
	if len(q.Questions) > 0 {
		return checkCard(q, a)
	}
	if len(a.Answers) > 0 {
		return errors.New("operator: per-question answers given to a single question")
	}
	if a.Defaulted {
		// Only AskWith takes a default, at the operator's timeout.
		return errors.New("operator: an answer marked as taken by default came from the port: a port never answers for the human")
	}
	switch a.Outcome {
	case Skipped:
		if len(a.Labels) > 0 || a.Text != "" {
			return errors.New("operator: a skipped question carries no answer")
		}
		return nil
	case Answered:
	default:
		return fmt.Errorf("operator: unknown outcome %q", a.Outcome)
	}
	if len(a.Labels) == 0 && strings.TrimSpace(a.Text) == "" {
		return errors.New("operator: the answer chose nothing and said nothing")
	}
	if len(a.Labels) > 1 && !q.MultiSelect {
		return fmt.Errorf("operator: %d options chosen for a single-choice question", len(a.Labels))
	}
	if a.Text != "" && !q.AllowFreeText {
		return errors.New("operator: free text given to a question that does not allow it")
	}
	if len(a.Text) > MaxTextBytes {
		return fmt.Errorf("operator: the typed answer is over %d bytes", MaxTextBytes)
	}
	for _, l := range a.Labels {
		if !slices.ContainsFunc(q.Options, func(o Option) bool { return o.Label == l }) {
			return fmt.Errorf("operator: %q is not one of the question's options", l)
		}
	}
	return nil
}

// normalize orders labels as the question lists them and drops duplicates.
func normalize(q Question, labels []string) []string {
	var out []string
	for _, o := range q.Options {
		if slices.Contains(labels, o.Label) {
			out = append(out, o.Label)
		}
	}
	// Keep unknown labels so CheckAnswer can reject them by name.
	for _, l := range labels {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// chosen shows the labels chosen, "Chosen: a" or "Chosen (2): a; b"; ""
// when there are none.
func chosen(labels []string) string {
	switch len(labels) {
	case 0:
		return ""
	case 1:
		return "Chosen: " + labels[0]
	}
	return fmt.Sprintf("Chosen (%d): %s", len(labels), strings.Join(labels, "; "))
}

// Report renders an answer for the agent.
func (a Answer) Report() string {
	if len(a.Answers) > 0 {
		return a.reportCard()
	}
	if a.Defaulted {
		if a.Outcome == Skipped {
			return "Nobody answered before the operator's timeout and the question has no recommended option, so it is skipped. " + ContinueInstruction
		}
		return "Nobody answered before the operator's timeout, so the recommended option was taken: " + strings.Join(a.Labels, "; ") + ". Proceed with it; the operator did not choose it."
	}
	if a.Outcome == Skipped {
		return "The operator skipped this question. " + ContinueInstruction
	}
	var b strings.Builder
	b.WriteString("The operator answered.")
	if c := chosen(a.Labels); c != "" {
		b.WriteString("\n" + c)
	}
	if a.Text != "" {
		fmt.Fprintf(&b, "\nText: %s", a.Text)
	}
	return b.String()
}

// The options of a permission card.
const (
	Allow = "Allow"
	Deny  = "Deny"
)

// Permission is an approval gate's question: may a tool call go ahead?
type Permission struct {
	// Tool is the tool's name.
	Tool string
	// Tier is the tool's tier ("write", "exec").
	Tier string
	// Detail says what the call will do (arguments, paths, the command).
	Detail string
	// Space is the target space the call runs in.
	Space string
}

// Question returns the card a permission prompt renders as.
func (p Permission) Question() Question {
	q := fmt.Sprintf("May I call %s?", p.Tool)
	if p.Tier != "" {
		q = fmt.Sprintf("May I call %s (%s tier)?", p.Tool, p.Tier)
	}
	return Question{
		Kind:     KindPermission,
		Question: q,
		Context:  p.Detail,
		Options: []Option{
			{Label: Allow, Description: "let this call go ahead"},
			{Label: Deny, Description: "refuse this call"},
		},
		Space: p.Space,
	}
}

// Permit asks a permission prompt through p. It returns true only when the
// human chose Allow; Deny and a skip both refuse. A timeout or no human
// connected is an error: the gate fails closed.
func Permit(ctx context.Context, p QuestionPort, perm Permission, timeout time.Duration) (bool, error) {
	a, err := Ask(ctx, p, perm.Question(), timeout)
	if err != nil {
		return false, err
	}
	return a.Outcome == Answered && slices.Equal(a.Labels, []string{Allow}), nil
}

// FirstConnected returns a port that asks through the first of ports with a
// human connected: a port failing with ErrNoHuman passes the question on to
// the next. When none has a human, the question fails at once with
// ErrNoHuman naming every reason.
func FirstConnected(ports ...QuestionPort) QuestionPort { return firstConnected(ports) }

type firstConnected []QuestionPort

func (f firstConnected) Ask(ctx context.Context, q Question) (Answer, error) {
	var why []string
	for _, p := range f {
		if p == nil {
			continue
		}
		a, err := p.Ask(ctx, q)
		if !errors.Is(err, ErrNoHuman) {
			return a, err
		}
		why = append(why, strings.TrimPrefix(err.Error(), ErrNoHuman.Error()+": "))
	}
	if len(why) == 0 {
		return Answer{}, fmt.Errorf("%w: no question port is wired", ErrNoHuman)
	}
	return Answer{}, fmt.Errorf("%w: %s", ErrNoHuman, strings.Join(why, "; "))
}
