package lsp

import "bytes"
import "context"
import "errors"
import "fmt"
import "os"
import "strings"
import "sync"
import "time"

// beforeApplyKey carries the function Rename calls with the files its edit
// will change.
type beforeApplyKey struct{}

// WithBeforeApply returns ctx carrying f, which Rename calls with the
// workspace-relative files its edit will change once the edit is known and
// before any is written (to take their diagnostics before the change).
func WithBeforeApply(ctx context.Context, f func(files []string)) context.Context {
	return context.WithValue(ctx, beforeApplyKey{}, f)
}

// beforeApply calls the function ctx carries (WithBeforeApply), if any.
func (s *Supervisor) beforeApply(ctx context.Context, changes []fileChange) {
	f, ok := ctx.Value(beforeApplyKey{}).(func([]string))
	if !ok {
		return
	}
	files := make([]string, 0, len(changes))
	for _, c := range changes {
		files = append(files, s.rel(c.path))
	}
	f(files)
}

// Extensions returns the file extensions of the server that serves file
// (".py", ".pyi"): the files a change to file can break. Nil when no
// server serves it.
func (s *Supervisor) Extensions(file string) []string {
	sv, err := s.specFor(file)
	if err != nil {
		return nil
	}
	return append([]string(nil), sv.Extensions...)
}

// ShowContent makes file's server see content as file's text without
// writing it (an open document's text wins over the disk): the
// diagnostics of other files asked for next are those of the project
// with file holding content. Diagnostics-on-write shows a written file's
// text from before the write this way, to learn what other files' diagnostics
// were before it. The next AfterWrite or query of file itself shows the
// server its text on disk again; after undo, so does the next query of any
// file (call it when done, whatever happened since). ctx must hold the
// view (View): other sessions sharing the server do not see the content,
// and releasing the view undoes what was shown under it.
func (s *Supervisor) ShowContent(ctx context.Context, file string, content []byte) (undo func(), err error) {
	undo = func() {}
	view := s.heldView(ctx)
	if view == nil {
		return undo, errors.New("lsp: showing content needs the view held: call View and pass the context it returns")
	}
	path, err := s.abs(file)
	if err != nil {
		return undo, err
	}
	if _, err := s.specFor(path); err != nil {
		return undo, fmt.Errorf("%w: %s", ErrNoLanguage, strings.TrimPrefix(err.Error(), "lsp: "))
	}
	in, _, err := s.acquire(ctx, path)
	if err != nil {
		return undo, err
	}
	in.syncMu.Lock()
	defer in.syncMu.Unlock()
	uri := pathToURI(path)
	in.mu.Lock()
	doc := in.docs[uri]
	seq := in.pubSeq
	in.mu.Unlock()
	changed := false
	switch {
	case doc == nil:
		changed = true
		doc = &docState{version: 1, seq: seq}
		if err := in.notify(ctx, "textDocument/didOpen", wDidOpenParams{TextDocument: wTextDocumentItem{
			URI: uri, LanguageID: in.spec.languageID(path), Version: 1, Text: string(content)}}); err != nil {
			return undo, s.failed(in, err, nil)
		}
	case !bytes.Equal(doc.text, content):
		changed = true
		doc.version++
		doc.seq = seq
		if err := in.notify(ctx, "textDocument/didChange", wDidChangeParams{
			TextDocument:   wVersionedTextDocumentIdentifier{URI: uri, Version: doc.version},
			ContentChanges: []wContentChange{{Text: string(content)}}}); err != nil {
			return undo, s.failed(in, err, nil)
		}
	}
	doc.text = append([]byte(nil), content...)
	// The disk's stamp, so that the re-sync of changed open documents each
	// query starts with leaves this text in place; syncing file itself
	// compares texts and sends the disk's.
	if fi, err := os.Stat(path); err == nil {
		doc.mtime, doc.size = fi.ModTime(), fi.Size()
	}
	in.mu.Lock()
	if changed {
		in.edited(uri)
		doc.sent = in.edits
		doc.base = 0
	}
	in.docs[uri] = doc
	in.mu.Unlock()
	var once sync.Once
	undo = func() {
		once.Do(func() {
			// A stamp no file has: the re-sync of changed open documents
			// sends the disk's text.
			in.mu.Lock()
			doc.mtime, doc.size = time.Time{}, -1
			in.mu.Unlock()
		})
	}
	view.onRelease(undo)
	return undo, nil
}
