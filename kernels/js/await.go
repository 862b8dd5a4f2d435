package js

import (
	"sort"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"

	"github.com/tetherhq/tether/kernels"
)

// Top-level await, as node's REPL allows it. A cell that does not parse as a
// script but mentions await is run as the body of an async function whose
// promise the kernel waits for. So that the cell still behaves like a script,
// its top-level declarations are turned into assignments to globals (a
// sloppy-mode assignment creates one), its function declarations are copied
// to globals, and its last expression is returned: the echo shows the awaited
// value.

// awaitPrefix opens the wrapper on the cell's first line, so line numbers stay.
const awaitPrefix = "(async function () {"

// edit replaces n bytes at at with with.
type edit struct {
	at, n int
	with  string
	seq   int
}

// compileAwait compiles code as an async cell, or returns ok false when it
// does not parse that way either.
func compileAwait(name, code string) (*goja.Program, *cellSource, bool) {
	if !strings.Contains(code, "await") {
		return nil, nil, false
	}
	wrapped := awaitPrefix + code + "\n})()"
	prg, err := parser.ParseFile(nil, name, wrapped, 0)
	if err != nil || len(prg.Body) != 1 {
		return nil, nil, false
	}
	st, ok := prg.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil, nil, false
	}
	call, ok := st.Expression.(*ast.CallExpression)
	if !ok {
		return nil, nil, false
	}
	fn, ok := call.Callee.(*ast.FunctionLiteral)
	if !ok || fn.Body == nil {
		return nil, nil, false
	}
	base := prg.File.Base()
	off := func(i file.Idx) int { return int(i) - base }
	var edits []edit
	var hoist []string
	body := fn.Body.List
	for i, s := range body {
		switch d := s.(type) {
		case *ast.VariableStatement:
			edits = append(edits, declEdits(wrapped, off(d.Var), "var", d.List, off)...)
		case *ast.LexicalDeclaration:
			kw := "let"
			if strings.HasPrefix(wrapped[off(d.Idx):], "const") {
				kw = "const"
			}
			edits = append(edits, declEdits(wrapped, off(d.Idx), kw, d.List, off)...)
		case *ast.ClassDeclaration:
			c := d.Class
			if c.Name == nil {
				continue
			}
			edits = append(edits, edit{at: off(c.Class), with: ";(" + c.Name.Name.String() + " = "}, edit{at: off(c.RightBrace) + 1, with: ")"})
		case *ast.FunctionDeclaration:
			if d.Function.Name != nil {
				n := d.Function.Name.Name.String()
				hoist = append(hoist, "globalThis."+n+" = "+n+";")
			}
		case *ast.ExpressionStatement:
			if i == len(body)-1 {
				edits = append(edits, edit{at: off(d.Idx0()), with: "return ("}, edit{at: off(d.Idx1()), with: ")"})
			}
		}
	}
	if len(hoist) > 0 {
		edits = append(edits, edit{at: len(awaitPrefix), with: strings.Join(hoist, " ")})
	}
	// Apply from the end. At one spot the edits land in the order they were
	// added (a declarator's value, then the declaration's closing), so the
	// later-added one is applied first.
	for i := range edits {
		edits[i].seq = i
	}
	sort.Slice(edits, func(i, j int) bool {
		if edits[i].at != edits[j].at {
			return edits[i].at > edits[j].at
		}
		return edits[i].seq > edits[j].seq
	})
	out := wrapped
	for _, e := range edits {
		if e.at < 0 || e.at+e.n > len(out) {
			return nil, nil, false
		}
		out = out[:e.at] + e.with + out[e.at+e.n:]
	}
	p, err := goja.Compile(name, out, false)
	if err != nil {
		return nil, nil, false
	}
	return p, newCellSource(code, out, len(awaitPrefix), edits), true
}

// declEdits turns `let a = 1, b` into `;(a = 1, b = undefined)`: the keyword
// becomes the opening, each declarator without a value gets one (a var keeps
// the global's value, as redeclaring a var does), and the closing goes after
// the last declarator.
func declEdits(code string, at int, kw string, list []*ast.Binding, off func(file.Idx) int) []edit {
	if len(list) == 0 || !strings.HasPrefix(code[at:], kw) {
		return nil
	}
	edits := []edit{{at: at, n: len(kw), with: ";("}}
	for _, b := range list {
		if b.Initializer != nil {
			continue
		}
		init := " = undefined"
		if id, ok := b.Target.(*ast.Identifier); ok && kw == "var" {
			init = " = globalThis." + id.Name.String()
		}
		edits = append(edits, edit{at: off(b.Target.Idx1()), with: init})
	}
	return append(edits, edit{at: off(list[len(list)-1].Idx1()), with: ")"})
}

// awaited checks the promise an async cell returned: a rejection is the
// cell's error; a promise still pending waits on something that can never
// settle here (there is no event loop between cells).
func (s *session) awaited(v goja.Value, cell string) *kernels.Error {
	o, ok := v.(*goja.Object)
	if !ok || o.ExportType() != promiseType {
		return nil
	}
	p, ok := o.Export().(*goja.Promise)
	if !ok {
		return nil
	}
	switch p.State() {
	case goja.PromiseStateRejected:
		e := &kernels.Error{Name: "Uncaught", Message: s.inspect(p.Result(), 0, true, nil)}
		if obj, ok := p.Result().(*goja.Object); ok {
			if errorFields(e, obj) {
				if e.Name == "TypeError" {
					s.nodeError(e)
				}
				e.Line = stackLine(e.Traceback, cell)
				e.Traceback = kernels.TrimTraceback(s.fixStack(cleanStack(e.Traceback)), 8<<10)
			}
		}
		return e
	case goja.PromiseStatePending:
		return &kernels.Error{Name: "Error", Message: "kernels: js: the cell awaited a promise that never settled: nothing outside the cell can resolve it here (no timers or I/O between cells)"}
	}
	return nil
}

// stackLine finds the cell line in a goja stack text ("at f (cell-3:2:5(3))").
func stackLine(stack, cell string) int {
	i := strings.Index(stack, cell+":")
	if i < 0 {
		return 0
	}
	rest := stack[i+len(cell)+1:]
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
