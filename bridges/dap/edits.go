package dap

import "bytes"
import "context"
import "errors"
import "fmt"
import "slices"
import "sort"
import "strings"
import "time"

// BreakpointFiles returns the files (absolute paths) a conversation has
// line breakpoints in: the files whose edits FollowEdit should see. It
// never waits for a debug op in progress.
func (sv *Supervisor) BreakpointFiles(conversationID string) []string {
	sv.mu.Lock()
	c := sv.convs[conversationID]
	sv.mu.Unlock()
	if c == nil {
		return nil
	}
	if p := c.bpFiles.Load(); p != nil {
		return slices.Clone(*p)
	}
	return nil
}

// noteFiles records the files with breakpoints for BreakpointFiles; the
// caller holds c.mu.
func (c *conversation) noteFiles() {
	files := sortedKeys(c.breakpoints)
	c.bpFiles.Store(&files)
}

// KeptBreakpoints returns the line breakpoints a conversation keeps for
// file (absolute), as launch and attach send them.
func (sv *Supervisor) KeptBreakpoints(conversationID, file string) []SourceBreakpoint {
	c, err := sv.lock(conversationID)
	if err != nil {
		return nil
	}
	defer c.mu.Unlock()
	return slices.Clone(c.breakpoints[file])
}

// Moved says how an edit moved one file's breakpoints.
type Moved struct {
	File string
	// From and To are the lines before and after the edit, in pairs;
	// lines the edit did not move are left out.
	From, To []int
	// Gone counts breakpoints whose line the edit removed: each moved to
	// the line that took its place.
	Gone int
	// States are the breakpoints as the live session's adapter placed
	// them after they were sent again; nil without a session (they are
	// kept, and sent at launch or attach).
	States []BreakpointState
	// Adapter is the live session's adapter, "" without one.
	Adapter string
	// Running: the program runs the code it was started with; the moved
	// lines match it again once it is launched anew.
	Running bool
	// Deferred: a debug op was in progress (a launch or continue waiting
	// for a stop); the breakpoints move when it ends. Only File is set.
	Deferred bool
}

// FollowEdit keeps file's breakpoints on their lines across an edit that
// changed its text from before to after: each line moves by what the edit
// inserted or removed above it (a line the edit rewrote keeps its place
// in the rewritten part). With a live session the moved breakpoints are
// sent to the adapter again (and to its child sessions). It returns nil
// when no breakpoint moved.
func (sv *Supervisor) FollowEdit(ctx context.Context, conversationID, file string, before, after []byte) (*Moved, error) {
	if bytes.Equal(before, after) {
		return nil, nil
	}
	if conversationID == "" {
		return nil, errors.New("debug: no conversation id; debug sessions belong to a conversation")
	}
	c, err := sv.conv(conversationID)
	if err != nil {
		return nil, err
	}
	locked := c.mu.TryLock()
	for i := 0; !locked && i < 20; i++ {
		// A short op (status, stack) ends in a moment.
		time.Sleep(10 * time.Millisecond)
		locked = c.mu.TryLock()
	}
	if !locked {
		// A debug op holds the conversation while it waits for the
		// program (bounded by the stop wait): queue the edit, to be
		// followed in order when the op ends, rather than hold up the
		// write.
		c.editMu.Lock()
		c.edits = append(c.edits, queuedEdit{file, before, after})
		start := !c.draining
		c.draining = true
		c.editMu.Unlock()
		if start {
			go func() {
				c.mu.Lock()
				defer c.mu.Unlock()
				sv.reap(c)
				ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sv.cfg.RequestTimeout)
				defer cancel()
				sv.drainEdits(ctx, c)
			}()
		}
		if !slices.Contains(c.bpFileList(), file) {
			return nil, nil
		}
		return &Moved{File: file, Deferred: true}, nil
	}
	defer c.mu.Unlock()
	sv.reap(c)
	sv.drainEdits(ctx, c)
	return sv.followEdit(ctx, c, file, before, after)
}

// queuedEdit is an edit FollowEdit could not follow at once.
type queuedEdit struct {
	file          string
	before, after []byte
}

// drainEdits follows the queued edits in order; the caller holds c.mu.
func (sv *Supervisor) drainEdits(ctx context.Context, c *conversation) {
	for {
		c.editMu.Lock()
		edits := c.edits
		c.edits = nil
		if len(edits) == 0 {
			c.draining = false
			c.editMu.Unlock()
			return
		}
		c.editMu.Unlock()
		for _, e := range edits {
			_, _ = sv.followEdit(ctx, c, e.file, e.before, e.after)
		}
	}
}

// bpFileList is BreakpointFiles for c.
func (c *conversation) bpFileList() []string {
	if p := c.bpFiles.Load(); p != nil {
		return *p
	}
	return nil
}

// followEdit is FollowEdit with c.mu held.
func (sv *Supervisor) followEdit(ctx context.Context, c *conversation, file string, before, after []byte) (*Moved, error) {
	bps := c.breakpoints[file]
	if len(bps) == 0 {
		return nil, nil
	}
	lines := make([]int, len(bps))
	for i, b := range bps {
		lines[i] = b.Line
	}
	to, gone := mapLines(splitLines(before), splitLines(after), lines)
	m := &Moved{File: file}
	moved := slices.Clone(bps)
	for i := range moved {
		if to[i] != moved[i].Line {
			m.From, m.To = append(m.From, moved[i].Line), append(m.To, to[i])
		}
		moved[i].Line = to[i]
	}
	m.Gone = gone
	if len(m.From) == 0 {
		return nil, nil
	}
	// Two breakpoints that land on one line become one (the first kept).
	sort.SliceStable(moved, func(i, j int) bool { return moved[i].Line < moved[j].Line })
	moved = slices.CompactFunc(moved, func(a, b SourceBreakpoint) bool { return a.Line == b.Line })
	c.breakpoints[file] = moved
	c.noteFiles()
	s := c.live
	if s == nil {
		var st []BreakpointState
		for _, b := range moved {
			x := pendingState(b)
			x.File = file
			st = append(st, x)
		}
		c.bpStates = mergeStates(c.bpStates, file, st)
		return m, nil
	}
	m.Adapter = s.adapter.ID
	s.mu.Lock()
	m.Running = s.kind == "launch"
	s.mu.Unlock()
	st, err := s.setBreakpoints(ctx, file, moved)
	if err != nil {
		return m, prefixDebug(fmt.Errorf("the moved breakpoints of %s were kept but the %s adapter refused them: %w", relTo(s.root, file), s.adapter.ID, err))
	}
	m.States = st
	c.bpStates = mergeStates(c.bpStates, file, st)
	return m, nil
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.Split(string(b), "\n")
	if s[len(s)-1] == "" {
		s = s[:len(s)-1]
	}
	return s
}

// mapLines maps 1-based lines of old to their places in new. Lines above
// the first change and below the last keep their text's place; in between,
// a line whose text occurs once in the changed part of old and once in
// that of new goes where that text went; any other (a line the edit
// rewrote or removed) keeps its offset into the changed part, cut to its
// end (gone counts the removed ones).
func mapLines(old, new []string, lines []int) (to []int, gone int) {
	pre := 0
	for pre < len(old) && pre < len(new) && old[pre] == new[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && old[len(old)-1-suf] == new[len(new)-1-suf] {
		suf++
	}
	oldMid, newMid := old[pre:len(old)-suf], new[pre:len(new)-suf]
	count := func(xs []string) map[string]int {
		m := map[string]int{}
		for _, x := range xs {
			m[x]++
		}
		return m
	}
	oldCount, newCount := count(oldMid), count(newMid)
	to = make([]int, len(lines))
	for i, l := range lines {
		idx := l - 1 // 0-based in old
		switch {
		case idx < pre:
			to[i] = l
		case idx >= len(old)-suf:
			to[i] = l + len(new) - len(old)
		default:
			text := old[idx]
			if oldCount[text] == 1 && newCount[text] == 1 && strings.TrimSpace(text) != "" {
				to[i] = pre + slices.Index(newMid, text) + 1
				continue
			}
			off := idx - pre
			if off >= len(newMid) {
				gone++
				off = max(len(newMid)-1, 0)
			}
			to[i] = min(pre+off+1, max(len(new), 1))
		}
	}
	return to, gone
}
