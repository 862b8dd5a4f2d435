package dap

// A session's events: what the adapter's events say of the program, and
// the watch on the launched debuggee's process.

import "encoding/json"
import "strings"
import "syscall"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/proc"
import "golang.org/x/sys/unix"

// onEvent keeps what an adapter's event says: the stop, the end, the
// program's output and pid, and breakpoint changes.
func (s *session) onEvent(name string, body json.RawMessage) {
	switch name {
	case "initialized":
		again := true
		s.initOnce.Do(func() { again = false; close(s.initialized) })
		if again {
			// After a restart an adapter (delve) asks for the
			// configuration again, and waits for configurationDone.
			go s.configureAgain()
		}
	case "output":
		var b godap.OutputEventBody
		if json.Unmarshal(body, &b) != nil {
			return
		}
		switch b.Category {
		case "stdout", "stderr":
			if s.buildChatter(b.Output) {
				_, _ = s.console.Write([]byte(b.Output))
				return
			}
			s.out.add(b.Category, b.Output)
		case "telemetry":
		default:
			_, _ = s.console.Write([]byte(b.Output))
		}
	case "stopped":
		var b godap.StoppedEventBody
		if json.Unmarshal(body, &b) != nil {
			return
		}
		s.drainOutput()
		s.mu.Lock()
		s.stop = &b
		s.running = false
		s.stopSeq++
		clear(s.indexed)
		clear(s.framesSeen)
		if b.ThreadId != 0 {
			s.lastThread = b.ThreadId
		}
		s.stopFrom = nil
		s.notify()
		s.mu.Unlock()
		if s.parent != nil {
			s.parent.childStopped(s)
		}
	case "continued":
		s.mu.Lock()
		s.running = true
		clear(s.indexed)
		clear(s.framesSeen)
		s.notify()
		s.mu.Unlock()
	case "exited":
		var b godap.ExitedEventBody
		_ = json.Unmarshal(body, &b)
		s.mu.Lock()
		s.exited = true
		s.exitCode = b.ExitCode
		s.notify()
		s.mu.Unlock()
		if s.parent != nil {
			s.parent.childChanged()
		}
	case "terminated":
		s.mu.Lock()
		s.terminated = true
		s.notify()
		s.mu.Unlock()
		if s.parent != nil {
			s.parent.childChanged()
		}
	case "process":
		var b godap.ProcessEventBody
		if json.Unmarshal(body, &b) == nil && b.SystemProcessId > 0 {
			pid := b.SystemProcessId
			if s.cmd != nil {
				// A sandboxed adapter names the debuggee by its pid in its
				// own PID namespace: tether's view of it is another number,
				// and the number as given may be some other process here.
				host, ok := proc.HostPID(s.cmd, pid)
				if !ok {
					break
				}
				pid = host
			}
			s.mu.Lock()
			first := s.debuggeePID == 0
			s.debuggeePID = pid
			s.mu.Unlock()
			if first && s.kind == "launch" {
				s.watchDebuggee(pid)
			}
		}
	case "breakpoint":
		var b godap.BreakpointEventBody
		if json.Unmarshal(body, &b) == nil && b.Breakpoint.Id != 0 {
			s.mu.Lock()
			if b.Reason == "removed" {
				delete(s.bpEvents, b.Breakpoint.Id)
			} else {
				s.bpEvents[b.Breakpoint.Id] = b.Breakpoint
			}
			s.mu.Unlock()
		}
	}
}

// watchDebuggee marks the debuggee gone when its process exits. An adapter
// may report the end only later: debugpy's launcher sends "exited" once the
// program's output pipes close, which a child the program left running
// keeps open. It also records the debuggee's process group: a group id is a
// leader's pid, and members are only ever found by reading the process
// table, so a debuggee that leads no group adds nothing.
func (s *session) watchDebuggee(pid int) {
	pipes := outputPipes(pid)
	s.mu.Lock()
	s.outPipes = pipes
	if self, _ := syscall.Getpgid(0); pid != self {
		s.debuggeePgid = pid
	}
	s.mu.Unlock()
	gone := func() {
		s.mu.Lock()
		s.debuggeeGone = true
		s.notify()
		s.mu.Unlock()
	}
	// Opened here, in the event's own order: the program cannot have been
	// reaped unseen before this.
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		gone()
		return
	}
	if err != nil {
		return // no pidfd (an old kernel): rely on the adapter
	}
	go func() {
		defer unix.Close(fd)
		for {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, 1000)
			if err != nil && err != unix.EINTR {
				return
			}
			if n > 0 {
				break
			}
			select {
			case <-s.c.done:
				return
			default:
			}
		}
		gone()
	}()
}

// exitGrace is how long a wait gives the adapter to report the end of a
// debuggee whose process is gone while processes it started still run in
// its group (holding its output open), before answering without its exit
// code. With none left the adapter's report is waited for as usual.
const exitGrace = 3 * time.Second

// buildChatter reports whether an output event is the Go adapter's (delve's)
// "Building <program>" line, which it sends as stdout before the program
// exists: the adapter's console, not the program's output. The Go adapter is
// the one that launches what the Go toolchain builds (GoExecutables).
func (s *session) buildChatter(text string) bool {
	if !s.adapter.GoExecutables || !strings.HasPrefix(text, "Building ") || s.program == "" {
		return false
	}
	s.mu.Lock()
	started := s.debuggeePID != 0
	s.mu.Unlock()
	rest := strings.TrimSuffix(strings.TrimPrefix(text, "Building "), "\n")
	return !started && (rest == s.program || rest == "tests of "+s.program)
}
