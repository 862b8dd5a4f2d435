package lsp

import "bytes"
import "context"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "time"

import "github.com/tetherhq/tether/internal/fsutil"

// syncDoc makes the server's view of path equal to its content on disk:
// didOpen the first time, didChange when the content changed since. With save
// set it also sends didSave. It returns the document version now current and
// the publication sequence number from before that version was sent (for waiting on fresh
// diagnostics), and whether anything was sent.
func (s *Supervisor) syncDoc(ctx context.Context, in *instance, path string, save bool) (version, seqBefore int, changed bool, err error) {
	in.syncMu.Lock()
	defer in.syncMu.Unlock()
	text, err := s.root.ReadFile(path)
	if err != nil {
		return 0, 0, false, err
	}
	fi, _ := os.Stat(path)
	uri := pathToURI(path)
	in.mu.Lock()
	doc := in.docs[uri]
	seqBefore = in.pubSeq
	in.mu.Unlock()
	opened := false
	switch {
	case doc == nil:
		opened = true
		doc = &docState{version: 1, seq: seqBefore, text: text}
		if err := in.notify(ctx, "textDocument/didOpen", wDidOpenParams{TextDocument: wTextDocumentItem{
			URI: uri, LanguageID: in.spec.languageID(path), Version: 1, Text: string(text)}}); err != nil {
			return 0, 0, false, err
		}
		changed = true
	case !bytes.Equal(doc.text, text):
		includes := in.spec.StatusPreamble != "" && !slices.Equal(leadingIncludes(doc.text), leadingIncludes(text))
		in.mu.Lock()
		doc.includes = includes
		if includes {
			// A rebuild reported from now on is this version's.
			delete(in.preamble, uri)
		}
		in.mu.Unlock()
		doc.version++
		doc.seq = seqBefore
		doc.text = text
		if err := in.notify(ctx, "textDocument/didChange", wDidChangeParams{
			TextDocument:   wVersionedTextDocumentIdentifier{URI: uri, Version: doc.version},
			ContentChanges: []wContentChange{{Text: string(text)}}}); err != nil {
			return 0, 0, false, err
		}
		changed = true
	}
	in.mu.Lock()
	// resyncOpen reads mtime and size under in.mu alone.
	if fi != nil {
		doc.mtime, doc.size = fi.ModTime(), fi.Size()
	}
	if changed {
		if opened {
			// The text on disk, which a server reading the file from
			// disk already has: no other file's input changed.
			in.edited(sameAsDisk)
		} else {
			in.edited(uri)
		}
		doc.sent = in.edits
		doc.base = 0
	}
	in.docs[uri] = doc
	in.mu.Unlock()
	if save && changed {
		t := string(text)
		if err := in.notify(ctx, "textDocument/didSave", wDidSaveParams{TextDocument: wTextDocumentIdentifier{URI: uri}, Text: &t}); err != nil {
			return 0, 0, false, err
		}
	}
	// Unchanged content: a publication received since it was sent still
	// answers for it (a server need not publish again).
	return doc.version, doc.seq, changed, nil
}

// touch re-sends path's unchanged content as a new version when other
// documents or files changed since its version was sent: a server that
// analyses a file again only when it changes (pyright, clangd,
// typescript-language-server) then publishes diagnostics for it that account
// for those changes, instead of the last ones, which may predate them. It
// returns the version and the publication sequence number to wait on, and
// whether it sent anything. A touch changes no content, so it does not make
// other documents stale.
func (s *Supervisor) touch(ctx context.Context, in *instance, path string) (version, seqBefore int, touched bool, err error) {
	in.syncMu.Lock()
	defer in.syncMu.Unlock()
	uri := pathToURI(path)
	in.mu.Lock()
	doc := in.docs[uri]
	stale := doc != nil && doc.sent < in.edits
	seqBefore = in.pubSeq
	edits, editSeq := in.edits, in.editSeq
	if stale && in.spec.RepublishesOpen && !in.inputChangedSince(doc) {
		// Nothing the server reads for path changed since its text was
		// sent: its publication for that version is its answer, and a
		// repeat of the text would get none.
		stale = false
	}
	if stale && in.spec.RepublishesOpen {
		if doc.base == 0 {
			doc.base = doc.version
		}
		doc.baseSeq = editSeq
	}
	in.mu.Unlock()
	if !stale {
		return 0, 0, false, nil
	}
	doc.version++
	doc.seq = seqBefore
	if err := in.notify(ctx, "textDocument/didChange", wDidChangeParams{
		TextDocument:   wVersionedTextDocumentIdentifier{URI: uri, Version: doc.version},
		ContentChanges: []wContentChange{{Text: string(doc.text)}}}); err != nil {
		return 0, 0, false, err
	}
	in.mu.Lock()
	doc.sent = edits
	doc.includes = false
	in.mu.Unlock()
	return doc.version, seqBefore, true, nil
}

// sameAsDisk, in the edit log, is a document opened with its text on
// disk: to a server that reads other files from disk, nothing changed.
const sameAsDisk = "\x00opened"

// maxEditLog bounds instance.editLog.
const maxEditLog = 1024

// edited counts one edit sent to the server, changing uris; in.mu held.
func (in *instance) edited(uris ...string) {
	in.edits++
	in.editSeq = in.pubSeq
	in.editLog = append(in.editLog, uris)
	if len(in.editLog) > maxEditLog {
		in.editLog = in.editLog[len(in.editLog)-maxEditLog:]
	}
}

// translationUnits are the extensions of C-family sources that a compile
// reads only as its main file: a change to one cannot change the
// analysis of another file unless that file names it.
var translationUnits = []string{".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm"}

// inputChangedSince reports whether an edit since doc was last sent may
// have changed what a RepublishesOpen server (clangd) reads to analyse
// it: any file but a C-family source the document does not name (a
// header, a compile database, an unknown change), or one it names (an
// #include of a .c file). in.mu held.
func (in *instance) inputChangedSince(doc *docState) bool {
	n := in.edits - doc.sent // edits since
	if n <= 0 {
		return false
	}
	if n > len(in.editLog) {
		return true // older than the log: unknown
	}
	for _, uris := range in.editLog[len(in.editLog)-n:] {
		for _, uri := range uris {
			if uri == sameAsDisk {
				continue
			}
			p := uriToPath(uri)
			if p == "" || !slices.Contains(translationUnits, strings.ToLower(filepath.Ext(p))) || bytes.Contains(doc.text, []byte(filepath.Base(p))) {
				return true
			}
		}
		if len(uris) == 0 {
			return true
		}
	}
	return false
}

// resyncOpen re-syncs every open document whose file changed on disk since it
// was last sent (another tool, git), and closes those that vanished.
func (s *Supervisor) resyncOpen(ctx context.Context, in *instance) error {
	if err := s.notifyDiskChanges(ctx, in); err != nil {
		return err
	}
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
		if err == nil {
			// A document whose path now leads outside the workspace (a
			// directory swapped for a symbolic link) is closed unread.
			_, _, err = s.root.Resolve(p)
		}
		if err != nil {
			in.mu.Lock()
			delete(in.docs, it.uri)
			in.edited(it.uri)
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
	deadline := time.Now().Add(bound)
	var got *diagEntry
	var gotAt time.Time
	for {
		in.mu.Lock()
		cur := in.diags[uri]
		ch := in.changed
		busy := len(in.active) > 0 // e.g. pyright's "1 file to analyze" after an early empty publication
		idleAt, idle := in.status[uri]
		needIdle := in.spec.StatusNotice != "" && in.sawStatus
		doc := in.docs[uri]
		base, baseSeq := 0, 0
		includes := false
		if doc != nil {
			base, baseSeq, includes = doc.base, doc.baseSeq, doc.includes && in.sawStatus
		}
		rebuiltAt, rebuilt := in.preamble[uri]
		in.mu.Unlock()
		if cur != nil && (got == nil || cur.seq != got.seq) {
			fresh := cur.seq > seqBefore
			if cur.version != nil {
				fresh = *cur.version >= version || base > 0 && *cur.version >= base && cur.seq > baseSeq
			}
			if fresh {
				got, gotAt = cur, time.Now()
			}
		}
		now := time.Now()
		var settle time.Duration
		if got != nil {
			settle = in.spec.settle(len(got.diags) == 0)
		}
		// After an edit to the file's includes, a publication that the
		// server followed by still rebuilding them came from the old ones.
		oldIncludes := includes && got != nil && rebuilt && rebuiltAt >= got.seq
		pendingIdle := needIdle && got != nil && (!idle || idleAt < got.seq || oldIncludes)
		if pendingIdle {
			busy = true // the file has work left: a later publication may follow
		}
		if got != nil && now.Sub(gotAt) >= settle && !busy {
			return got, true, nil
		}
		if now.After(deadline) {
			if got != nil {
				return got, !pendingIdle, nil
			}
			return cur, false, nil
		}
		wait := deadline.Sub(now)
		if got != nil && !busy {
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

// maxScan bounds the files rescanned per query for changes made by other
// means; a larger tree is not watched beyond its open documents.
const maxScan = 20000

// maxOpenChanged bounds the files an OpenChanged server is sent per query.
const maxOpenChanged = 50

type stamp struct {
	mtime time.Time
	size  int64
}

// scanRoot stats the source files in.spec serves under in.root.
func scanRoot(in *instance) (map[string]stamp, []string, bool) {
	return scanDir(in.root, in.spec)
}

// maxSpecial bounds the files that are not regular named in one error.
const maxSpecial = 3

// scanDir stats the source files spec serves under root, and names those
// (and root markers) that are not regular files: a named pipe, a device, a
// socket, or a symbolic link to one. A server or checker that reads a pipe
// waits for a writer for good (gopls's go list, go vet), and a device can be
// read without end, so no request is sent while one is there.
func scanDir(root string, spec Server) (map[string]stamp, []string, bool) {
	out := map[string]stamp{}
	var special []string
	n := 0
	complete := true
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		n++
		if n > maxScan {
			complete = false
			return filepath.SkipAll
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__") {
				return filepath.SkipDir
			}
			return nil
		}
		if !spec.serves(p) && !slices.Contains(spec.RootMarkers, d.Name()) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if fi, err = os.Stat(p); err != nil {
				return nil // a dangling link reads as missing
			}
		}
		if !fi.Mode().IsRegular() {
			if !fi.IsDir() && len(special) < maxSpecial {
				special = append(special, p)
			}
			return nil
		}
		out[p] = stamp{fi.ModTime(), fi.Size()}
		return nil
	})
	return out, special, complete
}

// ErrNotRegular is wrapped by the error of a request refused because a
// source file or root marker of the project is not a regular file.
var ErrNotRegular = errors.New("lsp: a project file is not a regular file")

// specialErr says which files are not regular and what to do; nil when none.
func (s *Supervisor) specialErr(spec Server, special []string) error {
	if len(special) == 0 {
		return nil
	}
	var names []string
	for _, p := range special {
		kind := "special file"
		if fi, err := os.Lstat(p); err == nil {
			kind = fsutil.Kind(fi.Mode().Type())
		}
		names = append(names, s.rel(p)+" is a "+kind)
	}
	return fmt.Errorf("%w: %s; %s and its checker would block (or read without end) on it, so nothing was asked of them: remove it or rename it without its source extension, then call reload",
		ErrNotRegular, strings.Join(names, ", "), spec.Name)
}

// diskChange is a workspace/didChangeWatchedFiles FileEvent: Type is 1 for
// a file created, 2 changed, 3 deleted.
type diskChange struct {
	URI  string `json:"uri"`
	Type int    `json:"type"`
}

// notifyDiskChanges tells the server about source files created, changed or
// deleted on disk since the last scan that are not open documents (open ones
// are re-synced with didChange): workspace/didChangeWatchedFiles, as an
// editor's file watcher would.
func (s *Supervisor) notifyDiskChanges(ctx context.Context, in *instance) error {
	in.mu.Lock()
	off := in.noScan
	in.mu.Unlock()
	if off {
		return nil
	}
	cur, special, complete := scanRoot(in)
	if err := s.specialErr(in.spec, special); err != nil {
		return err
	}
	in.mu.Lock()
	prev := in.disk
	in.disk = cur
	if !complete {
		in.disk, in.noScan = nil, true // too big to watch this way
	}
	var changes []diskChange
	if prev != nil {
		for p, st := range cur {
			uri := pathToURI(p)
			if in.docs[uri] != nil {
				continue
			}
			old, ok := prev[p]
			switch {
			case !ok:
				changes = append(changes, diskChange{uri, 1})
			case !old.mtime.Equal(st.mtime) || old.size != st.size:
				changes = append(changes, diskChange{uri, 2})
			}
		}
		for p := range prev {
			if _, ok := cur[p]; !ok && in.docs[pathToURI(p)] == nil {
				changes = append(changes, diskChange{pathToURI(p), 3})
			}
		}
	}
	if len(changes) > 0 {
		uris := make([]string, len(changes))
		for i, c := range changes {
			uris[i] = c.URI
		}
		in.edited(uris...)
	}
	if len(in.spec.DiskReload) > 0 && slices.ContainsFunc(changes, func(c diskChange) bool { return c.Type != 2 }) {
		in.diskReload = true
	}
	reload := in.diskReload
	in.mu.Unlock()
	if len(changes) > 0 {
		if err := s.announceDiskChanges(ctx, in, changes); err != nil {
			return err
		}
	}
	if reload {
		return s.reloadDisk(ctx, in)
	}
	return nil
}

// reloadDisk runs in.spec's DiskReload commands, after the rescan found
// files created or deleted on disk; one that fails leaves them due, so the
// next query runs them again instead of answering from the server's view
// from before those files.
func (s *Supervisor) reloadDisk(ctx context.Context, in *instance) error {
	for _, c := range in.spec.DiskReload {
		// A reload rereads the project: bounded as any request is, not as
		// a wait for diagnostics.
		if _, err := in.call(ctx, s.requestTimeout, "workspace/executeCommand", map[string]any{"command": c.Command, "arguments": c.Arguments}); err != nil {
			return fmt.Errorf("lsp: asking %s to take in files created or deleted on disk failed, so its answers may predate them: %w; ask again (the request is retried) or call reload", in.spec.Name, err)
		}
	}
	in.mu.Lock()
	in.diskReload = false
	in.mu.Unlock()
	return nil
}

// announceDiskChanges tells in's server about changes, files created (1),
// changed (2) or deleted (3) on disk that are not open documents.
func (s *Supervisor) announceDiskChanges(ctx context.Context, in *instance, changes []diskChange) error {
	if in.spec.OpenChanged {
		opened := 0
		for _, c := range changes {
			if c.Type == 3 || opened >= maxOpenChanged {
				continue
			}
			if _, _, _, err := s.syncDoc(ctx, in, uriToPath(c.URI), false); err != nil {
				if errors.Is(err, fsutil.ErrOutside) {
					continue // a symbolic link leading out: never read, never sent
				}
				return err
			}
			opened++
		}
	}
	return in.notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": changes})
}

// leadingIncludes returns the #include and #import lines of a C-family
// text's preamble: the directives, comments and blank lines it starts
// with, whose includes clangd builds once and reuses until they change.
func leadingIncludes(text []byte) []string {
	var out []string
	inComment, continued := false, false
	for line := range bytes.Lines(text) {
		l := strings.TrimSpace(string(line))
		wasContinued := continued
		continued = strings.HasSuffix(l, "\\")
		switch {
		case inComment:
			if i := strings.Index(l, "*/"); i >= 0 {
				inComment = false
				if rest := strings.TrimSpace(l[i+2:]); rest != "" && !strings.HasPrefix(rest, "//") {
					return out
				}
			}
		case wasContinued, l == "", strings.HasPrefix(l, "//"):
		case strings.HasPrefix(l, "/*"):
			inComment = !strings.Contains(l[2:], "*/")
		case strings.HasPrefix(l, "#"):
			if name, ok := includeTarget(l); ok {
				out = append(out, name)
			}
		default:
			return out
		}
	}
	return out
}

// includeTarget returns the "name" or <name> that an #include,
// #include_next or #import line names, without what follows it.
func includeTarget(line string) (string, bool) {
	d := strings.TrimSpace(strings.TrimPrefix(line, "#"))
	for _, kw := range []string{"include_next", "include", "import"} {
		if rest, ok := strings.CutPrefix(d, kw); ok {
			rest = strings.TrimSpace(rest)
			if rest == "" {
				return "", false
			}
			end := map[byte]byte{'"': '"', '<': '>'}[rest[0]]
			if end == 0 {
				return kw + " " + rest, true // a macro: compared whole
			}
			if i := strings.IndexByte(rest[1:], end); i >= 0 {
				return rest[:i+2], true
			}
			return rest, true
		}
	}
	return "", false
}
