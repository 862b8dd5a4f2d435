package dap

import "context"
import "fmt"
import "os"
import "path/filepath"
import "slices"

import godap "github.com/google/go-dap"

// The optional ops that move the program other than forward: restart,
// restart_frame, goto, step_back and reverse_continue. Each is refused
// when the adapter's capabilities lack it, and like continue it returns
// where the program stopped next.

// restarts is what a session sets again when its adapter, after a
// restart, asks for its configuration again (a second initialized event,
// as delve sends): guarded by the session's mu.
type restarts struct {
	// instBPs are the instruction breakpoints set.
	instBPs []godap.InstructionBreakpoint
	// again is the configuration to send then; nil when no restart is
	// under way.
	again *restartConfig
}

// restartConfig is the configuration a restarted debuggee gets: the
// conversation's breakpoints and filters when restart was asked, and the
// session's instruction breakpoints. Data breakpoints are not set again:
// their data ids named the old process's memory.
type restartConfig struct {
	bps     map[string][]SourceBreakpoint
	funcs   []string
	exc     []string
	instBPs []godap.InstructionBreakpoint
}

// Restart restarts the program under the same session, with its
// breakpoints, and waits for its first stop. A running program is
// restarted too.
func (sv *Supervisor) Restart(ctx context.Context, conversationID string) (*Outcome, error) {
	return sv.resume(ctx, conversationID, "restart", 0, func(_ context.Context, c *conversation, s *session, _ int) (string, any, error) {
		if err := needCap(s, "restart"); err != nil {
			return "", nil, err
		}
		s.mu.Lock()
		s.again = &restartConfig{bps: cloneBPs(c.breakpoints), funcs: slices.Clone(c.funcBreakpoints), exc: slices.Clone(c.excFilters), instBPs: slices.Clone(s.instBPs)}
		s.mu.Unlock()
		return "restart", nil, nil
	})
}

// configureAgain answers an adapter's second initialized event, after a
// restart, with the configuration Restart kept; without a restart under
// way, with configurationDone alone. It runs off the read loop, which the
// answers need.
func (s *session) configureAgain() {
	s.mu.Lock()
	cfg := s.again
	s.again = nil
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), s.requestTimeout)
	defer cancel()
	if cfg == nil {
		cfg = &restartConfig{}
	}
	err := error(nil)
	if len(cfg.instBPs) > 0 {
		err = s.c.call(ctx, "setInstructionBreakpoints", &godap.SetInstructionBreakpointsArguments{Breakpoints: cfg.instBPs}, nil)
	}
	if err == nil {
		_, err = s.sendConfig(ctx, cfg.bps, cfg.funcs, cfg.exc)
	}
	if err != nil {
		_, _ = fmt.Fprintf(s.console, "tether: configuring the restarted program: %v\n", err)
	}
}

// RestartFrame runs a frame (0: the top frame of threadID, or of the
// thread that last stopped) again from its start, and says where the
// program stops.
func (sv *Supervisor) RestartFrame(ctx context.Context, conversationID string, threadID, frameID int) (*Outcome, error) {
	return sv.resume(ctx, conversationID, "restart_frame", threadID, func(ctx context.Context, _ *conversation, s *session, thread int) (string, any, error) {
		if err := needCap(s, "restart_frame"); err != nil {
			return "", nil, err
		}
		frame, err := sv.frameOrTop(ctx, s, thread, frameID)
		if err != nil {
			return "", nil, err
		}
		return "restartFrame", &godap.RestartFrameArguments{FrameId: frame}, nil
	})
}

// Goto moves a thread (0: the one that last stopped) to a line of file
// (relative to root, the working dir) without running the code between:
// the adapter's first goto target at that line. The program stops there.
func (sv *Supervisor) Goto(ctx context.Context, conversationID, root, file string, line, threadID int) (*Outcome, error) {
	return sv.resume(ctx, conversationID, "goto", threadID, func(ctx context.Context, _ *conversation, s *session, thread int) (string, any, error) {
		if err := needCap(s, "goto"); err != nil {
			return "", nil, err
		}
		if file == "" || line <= 0 {
			return "", nil, fmt.Errorf("debug: goto needs file (the source file, relative to the working dir) and line (1-based) to jump to")
		}
		path := file
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		path = filepath.Clean(path)
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			return "", nil, fmt.Errorf("debug: goto: %s is not a file; give a source file path relative to the working dir", file)
		}
		var resp godap.GotoTargetsResponse
		if err := s.c.call(ctx, "gotoTargets", &godap.GotoTargetsArguments{Source: godap.Source{Path: path, Name: filepath.Base(path)}, Line: line}, &resp); err != nil {
			return "", nil, staleHint(err, "pass a line of code the current frame can jump to")
		}
		if len(resp.Body.Targets) == 0 {
			return "", nil, fmt.Errorf("debug: goto: the %s adapter offers no target at %s:%d; pass a line with code in the stopped frame's function", s.adapter.ID, file, line)
		}
		return "goto", &godap.GotoArguments{ThreadId: thread, TargetId: resp.Body.Targets[0].Id}, nil
	})
}

// StepBack steps a thread (0: the one that last stopped) one step
// backwards, where the adapter records the program's history.
func (sv *Supervisor) StepBack(ctx context.Context, conversationID string, threadID int) (*Outcome, error) {
	return sv.resume(ctx, conversationID, "step_back", threadID, func(_ context.Context, _ *conversation, s *session, thread int) (string, any, error) {
		if err := needCap(s, "step_back"); err != nil {
			return "", nil, err
		}
		return "stepBack", &godap.StepBackArguments{ThreadId: thread}, nil
	})
}

// ReverseContinue runs the program backwards to the previous stop, where
// the adapter records the program's history.
func (sv *Supervisor) ReverseContinue(ctx context.Context, conversationID string, threadID int) (*Outcome, error) {
	return sv.resume(ctx, conversationID, "reverse_continue", threadID, func(_ context.Context, _ *conversation, s *session, thread int) (string, any, error) {
		if err := needCap(s, "reverse_continue"); err != nil {
			return "", nil, err
		}
		return "reverseContinue", &godap.ReverseContinueArguments{ThreadId: thread}, nil
	})
}
