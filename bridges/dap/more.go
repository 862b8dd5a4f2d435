package dap

import "context"
import "encoding/base64"
import "encoding/hex"
import "errors"
import "fmt"
import "regexp"
import "strings"
import "sync"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/textcut"

// Limits on what the optional ops return in one call.
const (
	MaxModules      = 50   // Modules: modules returned
	MaxSources      = 50   // LoadedSources: sources returned
	MaxMemory       = 1024 // ReadMemory: bytes returned
	MaxInstructions = 50   // Disassemble: instructions returned
)

// Optional ops: the ones an adapter offers only when its initialize answer
// says so (its capabilities). OptionalOps lists them in the order help text
// names them.
var optionalOps = []struct {
	op, what string
	has      func(godap.Capabilities) bool
}{
	{"set_variable", "set a variable", func(c godap.Capabilities) bool { return c.SupportsSetVariable }},
	{"set_expression", "assign to an expression", func(c godap.Capabilities) bool { return c.SupportsSetExpression }},
	{"modules", "list modules", func(c godap.Capabilities) bool { return c.SupportsModulesRequest }},
	{"loaded_sources", "list loaded sources", func(c godap.Capabilities) bool { return c.SupportsLoadedSourcesRequest }},
	{"read_memory", "read memory", func(c godap.Capabilities) bool { return c.SupportsReadMemoryRequest }},
	{"write_memory", "write memory", func(c godap.Capabilities) bool { return c.SupportsWriteMemoryRequest }},
	{"disassemble", "disassemble", func(c godap.Capabilities) bool { return c.SupportsDisassembleRequest }},
	{"data_breakpoints", "set data breakpoints (watchpoints)", func(c godap.Capabilities) bool { return c.SupportsDataBreakpoints }},
	{"instruction_breakpoints", "set instruction breakpoints", func(c godap.Capabilities) bool { return c.SupportsInstructionBreakpoints }},
	{"restart", "restart the program", func(c godap.Capabilities) bool { return c.SupportsRestartRequest }},
	{"restart_frame", "restart a frame", func(c godap.Capabilities) bool { return c.SupportsRestartFrame }},
	{"goto", "jump to a line (goto)", func(c godap.Capabilities) bool { return c.SupportsGotoTargetsRequest }},
	{"step_back", "step back", func(c godap.Capabilities) bool { return c.SupportsStepBack }},
	{"reverse_continue", "run backwards", func(c godap.Capabilities) bool { return c.SupportsStepBack }},
	{"completions", "complete expressions", func(c godap.Capabilities) bool { return c.SupportsCompletionsRequest }},
	{"exception_info", "describe the exception", func(c godap.Capabilities) bool { return c.SupportsExceptionInfoRequest }},
}

// OptionalOps returns the debug ops an adapter offers only when its
// capabilities say so.
func OptionalOps() []string {
	out := make([]string, len(optionalOps))
	for i, o := range optionalOps {
		out[i] = o.op
	}
	return out
}

// capsOps lists the optional ops caps offer.
func capsOps(caps godap.Capabilities) []string {
	var ops []string
	for _, o := range optionalOps {
		if o.has(caps) {
			ops = append(ops, o.op)
		}
	}
	return ops
}

// offeredOps names the optional ops caps offer, or "none of the optional
// ops".
func offeredOps(caps godap.Capabilities) string {
	ops := capsOps(caps)
	if len(ops) == 0 {
		return "none of the optional ops (" + strings.Join(OptionalOps(), ", ") + ")"
	}
	return "of the optional ops " + strings.Join(ops, ", ")
}

// needCap refuses op when the session's adapter lacks it, naming the
// adapter and what it offers instead.
func needCap(s *session, op string) error {
	for _, o := range optionalOps {
		if o.op != op {
			continue
		}
		if o.has(s.caps) {
			return nil
		}
		return fmt.Errorf("debug: %s: the %s adapter cannot %s (its capabilities do not offer it); it offers %s, and variables / evaluate", op, s.adapter.ID, o.what, offeredOps(s.caps))
	}
	return nil
}

// SetVariable sets the variable name, a child of variables reference (from
// scopes or variables), to value, an expression in the program's
// language, and returns its new value.
func (sv *Supervisor) SetVariable(ctx context.Context, conversationID string, reference int, name, value string) (*Variable, error) {
	return inSessionFor(sv, conversationID, "set_variable", true, func(_ *conversation, s *session) (*Variable, error) {
		if err := needCap(s, "set_variable"); err != nil {
			return nil, err
		}
		switch {
		case reference <= 0:
			return nil, errors.New("debug: set_variable needs reference (the scope's or parent variable's reference, from scopes or variables) and name")
		case name == "":
			return nil, errors.New("debug: set_variable needs name (a variable listed under reference)")
		case value == "":
			return nil, errors.New("debug: set_variable needs value (an expression in the program's language)")
		}
		var resp godap.SetVariableResponse
		if err := s.c.call(ctx, "setVariable", &godap.SetVariableArguments{VariablesReference: reference, Name: name, Value: value}, &resp); err != nil {
			return nil, staleHint(err, "take reference from scopes or variables at the current stop and name from the variables it lists")
		}
		v := toVariable(name, resp.Body.Value, resp.Body.Type, resp.Body.VariablesReference, resp.Body.IndexedVariables)
		if v.Value == "" {
			// lldb-dap 19 answers with an empty value: read it back.
			var vr godap.VariablesResponse
			if err := s.c.call(ctx, "variables", &godap.VariablesArguments{VariablesReference: reference}, &vr); err == nil {
				for _, x := range vr.Body.Variables {
					if x.Name == name {
						v = toVariable(name, x.Value, x.Type, x.VariablesReference, x.IndexedVariables)
						break
					}
				}
			}
		}
		s.remember([]Variable{v})
		r := &v
		return r, nil
	})
}

// SetExpression assigns value to expression (an assignable expression:
// "p.x", "arr[2]") in a frame (0: the top frame of threadID, or of the
// thread that last stopped), and returns its new value.
func (sv *Supervisor) SetExpression(ctx context.Context, conversationID, expression, value string, threadID, frameID int) (*Variable, error) {
	return inSessionFor(sv, conversationID, "set_expression", true, func(_ *conversation, s *session) (*Variable, error) {
		if err := needCap(s, "set_expression"); err != nil {
			return nil, err
		}
		if strings.TrimSpace(expression) == "" || value == "" {
			return nil, errors.New("debug: set_expression needs expression (what to assign to, e.g. p.x) and value (an expression in the program's language)")
		}
		frame, err := sv.frameOrTop(ctx, s, threadID, frameID)
		if err != nil {
			return nil, err
		}
		var resp godap.SetExpressionResponse
		if err := s.c.call(ctx, "setExpression", &godap.SetExpressionArguments{Expression: expression, Value: value, FrameId: frame}, &resp); err != nil {
			return nil, staleHint(err, "take frame_id from stack at the current stop, or omit it for the top frame")
		}
		v := toVariable(expression, resp.Body.Value, resp.Body.Type, resp.Body.VariablesReference, resp.Body.IndexedVariables)
		s.remember([]Variable{v})
		r := &v
		return r, nil
	})
}

// Module is one module (an executable, a shared library, a Python module)
// the debuggee has loaded.
type Module struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	Symbols string `json:"symbols,omitempty"` // the adapter's symbol status
}

// Modules is one page of the debuggee's modules.
type Modules struct {
	Modules []Module
	// Start is the first shown, Total all there are (as far as the
	// adapter says), Next the start of the next page (0 on the last).
	Start, Total, Next int
}

// Modules lists up to MaxModules of the debuggee's modules from module
// start on.
func (sv *Supervisor) Modules(ctx context.Context, conversationID string, start int) (*Modules, error) {
	return inSessionFor(sv, conversationID, "modules", false, func(_ *conversation, s *session) (*Modules, error) {
		if err := needCap(s, "modules"); err != nil {
			return nil, err
		}
		if start < 0 {
			return nil, fmt.Errorf("debug: modules: start %d is not an index (0 is the first module)", start)
		}
		// Ask for one more than shown: whether there is a next page does
		// not rest on totalModules, which an adapter may leave out.
		var resp godap.ModulesResponse
		if err := s.c.call(ctx, "modules", &godap.ModulesArguments{StartModule: start, ModuleCount: MaxModules + 1}, &resp); err != nil {
			return nil, err
		}
		mods := resp.Body.Modules
		if start > 0 && len(mods) > MaxModules+1 {
			// An adapter that ignores paging answers with all of them.
			mods = mods[min(start, len(mods)):]
		}
		r := &Modules{Start: start, Total: max(resp.Body.TotalModules, start+len(mods))}
		if len(mods) > MaxModules {
			mods = mods[:MaxModules]
			r.Next = start + MaxModules
		}
		for _, m := range mods {
			r.Modules = append(r.Modules, Module{ID: fmt.Sprint(m.Id), Name: m.Name, Path: m.Path, Version: m.Version, Symbols: m.SymbolStatus})
		}
		return r, nil
	})
}

// Sources is one page of the sources the debuggee has loaded.
type Sources struct {
	Sources            []Frame // Name and File of each
	Start, Total, Next int
}

// LoadedSources lists up to MaxSources of the sources the debuggee has
// loaded, from start on.
func (sv *Supervisor) LoadedSources(ctx context.Context, conversationID string, start int) (*Sources, error) {
	return inSessionFor(sv, conversationID, "loaded_sources", false, func(_ *conversation, s *session) (*Sources, error) {
		if err := needCap(s, "loaded_sources"); err != nil {
			return nil, err
		}
		var resp godap.LoadedSourcesResponse
		if err := s.c.call(ctx, "loadedSources", &godap.LoadedSourcesArguments{}, &resp); err != nil {
			return nil, err
		}
		all := resp.Body.Sources
		if start < 0 || (start > 0 && start >= len(all)) {
			return nil, fmt.Errorf("debug: loaded_sources: start %d is not an index of the %d source(s) (start 0 to %d)", start, len(all), max(len(all)-1, 0))
		}
		end := min(start+MaxSources, len(all))
		r := &Sources{Start: start, Total: len(all)}
		if end < len(all) {
			r.Next = end
		}
		for _, src := range all[start:end] {
			r.Sources = append(r.Sources, Frame{Name: src.Name, File: src.Path})
		}
		return r, nil
	})
}

// MemoryArgs says where read_memory and disassemble look: a memory
// reference the adapter gave (a variable's, an evaluation's, a frame's
// instruction pointer), or an expression whose value is an address,
// evaluated in a frame; plus an offset in bytes and a count (bytes for
// read_memory, instructions for disassemble).
type MemoryArgs struct {
	Reference  string
	Expression string
	ThreadID   int
	FrameID    int
	Offset     int
	Count      int
}

// Memory is bytes read from the debuggee.
type Memory struct {
	// Address is the first byte's, as the adapter gives it.
	Address string
	// Reference and Offset are what was read from.
	Reference string
	Offset    int
	Data      []byte
	// Unreadable counts the bytes after Data that could not be read.
	Unreadable int
	// Asked is the count asked for; Cut: it was more than MaxMemory.
	Asked int
	Cut   bool
}

// hexAddr is a value that is an address: "0x7ffd5c", or lldb's pointer
// value "(int *) 0x7ffd5c".
var hexAddr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b0x[0-9a-fA-F]+\b`) })

// memoryOp is what a memory op (read_memory, disassemble) checks first:
// that the adapter has op and that m.Count is a count of unit ("a byte");
// then it resolves where op looks (memoryRef) and the count to ask for,
// def when m gives none.
func (sv *Supervisor) memoryOp(ctx context.Context, s *session, op, unit string, m MemoryArgs, ip bool, def int) (ref string, count int, err error) {
	if err := needCap(s, op); err != nil {
		return "", 0, err
	}
	if m.Count < 0 {
		return "", 0, fmt.Errorf("debug: %s: count %d is not %s count", op, m.Count, unit)
	}
	if ref, err = sv.memoryRef(ctx, s, op, m, ip); err != nil {
		return "", 0, err
	}
	if count = m.Count; count == 0 {
		count = def
	}
	return ref, count, nil
}

// memoryRef resolves where a memory op looks.
func (sv *Supervisor) memoryRef(ctx context.Context, s *session, op string, m MemoryArgs, ip bool) (string, error) {
	switch {
	case m.Reference != "" && m.Expression != "":
		return "", fmt.Errorf("debug: %s takes memory_reference or expression, not both", op)
	case m.Reference != "":
		return m.Reference, nil
	case m.Expression != "":
		v, err := sv.evaluate(ctx, s, m.Expression, m.ThreadID, m.FrameID)
		if err != nil {
			return "", err
		}
		if v.MemoryReference != "" {
			return v.MemoryReference, nil
		}
		// delve gives memory references to the variables it lists, not to
		// evaluations: a variable of the frame by that name has one.
		if ref := sv.frameVarMemory(ctx, s, m); ref != "" {
			return ref, nil
		}
		if a := hexAddr().FindString(v.Value); a != "" {
			return a, nil
		}
		return "", fmt.Errorf("debug: %s: %s is %q, which is not an address and has no memory reference; pass a variable of the frame, an address or a pointer (C: &x, p)", op, m.Expression, v.Value)
	case ip:
		thread, err := sv.currentThread(ctx, s, m.ThreadID)
		if err != nil {
			return "", err
		}
		fr, _, err := s.frames(ctx, thread, 0, MaxStackFrames)
		if err != nil {
			return "", err
		}
		for _, f := range fr {
			if m.FrameID == 0 || f.ID == m.FrameID {
				if f.Instruction == "" {
					break
				}
				return f.Instruction, nil
			}
		}
		return "", fmt.Errorf("debug: %s: the adapter gave no instruction address for the frame; pass memory_reference or expression", op)
	}
	return "", fmt.Errorf("debug: %s needs memory_reference (a variable's or evaluation's memory_reference) or expression (an address or pointer, e.g. &x)", op)
}

// frameVarMemory is the memory reference of the variable named
// m.Expression in the frame's scopes, or "".
func (sv *Supervisor) frameVarMemory(ctx context.Context, s *session, m MemoryArgs) string {
	frame, err := sv.frameOrTop(ctx, s, m.ThreadID, m.FrameID)
	if err != nil {
		return ""
	}
	var sc godap.ScopesResponse
	if s.c.call(ctx, "scopes", &godap.ScopesArguments{FrameId: frame}, &sc) != nil {
		return ""
	}
	for _, scope := range sc.Body.Scopes {
		if scope.Expensive || scope.VariablesReference <= 0 {
			continue
		}
		var vr godap.VariablesResponse
		if s.c.call(ctx, "variables", &godap.VariablesArguments{VariablesReference: scope.VariablesReference}, &vr) != nil {
			continue
		}
		for _, x := range vr.Body.Variables {
			if x.Name == m.Expression && x.MemoryReference != "" {
				return x.MemoryReference
			}
		}
	}
	return ""
}

// ReadMemory reads up to MaxMemory bytes of the debuggee's memory.
func (sv *Supervisor) ReadMemory(ctx context.Context, conversationID string, m MemoryArgs) (*Memory, error) {
	spec := memorySpec{op: "read_memory", unit: "a byte", def: 64, max: MaxMemory}
	return inMemory(ctx, sv, conversationID, spec, m, func(s *session, ref string, asked, count int) (*Memory, error) {
		var resp godap.ReadMemoryResponse
		if err := s.c.call(ctx, "readMemory", &godap.ReadMemoryArguments{MemoryReference: ref, Offset: m.Offset, Count: count}, &resp); err != nil {
			return nil, staleHint(err, "pass an address the program can read")
		}
		data, err := base64.StdEncoding.DecodeString(resp.Body.Data)
		if err != nil {
			return nil, fmt.Errorf("debug: read_memory: the adapter's data is not base64: %w", err)
		}
		if len(data) > count {
			data = data[:count]
		}
		return &Memory{Reference: ref, Offset: m.Offset, Asked: asked, Cut: asked > count,
			Address: resp.Body.Address, Data: data, Unreadable: resp.Body.UnreadableBytes}, nil
	})
}

// memorySpec is one memory request: its name, the unit it counts, whether it
// defaults to the instruction pointer, and its default and largest count.
type memorySpec struct {
	op, unit string
	ip       bool
	def, max int
}

// inMemory runs do in the conversation's session with the reference m
// resolves to, the count asked (spec.def for none) and that count capped at
// spec.max.
func inMemory[T any](ctx context.Context, sv *Supervisor, conversationID string, spec memorySpec, m MemoryArgs, do func(s *session, ref string, asked, count int) (*T, error)) (*T, error) {
	return inSessionFor(sv, conversationID, spec.op, true, func(_ *conversation, s *session) (*T, error) {
		ref, asked, err := sv.memoryOp(ctx, s, spec.op, spec.unit, m, spec.ip, spec.def)
		if err != nil {
			return nil, err
		}
		return do(s, ref, asked, min(asked, spec.max))
	})
}

// Dump is the bytes as a hex dump, 16 bytes a line, each line led by its
// offset from Address.
func (m *Memory) Dump() string {
	var b strings.Builder
	for i := 0; i < len(m.Data); i += 16 {
		line := m.Data[i:min(i+16, len(m.Data))]
		fmt.Fprintf(&b, "+%04x  %-47s  %s\n", i, spacedHex(line), printable(line))
	}
	return b.String()
}

func spacedHex(bs []byte) string {
	parts := make([]string, len(bs))
	for i, c := range bs {
		parts[i] = hex.EncodeToString([]byte{c})
	}
	return strings.Join(parts, " ")
}

func printable(bs []byte) string {
	out := make([]byte, len(bs))
	for i, c := range bs {
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		out[i] = c
	}
	return string(out)
}

// Instruction is one disassembled instruction.
type Instruction struct {
	Address string `json:"address"`
	Bytes   string `json:"bytes,omitempty"`
	Text    string `json:"text"`
	Symbol  string `json:"symbol,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// Disassembly is instructions from a memory reference on.
type Disassembly struct {
	Reference    string
	Offset       int // instruction offset asked for
	Instructions []Instruction
	// Asked is the count asked for; Cut: it was more than MaxInstructions.
	Asked int
	Cut   bool
}

// Disassemble disassembles up to MaxInstructions instructions from a
// memory reference (default: the instruction pointer of the frame, or of
// the top frame), Offset instructions on (negative: before it).
func (sv *Supervisor) Disassemble(ctx context.Context, conversationID string, m MemoryArgs) (*Disassembly, error) {
	spec := memorySpec{op: "disassemble", unit: "an instruction", ip: true, def: 20, max: MaxInstructions}
	return inMemory(ctx, sv, conversationID, spec, m, func(s *session, ref string, asked, count int) (*Disassembly, error) {
		r := &Disassembly{Reference: ref, Offset: m.Offset, Asked: asked, Cut: asked > count}
		var resp godap.DisassembleResponse
		if err := s.c.call(ctx, "disassemble", &godap.DisassembleArguments{MemoryReference: ref, InstructionOffset: m.Offset, InstructionCount: count, ResolveSymbols: true}, &resp); err != nil {
			return nil, staleHint(err, "pass an address of code (a frame's instruction pointer is the default)")
		}
		ins := resp.Body.Instructions
		if len(ins) > count {
			ins = ins[:count]
		}
		for _, in := range ins {
			text, _ := textcut.Chars(in.Instruction, 200)
			x := Instruction{Address: in.Address, Bytes: in.InstructionBytes, Text: text, Symbol: in.Symbol, Line: in.Line}
			if in.Location != nil {
				x.File = in.Location.Path
			}
			r.Instructions = append(r.Instructions, x)
		}
		return r, nil
	})
}
