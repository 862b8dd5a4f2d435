package matcher

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/tetherhq/tether/internal/fsutil"
)

// ErrUnknownEdit is wrapped by Accept and Discard for an id that was never
// staged or is already resolved.
var ErrUnknownEdit = errors.New("matcher: unknown edit id")

// ErrStale is wrapped by Accept when files changed after the edit was staged.
var ErrStale = errors.New("matcher: files changed since the edit was staged")

// Stager holds one run's staged rewrites until they are accepted or
// discarded. Ids are edit_1, edit_2, ... in staging order. It is safe for
// concurrent use.
type Stager struct {
	root     *fsutil.Root
	mu       sync.Mutex
	next     int
	edits    map[string]*Plan
	resolved map[string]string
}

// NewStager returns an empty Stager. With a root, accepted edits are applied
// through root.Apply (paths confined to it, every file's content checked
// again, all or nothing with roll-back); with nil they are written with the
// matcher's own atomic writes.
func NewStager(root *fsutil.Root) *Stager {
	return &Stager{root: root, edits: map[string]*Plan{}, resolved: map[string]string{}}
}

// Stage records a plan and returns its id. Nothing is written.
func (s *Stager) Stage(p *Plan) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	id := fmt.Sprintf("edit_%d", s.next)
	s.edits[id] = p
	return id
}

// Pending returns the plan staged under id, if it is still unresolved.
func (s *Stager) Pending(id string) (*Plan, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.edits[id]
	return p, ok
}

func (s *Stager) take(id string) (*Plan, error) {
	p, ok := s.edits[id]
	if ok {
		return p, nil
	}
	if how, done := s.resolved[id]; done {
		return nil, fmt.Errorf("%w: %s was already %s; run ast_edit again to stage a new change", ErrUnknownEdit, id, how)
	}
	var ids []string
	for k := range s.edits {
		ids = append(ids, k)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: %q: nothing is staged; run ast_edit first", ErrUnknownEdit, id)
	}
	return nil, fmt.Errorf("%w: %q: the staged edits are %s: pass one of them to resolve, or run ast_edit to stage a new change",
		ErrUnknownEdit, id, strings.Join(sortedIDs(ids), ", "))
}

func sortedIDs(ids []string) []string {
	// edit_2 before edit_10
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && (len(ids[j]) < len(ids[j-1]) || len(ids[j]) == len(ids[j-1]) && ids[j] < ids[j-1]); j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}

// Accept applies the edit staged under id. Every file is read again and
// compared with the content recorded at staging; a single mismatch rejects
// the whole edit, naming the changed files, and nothing is written. Files are
// replaced atomically one by one and restored if a later one fails. A rejected
// edit stays staged (discard it, or stage a new one); an applied one is
// resolved.
func (s *Stager) Accept(id string) (*Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.take(id)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, c := range p.Changes {
		cur, err := os.ReadFile(c.Path)
		if err != nil || !bytes.Equal(cur, c.Old) {
			changed = append(changed, c.Path)
		}
	}
	if len(changed) > 0 {
		return nil, fmt.Errorf("%w: %s rejected, nothing written; changed: %s; discard it and run ast_edit again",
			ErrStale, id, strings.Join(changed, ", "))
	}
	if s.root != nil {
		changes := make([]fsutil.Change, len(p.Changes))
		for i, c := range p.Changes {
			changes[i] = fsutil.Change{Path: c.Path, Content: c.New, Expected: c.Old, MustExist: true}
		}
		if _, err := s.root.Apply(changes); err != nil {
			return nil, fmt.Errorf("matcher: %s not applied: %w", id, err)
		}
	} else if err := applyAll(p.Changes); err != nil {
		return nil, err
	}
	delete(s.edits, id)
	s.resolved[id] = "accepted"
	return p, nil
}

// Discard drops the edit staged under id without writing anything.
func (s *Stager) Discard(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.take(id); err != nil {
		return err
	}
	delete(s.edits, id)
	s.resolved[id] = "discarded"
	return nil
}
