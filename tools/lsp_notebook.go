package tools

import "context"
import "errors"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/search/inject"

// Diagnostics on write for Jupyter notebooks. No language server reads an
// .ipynb, so a notebook's code cells are checked as one Python document,
// in order, as a run from the top would see them (ipynb.Program), by the
// server of .py files (pyright) without writing it anywhere
// (lsp.Supervisor.DiagnoseText); each diagnostic is then placed in its
// cell. The rest is every file's path: the same baseline, registry of
// what was reported, and report.

// notebookPrelude declares what IPython puts in a notebook's namespace,
// so that a checker does not call it undefined (nor get_ipython() None).
// Diagnostics on its lines are dropped.
const notebookPrelude = "from typing import Any as __tether_Any\n" +
	"def display(*objs: __tether_Any, **kwargs: __tether_Any) -> None: ...\n" +
	"def get_ipython() -> __tether_Any: ...\n"

// unusedExpression is pyright's rule for an expression statement whose
// value is unused: the last one of a cell is what Jupyter shows.
const unusedExpression = "reportUnusedExpression"

// topLevelAwait are pyright's messages (they have no rule) for await,
// async for and async with outside an async function: valid at a cell's
// top level, which IPython runs as a coroutine.
var topLevelAwait = map[string]bool{
	`"await" allowed only within async function`:           true,
	`Use of "async" not allowed outside of async function`: true,
}

// notebookOnly reports whether d, on line of p's text, is an error only
// outside a notebook: a cell's shown last expression, a top-level await.
func notebookOnly(p *ipynb.Program, d lsp.Diagnostic) bool {
	switch {
	case d.Code == unusedExpression:
		return p.InLastStatement(d.Line)
	case d.Code == "" && topLevelAwait[d.Message]:
		return !p.InFunction(d.Line)
	}
	return false
}

// errNotPythonNotebook is wrapped for a notebook of another language.
var errNotPythonNotebook = errors.New("only Python notebooks' code is checked")

// diagnoseNotebook returns the diagnostics of the code cells of the
// notebook at key whose text is data, each placed in its cell (Cell, and
// Line in the cell's source).
func (l *lspTools) diagnoseNotebook(ctx context.Context, key string, data []byte) (*lsp.Diagnostics, error) {
	nb, err := ipynb.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", key, err)
	}
	if lang := strings.ToLower(nb.Language); lang != "" && lang != "python" {
		return nil, fmt.Errorf("tools: %s is a %s notebook: %w", key, nb.Language, errNotPythonNotebook)
	}
	p := nb.Program(notebookPrelude)
	d, err := l.sup.DiagnoseText(ctx, key, ".py", []byte(p.Text))
	if err != nil {
		return nil, err
	}
	out := *d
	out.Items = nil
	for _, it := range d.Items {
		cell, line, ok := p.Place(it.Line)
		if !ok || notebookOnly(p, it) {
			continue
		}
		it.Cell, it.Line = &cell, line
		out.Items = append(out.Items, it)
	}
	return &out, nil
}

// diagnoseNow returns the diagnostics of the file at key as it is now
// (text, read by the caller): a notebook's cells, or what its server says.
func (l *lspTools) diagnoseNow(ctx context.Context, key string, text []byte) (*lsp.Diagnostics, error) {
	if inject.IsNotebook(key) {
		return l.diagnoseNotebook(ctx, key, text)
	}
	return l.sup.Diagnostics(ctx, key)
}

// diagnoseWritten returns the diagnostics of file just written: a
// notebook's cells, or its server's after the write is synced and saved
// through it (lsp.Supervisor.AfterWrite).
func (l *lspTools) diagnoseWritten(ctx context.Context, file string) (*lsp.Diagnostics, error) {
	return l.diagnoseOnDisk(ctx, file, l.sup.AfterWrite)
}

// diagnoseFileNow returns the diagnostics of file as it is on disk, for
// lsp diagnostics: a notebook's cells, or its server's.
func (l *lspTools) diagnoseFileNow(ctx context.Context, file string) (*lsp.Diagnostics, error) {
	return l.diagnoseOnDisk(ctx, file, l.sup.Diagnostics)
}

// diagnoseOnDisk diagnoses a notebook's cells as its file holds them, and
// any other file with server.
func (l *lspTools) diagnoseOnDisk(ctx context.Context, file string, server func(context.Context, string) (*lsp.Diagnostics, error)) (*lsp.Diagnostics, error) {
	if !inject.IsNotebook(file) || l.root == nil {
		return server(ctx, file)
	}
	key := l.seenPath(file)
	data, err := l.root.ReadFile(key)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", key, l.run.relErr(err))
	}
	return l.diagnoseNotebook(ctx, key, data)
}
