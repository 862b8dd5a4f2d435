package tools

import "context"
import "encoding/json"
import "fmt"
import "strings"

// Tier is a tool's approval tier. It decides which surfaces see the tool at all,
// not only whether a call prompts.
type Tier int

// The tiers, in increasing order of what a call may do.
const (
	// TierRead tools have no side effects.
	TierRead Tier = iota + 1
	// TierWrite tools change files.
	TierWrite
	// TierExec tools start or drive processes.
	TierExec
)

// String returns "read", "write" or "exec".
func (t Tier) String() string {
	switch t {
	case TierRead:
		return "read"
	case TierWrite:
		return "write"
	case TierExec:
		return "exec"
	}
	return fmt.Sprintf("tier(%d)", int(t))
}

// parseTier parses "read", "write" or "exec".
func parseTier(s string) (Tier, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read":
		return TierRead, nil
	case "write":
		return TierWrite, nil
	case "exec":
		return TierExec, nil
	}
	return 0, fmt.Errorf("tools: unknown tier %q: use read, write or exec", s)
}

// MarshalText implements encoding.TextMarshaler.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *Tier) UnmarshalText(b []byte) error {
	v, err := parseTier(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Tool is one built-in tool. Tools are values: a tool family builds its Tools
// bound to a run's resources and the registry lists and calls them.
type Tool struct {
	// Name is the tool's name as the model sees it ("ast_grep").
	Name string
	// Tier is the tool's approval tier.
	Tier Tier
	// Description is written for an agent: what the tool does, when to use it.
	Description string
	// InputSchema is the JSON Schema (an object schema) of the tool's arguments.
	// Arguments are validated against it before Handler runs.
	InputSchema json.RawMessage
	// Serial marks a tool whose calls must not run in parallel (its resource is
	// state across calls, as a debug session is).
	Serial bool
	// Mutates marks a tool that changes the machine's state (starts or stops
	// processes) though its tier lets it run unapproved: MCP's readOnlyHint
	// is false for it, whatever its tier.
	Mutates bool
	// Writes is set on a tool that writes files in the working directory. It
	// returns the workspace-relative files a call is about to write, decoded
	// from the call's own arguments (and the tool's own state: the staged
	// change an edit_id names), or none when the tool learns them only while
	// it runs; such a tool calls WillWrite with them before it writes.
	// Wrappers added with registry.WrapWriters (diagnostics on write) cover
	// every tool that sets it, without naming any. After a call the files
	// written are those its result reports (FileChanges), else those declared.
	Writes func(call *Call) []string
	// Preview, when set, says what a call would change without changing
	// anything (a file tool's unified diff). A permission prompt shows it
	// instead of the raw arguments; an error leaves the arguments shown.
	Preview func(ctx context.Context, call *Call) (string, error)
	// Handler performs a call. Returning an error yields an error result whose
	// text is the error's message; it should say what failed and what to do next.
	Handler Handler
}

// ToolInfo is what a run shows of one of its tools: enough to list it (an
// MCP tools/list entry), nothing to call it with; calls go through Run.Call.
type ToolInfo struct {
	// Name, Tier, Description, InputSchema, Serial and Mutates are the
	// tool's own (see Tool).
	Name        string
	Tier        Tier
	Description string
	InputSchema json.RawMessage
	Serial      bool
	Mutates     bool
}

// info is what a run shows of t.
func (t Tool) info() ToolInfo {
	return ToolInfo{Name: t.Name, Tier: t.Tier, Description: t.Description, InputSchema: t.InputSchema, Serial: t.Serial, Mutates: t.Mutates}
}

// Origin says who made a call.
type Origin int

const (
	// FromModel is a call made by the model through a surface.
	FromModel Origin = iota
	// FromBridge is a call made from inside an eval cell through the kernel bridge.
	FromBridge
	// FromCLI is a call made by `tether call`.
	FromCLI
)

// Call is one invocation of a tool.
type Call struct {
	// Name is the tool being called.
	Name string
	// Args are the raw JSON arguments, already validated against the schema.
	Args json.RawMessage
	// Origin says who made the call.
	Origin Origin
}

// Decode unmarshals the call's arguments into v.
func (c *Call) Decode(v any) error {
	args := c.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("tools: %s: arguments do not decode: %w", c.Name, err)
	}
	return nil
}

// ContentType is the kind of one piece of result content.
type ContentType string

// Content types.
const (
	TextContent  ContentType = "text"
	ImageContent ContentType = "image"
)

// Content is one piece of a result: text, or an image with its MIME type.
type Content struct {
	Type     ContentType `json:"type"`
	Text     string      `json:"text,omitempty"`
	MIMEType string      `json:"mimeType,omitempty"`
	Data     []byte      `json:"data,omitempty"`
	// Full is the whole of what Text shows a part of: a diff shown a page
	// at a time, or a text the registry cut to the result's bound
	// (MaxResultText). A host may offer it another way (an MCP resource).
	// Empty when Text is whole.
	Full string `json:"-"`
}

// Result is what a tool call returns. Every result is bounded: a tool that cuts
// its output says so in the text ("50 of 213 shown").
type Result struct {
	// Content is shown to the model, in order.
	Content []Content `json:"content"`
	// Structured is optional machine-readable output (marshalled as JSON).
	Structured any `json:"structured,omitempty"`
	// IsError marks a failed call; Content says why and what to do next.
	IsError bool `json:"isError,omitempty"`
	// Diagnostics is, after a call that wrote files, what diagnostics on
	// write found, as data for programs in the same process (tests, the
	// differential harness); the text says the same to the model.
	Diagnostics *WriteDiagnostics `json:"-"`
}

// Text returns a result holding one text block.
func Text(s string) *Result { return &Result{Content: []Content{{Type: TextContent, Text: s}}} }

// AllText joins the result's text blocks with newlines.
func (r *Result) AllText() string {
	if r == nil {
		return ""
	}
	var parts []string
	for _, c := range r.Content {
		if c.Type == TextContent {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}
