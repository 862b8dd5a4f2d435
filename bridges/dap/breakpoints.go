package dap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	godap "github.com/google/go-dap"
	"github.com/tetherhq/tether/internal/fsutil"
)

// SetBreakpoints replaces the breakpoints of one file (relative to root, the
// conversation's working dir): lines are 1-based, none clears the file. With
// a live session they are sent to the adapter at once; else they are kept
// and sent at launch or attach.
func (sv *Supervisor) SetBreakpoints(ctx context.Context, conversationID, root, file string, lines []int) (*Breakpoints, error) {
	c, root, err := sv.lockIn(conversationID, root)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	if file == "" {
		return nil, errors.New("debug: breakpoints needs file (and lines; empty lines clears the file)")
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
	lines = slices.Clone(lines)
	n := -1 // lines in the file, counted when needed
	for _, l := range lines {
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
	slices.Sort(lines)
	lines = slices.Compact(lines)
	if len(lines) == 0 {
		delete(c.breakpoints, file)
	} else {
		c.breakpoints[file] = lines
	}
	r := &Breakpoints{File: file, Lines: lines}
	if s := c.live; s != nil {
		st, err := s.setBreakpoints(ctx, file, lines)
		if err != nil {
			return nil, prefixDebug(s.withStderr(err))
		}
		r.States = st
		c.bpStates = mergeStates(c.bpStates, file, st)
	} else {
		for _, l := range lines {
			r.States = append(r.States, BreakpointState{File: file, Line: l, Pending: true,
				Message: "no session yet: sent to the adapter at launch or attach"})
		}
		c.bpStates = mergeStates(c.bpStates, file, r.States)
	}
	return r, nil
}

func mergeStates(all []BreakpointState, file string, st []BreakpointState) []BreakpointState {
	var out []BreakpointState
	for _, s := range all {
		if s.File != file {
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
func (s *session) setBreakpoints(ctx context.Context, file string, lines []int) ([]BreakpointState, error) {
	// go-dap's SetBreakpointsArguments omits an empty list, and an adapter
	// may not take a missing list as "clear": always send the key.
	args := &struct {
		Source      godap.Source             `json:"source"`
		Breakpoints []godap.SourceBreakpoint `json:"breakpoints"`
	}{Source: godap.Source{Name: filepath.Base(file), Path: file}, Breakpoints: []godap.SourceBreakpoint{}}
	for _, l := range lines {
		args.Breakpoints = append(args.Breakpoints, godap.SourceBreakpoint{Line: l})
	}
	var resp godap.SetBreakpointsResponse
	if err := s.c.call(ctx, "setBreakpoints", args, &resp); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(lines) > 0 {
		s.bpFiles[file] = true
	} else {
		delete(s.bpFiles, file)
	}
	s.mu.Unlock()
	var out []BreakpointState
	for i, l := range lines {
		st := BreakpointState{File: file, Line: l}
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
