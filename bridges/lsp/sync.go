package lsp

import (
	"bytes"
	"context"
	"os"
	"time"
)

// syncDoc makes the server's view of path equal to its content on disk:
// didOpen the first time, didChange when the content changed since. With save
// set it also sends didSave. It returns the document version now current and
// the publication sequence number before the change (for waiting on fresh
// diagnostics), and whether anything was sent.
func (s *Supervisor) syncDoc(ctx context.Context, in *instance, path string, save bool) (version, seqBefore int, changed bool, err error) {
	in.syncMu.Lock()
	defer in.syncMu.Unlock()
	text, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false, err
	}
	fi, _ := os.Stat(path)
	uri := pathToURI(path)
	in.mu.Lock()
	doc := in.docs[uri]
	seqBefore = in.pubSeq
	in.mu.Unlock()
	switch {
	case doc == nil:
		doc = &docState{version: 1, text: text}
		if err := in.notify(ctx, "textDocument/didOpen", wDidOpenParams{TextDocument: wTextDocumentItem{
			URI: uri, LanguageID: in.spec.languageID(path), Version: 1, Text: string(text)}}); err != nil {
			return 0, 0, false, err
		}
		changed = true
	case !bytes.Equal(doc.text, text):
		doc.version++
		doc.text = text
		if err := in.notify(ctx, "textDocument/didChange", wDidChangeParams{
			TextDocument:   wVersionedTextDocumentIdentifier{URI: uri, Version: doc.version},
			ContentChanges: []wContentChange{{Text: string(text)}}}); err != nil {
			return 0, 0, false, err
		}
		changed = true
	}
	if fi != nil {
		doc.mtime, doc.size = fi.ModTime(), fi.Size()
	}
	in.mu.Lock()
	in.docs[uri] = doc
	in.mu.Unlock()
	if save && changed {
		t := string(text)
		if err := in.notify(ctx, "textDocument/didSave", wDidSaveParams{TextDocument: wTextDocumentIdentifier{URI: uri}, Text: &t}); err != nil {
			return 0, 0, false, err
		}
	}
	return doc.version, seqBefore, changed, nil
}

// resyncOpen re-syncs every open document whose file changed on disk since it
// was last sent (another tool, git), and closes those that vanished.
func (s *Supervisor) resyncOpen(ctx context.Context, in *instance) error {
	in.mu.Lock()
	type item struct {
		uri   string
		mtime time.Time
		size  int64
	}
	var items []item
	for uri, d := range in.docs {
		items = append(items, item{uri, d.mtime, d.size})
	}
	in.mu.Unlock()
	for _, it := range items {
		p := uriToPath(it.uri)
		fi, err := os.Stat(p)
		if err != nil {
			in.mu.Lock()
			delete(in.docs, it.uri)
			in.mu.Unlock()
			_ = in.notify(ctx, "textDocument/didClose", wDidCloseParams{TextDocument: wTextDocumentIdentifier{URI: it.uri}})
			continue
		}
		if fi.ModTime().Equal(it.mtime) && fi.Size() == it.size {
			continue
		}
		if _, _, _, err := s.syncDoc(ctx, in, p, true); err != nil {
			return err
		}
	}
	return nil
}

// waitDiagnostics waits (bounded) for a publication for uri that is at least
// version (or, from a server that sends no versions, newer than seqBefore),
// then lets further publications for it settle briefly. ok is false when the
// bound passed first.
func (s *Supervisor) waitDiagnostics(ctx context.Context, in *instance, uri string, version, seqBefore int, bound time.Duration) (e *diagEntry, ok bool, err error) {
	settle := in.spec.settle()
	deadline := time.Now().Add(bound)
	var got *diagEntry
	var gotAt time.Time
	for {
		in.mu.Lock()
		cur := in.diags[uri]
		ch := in.changed
		in.mu.Unlock()
		if cur != nil && (got == nil || cur.seq != got.seq) {
			fresh := cur.seq > seqBefore
			if cur.version != nil {
				fresh = *cur.version >= version
			}
			if fresh {
				got, gotAt = cur, time.Now()
			}
		}
		now := time.Now()
		if got != nil && now.Sub(gotAt) >= settle {
			return got, true, nil
		}
		if now.After(deadline) {
			if got != nil {
				return got, true, nil
			}
			return cur, false, nil
		}
		wait := deadline.Sub(now)
		if got != nil {
			wait = settle - now.Sub(gotAt)
		}
		select {
		case <-ch:
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-in.exited:
			return nil, false, nil
		}
	}
}
