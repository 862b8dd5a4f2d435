package search

import "context"
import "fmt"

import "github.com/tetherhq/tether/search/store"

// WarmStatus returns the progress of the searcher's warm-up.
func (s *Searcher) WarmStatus() store.WarmStatus { return s.warm.Status() }

// WarmUp parses every file of a shipped grammar under paths (walked as a
// search walks them: ignore files and hidden directories respected) into the
// store, and returns when done, when ctx is done, or at nine tenths of the
// store's budget. It parses one file at a time and yields to every query
// of the searcher (store.Warmer). It is meant to run in its own goroutine
// for the life of a run; WarmStatus reports its progress.
func (s *Searcher) WarmUp(ctx context.Context, paths ...string) error {
	fsys, err := openFiles(s.root)
	if err != nil {
		return err
	}
	defer fsys.close()
	var walkErr error
	list := func() ([]string, error) {
		var files []string
		for _, p := range paths {
			var sk Skips
			fs, err := walk(ctx, fsys, p, anyLanguage, &sk, nil)
			if err != nil {
				walkErr = fmt.Errorf("cannot walk %s: %w", p, err)
				return nil, walkErr
			}
			files = append(files, fs...)
		}
		if s.testHookListed != nil {
			s.testHookListed()
		}
		return files, nil
	}
	err = s.warm.Run(ctx, s.cache, list, func(ctx context.Context, path string) bool { return s.warmFile(ctx, fsys, path) })
	if walkErr != nil {
		return fmt.Errorf("search: warm-up: %w", walkErr)
	}
	return err
}

// warmFile puts one file's tree in the store; it returns true when a query
// interrupted the parse (ctx was cancelled) and the file is to be tried again.
func (s *Searcher) warmFile(ctx context.Context, fsys *files, path string) bool {
	lang := langForPath(path)
	if lang == nil {
		return false // the warm-up lists files of a shipped grammar only
	}
	if key, ok := s.unchanged(fsys, path, lang.Key()); ok && s.cache.InMemory(key) {
		return false // as it was, and its tree is in memory
	}
	at := s.now()
	src, fi, err := s.read(fsys, path)
	if err != nil || fi.Size() > s.maxSize || int64(len(src)) > s.maxSize || looksBinary(src) {
		return false
	}
	key := store.KeyOf(s.partition, lang, src)
	s.cache.Remember(path, lang.Key(), fi, at, key)
	if s.cache.Holds(key) {
		// on disk only: bring it into memory
		if _, _, err := s.wholeTree(ctx, lang, key, src); err != nil && ctx.Err() != nil {
			return true
		}
		return false
	}
	_, _, err = s.wholeTree(ctx, lang, key, src)
	return err != nil && ctx.Err() != nil
}
