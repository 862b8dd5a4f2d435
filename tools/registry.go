package tools

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "regexp"
import "sort"
import "strings"
import "sync"

import "github.com/tetherhq/tether/internal/textcut"

// Handler performs one call of a tool.
type Handler func(ctx context.Context, call *Call) (*Result, error)

// middleware wraps a tool's handler: it may inspect the call, run next, and
// amend the result (the language-server family folds new diagnostics into the
// results of every tool that declares the files it writes this way).
type middleware func(next Handler) Handler

// guard is what the registry checks a call against besides the tool's schema:
// the surface (tier cap), the approval policy and the approver that asks a
// human. A run makes one per call from its Config (Run.Call); nothing else
// calls a registry, so no caller can choose its own.
type guard struct {
	// Surface decides which tools are visible and callable.
	Surface Surface
	// Policy decides whether write and exec calls are allowed, denied or asked about.
	Policy Policy
	// Approver is asked when Policy says ask; nil means no approver is
	// connected and such calls fail closed.
	Approver Approver
	// ConversationID is passed on to the approver.
	ConversationID string
}

type entry struct {
	tool   Tool
	schema *schema
	serial sync.Mutex // held across calls of a Serial tool
}

// registry holds a run's tools. It lists them per surface and calls them by
// name, checking the arguments against the tool's schema, the tier against the
// surface (again, at call time), and the approval policy, then running the
// handler through any wrappers registered for that tool. It is safe for
// concurrent use. It is the run's own: families register on it from their
// register func, and only Run.Call calls it.
type registry struct {
	mu      sync.RWMutex
	tools   map[string]*entry
	wraps   map[string][]middleware
	writers []middleware // wrap every tool that declares Writes
}

// validName is what MCP clients accept as a tool name.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`) })

// newRegistry returns an empty registry.
func newRegistry() *registry {
	return &registry{tools: map[string]*entry{}, wraps: map[string][]middleware{}}
}

// Register adds tools. It refuses a tool without a name, a valid tier or a
// handler, a duplicate name, or an input schema it cannot compile; on error
// none of the given tools is added.
func (r *registry) Register(tools ...Tool) error {
	entries := make([]*entry, 0, len(tools))
	seen := map[string]bool{}
	for _, t := range tools {
		switch {
		case t.Name == "":
			return errors.New("tools: register: a tool has no name")
		case !validName().MatchString(t.Name):
			return fmt.Errorf("tools: register %q: a tool name is 1-64 letters, digits, '_', '-' or '.'", t.Name)
		case t.Tier < TierRead || t.Tier > TierExec:
			return fmt.Errorf("tools: register %s: tier %s is not read, write or exec", t.Name, t.Tier)
		case t.Handler == nil:
			return fmt.Errorf("tools: register %s: no handler", t.Name)
		case seen[t.Name]:
			return fmt.Errorf("tools: register %s: given twice", t.Name)
		}
		seen[t.Name] = true
		s, err := sharedSchema(t.InputSchema)
		if err != nil {
			return fmt.Errorf("tools: register %s: %w", t.Name, err)
		}
		entries = append(entries, &entry{tool: t, schema: s})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range entries {
		if _, dup := r.tools[e.tool.Name]; dup {
			return fmt.Errorf("tools: register %s: a tool of that name is already registered", e.tool.Name)
		}
	}
	for _, e := range entries {
		r.tools[e.tool.Name] = e
	}
	return nil
}

// Unregister removes the named tools (unknown names are ignored).
func (r *registry) Unregister(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		delete(r.tools, n)
	}
}

// Wrap adds middleware to the named tool. It may be called before or after the
// tool is registered. The middleware added last runs outermost.
func (r *registry) Wrap(name string, mw ...middleware) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wraps[name] = append(r.wraps[name], mw...)
}

// WrapWriters adds middleware to every tool that declares the files it
// writes (Tool.Writes), registered before or after; it runs outside the
// middleware added with Wrap.
func (r *registry) WrapWriters(mw ...middleware) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writers = append(r.writers, mw...)
}

// Lookup returns the named tool, whatever its tier.
func (r *registry) Lookup(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	if !ok {
		return Tool{}, false
	}
	return e.tool, true
}

// All returns every registered tool, sorted by name.
func (r *registry) All() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(r.tools))
	for _, e := range r.tools {
		out = append(out, e.tool)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// List returns the tools visible on surface s (tier at or below its cap),
// sorted by name. Tools above the cap are omitted entirely.
func (r *registry) List(s Surface) []Tool {
	all := r.All()
	out := all[:0]
	for _, t := range all {
		if s.Allows(t.Tier) {
			out = append(out, t)
		}
	}
	return out
}

// Call runs one call under g. It always returns a non-nil Result. The error is
// non-nil when the call was refused (unknown tool, tier above the surface's cap,
// invalid arguments, denied, declined, no approver connected: test with
// errors.Is against ErrUnknownTool, ErrNotOnSurface, ErrInvalidArgs, ErrDenied,
// ErrDeclined, ErrNoApprover) or when the handler returned an error; the Result
// is then an error result carrying the same message. A tool's own error result
// (IsError with a nil error) is passed on with a nil error.
func (r *registry) Call(ctx context.Context, g guard, call Call) (*Result, error) {
	res, err := r.call(ctx, g, &call)
	if err != nil {
		res = &Result{Content: []Content{{Type: TextContent, Text: err.Error()}}, IsError: true}
		if call.Origin != FromBridge {
			escapeResult(res)
		}
		return res, err
	}
	if res == nil {
		res = Text("(no output)")
	}
	if call.Origin != FromBridge {
		escapeResult(res)
	}
	boundResult(res, MaxResultText)
	boundStructured(res)
	return res, nil
}

func (r *registry) call(ctx context.Context, g guard, call *Call) (*Result, error) {
	r.mu.RLock()
	e, ok := r.tools[call.Name]
	var wraps []middleware
	if ok {
		wraps = append(wraps, r.wraps[call.Name]...)
		if e.tool.Writes != nil {
			wraps = append(wraps, r.writers...)
		}
	}
	r.mu.RUnlock()
	if !ok {
		return nil, r.unknown(call.Name, g.Surface)
	}
	t := e.tool
	// The tier is checked here, at call time, whatever listing the caller saw.
	if !g.Surface.Allows(t.Tier) {
		return nil, fmt.Errorf("%w: %s is %s %s-tier tool and the %s surface allows only %s-tier tools; ask the user to switch surfaces (or to make this change themselves)",
			ErrNotOnSurface, t.Name, tierArticle(t.Tier.String()), t.Tier, g.Surface, capNames(g.Surface.Cap))
	}
	if len(call.Args) == 0 || string(call.Args) == "null" {
		call.Args = json.RawMessage("{}")
	}
	args, err := e.schema.validateArgs(call.Args)
	if err != nil {
		return nil, fmt.Errorf("%w for %s: %v", ErrInvalidArgs, t.Name, err)
	}
	call.Args = args
	if err := approve(ctx, g, t, call); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tools: %s: %w", t.Name, err)
	}
	h := t.Handler
	for _, mw := range wraps {
		h = mw(h)
	}
	if t.Serial {
		e.serial.Lock()
		defer e.serial.Unlock()
	}
	return runHandler(ctx, t.Name, h, call)
}

// runHandler runs h, turning a panic into an error so that one broken tool
// cannot take the server (and every other tool of the run) down with it.
func runHandler(ctx context.Context, name string, h Handler, call *Call) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("tools: %s failed with an internal error (panic: %v); this is a bug in tether, not in your call", name, p)
		}
	}()
	return h(ctx, call)
}

func approve(ctx context.Context, g guard, t Tool, call *Call) error {
	switch d := g.Policy.Decide(t.Name, t.Tier); d {
	case Allow:
		return nil
	case Deny:
		return fmt.Errorf("%w: %s (%s tier) is denied by this run's approval policy; do not retry, ask the user to change the policy or make the change themselves", ErrDenied, t.Name, t.Tier)
	default:
		if g.Approver == nil {
			return fmt.Errorf("%w: %s (%s tier) needs approval and no one is connected to approve it, so it was refused (fail closed); connect an approver or set the approval policy to allow", ErrNoApprover, t.Name, t.Tier)
		}
		req := ApprovalRequest{Tool: t.Name, Tier: t.Tier, Args: call.Args, Origin: call.Origin, ConversationID: g.ConversationID}
		if t.Preview != nil {
			req.Preview, _ = t.Preview(ctx, call)
		}
		ok, err := askApprover(ctx, g.Approver, req)
		if errors.Is(err, ErrNoApprover) {
			why := withoutSentinel(err, ErrNoApprover)
			return fmt.Errorf("%w: %s (%s tier) needs approval and the approver cannot ask anyone (%s), so it was refused (fail closed); do not retry it, ask the user to connect an approver or to set the approval policy to allow", ErrNoApprover, t.Name, t.Tier, why)
		}
		if err != nil {
			return fmt.Errorf("tools: %s: asking for approval failed, so the call was refused: %w", t.Name, err)
		}
		if !ok {
			return fmt.Errorf("%w: the user declined %s; do not retry it unchanged, ask what they want instead", ErrDeclined, t.Name)
		}
		return nil
	}
}

// askApprover asks a, turning a panic into an error (so the call is refused,
// and a broken approver cannot take the server down).
func askApprover(ctx context.Context, a Approver, q ApprovalRequest) (ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, fmt.Errorf("the approver failed with an internal error (panic: %v); this is a bug in the approver", p)
		}
	}()
	return a.Approve(ctx, q)
}

// maxEchoedName is the most of an unknown tool's name an error repeats: a
// made-up name can be megabytes, and the caller knows what it sent.
const maxEchoedName = 64

func (r *registry) unknown(name string, s Surface) error {
	shown := fmt.Sprintf("%q", name)
	if cut := textcut.Prefix(name, maxEchoedName); len(cut) < len(name) {
		shown = fmt.Sprintf("%q... (the first %d of %d bytes)", cut, len(cut), len(name))
	}
	names := make([]string, 0)
	for _, t := range r.List(s) {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("%w %s: no tools are available on the %s surface", ErrUnknownTool, shown, s)
	}
	return fmt.Errorf("%w %s: available tools are %s", ErrUnknownTool, shown, strings.Join(names, ", "))
}

func capNames(c Tier) string {
	var parts []string
	for t := TierRead; t <= c && t <= TierExec; t++ {
		parts = append(parts, t.String())
	}
	if len(parts) == 0 {
		return "no"
	}
	return strings.Join(parts, "/")
}

// tierArticle is "an" before a vowel sound ("an exec-tier tool"), else "a".
func tierArticle(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// withoutSentinel is err's message without the text of sentinel, which a
// caller wrapping err with the same sentinel would otherwise repeat.
func withoutSentinel(err, sentinel error) string {
	msg, tag := err.Error(), sentinel.Error()
	msg = strings.TrimPrefix(msg, tag+": ")
	msg = strings.TrimSuffix(msg, ": "+tag)
	msg = strings.ReplaceAll(msg, ": "+tag+":", ":")
	return msg
}
