package dap

// Ending a session: a launched program's whole process tree killed, an
// attached one released and detached from.

import "context"
import "os"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/proc"

// shutdown ends the session. A launched program is ours: the adapter, the
// program and every process under them are frozen and killed together, with
// no polite disconnect first, because a debuggee ended politely orphans its
// children, and a child in a session of its own is then out of reach of both
// the parent links and the process groups (a child forked while the
// disconnect runs is in no earlier snapshot either). An attached program is
// not ours: it is released and detached from politely, then the adapter and
// its own processes are killed.
func (s *session) shutdown(wait time.Duration) {
	if s.kind == "launch" {
		s.kill()
		return
	}
	// Record the tree first: an adapter's helpers may end with the
	// disconnect and leave orphans no parent link leads to.
	snap := snapshotTree(s.roots()...)
	defer func() {
		if pids, groups := stillSame(snap), s.groups(); len(pids) > 0 || len(groups) > 0 {
			killTreeAndGroups(groups, pids...)
		}
	}()
	if s.c != nil {
		select {
		case <-s.c.done:
		default:
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			s.release(ctx)
			_ = s.c.call(ctx, "disconnect", &godap.DisconnectArguments{TerminateDebuggee: false}, nil)
			cancel()
		}
	}
	s.kill()
}

// release leaves an attached program as tether found it before detaching:
// its breakpoints cleared and running. A multi-client delve server keeps
// both across a disconnect, so the program would stay halted, or halt at
// the next breakpoint hit with no client to resume it.
func (s *session) release(ctx context.Context) {
	s.mu.Lock()
	files := make([]string, 0, len(s.bpFiles))
	for f := range s.bpFiles {
		files = append(files, f)
	}
	stopped := s.stop != nil && !s.running && !s.exited && !s.terminated
	thread := s.lastThread
	funcs := s.funcBPs
	s.mu.Unlock()
	for _, f := range files {
		_, _ = s.setBreakpoints(ctx, f, nil)
	}
	if funcs {
		_, _ = s.setFunctionBreakpoints(ctx, nil)
	}
	if stopped {
		_ = s.c.call(ctx, "continue", &godap.ContinueArguments{ThreadId: thread}, nil)
	}
}

// kill closes the connection and kills the adapter's and the debuggee's
// whole process trees.
func (s *session) kill() {
	// Kill before closing the connection: an adapter that sees its input
	// end ends the debuggee politely, orphaning the debuggee's children
	// before the tree is frozen.
	s.killFamily()
	killTreeAndGroups(s.groups(), s.roots()...)
	if s.c != nil {
		_ = s.c.close()
	}
	if s.procDone != nil {
		select {
		case <-s.procDone:
		case <-time.After(5 * time.Second):
		}
	}
	s.releaseCgroup()
	if s.scratch != "" {
		_ = os.RemoveAll(s.scratch)
	}
}

// roots are the processes the session owns: the adapter it started and, for
// a launch, the debuggee (never an attached program).
func (s *session) roots() []int {
	roots := s.terminalPIDs()
	if s.cmd != nil && s.cmd.Process != nil {
		roots = append(roots, s.cmd.Process.Pid)
	}
	s.mu.Lock()
	if s.kind == "launch" && s.debuggeePID > 0 {
		roots = append(roots, s.debuggeePID)
	}
	gone := s.kind == "launch" && s.debuggeeGone
	s.mu.Unlock()
	if gone {
		// Its leftovers may have left its tree and its group.
		roots = append(roots, s.outputHolders()...)
	}
	return roots
}

// outputHolders returns the processes outside the adapter's tree that hold
// the launched debuggee's output pipes open.
func (s *session) outputHolders() []int {
	s.mu.Lock()
	pipes := s.outPipes
	s.mu.Unlock()
	if len(pipes) == 0 || s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	// The adapter itself, not the sandbox's init above it: what the
	// debuggee left running is reparented to the init.
	return pipeWriters(pipes, proc.PeerPID(s.cmd))
}

// groups is the debuggee's own process group, if it leads one.
func (s *session) groups() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.debuggeePgid > 0 {
		return []int{s.debuggeePgid}
	}
	return nil
}
