package operator

import "bufio"
import "context"
import "fmt"
import "io"
import "os"
import "strconv"
import "strings"
import "sync"

import "golang.org/x/term"

// Terminal is the QuestionPort for tether run in a terminal: it prints a
// numbered card and reads the answer line. Questions are shown one at a time.
type Terminal struct {
	in    io.Reader
	out   io.Writer
	human bool

	ask   sync.Mutex // one card at a time
	start sync.Once
	lines chan string
	mu    sync.Mutex
	eof   bool
	n     int
}

// NewTerminal returns a port reading answers from in and drawing cards on out.
// A human is connected only when in is a terminal; otherwise every question
// fails at once with ErrNoHuman.
func NewTerminal(in *os.File, out io.Writer) *Terminal {
	return &Terminal{in: in, out: out, human: in != nil && term.IsTerminal(int(in.Fd())), lines: make(chan string, 16)}
}

func (t *Terminal) readLines() {
	sc := bufio.NewScanner(t.in)
	sc.Buffer(make([]byte, 4096), MaxTextBytes+1024)
	for sc.Scan() {
		t.lines <- sc.Text()
	}
	t.mu.Lock()
	t.eof = true
	t.mu.Unlock()
	close(t.lines)
}

func (t *Terminal) closed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.eof
}

// Ask implements QuestionPort.
func (t *Terminal) Ask(ctx context.Context, q Question) (Answer, error) {
	if !t.human {
		return Answer{}, fmt.Errorf("%w: input is not a terminal", ErrNoHuman)
	}
	if t.closed() {
		return Answer{}, fmt.Errorf("%w: the terminal's input is closed", ErrNoHuman)
	}
	t.ask.Lock()
	defer t.ask.Unlock()
	t.start.Do(func() { go t.readLines() })
	// Drop lines typed before this card was shown: they answer nothing.
	for drained := false; !drained; {
		select {
		case _, ok := <-t.lines:
			if !ok {
				return Answer{}, fmt.Errorf("%w: the terminal's input is closed", ErrNoHuman)
			}
		default:
			drained = true
		}
	}
	t.n++
	fmt.Fprint(t.out, Card(q, t.n))
	if len(q.Questions) == 0 {
		return t.reply(ctx, q, "> ")
	}
	// A card of several questions is answered one question at a time, in
	// order; /skip skips only the question at the prompt.
	a := Answer{Outcome: Answered}
	for i, sub := range q.Questions {
		sa, err := t.reply(ctx, sub, fmt.Sprintf("Q%d> ", i+1))
		if err != nil {
			// The questions answered so far go back with the error: at
			// the operator's default timeout they are kept (AskWith).
			return a, err
		}
		a.Answers = append(a.Answers, sa)
	}
	return a, nil
}

// reply reads lines until one answers q.
func (t *Terminal) reply(ctx context.Context, q Question, prompt string) (Answer, error) {
	for {
		fmt.Fprint(t.out, prompt)
		var line string
		select {
		case <-ctx.Done():
			fmt.Fprintln(t.out, "\n(question withdrawn: no answer in time)")
			return Answer{}, ctx.Err()
		case l, ok := <-t.lines:
			if !ok {
				return Answer{}, fmt.Errorf("%w: the terminal's input closed before an answer", ErrNoHuman)
			}
			line = l
		}
		a, err := ParseReply(q, line)
		if err != nil {
			fmt.Fprintln(t.out, err.Error())
			continue
		}
		return a, nil
	}
}

// Card renders q as the numbered text card the terminal shows.
func Card(q Question, n int) string {
	var b strings.Builder
	head := "question"
	if q.Kind == KindPermission {
		head = "permission"
	}
	if q.Space != "" {
		head += " from " + q.Space
	}
	if len(q.Questions) > 0 {
		head += fmt.Sprintf(", %d questions", len(q.Questions))
	}
	fmt.Fprintf(&b, "\n-- %s #%d --\n", head, n)
	if q.Question != "" {
		b.WriteString(q.Question + "\n")
	}
	writeBody(&b, q, "")
	if len(q.Questions) == 0 {
		b.WriteString(replyHint(q))
		b.WriteString("\n")
		return b.String()
	}
	for i, sub := range q.Questions {
		fmt.Fprintf(&b, "Q%d. %s\n", i+1, sub.Question)
		writeBody(&b, sub, "    ")
		b.WriteString("    " + replyHint(sub) + "\n")
	}
	b.WriteString("Answer each question at its Q prompt; /skip skips only that question.\n")
	return b.String()
}

// writeBody writes q's context and numbered options, each line indented.
func writeBody(b *strings.Builder, q Question, indent string) {
	if q.Context != "" {
		for _, l := range strings.Split(q.Context, "\n") {
			fmt.Fprintf(b, "%s  | %s\n", indent, l)
		}
	}
	for i, o := range q.Options {
		fmt.Fprintf(b, "%s  %d) %s", indent, i+1, o.Label)
		if o.Label == q.Recommended {
			b.WriteString(" (recommended)")
		}
		if o.Description != "" {
			fmt.Fprintf(b, " - %s", o.Description)
		}
		b.WriteString("\n")
	}
}

func replyHint(q Question) string {
	var parts []string
	switch {
	case len(q.Options) > 0 && q.MultiSelect:
		parts = append(parts, fmt.Sprintf("numbers 1-%d separated by commas", len(q.Options)))
	case len(q.Options) > 0:
		parts = append(parts, fmt.Sprintf("a number 1-%d", len(q.Options)))
	}
	if q.AllowFreeText {
		if len(q.Options) > 0 {
			parts = append(parts, "or your own answer (numbers then ': text' to add a note)")
		} else {
			parts = append(parts, "your answer")
		}
	}
	return "Type " + strings.Join(parts, ", ") + "; /skip to skip."
}

// ParseReply reads one typed line as a reply to q: "/skip"; option numbers
// ("2", "1,3" or "1 3" for multi-select), optionally followed by ": note" when
// free text is allowed; or, when free text is allowed, any other text.
func ParseReply(q Question, line string) (Answer, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return Answer{}, fmt.Errorf("operator: empty reply. %s", replyHint(q))
	}
	if line == "/skip" {
		return Answer{Outcome: Skipped}, nil
	}
	nums, note, hasNote := strings.Cut(line, ":")
	labels, ok := parseNumbers(q, nums)
	if ok {
		a := Answer{Outcome: Answered, Labels: labels}
		if hasNote {
			if !q.AllowFreeText {
				return Answer{}, fmt.Errorf("operator: this question takes no free text. %s", replyHint(q))
			}
			a.Text = strings.TrimSpace(note)
		}
		if len(labels) > 1 && !q.MultiSelect {
			return Answer{}, fmt.Errorf("operator: choose only one. %s", replyHint(q))
		}
		return a, nil
	}
	if q.AllowFreeText {
		return Answer{Outcome: Answered, Text: line}, nil
	}
	return Answer{}, fmt.Errorf("operator: %q is not an option number. %s", line, replyHint(q))
}

// parseNumbers reads "1,3" or "1 3"; ok is false unless every field is an
// option number.
func parseNumbers(q Question, s string) ([]string, bool) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(fields) == 0 || len(q.Options) == 0 {
		return nil, false
	}
	var picked []string
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > len(q.Options) {
			return nil, false
		}
		picked = append(picked, q.Options[n-1].Label)
	}
	return normalize(q, picked), true
}
