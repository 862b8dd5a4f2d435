package dap

import "context"
import "errors"
import "fmt"
import "io"
import "maps"
import "path/filepath"
import "slices"
import "sort"
import "strings"
import "sync"
import "sync/atomic"
import "time"

// Limits on what one call returns.
const (
	MaxStackFrames = 30  // Stack: frames returned
	MaxVariables   = 50  // Variables: children returned
	MaxValueLen    = 400 // Variables, Evaluate: characters of one value
	MaxThreads     = 100 // Threads: threads returned
	topFrames      = 5   // frames shown with every stop
)

// DefaultTTL is a session's fixed lifetime when Config.TTL is zero.
const DefaultTTL = 30 * time.Minute

// Config configures a Supervisor. The zero value of each field means its default.
type Config struct {
	// Adapters is the adapter table (DefaultAdapters when nil).
	Adapters []Adapter
	// TTL is a session's fixed lifetime (DefaultTTL); when it passes the
	// session is terminated and the next call says so.
	TTL time.Duration
	// StartTimeout bounds starting an adapter and the launch handshake, which
	// includes delve building a Go program (2 minutes).
	StartTimeout time.Duration
	// StopWait bounds how long launch, continue, step and pause wait for the
	// program to stop before answering "still running" (30 seconds).
	StopWait time.Duration
	// AttachWait bounds how long attach waits for the port to listen (a
	// debug server still starting) before saying nothing listens there (30
	// seconds).
	AttachWait time.Duration
	// OutputLimit is how many bytes of debuggee output are kept (64 KiB).
	OutputLimit int
	// RequestTimeout bounds the adapter's answer to one request, such as
	// stackTrace or evaluate (30 seconds).
	RequestTimeout time.Duration
	// ProcessLimit caps the tasks (processes and threads) of one session's
	// adapter, program and what it starts, at once, with a pids cgroup:
	// DefaultProcessLimit when zero, none when negative.
	ProcessLimit int
	// AddressSpaceLimit is the address-space limit (RLIMIT_AS, in bytes)
	// of a session's adapter, program and each process it starts:
	// DefaultAddressSpaceLimit when zero, none when negative.
	AddressSpaceLimit int64

	// connector, set only by tests, replaces starting an adapter process:
	// fault injection with an in-process fake adapter.
	connector func() io.ReadWriteCloser
}

func (c Config) withDefaults() Config {
	if c.Adapters == nil {
		c.Adapters = DefaultAdapters()
	}
	if c.TTL <= 0 {
		c.TTL = DefaultTTL
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 2 * time.Minute
	}
	if c.StopWait <= 0 {
		c.StopWait = 30 * time.Second
	}
	if c.AttachWait <= 0 {
		c.AttachWait = 30 * time.Second
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = 30 * time.Second
	}
	if c.OutputLimit <= 0 {
		c.OutputLimit = 64 << 10
	}
	return c
}

// Supervisor owns the debug sessions of many conversations: at most one live
// session per conversation, each with a fixed TTL. Calls for one
// conversation are serialized. Each method is one op of the debug tool
// (docs/tools.md, "debug") and returns the facts of its answer; errors say
// what failed and what to do next.
type Supervisor struct {
	cfg Config

	mu     sync.Mutex
	convs  map[string]*conversation
	closed bool
}

// conversation is one conversation's debug state.
type conversation struct {
	mu          sync.Mutex // serializes calls
	live        *session
	last        *session // the most recent ended session (its output stays readable)
	endReason   string   // why the last session ended, for the next call
	breakpoints map[string][]SourceBreakpoint
	// funcBreakpoints are the function breakpoints' names; excFilters the
	// exception filters chosen (nil: the adapter's defaults).
	funcBreakpoints []string
	excFilters      []string
	bpStates        []BreakpointState
	ttlTimer        *time.Timer
	// focus is the child session the ops drive (UseSession); 0 the live
	// session itself.
	focus int
	// bpFiles is the sorted keys of breakpoints, readable without mu (a
	// write must not wait for a debug op that waits for a stop).
	bpFiles atomic.Pointer[[]string]
	// edits are the edits FollowEdit queued while a debug op ran, in
	// order; draining: a goroutine waits to follow them.
	editMu   sync.Mutex
	edits    []queuedEdit
	draining bool
}

// NewSupervisor returns a Supervisor with cfg's settings.
func NewSupervisor(cfg Config) *Supervisor {
	return &Supervisor{cfg: cfg.withDefaults(), convs: map[string]*conversation{}}
}

// AdapterTable returns the adapters the supervisor chooses from (a copy).
func (sv *Supervisor) AdapterTable() []Adapter {
	return append([]Adapter(nil), sv.cfg.Adapters...)
}

// TTL is a session's fixed lifetime, as configured.
func (sv *Supervisor) TTL() time.Duration { return sv.cfg.TTL }

// Adapters reports, for a root directory, which adapters can start and why not.
func (sv *Supervisor) Adapters(ctx context.Context, root string) []AdapterStatus {
	var out []AdapterStatus
	for _, a := range sv.cfg.Adapters {
		st, _ := checkAdapter(ctx, a, root)
		out = append(out, st)
	}
	return out
}

func (sv *Supervisor) conv(id string) (*conversation, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.closed {
		return nil, errors.New("debug: the debug supervisor is closed")
	}
	c := sv.convs[id]
	if c == nil {
		c = &conversation{breakpoints: map[string][]SourceBreakpoint{}}
		sv.convs[id] = c
	}
	return c, nil
}

// lock returns a conversation's state with its mutex held (the caller
// unlocks it), after ending a session that ended on its own.
func (sv *Supervisor) lock(conversationID string) (*conversation, error) {
	if conversationID == "" {
		return nil, errors.New("debug: no conversation id; debug sessions belong to a conversation")
	}
	c, err := sv.conv(conversationID)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	sv.reap(c)
	return c, nil
}

// lockIn is lock for an op that takes the working dir, root, which it
// returns made absolute.
func (sv *Supervisor) lockIn(conversationID, root string) (*conversation, string, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, "", fmt.Errorf("debug: working dir: %w", err)
	}
	c, err := sv.lock(conversationID)
	if err != nil {
		return nil, "", err
	}
	return c, root, nil
}

// inSessionFor is inSession for an op that answers a value: f's, or the
// zero value with the error.
func inSessionFor[T any](sv *Supervisor, conversationID, op string, stopped bool, f func(c *conversation, s *session) (T, error)) (T, error) {
	var r T
	err := sv.inSession(conversationID, op, stopped, func(c *conversation, s *session) error {
		var err error
		r, err = f(c, s)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return r, nil
}

// inSession runs f, one op on a conversation's live session, with the
// conversation locked. An op that looks at frames (stopped) is refused
// while the program runs. An error from f is prefixed "debug: "; when the
// adapter went away meanwhile, the session ends and the error says so.
func (sv *Supervisor) inSession(conversationID, op string, stopped bool, f func(c *conversation, s *session) error) error {
	c, err := sv.lock(conversationID)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	s := c.live
	if s == nil {
		if c.endReason != "" {
			return fmt.Errorf("debug: no session is running: %s; start a new one with op launch or attach", c.endReason)
		}
		return errNoSession
	}
	if c.focus > 0 {
		child := s.child(c.focus)
		if child == nil {
			return fmt.Errorf("debug: %s: the session has no child session %d; status lists them", op, c.focus)
		}
		s = child
	}
	if stopped {
		s.mu.Lock()
		running := s.running || s.stop == nil
		s.mu.Unlock()
		if running {
			return fmt.Errorf("debug: %s: the program is running, so it has no frames to look at; pause it, or set a breakpoint and continue, then %s", op, op)
		}
	}
	if err := f(c, s); err != nil {
		select {
		case <-s.c.done:
			if s.parent != nil {
				return fmt.Errorf("debug: %s failed because child session %d's connection closed: %w; omit session to drive the main one", op, s.index, s.withStderr(err))
			}
			sv.end(c, "the debug adapter went away: "+s.withStderr(err).Error())
			return fmt.Errorf("debug: %s failed because the adapter went away: %w; start a new session with launch", op, s.withStderr(err))
		default:
		}
		return prefixDebug(err)
	}
	return nil
}

// prefixDebug makes err's message start with "debug: " (replacing the
// lower layer's "dap: "); errors.Is/As still see err.
func prefixDebug(err error) error {
	msg := err.Error()
	if strings.HasPrefix(msg, "debug: ") {
		return err
	}
	return &debugError{msg: "debug: " + strings.TrimPrefix(msg, "dap: "), err: err}
}

type debugError struct {
	msg string
	err error
}

func (e *debugError) Error() string { return e.msg }
func (e *debugError) Unwrap() error { return e.err }

// reap ends a session whose adapter died on its own; the caller holds c.mu.
// A program that ended while no op waited for it (it ran past the stop
// wait) frees the slot too, so the next launch is not refused.
func (sv *Supervisor) reap(c *conversation) {
	s := c.live
	if s == nil {
		return
	}
	s.settleEnd()
	s.mu.Lock()
	exited, terminated, code := s.exited, s.terminated, s.exitCode
	gone := s.debuggeeGone && s.kind == "launch"
	s.mu.Unlock()
	switch {
	case exited:
		sv.end(c, fmt.Sprintf("the program exited with code %d (op output shows what it wrote)", code))
		return
	case terminated:
		sv.end(c, "the program ended (op output shows what it wrote)")
		return
	}
	// The adapter never reports the end of a program whose leftovers hold
	// its output open.
	if gone {
		if w := s.outputHolders(); len(w) > 0 {
			var left []string
			for _, h := range w {
				if l := procLine(h); l != "" {
					left = append(left, l)
				}
			}
			sv.end(c, fmt.Sprintf("the program exited, but the %s adapter did not report its exit code: processes it started held its output open and were killed with the session: %s (op output shows what it wrote)", s.adapter.ID, strings.Join(left, "; ")))
			return
		}
	}
	select {
	case <-s.c.done:
		sv.end(c, "the debug adapter exited: "+s.withStderr(s.c.closeErr()).Error())
	default:
	}
}

// end tears the live session down and records why; the caller holds c.mu.
func (sv *Supervisor) end(c *conversation, reason string) {
	s := c.live
	if s == nil {
		return
	}
	if c.ttlTimer != nil {
		c.ttlTimer.Stop()
		c.ttlTimer = nil
	}
	s.shutdown(2 * time.Second)
	c.live = nil
	c.focus = 0
	c.last = s
	c.endReason = fmt.Sprintf("the %s session ended at %s: %s", s.adapter.ID, time.Now().UTC().Format("15:04:05"), reason)
}

// expire is the TTL timer's callback.
func (sv *Supervisor) expire(c *conversation, s *session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != s {
		return
	}
	sv.end(c, fmt.Sprintf("its fixed TTL of %s expired; the adapter and the program were killed", sv.cfg.TTL))
}

// Status is a conversation's debug state: the live session and where it is
// stopped, or why the last one ended.
func (sv *Supervisor) Status(conversationID string) (*Status, error) {
	c, err := sv.lock(conversationID)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	r := &Status{BreakpointLines: countLines(c.breakpoints), BreakpointFiles: len(c.breakpoints)}
	s := c.live
	if s == nil {
		r.Ended = c.endReason
		return r, nil
	}
	r.Session = s.describe()
	s.mu.Lock()
	stop := s.stop
	running := s.running
	last := s.lastThread
	s.mu.Unlock()
	if stop != nil && !running {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if st, err := s.buildStop(ctx, *stop, last); err == nil {
			r.Stop = st
		} else {
			r.Stop = &Stop{Reason: stop.Reason, Description: stop.Description, ThreadID: stop.ThreadId}
		}
		cancel()
	}
	return r, nil
}

func countLines[T any](m map[string][]T) int {
	n := 0
	for _, ls := range m {
		n += len(ls)
	}
	return n
}

// Terminate ends a conversation's live session, killing the adapter and, for
// a launch, the program's process tree; an attached program keeps running.
// The conversation's breakpoints and the ended session's output stay.
func (sv *Supervisor) Terminate(conversationID string) (*Terminated, error) {
	c, err := sv.lock(conversationID)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	s := c.live
	if s == nil {
		return &Terminated{Previous: c.endReason}, nil
	}
	desc := s.describe()
	sv.end(c, "terminated on request")
	return &Terminated{Session: desc, Attached: s.kind == "attach"}, nil
}

// Forget ends a conversation's session, if any, and forgets the
// conversation (its breakpoints and last output): Run.Close calls it.
func (sv *Supervisor) Forget(conversationID string) {
	sv.mu.Lock()
	c := sv.convs[conversationID]
	sv.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	sv.end(c, "the run was closed")
	c.mu.Unlock()
	sv.mu.Lock()
	if sv.convs[conversationID] == c {
		delete(sv.convs, conversationID)
	}
	sv.mu.Unlock()
}

// Close terminates every session and refuses further calls.
func (sv *Supervisor) Close() error {
	sv.mu.Lock()
	sv.closed = true
	convs := slices.Collect(maps.Values(sv.convs))
	sv.mu.Unlock()
	for _, c := range convs {
		c.mu.Lock()
		sv.end(c, "the debug supervisor was closed")
		c.mu.Unlock()
	}
	return nil
}

func sortedKeys[T any](m map[string][]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// staleHint adds what to do next to an adapter's refusal of an id the agent
// passed (a frame id or a variables reference): usually one from an earlier
// stop, or one never shown.
func staleHint(err error, next string) error {
	var ae *AdapterError
	if errors.As(err, &ae) {
		return fmt.Errorf("%w; %s", err, next)
	}
	return err
}
