package dap

import "bytes"
import "context"
import "errors"
import "fmt"
import "maps"
import "math"
import "os"
import "path/filepath"
import "slices"
import "strings"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/fsutil"

// SetBreakpoints replaces the breakpoints of one file (relative to root, the
// conversation's working dir): lines are 1-based, none clears the file. With
// a live session they are sent to the adapter at once; else they are kept
// and sent at launch or attach.
func (sv *Supervisor) SetBreakpoints(ctx context.Context, conversationID, root, file string, lines []int) (*Breakpoints, error) {
	return sv.SetSourceBreakpoints(ctx, conversationID, root, BreakpointsArgs{File: file, Lines: lines})
}

// SetSourceBreakpoints is SetBreakpoints with conditions, hit conditions and
// log messages. A kind the live session's adapter lacks is refused, naming
// what it offers; kept for a session not started yet, it is checked when
// the adapter answers initialize, and the start is refused then.
func (sv *Supervisor) SetSourceBreakpoints(ctx context.Context, conversationID, root string, args BreakpointsArgs) (*Breakpoints, error) {
	c, root, err := sv.lockIn(conversationID, root)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	file := args.File
	if file == "" {
		return nil, errors.New("debug: breakpoints needs file (and lines or breakpoints; neither clears the file), or function_breakpoints, or exception_filters")
	}
	given := file
	if !filepath.IsAbs(file) {
		file = filepath.Join(root, file)
	}
	file = filepath.Clean(file)
	if fi, err := os.Stat(file); err != nil || fi.IsDir() {
		return nil, fmt.Errorf("debug: breakpoints: %s is not a file; give a source file path relative to the working dir", given)
	} else if !fi.Mode().IsRegular() {
		// A named pipe with a source file's name would block the read of
		// its lines (and the adapter's) for good.
		return nil, fmt.Errorf("debug: breakpoints: %s is a %s, not a regular file: %w; set breakpoints in a source file", given, fsutil.Kind(fi.Mode()), fsutil.ErrNotRegular)
	}
	bps := make([]SourceBreakpoint, 0, len(args.Lines)+len(args.Breakpoints))
	for _, l := range args.Lines {
		bps = append(bps, SourceBreakpoint{Line: l})
	}
	seen := map[int]bool{}
	for _, b := range args.Breakpoints {
		if seen[b.Line] {
			return nil, fmt.Errorf("debug: breakpoints: line %d is given twice in breakpoints; give each line once", b.Line)
		}
		seen[b.Line] = true
	}
	bps = append(bps, args.Breakpoints...)
	n := -1 // lines in the file, counted when needed
	for _, b := range bps {
		l := b.Line
		if l <= 0 {
			return nil, fmt.Errorf("debug: breakpoints: line %d is not a line number (lines are 1-based)", l)
		}
		if n < 0 {
			ws, _ := fsutil.NewRoot(root)
			n = fileLines(ws, file)
		}
		if n >= 0 && l > n {
			return nil, fmt.Errorf("debug: breakpoints: line %d is past the end of %s (%d lines); no breakpoint was set or changed", l, given, n)
		}
	}
	// One per line, by line: a full entry wins over a plain line.
	byLine := map[int]SourceBreakpoint{}
	for _, b := range bps {
		if _, ok := byLine[b.Line]; !ok || seen[b.Line] {
			byLine[b.Line] = b
		}
	}
	bps = bps[:0]
	for _, l := range slices.Sorted(maps.Keys(byLine)) {
		bps = append(bps, byLine[l])
	}
	if s := c.live; s != nil {
		if err := refusedKinds(s.adapter.ID, s.caps, bps); err != nil {
			return nil, err
		}
	}
	if len(bps) == 0 {
		delete(c.breakpoints, file)
	} else {
		c.breakpoints[file] = bps
	}
	c.noteFiles()
	r := &Breakpoints{File: file, Breakpoints: bps}
	for _, b := range bps {
		r.Lines = append(r.Lines, b.Line)
	}
	if s := c.live; s != nil {
		st, err := s.setBreakpoints(ctx, file, bps)
		if err != nil {
			return nil, prefixDebug(s.withStderr(err))
		}
		r.States = st
		c.bpStates = mergeStates(c.bpStates, file, st)
	} else {
		for _, b := range bps {
			st := pendingState(b)
			st.File = file
			r.States = append(r.States, st)
		}
		c.bpStates = mergeStates(c.bpStates, file, r.States)
	}
	return r, nil
}

func pendingState(b SourceBreakpoint) BreakpointState {
	return BreakpointState{Line: b.Line, Condition: b.Condition, HitCondition: b.HitCondition, LogMessage: b.LogMessage,
		Pending: true, Message: "no session yet: sent to the adapter at launch or attach"}
}

// SetFunctionBreakpoints replaces the conversation's function breakpoints
// (names as the adapter takes them: "main.add", "pkg.(*T).M", "add"); none
// clears them. With a live session they are sent at once; else kept and
// sent at launch or attach. An adapter without function breakpoints
// refuses them, naming what it offers.
func (sv *Supervisor) SetFunctionBreakpoints(ctx context.Context, conversationID string, names []string) ([]BreakpointState, error) {
	c, err := sv.lock(conversationID)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	names = slices.Clone(names)
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, errors.New("debug: breakpoints: a function breakpoint needs a function name (\"main.add\", \"add\"); an empty list clears them")
		}
	}
	names = slices.Compact(names)
	s := c.live
	if s != nil && len(names) > 0 && !s.caps.SupportsFunctionBreakpoints {
		return nil, fmt.Errorf("debug: breakpoints: the %s adapter has no function breakpoints; it offers %s", s.adapter.ID, offers(s.caps))
	}
	c.funcBreakpoints = names
	var out []BreakpointState
	if s == nil {
		for _, n := range names {
			out = append(out, BreakpointState{Function: n, Pending: true, Message: "no session yet: sent to the adapter at launch or attach"})
		}
	} else {
		var err error
		if out, err = s.setFunctionBreakpoints(ctx, names); err != nil {
			return nil, prefixDebug(s.withStderr(err))
		}
	}
	c.bpStates = mergeStates(c.bpStates, "", out)
	return out, nil
}

// SetExceptionFilters chooses the exception filters the adapter stops on
// (ids from its initialize answer, e.g. debugpy's "raised" and "uncaught");
// none stops on no exception. Without a call the adapter's defaults apply.
// It returns the filters the adapter offers. An id the adapter does not
// offer is refused, naming those it does.
func (sv *Supervisor) SetExceptionFilters(ctx context.Context, conversationID string, ids []string) ([]ExceptionFilter, error) {
	c, err := sv.lock(conversationID)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	ids = slices.Clone(ids)
	if ids == nil {
		ids = []string{}
	}
	s := c.live
	if s != nil {
		if err := refusedFilters(s.adapter.ID, s.caps, ids); err != nil {
			return nil, err
		}
		if err := s.c.call(ctx, "setExceptionBreakpoints", &exceptionArgs{Filters: ids}, nil); err != nil {
			return nil, prefixDebug(s.withStderr(err))
		}
		s.mu.Lock()
		s.setup.exc = slices.Clone(ids)
		kids := s.liveChildren()
		s.mu.Unlock()
		for _, k := range kids {
			_ = k.c.call(ctx, "setExceptionBreakpoints", &exceptionArgs{Filters: ids}, nil)
		}
	}
	c.excFilters = ids
	if s == nil {
		return nil, nil
	}
	return filtersOf(s.caps, ids), nil
}

// ExceptionFilter is one exception filter an adapter offers.
type ExceptionFilter struct {
	ID      string `json:"id"`
	Label   string `json:"label,omitempty"`
	Default bool   `json:"default,omitempty"`
	// Chosen: the filter is set.
	Chosen bool `json:"chosen,omitempty"`
}

// filtersOf lists the filters caps offer, marking the chosen ones; never nil
// (nil means no session to ask).
func filtersOf(caps godap.Capabilities, chosen []string) []ExceptionFilter {
	out := []ExceptionFilter{}
	for _, f := range caps.ExceptionBreakpointFilters {
		out = append(out, ExceptionFilter{ID: f.Filter, Label: f.Label, Default: f.Default, Chosen: slices.Contains(chosen, f.Filter)})
	}
	return out
}

// exceptionArgs is setExceptionBreakpoints' arguments with filters always
// sent (go-dap's type would omit an empty list, which means "none" here).
type exceptionArgs struct {
	Filters []string `json:"filters"`
}

// offers names the breakpoint kinds an adapter's capabilities offer.
func offers(caps godap.Capabilities) string {
	kinds := []string{"line breakpoints"}
	if caps.SupportsConditionalBreakpoints {
		kinds = append(kinds, "conditions")
	}
	if caps.SupportsHitConditionalBreakpoints {
		kinds = append(kinds, "hit conditions")
	}
	if caps.SupportsLogPoints {
		kinds = append(kinds, "log messages")
	}
	if caps.SupportsFunctionBreakpoints {
		kinds = append(kinds, "function breakpoints")
	}
	var ids []string
	for _, f := range caps.ExceptionBreakpointFilters {
		ids = append(ids, f.Filter)
	}
	if len(ids) > 0 {
		kinds = append(kinds, "exception filters "+strings.Join(ids, ", "))
	} else {
		kinds = append(kinds, "no exception filters")
	}
	return strings.Join(kinds, ", ")
}

// refusedKinds refuses the breakpoint kinds among bps that an adapter's
// capabilities lack.
func refusedKinds(id string, caps godap.Capabilities, bps []SourceBreakpoint) error {
	for _, b := range bps {
		var lacks string
		switch {
		case b.Condition != "" && !caps.SupportsConditionalBreakpoints:
			lacks = "conditions"
		case b.HitCondition != "" && !caps.SupportsHitConditionalBreakpoints:
			lacks = "hit conditions"
		case b.LogMessage != "" && !caps.SupportsLogPoints:
			lacks = "log messages (logpoints)"
		}
		if lacks != "" {
			return fmt.Errorf("debug: breakpoints: line %d: the %s adapter has no breakpoint %s; it offers %s", b.Line, id, lacks, offers(caps))
		}
	}
	return nil
}

// refusedFilters refuses exception filter ids an adapter does not offer.
func refusedFilters(id string, caps godap.Capabilities, ids []string) error {
	for _, f := range ids {
		if !slices.ContainsFunc(caps.ExceptionBreakpointFilters, func(x godap.ExceptionBreakpointsFilter) bool { return x.Filter == f }) {
			return fmt.Errorf("debug: breakpoints: the %s adapter has no exception filter %q; it offers %s", id, f, offers(caps))
		}
	}
	return nil
}

// mergeStates replaces in all the states of one file's breakpoints (file
// "": the function breakpoints) with st.
func mergeStates(all []BreakpointState, file string, st []BreakpointState) []BreakpointState {
	var out []BreakpointState
	for _, s := range all {
		if (file == "") != (s.Function != "") || (file != "" && s.File != file) {
			out = append(out, s)
		}
	}
	return append(out, st...)
}

// fileLines is the number of lines in file (a last line without a newline
// counts), or a huge number when it cannot be read, so that the adapter has
// the last word. It reads file through the working dir's root ws: a file
// outside it (or one a symbolic link in it leads out to) is not read, not
// even counted.
func fileLines(ws *fsutil.Root, file string) int {
	if ws == nil {
		return math.MaxInt
	}
	data, err := ws.ReadFile(file)
	if err != nil {
		return math.MaxInt
	}
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// setBreakpoints replaces the breakpoints of one file in the adapter.
func (s *session) setBreakpoints(ctx context.Context, file string, bps []SourceBreakpoint) ([]BreakpointState, error) {
	// go-dap's SetBreakpointsArguments omits an empty list, and an adapter
	// may not take a missing list as "clear": always send the key.
	args := &struct {
		Source      godap.Source             `json:"source"`
		Breakpoints []godap.SourceBreakpoint `json:"breakpoints"`
	}{Source: godap.Source{Name: filepath.Base(file), Path: file}, Breakpoints: []godap.SourceBreakpoint{}}
	for _, b := range bps {
		args.Breakpoints = append(args.Breakpoints, godap.SourceBreakpoint{Line: b.Line,
			Condition: b.Condition, HitCondition: b.HitCondition, LogMessage: b.LogMessage})
	}
	var resp godap.SetBreakpointsResponse
	if err := s.c.call(ctx, "setBreakpoints", args, &resp); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(bps) > 0 {
		s.bpFiles[file] = true
	} else {
		delete(s.bpFiles, file)
	}
	kids := s.recordBreakpoints(file, bps)
	s.mu.Unlock()
	for _, k := range kids {
		// Child sessions stop where their parent does.
		_, _ = k.setBreakpoints(ctx, file, bps)
	}
	var out []BreakpointState
	for i, b := range bps {
		st := BreakpointState{File: file, Line: b.Line, Condition: b.Condition, HitCondition: b.HitCondition, LogMessage: b.LogMessage}
		if i < len(resp.Body.Breakpoints) {
			bp := resp.Body.Breakpoints[i]
			st.ID = bp.Id
			st.Verified = bp.Verified
			st.Message = bp.Message
			st.ActualLine = bp.Line
		} else {
			st.Message = "the adapter did not report this breakpoint"
		}
		out = append(out, st)
	}
	return out, nil
}

// setFunctionBreakpoints replaces the function breakpoints in the adapter.
func (s *session) setFunctionBreakpoints(ctx context.Context, names []string) ([]BreakpointState, error) {
	args := &struct {
		Breakpoints []godap.FunctionBreakpoint `json:"breakpoints"`
	}{Breakpoints: []godap.FunctionBreakpoint{}}
	for _, n := range names {
		args.Breakpoints = append(args.Breakpoints, godap.FunctionBreakpoint{Name: n})
	}
	var resp godap.SetFunctionBreakpointsResponse
	if err := s.c.call(ctx, "setFunctionBreakpoints", args, &resp); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.funcBPs = len(names) > 0
	s.setup.funcs = slices.Clone(names)
	kids := s.liveChildren()
	s.mu.Unlock()
	for _, k := range kids {
		_, _ = k.setFunctionBreakpoints(ctx, names)
	}
	var out []BreakpointState
	for i, n := range names {
		st := BreakpointState{Function: n}
		if i < len(resp.Body.Breakpoints) {
			bp := resp.Body.Breakpoints[i]
			st.ID, st.Verified, st.Message, st.ActualLine = bp.Id, bp.Verified, bp.Message, bp.Line
			if bp.Source != nil {
				st.File = bp.Source.Path
			}
		} else {
			st.Message = "the adapter did not report this breakpoint"
		}
		out = append(out, st)
	}
	return out, nil
}

// refreshBreakpoints applies breakpoint events received since they were set
// (an adapter may verify a breakpoint once the code loads).
func (s *session) refreshBreakpoints(states []BreakpointState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range states {
		if bp, ok := s.bpEvents[states[i].ID]; ok && states[i].ID != 0 {
			states[i].Verified = bp.Verified
			if bp.Message != "" || bp.Verified {
				states[i].Message = bp.Message
			}
			if bp.Line != 0 {
				states[i].ActualLine = bp.Line
			}
		}
	}
}
