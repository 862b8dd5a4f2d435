package tools

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "sort"
import "strings"

// Decision is what a Policy says about a call: ask a human, allow, or deny.
type Decision string

// The decisions.
const (
	// Ask sends the call to the connected Approver; with none connected the call
	// fails closed.
	Ask Decision = "ask"
	// Allow runs the call without asking.
	Allow Decision = "allow"
	// Deny refuses the call.
	Deny Decision = "deny"
)

// parseDecision parses "ask", "allow" or "deny".
func parseDecision(s string) (Decision, error) {
	switch d := Decision(strings.ToLower(strings.TrimSpace(s))); d {
	case Ask, Allow, Deny:
		return d, nil
	}
	return "", fmt.Errorf("tools: unknown approval %q: use ask, allow or deny", s)
}

// Policy decides, per tool or per tier, whether a write or exec call is asked
// about, allowed or denied. Read-tier tools never need approval. The zero Policy
// asks about every write and exec call.
type Policy struct {
	// Default applies when neither Tools nor Tiers names the call ("" = Ask).
	Default Decision
	// Tiers overrides Default for a whole tier.
	Tiers map[Tier]Decision
	// Tools overrides everything else for one tool by name.
	Tools map[string]Decision
}

// PolicyOf returns a policy that decides d for every write and exec call.
func PolicyOf(d Decision) Policy { return Policy{Default: d} }

// ParsePolicy parses a policy: a single decision ("ask", "allow", "deny") for
// everything, or a comma-separated list of KEY=DECISION where KEY is a tier
// (write, exec), a tool name, or "*" for the default: "write=allow,exec=ask,debug=deny".
// A key given twice ("write=deny,write=allow"; "*" and "default" are one key)
// is refused, not resolved by the last one.
func ParsePolicy(s string) (Policy, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Policy{}, nil
	}
	if !strings.Contains(s, "=") {
		d, err := parseDecision(s)
		if err != nil {
			return Policy{}, err
		}
		return PolicyOf(d), nil
	}
	var p Policy
	seen := map[string]string{} // key -> the item that set it
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return Policy{}, fmt.Errorf("tools: policy item %q is not KEY=DECISION (e.g. write=allow)", item)
		}
		d, err := parseDecision(v)
		if err != nil {
			return Policy{}, err
		}
		k = strings.TrimSpace(k)
		key := k
		if key == "default" {
			key = "*"
		}
		if prev, dup := seen[key]; dup {
			return Policy{}, fmt.Errorf("tools: the policy sets %s twice (%q and %q); give each tier or tool one decision", k, strings.TrimSpace(prev), strings.TrimSpace(item))
		}
		seen[key] = item
		switch k {
		case "*", "default":
			p.Default = d
		case "read":
			return Policy{}, errors.New("tools: read-tier tools never need approval; set write or exec instead")
		case "write", "exec":
			t, _ := parseTier(k)
			if p.Tiers == nil {
				p.Tiers = map[Tier]Decision{}
			}
			p.Tiers[t] = d
		default:
			if p.Tools == nil {
				p.Tools = map[string]Decision{}
			}
			p.Tools[k] = d
		}
	}
	return p, nil
}

// String renders the policy in the form ParsePolicy reads.
func (p Policy) String() string {
	var items []string
	d := p.Default
	if d == "" {
		d = Ask
	}
	items = append(items, "*="+string(d))
	for _, t := range []Tier{TierWrite, TierExec} {
		if v, ok := p.Tiers[t]; ok {
			items = append(items, t.String()+"="+string(v))
		}
	}
	names := make([]string, 0, len(p.Tools))
	for n := range p.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		items = append(items, n+"="+string(p.Tools[n]))
	}
	return strings.Join(items, ",")
}

// Decide returns the decision for a call of a tool with the given name and
// tier. Read-tier tools are always allowed.
func (p Policy) Decide(name string, tier Tier) Decision {
	if tier <= TierRead {
		return Allow
	}
	if d, ok := p.Tools[name]; ok && d != "" {
		return d
	}
	if d, ok := p.Tiers[tier]; ok && d != "" {
		return d
	}
	if p.Default != "" {
		return p.Default
	}
	return Ask
}

// ApprovalRequest is what an Approver is asked about.
type ApprovalRequest struct {
	// Tool and Tier name the tool being called.
	Tool string
	Tier Tier
	// Args are the call's (validated) JSON arguments.
	Args json.RawMessage
	// Origin says who made the call (the model, an eval cell, the CLI).
	Origin Origin
	// ConversationID is the run's conversation.
	ConversationID string
	// Preview says what the call would change (a unified diff for a file
	// tool), "" when the tool has none; prompts show it instead of Args.
	Preview string
}

// Detail is what a permission prompt shows of the call: its Preview when
// there is one, else its arguments, cut at 2000 bytes; terminal controls
// are shown escaped, as in results.
func (q ApprovalRequest) Detail() string {
	if q.Preview != "" {
		p, _ := escapeControls(q.Preview)
		return p
	}
	args := string(q.Args)
	if args == "" {
		args = "{}"
	}
	return "arguments: " + truncateText(args, 2000)
}

// Prompt renders the request as a question for a human:
// "may I run write (write tier) with {"path": ...}?", or with the change it
// would make when the request has a Preview. Long arguments are cut;
// terminal controls in the preview are shown escaped, as in results.
func (q ApprovalRequest) Prompt() string {
	via := ""
	if q.Origin == FromBridge {
		via = " (from an eval cell)"
	}
	if q.Preview != "" {
		p, _ := escapeControls(q.Preview)
		return fmt.Sprintf("May I run %s (%s tier)%s? It would make this change:\n%s", q.Tool, q.Tier, via, p)
	}
	args := string(q.Args)
	if args == "" {
		args = "{}"
	}
	args = truncateText(args, 2000)
	return fmt.Sprintf("May I run %s (%s tier)%s with arguments %s?", q.Tool, q.Tier, via, args)
}

// Approver asks a human whether a call may run. It returns true to approve and
// false to decline. An Approver that cannot reach anyone (no human connected, a
// client without elicitation) returns an error wrapping ErrNoApprover, and the
// call fails closed.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (bool, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (bool, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (bool, error) {
	return f(ctx, req)
}

// Errors a refused call wraps; test with errors.Is.
var (
	// ErrUnknownTool: no tool of that name is registered for the run.
	ErrUnknownTool = errors.New("tools: unknown tool")
	// ErrNotOnSurface: the tool's tier is above the surface's cap.
	ErrNotOnSurface = errors.New("tools: tool is not available on this surface")
	// ErrNoApprover: the policy says ask and no approver is connected, so the
	// call fails closed.
	ErrNoApprover = errors.New("tools: no approver connected")
	// ErrDenied: the policy denies the call.
	ErrDenied = errors.New("tools: denied by policy")
	// ErrDeclined: the approver (a human) declined the call.
	ErrDeclined = errors.New("tools: declined by the approver")
	// ErrInvalidArgs: the arguments do not match the tool's input schema.
	ErrInvalidArgs = errors.New("tools: invalid arguments")
)
