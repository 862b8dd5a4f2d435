package stage

import "errors"
import "fmt"
import "slices"
import "strings"
import "sync"

import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/search"

// ErrUnknownEdit is wrapped by Accept and Discard for an id that was never
// staged or is already resolved.
var ErrUnknownEdit = errors.New("stage: unknown edit id")

// Bounds of a Stager's memory.
const (
	// MaxEdits is how many unresolved edits a Stager keeps; staging one
	// more drops the oldest.
	MaxEdits = 32
	// MaxBytes bounds the file contents (old and new) the unresolved edits
	// hold together; staging past it drops the oldest edits until the rest
	// fit (the newest is always kept).
	MaxBytes = 256 << 20
	// maxResolved is how many resolved or dropped ids are remembered to say
	// what became of them.
	maxResolved = 1024
)

// Stager holds one run's staged rewrites until they are accepted or
// discarded, at most MaxEdits of them and MaxBytes of content:
// past either the oldest are dropped, and resolving a dropped one says so.
// Ids are edit_1, edit_2, ... in staging order. It is safe for concurrent
// use.
type Stager struct {
	root          *fsutil.Root
	rootErr       error // why the root given cannot be used
	mu            sync.Mutex
	next          int
	edits         map[string]*search.Plan
	order         []string // unresolved ids, oldest first
	bytes         int64    // content the unresolved edits hold
	maxBytes      int64    // MaxBytes (smaller in tests)
	resolved      map[string]string
	resolvedOrder []string
	// source is the tool that staged each id, resolved or not (Plan.Stager).
	source map[string]string
}

// New returns an empty Stager whose accepted edits are confined to the
// workspace directory root: every path must lie in it, every file's
// content is checked again, and the files are replaced all or nothing
// (journaled, so a crash cannot leave an edit half made; search.Plan.Apply).
// The root's symbolic links are resolved once, here. With root "" (the
// command line) each edit is confined to the deepest directory that holds
// every file it changes.
func New(root string) *Stager {
	s := &Stager{edits: map[string]*search.Plan{}, resolved: map[string]string{}, source: map[string]string{}, maxBytes: MaxBytes}
	if root != "" {
		if s.root, s.rootErr = fsutil.NewRoot(root); s.rootErr != nil {
			s.rootErr = fmt.Errorf("stage: cannot confine edits to the workspace: %w", s.rootErr)
		}
	}
	return s
}

// Stage records a plan and returns its id. Nothing is written.
func (s *Stager) Stage(p *search.Plan) string {
	id, _ := s.StageDropping(p)
	return id
}

// StageDropping records a plan and returns its id and the ids of the
// older unresolved edits it dropped to stay within MaxEdits and MaxBytes.
// Nothing is written.
func (s *Stager) StageDropping(p *search.Plan) (id string, dropped []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	id = fmt.Sprintf("edit_%d", s.next)
	size := planBytes(p)
	for len(s.order) > 0 && (len(s.order)+1 > MaxEdits || s.bytes+size > s.maxBytes) {
		old := s.order[0]
		s.remove(old, fmt.Sprintf("dropped unresolved when %s was staged (at most %d staged edits and %d MiB are kept)",
			id, MaxEdits, MaxBytes>>20))
		dropped = append(dropped, old)
	}
	s.edits[id] = p
	s.source[id] = p.Stager()
	s.order = append(s.order, id)
	s.bytes += size
	return id, dropped
}

// planBytes is the file content a plan holds.
func planBytes(p *search.Plan) int64 {
	var n int64
	for _, c := range p.Changes {
		n += int64(len(c.Old) + len(c.New))
	}
	return n
}

// remove forgets the unresolved edit id, remembering how it ended.
func (s *Stager) remove(id, how string) {
	if p, ok := s.edits[id]; ok {
		s.bytes -= planBytes(p)
		delete(s.edits, id)
	}
	if i := slices.Index(s.order, id); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
	s.resolved[id] = how
	s.resolvedOrder = append(s.resolvedOrder, id)
	if len(s.resolvedOrder) > maxResolved {
		delete(s.resolved, s.resolvedOrder[0])
		delete(s.source, s.resolvedOrder[0])
		s.resolvedOrder = s.resolvedOrder[1:]
	}
}

// Pending returns the plan staged under id, if it is still unresolved.
func (s *Stager) Pending(id string) (*search.Plan, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.edits[id]
	return p, ok
}

func (s *Stager) take(id string) (*search.Plan, error) {
	p, ok := s.edits[id]
	if ok {
		return p, nil
	}
	if how, done := s.resolved[id]; done {
		return nil, fmt.Errorf("%w: %s was %s; run %s again to stage a new change", ErrUnknownEdit, id, how, s.source[id])
	}
	ids := slices.Clone(s.order)
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

// Accept applies the edit staged under id (search.Plan.Apply). Every file
// is read again and compared with the content recorded at staging; a
// single mismatch rejects the whole edit, naming the changed files
// (search.ErrStale), and nothing is written. Files are replaced all or
// nothing, even across a crash (the next start rolls a half-made edit
// back). A rejected edit stays staged (discard it, or stage a new one); an
// applied one is resolved.
func (s *Stager) Accept(id string) (*search.Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rootErr != nil {
		return nil, s.rootErr
	}
	p, err := s.take(id)
	if err != nil {
		return nil, err
	}
	if err := p.Apply(s.root, id); err != nil {
		return nil, err
	}
	s.remove(id, "already accepted")
	return p, nil
}

// Apply applies p at once, as Accept applies a staged plan (the drift
// check, all or nothing, journaled), without staging it.
func (s *Stager) Apply(p *search.Plan) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rootErr != nil {
		return s.rootErr
	}
	return p.Apply(s.root, "the change")
}

// Discard drops the edit staged under id without writing anything.
func (s *Stager) Discard(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.take(id); err != nil {
		return err
	}
	s.remove(id, "already discarded")
	return nil
}
