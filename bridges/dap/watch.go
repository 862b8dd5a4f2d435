package dap

import "context"
import "encoding/base64"
import "errors"
import "fmt"
import "slices"
import "strings"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/textcut"

// MaxPlaced bounds the data breakpoints, and the instruction breakpoints,
// set in one call: more than hardware watchpoints (x86 has four) or a
// reader of the stop can follow.
const MaxPlaced = 16

// Watch is one data breakpoint (a watchpoint): the program stops when
// the variable or expression is accessed.
type Watch struct {
	// Name is a variable, a child of Reference; with Reference 0, an
	// expression evaluated in the frame (FrameID, or the top frame of
	// ThreadID or of the thread that last stopped).
	Name      string
	Reference int
	ThreadID  int
	FrameID   int
	// Access is what stops: "write" (the default), "read" or
	// "readWrite".
	Access       string
	Condition    string
	HitCondition string
}

// Placed is a data or instruction breakpoint and what the adapter made of
// it.
type Placed struct {
	// Target is what is watched (a data breakpoint's name) or where it
	// stops (an instruction breakpoint's address).
	Target string `json:"target"`
	// Access and Description are a data breakpoint's: the access that
	// stops and what the adapter says it watches.
	Access      string `json:"access,omitempty"`
	Description string `json:"description,omitempty"`
	// Offset is an instruction breakpoint's offset in bytes from Target.
	Offset       int    `json:"offset,omitempty"`
	Condition    string `json:"condition,omitempty"`
	HitCondition string `json:"hit_condition,omitempty"`
	ID           int    `json:"id,omitempty"`
	Verified     bool   `json:"verified"`
	Message      string `json:"message,omitempty"`
	// File and Line are where the adapter placed it, when it says.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// accessTypes are the accesses a data breakpoint can stop on.
var accessTypes = []string{"write", "read", "readWrite"}

// placeAll fills each of ps from the adapter's breakpoint in its place.
func placeAll(ps []Placed, bs []godap.Breakpoint) {
	for i, b := range bs[:min(len(bs), len(ps))] {
		p := &ps[i]
		p.ID, p.Verified, p.Message, p.Line = b.Id, b.Verified, clip(b.Message), b.Line
		if b.Source != nil {
			p.File = b.Source.Path
		}
	}
}

// clip cuts an adapter's message to MaxValueLen characters.
func clip(s string) string {
	s, _ = textcut.Chars(s, MaxValueLen)
	return s
}

// SetDataBreakpoints replaces the session's data breakpoints with
// watches; none clears them. Each is resolved first (dataBreakpointInfo):
// one the adapter cannot watch is refused with its reason and nothing is
// set. Setting needs the program stopped, clearing does not.
func (sv *Supervisor) SetDataBreakpoints(ctx context.Context, conversationID string, watches []Watch) ([]Placed, error) {
	return inSessionFor(sv, conversationID, "data_breakpoints", len(watches) > 0, func(_ *conversation, s *session) ([]Placed, error) {
		if err := needCap(s, "data_breakpoints"); err != nil {
			return nil, err
		}
		if len(watches) > MaxPlaced {
			return nil, fmt.Errorf("debug: data_breakpoints: %d watches; at most %d are set at once", len(watches), MaxPlaced)
		}
		bps := make([]godap.DataBreakpoint, 0, len(watches))
		out := make([]Placed, 0, len(watches))
		for _, w := range watches {
			bp, p, err := sv.dataBreakpoint(ctx, s, w)
			if err != nil {
				return nil, err
			}
			bps, out = append(bps, bp), append(out, p)
		}
		var resp godap.SetDataBreakpointsResponse
		if err := s.c.call(ctx, "setDataBreakpoints", &godap.SetDataBreakpointsArguments{Breakpoints: bps}, &resp); err != nil {
			return nil, err
		}
		placeAll(out, resp.Body.Breakpoints)
		return out, nil
	})
}

// dataBreakpoint resolves one watch to the data breakpoint to set.
func (sv *Supervisor) dataBreakpoint(ctx context.Context, s *session, w Watch) (godap.DataBreakpoint, Placed, error) {
	var none godap.DataBreakpoint
	name := strings.TrimSpace(w.Name)
	if name == "" {
		return none, Placed{}, errors.New("debug: data_breakpoints: each watch needs name (a variable of reference, or an expression in the frame)")
	}
	access := w.Access
	if access == "" {
		access = "write"
	}
	if !slices.Contains(accessTypes, access) {
		return none, Placed{}, fmt.Errorf("debug: data_breakpoints: access %q is not one of %s", w.Access, strings.Join(accessTypes, ", "))
	}
	args := &godap.DataBreakpointInfoArguments{VariablesReference: w.Reference, Name: name}
	if w.Reference <= 0 {
		frame, err := sv.frameOrTop(ctx, s, w.ThreadID, w.FrameID)
		if err != nil {
			return none, Placed{}, err
		}
		args.FrameId = frame
	}
	var resp godap.DataBreakpointInfoResponse
	if err := s.c.call(ctx, "dataBreakpointInfo", args, &resp); err != nil {
		return none, Placed{}, staleHint(err, "take reference and name from scopes or variables at the current stop")
	}
	b := resp.Body
	id, ok := b.DataId.(string)
	if !ok || id == "" {
		why := clip(b.Description)
		if why == "" {
			why = "it gave no data id"
		}
		return none, Placed{}, fmt.Errorf("debug: data_breakpoints: the %s adapter cannot watch %s: %s; watch a variable listed by variables (name and its parent's reference)", s.adapter.ID, name, why)
	}
	if len(b.AccessTypes) > 0 && !slices.Contains(b.AccessTypes, godap.DataBreakpointAccessType(access)) {
		offered := make([]string, len(b.AccessTypes))
		for i, a := range b.AccessTypes {
			offered[i] = string(a)
		}
		return none, Placed{}, fmt.Errorf("debug: data_breakpoints: the %s adapter watches %s for %s, not %s", s.adapter.ID, name, strings.Join(offered, ", "), access)
	}
	bp := godap.DataBreakpoint{DataId: id, AccessType: godap.DataBreakpointAccessType(access), Condition: w.Condition, HitCondition: w.HitCondition}
	return bp, Placed{Target: name, Access: access, Description: clip(b.Description), Condition: w.Condition, HitCondition: w.HitCondition}, nil
}

// InstructionBreakpoint stops the program at an instruction: Reference is
// its address (a frame's instruction pointer, a disassembled
// instruction's address), Offset bytes past it.
type InstructionBreakpoint struct {
	Reference    string
	Offset       int
	Condition    string
	HitCondition string
}

// SetInstructionBreakpoints replaces the session's instruction breakpoints
// with bps; none clears them.
func (sv *Supervisor) SetInstructionBreakpoints(ctx context.Context, conversationID string, bps []InstructionBreakpoint) ([]Placed, error) {
	return inSessionFor(sv, conversationID, "instruction_breakpoints", false, func(_ *conversation, s *session) ([]Placed, error) {
		if err := needCap(s, "instruction_breakpoints"); err != nil {
			return nil, err
		}
		if len(bps) > MaxPlaced {
			return nil, fmt.Errorf("debug: instruction_breakpoints: %d addresses; at most %d are set at once", len(bps), MaxPlaced)
		}
		args := &godap.SetInstructionBreakpointsArguments{Breakpoints: make([]godap.InstructionBreakpoint, 0, len(bps))}
		out := make([]Placed, 0, len(bps))
		for _, b := range bps {
			ref := strings.TrimSpace(b.Reference)
			if ref == "" {
				return nil, errors.New("debug: instruction_breakpoints: each needs an address (an instruction address from stack or disassemble)")
			}
			args.Breakpoints = append(args.Breakpoints, godap.InstructionBreakpoint{InstructionReference: ref, Offset: b.Offset, Condition: b.Condition, HitCondition: b.HitCondition})
			out = append(out, Placed{Target: ref, Offset: b.Offset, Condition: b.Condition, HitCondition: b.HitCondition})
		}
		var resp godap.SetInstructionBreakpointsResponse
		if err := s.c.call(ctx, "setInstructionBreakpoints", args, &resp); err != nil {
			return nil, staleHint(err, "pass addresses of code (a frame's instruction from stack, or an address disassemble lists)")
		}
		s.mu.Lock()
		s.instBPs = args.Breakpoints
		s.mu.Unlock()
		placeAll(out, resp.Body.Breakpoints)
		return out, nil
	})
}

// Written is what WriteMemory wrote.
type Written struct {
	Reference string `json:"memory_reference"`
	Offset    int    `json:"offset"`
	// Bytes is the count written, as the adapter says (all of them when it
	// does not say).
	Bytes int `json:"bytes"`
}

// WriteMemory writes data, at most MaxMemory bytes, to the debuggee's
// memory where m says (as ReadMemory reads; Count is not used).
func (sv *Supervisor) WriteMemory(ctx context.Context, conversationID string, m MemoryArgs, data []byte) (*Written, error) {
	return inSessionFor(sv, conversationID, "write_memory", true, func(_ *conversation, s *session) (*Written, error) {
		if err := needCap(s, "write_memory"); err != nil {
			return nil, err
		}
		switch {
		case len(data) == 0:
			return nil, errors.New("debug: write_memory needs data (the bytes to write, in hex: \"2a000000\")")
		case len(data) > MaxMemory:
			return nil, fmt.Errorf("debug: write_memory: %d bytes; at most %d are written at a time: split the write", len(data), MaxMemory)
		}
		m.Count = 0
		ref, _, err := sv.memoryOp(ctx, s, "write_memory", "a byte", m, false, 0)
		if err != nil {
			return nil, err
		}
		var resp godap.WriteMemoryResponse
		args := &godap.WriteMemoryArguments{MemoryReference: ref, Offset: m.Offset, Data: base64.StdEncoding.EncodeToString(data)}
		if err := s.c.call(ctx, "writeMemory", args, &resp); err != nil {
			return nil, staleHint(err, "pass an address the program can write")
		}
		r := &Written{Reference: ref, Offset: m.Offset + resp.Body.Offset, Bytes: resp.Body.BytesWritten}
		if r.Bytes == 0 {
			r.Bytes = len(data)
		}
		return r, nil
	})
}
