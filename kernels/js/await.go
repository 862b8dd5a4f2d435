package js

import "errors"
import "sort"
import "strings"

import "github.com/dop251/goja"
import "github.com/dop251/goja/ast"
import "github.com/dop251/goja/file"
import "github.com/dop251/goja/parser"

import "github.com/tetherhq/tether/kernels"

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
// does not parse that way either. Then asyncErr, when not nil, is why the
// async reading failed, placed in the cell: for a cell that awaits, a better
// error than the script reading's, in which await is an identifier (node
// reports "Unexpected token '.'" on line 2 of `await f()\n/x/.test(s)`,
// not "Unexpected identifier" after the await).
func compileAwait(name, code string) (prog *goja.Program, src *cellSource, ok bool, asyncErr error) {
	if !strings.Contains(code, "await") {
		return nil, nil, false, nil
	}
	wrapped := awaitPrefix + code + "\n})()"
	prg, err := parser.ParseFile(nil, name, wrapped, 0)
	if err != nil {
		return nil, nil, false, inCell(err, strings.Count(code, "\n")+1)
	}
	if len(prg.Body) != 1 {
		return nil, nil, false, nil
	}
	st, isExpr := prg.Body[0].(*ast.ExpressionStatement)
	if !isExpr {
		return nil, nil, false, nil
	}
	call, isCall := st.Expression.(*ast.CallExpression)
	if !isCall {
		return nil, nil, false, nil
	}
	fn, isFn := call.Callee.(*ast.FunctionLiteral)
	if !isFn || fn.Body == nil {
		return nil, nil, false, nil
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
		// First in the list, so applied last at its spot: a declaration
		// opening the cell replaces its keyword there before the copies
		// are inserted in front of it (applied first, the replacement
		// would eat the copies' first letters).
		edits = append([]edit{{at: len(awaitPrefix), with: strings.Join(hoist, " ")}}, edits...)
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
			return nil, nil, false, nil
		}
		out = out[:e.at] + e.with + out[e.at+e.n:]
	}
	p, err := goja.Compile(name, out, false)
	if err != nil {
		return nil, nil, false, nil
	}
	return p, newCellSource(code, out, len(awaitPrefix), edits), true, nil
}

// inCell places a parse error of the wrapped cell in the cell's own lines:
// the wrapper's opening shares the first line. An error past the cell's
// last line (in the wrapper's closing: an unclosed block) is not the cell's
// to report, and inCell returns nil.
func inCell(err error, lines int) error {
	var list parser.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return nil
	}
	e := *list[0]
	if e.Position.Line > lines {
		return nil
	}
	if e.Position.Line == 1 {
		e.Position.Column = max(e.Position.Column-len(awaitPrefix), 1)
	}
	return parser.ErrorList{&e}
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
