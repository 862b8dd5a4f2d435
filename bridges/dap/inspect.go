package dap

import "bufio"
import "context"
import "errors"
import "fmt"
import "path/filepath"
import "regexp"
import "slices"
import "strings"
import "sync"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/internal/textcut"

// buildStop describes a stop: the top frames and the source line of the
// top one, the exception for an exception stop, and, when the top frame is
// outside the program's project (a panic in the runtime, a signal in libc),
// the innermost frame inside it.
func (s *session) buildStop(ctx context.Context, stop godap.StoppedEventBody, last int) (*Stop, error) {
	st := &Stop{Reason: stop.Reason, Description: stop.Description, ThreadID: stop.ThreadId}
	if st.ThreadID == 0 {
		st.ThreadID = last
	}
	if st.ThreadID == 0 {
		if ths, err := s.threads(ctx); err == nil && len(ths) > 0 {
			st.ThreadID = ths[0].ID
		}
	}
	fr, _, err := s.frames(ctx, st.ThreadID, 0, MaxStackFrames)
	if err != nil {
		return nil, err
	}
	if len(fr) > 0 {
		st.File, st.Line = fr[0].File, fr[0].Line
		st.Source, st.SourceOutside = s.sourceLine(fr[0].File, fr[0].Line)
		if !s.inProject(fr[0].File) {
			for i := 1; i < len(fr); i++ {
				if s.inProject(fr[i].File) {
					f := fr[i]
					st.UserFrame = &f
					st.UserSource, _ = s.sourceLine(f.File, f.Line)
					break
				}
			}
		}
	}
	st.Frames = fr[:min(len(fr), topFrames)]
	if stop.Reason == "exception" && s.caps.SupportsExceptionInfoRequest {
		var resp godap.ExceptionInfoResponse
		if err := s.c.call(ctx, "exceptionInfo", &godap.ExceptionInfoArguments{ThreadId: st.ThreadID}, &resp); err == nil {
			st.Exception = exceptionText(resp.Body)
		}
	}
	return st, nil
}

// exceptionText is "KeyError: 'missing'" from an exceptionInfo answer.
func exceptionText(b godap.ExceptionInfoResponseBody) string {
	id, desc := strings.TrimSpace(b.ExceptionId), strings.TrimSpace(b.Description)
	if desc == "" && b.Details != nil {
		desc = strings.TrimSpace(b.Details.Message)
	}
	var t string
	switch {
	case desc == "" || desc == id:
		t = id
	case id == "" || strings.HasPrefix(desc, id):
		t = desc
	default:
		t = id + ": " + desc
	}
	t, _ = textcut.Chars(t, MaxValueLen)
	return t
}

// inProject reports whether file lies in the session's project directory.
func (s *session) inProject(file string) bool {
	return file != "" && s.root != "" && strings.HasPrefix(filepath.Clean(file), s.root+string(filepath.Separator))
}

func (s *session) threads(ctx context.Context) ([]Thread, error) {
	var resp godap.ThreadsResponse
	if err := s.c.call(ctx, "threads", nil, &resp); err != nil {
		return nil, err
	}
	var out []Thread
	for _, t := range resp.Body.Threads {
		out = append(out, Thread{ID: t.Id, Name: t.Name})
	}
	return out, nil
}

// Threads lists the debuggee's threads, at most MaxThreads.
func (sv *Supervisor) Threads(ctx context.Context, conversationID string) (*Threads, error) {
	return inSessionFor(sv, conversationID, "threads", false, func(_ *conversation, s *session) (*Threads, error) {
		ths, err := s.threads(ctx)
		if err != nil {
			return nil, err
		}
		r := &Threads{Total: len(ths)}
		if len(ths) > MaxThreads {
			// The thread that stopped leads, so the cut never hides it.
			s.mu.Lock()
			last := s.lastThread
			s.mu.Unlock()
			if i := slices.IndexFunc(ths, func(t Thread) bool { return t.ID == last }); i > 0 {
				t := ths[i]
				ths = append([]Thread{t}, slices.Delete(ths, i, i+1)...)
			}
			ths = ths[:MaxThreads]
		}
		r.Threads = ths
		s.mu.Lock()
		r.Running = s.running || s.stop == nil
		s.mu.Unlock()
		return r, nil
	})
}

func (sv *Supervisor) currentThread(ctx context.Context, s *session, want int) (int, error) {
	if want != 0 {
		return want, nil
	}
	s.mu.Lock()
	t := s.lastThread
	s.mu.Unlock()
	if t != 0 {
		return t, nil
	}
	ths, err := s.threads(ctx)
	if err != nil {
		return 0, err
	}
	if len(ths) == 0 {
		return 0, errors.New("debug: the program has no threads")
	}
	return ths[0].ID, nil
}

// Stack lists up to MaxStackFrames frames of a thread (0: the thread that
// last stopped) from frame start on (0 is the top), and counts the rest.
func (sv *Supervisor) Stack(ctx context.Context, conversationID string, threadID, start int) (*Stack, error) {
	return inSessionFor(sv, conversationID, "stack", true, func(_ *conversation, s *session) (*Stack, error) {
		if start < 0 {
			return nil, fmt.Errorf("debug: stack: start %d is not a frame index (0 is the top frame)", start)
		}
		thread, err := sv.currentThread(ctx, s, threadID)
		if err != nil {
			return nil, err
		}
		fr, total, err := s.frames(ctx, thread, start, MaxStackFrames)
		if err != nil {
			if threadID != 0 {
				return nil, staleHint(err, "take thread_id from threads, or omit it for the thread that last stopped")
			}
			return nil, err
		}
		if start > 0 && len(fr) == 0 {
			n, _ := s.countFrames(ctx, thread, 0)
			return nil, fmt.Errorf("debug: stack: start %d is past the end: thread %d has %d frame(s) (start 0 to %d)", start, thread, n, max(n-1, 0))
		}
		end := start + len(fr) // one past the last frame shown
		n, exact := end, true
		if total > end {
			// An adapter's totalFrames may be a guess (delve adds an arbitrary
			// 50 to say "more"): count the rest.
			n, exact = s.countFrames(ctx, thread, end)
		}
		r := &Stack{ThreadID: thread, Start: start, Frames: fr, Total: n, Exact: exact}
		return r, nil
	})
}

// countFrames counts a thread's frames from start on by asking for pages of
// them, up to maxCount; exact is false when it stopped there (or on an error).
func (s *session) countFrames(ctx context.Context, thread, start int) (n int, exact bool) {
	const page, maxCount = 200, 2000
	n = start
	for n < maxCount {
		var resp godap.StackTraceResponse
		if err := s.c.call(ctx, "stackTrace", &godap.StackTraceArguments{ThreadId: thread, StartFrame: n, Levels: page}, &resp); err != nil {
			return n, false
		}
		got := len(resp.Body.StackFrames)
		n += got
		if got < page {
			return n, true
		}
	}
	return n, false
}

// Scopes lists the scopes of a frame (0: the top frame of threadID, or of
// the thread that last stopped).
func (sv *Supervisor) Scopes(ctx context.Context, conversationID string, threadID, frameID int) (*Scopes, error) {
	return inSessionFor(sv, conversationID, "scopes", true, func(_ *conversation, s *session) (*Scopes, error) {
		frame, err := sv.frameOrTop(ctx, s, threadID, frameID)
		if err != nil {
			return nil, err
		}
		var resp godap.ScopesResponse
		if err := s.c.call(ctx, "scopes", &godap.ScopesArguments{FrameId: frame}, &resp); err != nil {
			return nil, staleHint(err, "take frame_id from stack at the current stop, or omit it for the top frame: frame ids do not survive a step or continue")
		}
		r := &Scopes{FrameID: frame}
		for _, sc := range resp.Body.Scopes {
			r.Scopes = append(r.Scopes, Scope{Name: sc.Name, Reference: sc.VariablesReference, Expensive: sc.Expensive})
			if sc.IndexedVariables > 0 && sc.VariablesReference > 0 {
				s.mu.Lock()
				s.indexed[sc.VariablesReference] = sc.IndexedVariables
				s.mu.Unlock()
			}
		}
		return r, nil
	})
}

func (sv *Supervisor) frameOrTop(ctx context.Context, s *session, threadID, frameID int) (int, error) {
	if frameID != 0 {
		return frameID, nil
	}
	thread, err := sv.currentThread(ctx, s, threadID)
	if err != nil {
		return 0, err
	}
	fr, _, err := s.frames(ctx, thread, 0, 1)
	if err != nil {
		return 0, err
	}
	if len(fr) == 0 {
		return 0, errors.New("debug: the thread has no frames; is the program stopped? (status)")
	}
	return fr[0].ID, nil
}

// Variables lists up to MaxVariables children of a variables reference
// (from Scopes, or a variable's Reference), from child start on.
func (sv *Supervisor) Variables(ctx context.Context, conversationID string, reference, start int) (*Variables, error) {
	return inSessionFor(sv, conversationID, "variables", true, func(_ *conversation, s *session) (*Variables, error) {
		return s.variables(ctx, reference, start)
	})
}

func (s *session) variables(ctx context.Context, ref, start int) (*Variables, error) {
	if ref <= 0 {
		return nil, errors.New("debug: variables needs reference (from scopes, or a variable's reference)")
	}
	if start < 0 {
		return nil, fmt.Errorf("debug: variables: start %d is not an index (0 is the first child)", start)
	}
	stale := "take reference from scopes (or from a variable listed by variables) at the current stop: references do not survive a step or continue"
	// A container the adapter counted (indexedVariables) is paged by the
	// adapter itself, which loads only that page: delve would otherwise show
	// its first 64 elements only. Anything else is listed whole and paged here.
	// Named children of a counted container are not asked for: lldb-dap
	// ignores the filter and answers with elements, and delve's (a map's
	// len()) repeat the count said here.
	s.mu.Lock()
	indexed := s.indexed[ref]
	s.mu.Unlock()
	r := &Variables{Reference: ref, Start: start}
	var shown []godap.Variable
	if indexed > 0 {
		if start >= indexed {
			return nil, fmt.Errorf("debug: variables: start %d is past the end: reference %d has %d elements (start 0 to %d)", start, ref, indexed, indexed-1)
		}
		count := min(MaxVariables, indexed-start)
		var resp godap.VariablesResponse
		if err := s.c.call(ctx, "variables", &godap.VariablesArguments{VariablesReference: ref, Filter: "indexed", Start: start, Count: count}, &resp); err != nil {
			return nil, staleHint(err, stale)
		}
		shown = resp.Body.Variables
		if len(shown) > MaxVariables && count > 1 {
			// Several variables an element (delve: a map whose keys and
			// values are both composite lists "[key i]" and "[val i]"):
			// ask for as many elements as fit, so that the next page starts
			// right after the last one shown.
			per := (len(shown) + count - 1) / count
			count = max(1, MaxVariables/per)
			resp = godap.VariablesResponse{}
			if err := s.c.call(ctx, "variables", &godap.VariablesArguments{VariablesReference: ref, Filter: "indexed", Start: start, Count: count}, &resp); err != nil {
				return nil, staleHint(err, stale)
			}
			shown = resp.Body.Variables
		}
		if len(shown) > MaxVariables {
			shown = shown[:MaxVariables]
		}
		r.Elements, r.Total, r.End = true, indexed, start+count
		if r.End < indexed {
			r.Next = r.End
		}
	} else {
		var resp godap.VariablesResponse
		if err := s.c.call(ctx, "variables", &godap.VariablesArguments{VariablesReference: ref}, &resp); err != nil {
			return nil, staleHint(err, stale)
		}
		all := resp.Body.Variables
		switch {
		case len(all) == 0:
			return r, nil
		case start >= len(all):
			return nil, fmt.Errorf("debug: variables: start %d is past the end: reference %d has %d children (start 0 to %d)", start, ref, len(all), len(all)-1)
		}
		end := min(start+MaxVariables, len(all))
		shown = all[start:end]
		r.Total, r.End = len(all), end
		if end < len(all) {
			r.Next = end
		}
	}
	for _, v := range shown {
		x := toVariable(v.Name, v.Value, v.Type, v.VariablesReference, v.IndexedVariables)
		x.MemoryReference = v.MemoryReference
		r.Variables = append(r.Variables, x)
	}
	s.remember(r.Variables)
	return r, nil
}

// remember records the element counts of the references just shown, so that
// variables can page through them.
func (s *session) remember(vars []Variable) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vars {
		if v.Reference > 0 && v.Indexed > 0 {
			s.indexed[v.Reference] = v.Indexed
		}
	}
}

func toVariable(name, value, typ string, ref, indexed int) Variable {
	v := Variable{Name: name, Value: value, Type: typ, Reference: ref}
	if ref > 0 {
		v.Indexed = indexed
	}
	if c, cut := textcut.Chars(value, MaxValueLen); cut {
		v.Value, v.Cut = c, true
		// An adapter's own mark of what it did not load ends the value
		// (delve: "...+488 more"): keep it, it says how long the value is.
		if m := moreMark().FindString(value); m != "" {
			v.Value += "; the adapter's value ends " + m
		}
	}
	return v
}

// moreMark is delve's mark of a string, slice or map it loaded in part.
var moreMark = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.\.\.\+\d+ more["\]]?$`) })

// Evaluate evaluates an expression in a frame (0: the top frame of
// threadID, or of the thread that last stopped). A statement that has no
// value (debugpy runs "import os") gives an empty Variable.
func (sv *Supervisor) Evaluate(ctx context.Context, conversationID, expression string, threadID, frameID int) (*Variable, error) {
	return inSessionFor(sv, conversationID, "evaluate", true, func(_ *conversation, s *session) (*Variable, error) {
		return sv.evaluate(ctx, s, expression, threadID, frameID)
	})
}

func (sv *Supervisor) evaluate(ctx context.Context, s *session, expression string, threadID, frameID int) (*Variable, error) {
	if strings.TrimSpace(expression) == "" {
		return nil, errors.New("debug: evaluate needs expression")
	}
	frame, err := sv.frameOrTop(ctx, s, threadID, frameID)
	if err != nil {
		return nil, err
	}
	if frameID != 0 {
		// delve evaluates in the top frame when it does not know the
		// frame id (one from an earlier stop): a plausible wrong answer.
		// A frame id not shown at this stop is checked first.
		s.mu.Lock()
		seen := s.framesSeen[frameID]
		s.mu.Unlock()
		if !seen {
			var sc godap.ScopesResponse
			if err := s.c.call(ctx, "scopes", &godap.ScopesArguments{FrameId: frameID}, &sc); err != nil {
				var ae *AdapterError
				if errors.As(err, &ae) {
					return nil, fmt.Errorf("debug: evaluate: frame_id %d is not a frame of the current stop (the adapter says: %s); take frame_id from stack, or omit it for the top frame", frameID, ae.Message)
				}
				return nil, err
			}
		}
	}
	ectx := s.adapter.EvaluateContext
	if ectx == "" {
		ectx = "watch"
	}
	var resp godap.EvaluateResponse
	if err := s.c.call(ctx, "evaluate", &godap.EvaluateArguments{Expression: expression, FrameId: frame, Context: ectx}, &resp); err != nil {
		if frameID != 0 {
			// An adapter may blame something else for a frame id it does
			// not know (lldb-dap: "the process is running").
			return nil, staleHint(err, fmt.Sprintf("if frame_id %d is not a frame of the current stop, take frame_id from stack, or omit it for the top frame", frameID))
		}
		return nil, err
	}
	v := toVariable(expression, resp.Body.Result, resp.Body.Type, resp.Body.VariablesReference, resp.Body.IndexedVariables)
	v.MemoryReference = resp.Body.MemoryReference
	s.remember([]Variable{v})
	return &v, nil
}

// Output is the debuggee's kept output: the live session's, or the last
// ended one's.
func (sv *Supervisor) Output(conversationID string) (*Output, error) {
	c, err := sv.lock(conversationID)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	s := c.live
	if s == nil {
		s = c.last
	}
	if s == nil {
		return nil, errNoSession
	}
	r := &Output{}
	r.Text, r.Bytes, r.Dropped = s.out.render()
	if c.live == nil {
		r.FromEnded, r.Ended = true, c.endReason
	}
	return r, nil
}

// frames fetches up to levels frames of a thread, from frame start on
// (0 is the top).
func (s *session) frames(ctx context.Context, thread, start, levels int) ([]Frame, int, error) {
	var resp godap.StackTraceResponse
	err := s.c.call(ctx, "stackTrace", &godap.StackTraceArguments{ThreadId: thread, StartFrame: start, Levels: levels}, &resp)
	if err != nil {
		return nil, 0, err
	}
	var out []Frame
	s.mu.Lock()
	for _, f := range resp.Body.StackFrames {
		s.framesSeen[f.Id] = true
	}
	s.mu.Unlock()
	for i, f := range resp.Body.StackFrames {
		if i >= levels {
			break
		}
		fr := Frame{ID: f.Id, Name: f.Name, Line: f.Line, Column: f.Column, Instruction: f.InstructionPointerReference}
		if f.Source != nil {
			fr.File = f.Source.Path
			if fr.File == "" {
				fr.File = f.Source.Name
			}
		}
		out = append(out, fr)
	}
	// totalFrames counts from the top; an adapter may leave it out.
	total := resp.Body.TotalFrames
	if total < start+len(resp.Body.StackFrames) {
		total = start + len(resp.Body.StackFrames)
	}
	return out, total, nil
}

// sourceLine returns line n (1-based) of file, a path the adapter named,
// cut to 300 bytes, or "". The file is read through the working dir's root:
// one outside it, or one a symbolic link in it leads out to, is never
// opened, and outside is set.
func (s *session) sourceLine(file string, n int) (line string, outside bool) {
	if file == "" || n <= 0 || s.ws == nil {
		return "", false
	}
	f, _, err := s.ws.Open(file) // a regular file, never a named pipe
	if errors.Is(err, fsutil.ErrOutside) {
		return "", true
	}
	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		return "", false
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			line, _ := textcut.Chars(strings.TrimRight(sc.Text(), "\r"), 300)
			return line, false
		}
	}
	return "", false
}
