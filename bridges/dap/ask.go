package dap

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "strings"
import "unicode/utf16"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/textcut"

// The optional ops that ask the adapter about the stop: completions and
// exception_info; and custom, any request by its command name.

// Limits on what these ops return.
const (
	MaxCompletions   = 50        // Completions: items returned
	MaxExceptionText = 4000      // ExceptionInfo: characters of a stack trace
	MaxInnerDepth    = 4         // ExceptionInfo: inner exceptions followed
	MaxCustomAnswer  = 16 * 1024 // Custom: bytes of the answer's body
)

// Completion is one completion of an expression.
type Completion struct {
	Label string `json:"label"`
	// Text replaces the Length characters from Start (0-based, in the text
	// completed); empty: Label does, at the cursor.
	Text   string `json:"text,omitempty"`
	Type   string `json:"type,omitempty"`
	Detail string `json:"detail,omitempty"`
	Start  int    `json:"start,omitempty"`
	Length int    `json:"length,omitempty"`
}

// Completions are the completions of Text at Column, at most
// MaxCompletions of Total.
type Completions struct {
	Text   string
	Column int // 1-based, in UTF-16 code units as DAP counts
	Items  []Completion
	Total  int
}

// Completions asks the adapter how text (an expression being typed, as in
// a debug console) goes on at column (1-based; 0: the end of text), in a
// frame (0: the top frame of threadID, or of the thread that last
// stopped).
func (sv *Supervisor) Completions(ctx context.Context, conversationID, text string, column, threadID, frameID int) (*Completions, error) {
	return inSessionFor(sv, conversationID, "completions", true, func(_ *conversation, s *session) (*Completions, error) {
		if err := needCap(s, "completions"); err != nil {
			return nil, err
		}
		end := len(utf16.Encode([]rune(text))) + 1
		switch {
		case column == 0:
			column = end
		case column < 0 || column > end:
			return nil, fmt.Errorf("debug: completions: column %d is not in the text (1 to %d, 1-based; omit it for the end)", column, end)
		}
		frame, err := sv.frameOrTop(ctx, s, threadID, frameID)
		if err != nil {
			return nil, err
		}
		var resp godap.CompletionsResponse
		if err := s.c.call(ctx, "completions", &godap.CompletionsArguments{FrameId: frame, Text: text, Column: column}, &resp); err != nil {
			return nil, staleHint(err, "take frame_id from stack at the current stop, or omit it for the top frame")
		}
		items := resp.Body.Targets
		r := &Completions{Text: text, Column: column, Total: len(items)}
		for _, it := range items[:min(len(items), MaxCompletions)] {
			c := Completion{Label: clip(it.Label), Text: clip(it.Text), Type: string(it.Type), Detail: clip(it.Detail), Start: it.Start, Length: it.Length}
			if c.Text == c.Label {
				c.Text = ""
			}
			r.Items = append(r.Items, c)
		}
		return r, nil
	})
}

// ExceptionInfo describes the exception a thread stopped on.
type ExceptionInfo struct {
	ThreadID    int    `json:"thread_id"`
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
	// BreakMode is when the adapter stops on such an exception: never,
	// always, unhandled or userUnhandled.
	BreakMode string            `json:"break_mode,omitempty"`
	Details   *ExceptionDetails `json:"details,omitempty"`
}

// ExceptionDetails are an exception's details, its inner exceptions
// followed MaxInnerDepth deep.
type ExceptionDetails struct {
	Message  string `json:"message,omitempty"`
	TypeName string `json:"type_name,omitempty"`
	// EvaluateName evaluates to the exception object.
	EvaluateName string `json:"evaluate_name,omitempty"`
	// StackTrace is at most MaxExceptionText characters; StackTraceCut
	// says it was longer.
	StackTrace    string             `json:"stack_trace,omitempty"`
	StackTraceCut bool               `json:"stack_trace_cut,omitempty"`
	Inner         []ExceptionDetails `json:"inner,omitempty"`
}

// ExceptionInfo asks the adapter about the exception threadID (0: the
// thread that last stopped) stopped on.
func (sv *Supervisor) ExceptionInfo(ctx context.Context, conversationID string, threadID int) (*ExceptionInfo, error) {
	return inSessionFor(sv, conversationID, "exception_info", true, func(_ *conversation, s *session) (*ExceptionInfo, error) {
		if err := needCap(s, "exception_info"); err != nil {
			return nil, err
		}
		thread, err := sv.currentThread(ctx, s, threadID)
		if err != nil {
			return nil, err
		}
		var resp godap.ExceptionInfoResponse
		if err := s.c.call(ctx, "exceptionInfo", &godap.ExceptionInfoArguments{ThreadId: thread}, &resp); err != nil {
			s.mu.Lock()
			reason := ""
			if s.stop != nil {
				reason = s.stop.Reason
			}
			s.mu.Unlock()
			if reason != "" && reason != "exception" {
				return nil, fmt.Errorf("%w; the program stopped for %q, not on an exception: set exception_filters with op breakpoints and continue to stop on one", err, reason)
			}
			return nil, err
		}
		b := resp.Body
		r := &ExceptionInfo{ThreadID: thread, ID: clip(b.ExceptionId), Description: clip(b.Description), BreakMode: string(b.BreakMode)}
		if b.Details != nil {
			d := exceptionDetails(*b.Details, 0)
			r.Details = &d
		}
		return r, nil
	})
}

// exceptionDetails is d, bounded, at nesting depth.
func exceptionDetails(d godap.ExceptionDetails, depth int) ExceptionDetails {
	typ := d.FullTypeName
	if typ == "" {
		typ = d.TypeName
	}
	out := ExceptionDetails{Message: clip(d.Message), TypeName: clip(typ), EvaluateName: clip(d.EvaluateName)}
	out.StackTrace, out.StackTraceCut = textcut.Chars(d.StackTrace, MaxExceptionText)
	if depth < MaxInnerDepth {
		for _, in := range d.InnerException[:min(len(d.InnerException), MaxInnerDepth)] {
			out.Inner = append(out.Inner, exceptionDetails(in, depth+1))
		}
	}
	return out
}

// Answer is an adapter's answer to a custom request: its body as JSON, at
// most MaxCustomAnswer bytes of it.
type Answer struct {
	Command string `json:"command"`
	Body    string `json:"body,omitempty"`
	// Bytes is the body's whole length; Cut: Body is its first
	// MaxCustomAnswer bytes.
	Bytes int  `json:"bytes"`
	Cut   bool `json:"cut,omitempty"`
}

// ownedCommands are the requests tether itself sends for an op, whose
// effect the session's state follows: a custom request may not send them
// behind its back. Each names the op to use instead.
var ownedCommands = map[string]string{
	"initialize": "launch or attach", "launch": "launch", "attach": "attach", "configurationDone": "launch or attach",
	"disconnect": "terminate", "terminate": "terminate", "restart": "restart",
	"continue": "continue", "next": "step_over", "stepIn": "step_in", "stepOut": "step_out", "pause": "pause",
	"stepBack": "step_back", "reverseContinue": "reverse_continue", "restartFrame": "restart_frame", "goto": "goto",
	"setBreakpoints": "breakpoints", "setFunctionBreakpoints": "breakpoints", "setExceptionBreakpoints": "breakpoints",
	"setDataBreakpoints": "data_breakpoints", "setInstructionBreakpoints": "instruction_breakpoints",
	"runInTerminal": "none: the adapter sends it to tether", "startDebugging": "none: the adapter sends it to tether",
}

// Custom sends the adapter any request by its command name, with
// arguments (a JSON object, or empty for none), and returns its answer's
// body, bounded. A request that tether sends for an op of its own (launch,
// continue, setBreakpoints...) is refused, naming the op: the session's
// state follows those. The answer is the adapter's alone: tether reads no
// file it names.
func (sv *Supervisor) Custom(ctx context.Context, conversationID, command string, arguments json.RawMessage) (*Answer, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return nil, errors.New("debug: custom needs command (the adapter's request name, e.g. \"source\" or \"stepInTargets\") and, as arguments, a JSON object")
	}
	if op, ok := ownedCommands[command]; ok {
		return nil, fmt.Errorf("debug: custom: %q is a request tether sends itself, and the session's state follows it; use op %s", command, op)
	}
	var args any
	if len(strings.TrimSpace(string(arguments))) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(arguments, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("debug: custom: arguments must be a JSON object (the request's arguments, as the adapter documents them): %s", firstLine(arguments))
		}
		args = json.RawMessage(arguments)
	}
	return inSessionFor(sv, conversationID, "custom", false, func(_ *conversation, s *session) (*Answer, error) {
		var resp struct {
			Body json.RawMessage `json:"body"`
		}
		if err := s.c.call(ctx, command, args, &resp); err != nil {
			return nil, err
		}
		body := strings.TrimSpace(string(resp.Body))
		if body == "null" {
			body = ""
		}
		r := &Answer{Command: command, Bytes: len(body)}
		if len(body) > MaxCustomAnswer {
			body, r.Cut = textcut.Prefix(body, MaxCustomAnswer), true
		}
		r.Body = body
		return r, nil
	})
}

// firstLine is what of raw an error shows: its first line, cut.
func firstLine(raw json.RawMessage) string {
	s, _, _ := strings.Cut(string(raw), "\n")
	s, _ = textcut.Chars(s, 80)
	return s
}
