package dap

import "context"
import "errors"
import "fmt"
import "io"
import "os/exec"
import "sync"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/textcut"

// session is one live debug session: an adapter process (or a direct
// connection), the DAP connection, and the state its events describe.
type session struct {
	adapter *resolved
	root    string
	// limits are the caps of the processes the session starts: its pids
	// cgroup and their address-space limit.
	limits *proc.Caps
	// ws is the working dir the session was started in, which the source
	// files the adapter names are read through; nil reads none.
	ws       *fsutil.Root
	kind     string // "launch" or "attach"
	program  string
	args     []string
	port     int
	host     string
	pid      int // the process attached to by pid
	started  time.Time
	deadline time.Time

	cmd       *exec.Cmd // nil for a direct attach
	connector func() io.ReadWriteCloser
	// requestTimeout bounds one request's answer.
	requestTimeout time.Duration
	// attachWait bounds waiting for an attach port to listen.
	attachWait time.Duration
	procDone   chan struct{}
	// adapterPipes carry the output of an adapter that is the program,
	// between wireOutput and startAdapter.
	adapterPipes *outputPair
	// cmdVars are the launch's placeholders the adapter's command may
	// name (launchCommandVars).
	cmdVars    map[string]any
	stderr     *textcut.Tail // the adapter's stderr, its end
	scratch    string        // private temp dir (socket, build output), removed at the end
	unconfined string        // why the adapter runs outside the sandbox ("": it does not)
	c          *conn
	caps       godap.Capabilities
	out        *outputBuf
	console    *textcut.Tail // adapter console messages, their end

	initOnce    sync.Once
	initialized chan struct{}

	mu          sync.Mutex
	changed     chan struct{} // closed and replaced on every state change
	running     bool
	stop        *godap.StoppedEventBody
	stopSeq     int
	exited      bool
	exitCode    int
	terminated  bool
	debuggeePID int
	// debuggeePgid is the debuggee's own process group, when it leads one
	// (debugpy's launcher starts it so): its children stay findable there
	// after it exits.
	debuggeePgid int
	// debuggeeGone: the launched debuggee's process has exited, whether or
	// not the adapter has said so.
	debuggeeGone bool
	// outPipes are the pipes the launched debuggee writes its output to,
	// and holders the processes it left running that still hold them open
	// once it has exited (found by waitStop; killed with the session even
	// when they left its process group).
	outPipes   []string
	holders    []int
	lastThread int
	bpEvents   map[int]godap.Breakpoint
	// indexed is the element count the adapter gave each variables
	// reference of the current stop (indexedVariables); references die
	// when the program runs, and so does this.
	indexed map[int]int
	// bpFiles are the files with breakpoints set in the adapter; funcBPs:
	// function breakpoints are set too.
	bpFiles map[string]bool
	funcBPs bool
	// framesSeen are the frame ids stackTrace gave since the program last
	// stopped.
	framesSeen map[int]bool

	// Reverse requests (reverse.go): the session's children started by
	// startDebugging, the programs runInTerminal started, and what a
	// child is set up with.
	family
	// What a restart sets again (flow.go).
	restarts
}

// title names the session: adapter, what it debugs, when it started and ends.
func (s *session) title() string {
	what := s.program
	if s.kind == "attach" {
		what = fmt.Sprintf("port %d", s.port)
		if s.host != "" && s.host != "127.0.0.1" {
			what = fmt.Sprintf("%s:%d", s.host, s.port)
		}
		if s.pid != 0 {
			what = fmt.Sprintf("pid %d", s.pid)
		}
	}
	return fmt.Sprintf("%s session (%s %s, started %s, ends by TTL at %s)", s.adapter.ID, s.kind, what,
		s.started.UTC().Format("15:04:05"), s.deadline.UTC().Format("15:04:05"))
}

// describe is title plus the session's state.
func (s *session) describe() string {
	d := s.title()
	kids := s.describeChildren()
	s.mu.Lock()
	switch {
	case s.terminated || s.exited:
		d += ", program ended"
	case s.stop != nil && !s.running:
		th := s.stop.ThreadId
		if th == 0 {
			th = s.lastThread
		}
		d += fmt.Sprintf(", stopped (%s) on thread %d", s.stop.Reason, th)
	default:
		d += ", running"
	}
	s.mu.Unlock()
	return d + kids
}

// notify wakes waiters; the caller holds s.mu.
func (s *session) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// ended reports whether the debuggee has exited or the adapter went away.
func (s *session) ended() bool {
	s.mu.Lock()
	done := s.exited || s.terminated
	s.mu.Unlock()
	if done {
		return true
	}
	select {
	case <-s.c.done:
		return true
	default:
	}
	return false
}

// stopOutcome is what a wait for the program to stop found.
type stopOutcome int

const (
	outStopped stopOutcome = iota
	outExited
	outRunning // still running when the wait ended
	outGone    // the adapter went away
)

// waitStop waits until a stopped event newer than afterSeq arrives, the
// program ends, the adapter goes away, or wait elapses.
func (s *session) waitStop(ctx context.Context, afterSeq int, wait time.Duration) stopOutcome {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var grace <-chan time.Time
	for {
		s.mu.Lock()
		switch {
		case s.stopSeq > afterSeq:
			s.mu.Unlock()
			return outStopped
		case s.exited || s.terminated:
			coded := s.exited
			s.mu.Unlock()
			if !coded {
				s.awaitExitCode()
			}
			return outExited
		}
		ch := s.changed
		gone := s.debuggeeGone
		orphans := gone && grace == nil && s.debuggeePgid > 0
		pgid := s.debuggeePgid
		s.mu.Unlock()
		// The adapter reports the end only once the debuggee's output
		// closes: processes it left running that hold it open (in its group
		// or in sessions of their own) mean no report is coming.
		if gone {
			if w := s.outputHolders(); len(w) > 0 {
				s.mu.Lock()
				s.holders = w
				s.mu.Unlock()
				return outExited
			}
		}
		if orphans && len(groupMembers(pgid)) > 0 {
			g := time.NewTimer(exitGrace)
			defer g.Stop()
			grace = g.C
		}
		select {
		case <-grace:
			return outExited
		case <-ch:
		case <-s.c.done:
			s.settleEnd()
			// Drain: events may have arrived right before the close.
			s.mu.Lock()
			stopped, ended := s.stopSeq > afterSeq, s.exited || s.terminated
			s.mu.Unlock()
			switch {
			case stopped:
				return outStopped
			case ended:
				return outExited
			}
			return outGone
		case <-timer.C:
			return outRunning
		case <-ctx.Done():
			return outRunning
		}
	}
}

var errNoSession = errors.New("debug: no debug session is running; start one with op launch or attach")
