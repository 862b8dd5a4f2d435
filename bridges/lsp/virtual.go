package lsp

import "context"
import "errors"
import "fmt"
import "path/filepath"
import "sync/atomic"

// ErrNoPull is wrapped by DiagnoseText when the server of the text's
// language does not answer pulls: nothing else tells when it is done with
// a document that is not on disk.
var ErrNoPull = errors.New("lsp: the server does not answer diagnostic pulls")

// virtualSeq numbers the documents DiagnoseText opens, so that two at once
// never share a URI.
var virtualSeq atomic.Int64

// DiagnoseText returns the diagnostics of text as a document of the
// language whose files end in ext (".py") beside host, a workspace file
// (a notebook whose code cells text holds): the document is opened in that
// language's server at a path in host's directory that no file has and
// nothing writes, so that imports resolve as host's would; its whole set
// is asked for (textDocument/diagnostic: the wait ends on the server's
// answer); and it is closed. The diagnostics carry host as their Path, and
// Line and Col in text. The error wraps ErrNoLanguage when no server
// serves ext, ErrNoServer when one would but cannot start here, and
// ErrNoPull when it does not answer pulls.
func (s *Supervisor) DiagnoseText(ctx context.Context, host, ext string, text []byte) (*Diagnostics, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	hostPath, err := s.abs(host)
	if err != nil {
		return nil, err
	}
	// A name no module can be imported by (it holds dots), so that no
	// other document sees it; numbered, so that two never meet.
	path := filepath.Join(filepath.Dir(hostPath), fmt.Sprintf("%s.%d.tether%s", filepath.Base(hostPath), virtualSeq.Add(1), ext))
	spec, err := s.specFor(path)
	if err != nil {
		return nil, fmt.Errorf("%w: no server in the table serves %s files", ErrNoLanguage, ext)
	}
	if !spec.PullDiagnostics {
		return nil, fmt.Errorf("%w: %s, which serves %s files, publishes its diagnostics, and nothing tells when it is done with a document that is not on disk", ErrNoPull, spec.Name, ext)
	}
	in, notes, err := s.acquire(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := s.ready(ctx, in); err != nil {
		return nil, s.failed(in, err, notes)
	}
	// The files text imports as they are on disk now.
	if err := s.resyncOpen(ctx, in); err != nil {
		return nil, s.failed(in, err, notes)
	}
	uri := pathToURI(path)
	if err := in.notify(ctx, "textDocument/didOpen", wDidOpenParams{TextDocument: wTextDocumentItem{
		URI: uri, LanguageID: in.spec.languageID(path), Version: 1, Text: string(text)}}); err != nil {
		return nil, s.failed(in, err, notes)
	}
	ds, err := s.pullDiagnostics(ctx, in, path)
	// Closed whatever the answer: nothing of it stays in the server.
	closeErr := in.notify(context.WithoutCancel(ctx), "textDocument/didClose", wDidCloseParams{TextDocument: wTextDocumentIdentifier{URI: uri}})
	if err != nil {
		return nil, s.failed(in, fmt.Errorf("lsp: the code of %s, opened in %s as a document of its own: %w", s.rel(hostPath), in.spec.Name, err), notes)
	}
	if closeErr != nil {
		return nil, s.failed(in, closeErr, notes)
	}
	files := fileCache{path: {text: text, starts: lineStarts(text)}}
	out := &Diagnostics{Ready: true, Notes: notes}
	for _, d := range ds {
		item := s.diagnostic(files, in.enc, uri, d)
		item.Path = s.rel(hostPath)
		out.Items = append(out.Items, item)
	}
	sortDiagnostics(out.Items)
	return out, nil
}
