package search

import "context"
import "fmt"
import "path/filepath"
import "slices"
import "sort"
import "sync"
import "sync/atomic"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/search/store"

// DefaultMapFiles is how many files Map reads when MapQuery.MaxFiles is 0.
const DefaultMapFiles = 20000

// MapQuery asks Map for a ranked outline of a project.
type MapQuery struct {
	// Paths are the files or directories outlined (default ".").
	Paths []string
	// Focus are files or directories (among or under Paths) whose files
	// are read first, ranked first, and whose references weigh more.
	Focus []string
	// Symbols are names whose definitions rank first.
	Symbols []string
	// Words are matched (case-insensitively, as substrings) against
	// definitions' names and files' paths; what matches ranks higher.
	Words []string
	// MaxFiles bounds the files read (default DefaultMapFiles); the files
	// of Focus are read first.
	MaxFiles int
}

// MapResult is a project's outline: its files with their definitions,
// best ranked first.
type MapResult struct {
	// Files are the outlined files that hold a definition, best first;
	// each lists its definitions in source order.
	Files []MapFile `json:"files"`
	// Defs counts the definitions of Files.
	Defs int `json:"defs"`
	MapCounts
}

// MapCounts says what a map looked at, and what it did not.
type MapCounts struct {
	// Walked counts the files of a shipped grammar the walk listed, Read
	// those of a language with an outline table read (at most MaxFiles),
	// Outlined those read and parsed.
	Walked   int `json:"walked"`
	Read     int `json:"read"`
	Outlined int `json:"outlined"`
	// OverCap counts the files listed but not read: over MaxFiles.
	OverCap int `json:"over_cap,omitempty"`
	// Languages are the languages outlined, with their file counts.
	Languages map[string]int `json:"languages"`
	// NotOutlined counts the files of languages that have no outline
	// table (their definitions are not known), by language.
	NotOutlined map[string]int `json:"not_outlined,omitempty"`
	// Skipped counts what the walk and the reads skipped (ignored,
	// hidden, binary, too large, unreadable).
	Skipped Skips `json:"skipped"`
	// Errors are the files that could not be parsed.
	Errors []FileError `json:"errors,omitempty"`
}

// MapFile is one file of a MapResult.
type MapFile struct {
	Path     string   `json:"path"`
	Language string   `json:"language"`
	Rank     float64  `json:"rank"`
	Focused  bool     `json:"focused,omitempty"`
	Defs     []MapDef `json:"defs"`
}

// MapDef is one definition: a function, method, type, class, interface
// or constant, by its signature (not its body).
type MapDef struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Line      int    `json:"line"`
	Signature string `json:"signature"`
	// Rank is the definition's share of the project's references
	// (PageRank over the files, handed to the definitions they name).
	Rank float64 `json:"rank"`
	// Files counts the other files that name it.
	Files int `json:"files"`
}

// mapFile is one read file's outline while Map ranks it.
type mapFile struct {
	path    string
	rel     string // path relative to the root, which query words match
	lang    *grammars.Language
	focused bool
	defs    []MapDef
	refs    names // sorted by name
	unread  unread
	err     error
}

// Map outlines the files under q.Paths (walked as a search walks them, and
// read through the searcher's root and its tree store, so a map after a
// search or another map parses nothing) and ranks their definitions by how
// many other files name them. It stops with the context's error when ctx
// is done.
func (s *Searcher) Map(ctx context.Context, q MapQuery) (*MapResult, error) {
	s.warm.BeginQuery()
	defer s.warm.EndQuery()
	fsys, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer fsys.close()
	res := &MapResult{MapCounts: MapCounts{Languages: map[string]int{}, NotOutlined: map[string]int{}}}
	paths, focus, err := s.mapList(ctx, fsys, q, res)
	if err != nil {
		return nil, err
	}
	max := q.MaxFiles
	if max <= 0 {
		max = DefaultMapFiles
	}
	if len(paths) > max {
		res.OverCap = len(paths) - max
		paths = paths[:max]
	}
	files := make([]*mapFile, 0, len(paths))
	for _, p := range paths {
		l := langForPath(p)
		if outlineKinds[l.ID] == nil {
			res.NotOutlined[l.ID]++
			continue
		}
		rel := p
		if fsys != nil {
			if r, err := fsys.rel(p); err == nil {
				rel = filepath.ToSlash(r)
			}
		}
		files = append(files, &mapFile{path: p, rel: rel, lang: l, focused: focus[p]})
	}
	if err := s.mapRead(ctx, fsys, files); err != nil {
		return nil, err
	}
	var read []*mapFile
	for _, f := range files {
		if f.unread.tally(f.path, &res.Skipped, &res.Errors) {
			continue
		}
		if f.err != nil {
			res.Errors = append(res.Errors, FileError{Path: f.path, Err: f.err.Error()})
			continue
		}
		res.Languages[f.lang.ID]++
		read = append(read, f)
	}
	res.Read, res.Outlined = len(files), len(read)
	if err := rankMap(ctx, read, q); err != nil {
		return nil, err
	}
	for _, f := range read {
		if len(f.defs) == 0 {
			continue
		}
		res.Defs += len(f.defs)
		res.Files = append(res.Files, MapFile{Path: f.path, Language: f.lang.ID, Focused: f.focused, Defs: f.defs, Rank: fileRank(f)})
	}
	sort.SliceStable(res.Files, func(i, j int) bool {
		a, b := res.Files[i], res.Files[j]
		if a.Focused != b.Focused {
			return a.Focused
		}
		return a.Rank > b.Rank
	})
	return res, nil
}

// mapList walks q's focus and then its paths, each file once; focus says
// which files are the focus's.
func (s *Searcher) mapList(ctx context.Context, fsys *files, q MapQuery, res *MapResult) ([]string, map[string]bool, error) {
	paths := q.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var list []string
	seen := map[string]bool{}
	focus := map[string]bool{}
	for i, p := range append(slices.Clone(q.Focus), paths...) {
		var sk Skips
		fs, err := walk(ctx, fsys, p, anyLanguage, &sk, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("search: cannot outline %s: %w", p, err)
		}
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("search: cancelled: %w", ctx.Err())
		}
		if i >= len(q.Focus) {
			res.Skipped.add(sk)
		}
		for _, f := range fs {
			if seen[f] {
				continue
			}
			seen[f] = true
			if langForPath(f) == nil {
				continue
			}
			focus[f] = i < len(q.Focus)
			list = append(list, f)
		}
	}
	res.Walked = len(list)
	return list, focus, nil
}

// mapRead reads and outlines files on the searcher's workers; a file that
// cannot be read or parsed records why in its mapFile.
func (s *Searcher) mapRead(ctx context.Context, fsys *files, files []*mapFile) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(s.workers, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				s.mapFile(ctx, fsys, files[i])
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("search: cancelled: %w", err)
	}
	return nil
}

// mapFile outlines one file: from the outline the store keeps for its
// content, else from its tree in the store, else from a parse.
func (s *Searcher) mapFile(ctx context.Context, fsys *files, f *mapFile) {
	if key, ok := s.unchanged(fsys, f.path, f.lang.Key()); ok {
		if s.storedOutline(f, key) {
			return
		}
		if tree := s.cache.Held(key); tree != nil {
			s.outlineFile(ctx, f, key, tree)
			return
		}
	}
	at := s.now()
	src, fi, ok := s.readText(fsys, f.path, &f.unread)
	if !ok {
		return
	}
	key := store.KeyOf(s.partition, f.lang, src)
	s.cache.Remember(f.path, f.lang.Key(), fi, at, key)
	if s.storedOutline(f, key) {
		return
	}
	tree, _, err := s.wholeTree(ctx, f.lang, key, src)
	if err != nil {
		if ctx.Err() == nil {
			f.err = err
		}
		return
	}
	s.outlineFile(ctx, f, key, tree)
}
