package tools_test

import "context"
import "encoding/json"
import "errors"
import "go/ast"
import "go/parser"
import "go/token"
import "io/fs"
import "reflect"
import "strings"
import "testing"

import "github.com/tetherhq/tether/tools"

// TestOneDoor: an embedder reaches a tool only through Run.Call, under the
// run's surface, policy and approver. Nothing a Run's exported methods
// return carries a handler, a preview or a registry (walked by
// reflection); no exported function or method of the package hands out a
// tool, a handler or a registry but Typed, which returns the caller's own
// tool; and a tool an embedder registers is itself called only under the
// run's guard.
func TestOneDoor(t *testing.T) {
	t.Run("nothing a run returns can call a tool", func(t *testing.T) {
		seen := map[reflect.Type]bool{}
		var walk func(path string, ty reflect.Type)
		walk = func(path string, ty reflect.Type) {
			if seen[ty] {
				return
			}
			seen[ty] = true
			if ty == reflect.TypeFor[tools.Tool]() || ty == reflect.TypeFor[tools.Handler]() {
				t.Errorf("%s is a %s: a way to call a tool past the run's guard", path, ty)
				return
			}
			if ty.Kind() == reflect.Func {
				for i := range ty.NumIn() {
					if ty.In(i) == reflect.TypeFor[*tools.Call]() {
						t.Errorf("%s is a %s: it runs a call past the run's guard", path, ty)
					}
				}
				return
			}
			// Only the package's own types are walked: the resources a
			// caller wired (an lsp.Supervisor) are its own already.
			if ty.PkgPath() != "" && ty.PkgPath() != reflect.TypeFor[tools.Run]().PkgPath() {
				return
			}
			if ty.Name() != "" && strings.EqualFold(ty.Name(), "registry") {
				t.Errorf("%s is the run's registry", path)
			}
			switch ty.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map, reflect.Chan:
				walk(path+"[elem]", ty.Elem())
			case reflect.Struct:
				for _, f := range reflect.VisibleFields(ty) {
					if f.IsExported() {
						walk(path+"."+f.Name, f.Type)
					}
				}
			}
			for i := range ty.NumMethod() {
				m := ty.Method(i)
				for j := range m.Type.NumOut() {
					walk(path+"."+m.Name+"()", m.Type.Out(j))
				}
			}
		}
		walk("*Run", reflect.TypeFor[*tools.Run]())
		if len(seen) < 10 {
			t.Fatalf("walked only %d types: the walk is broken", len(seen))
		}
	})

	t.Run("no exported function hands out a tool", func(t *testing.T) {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		doors := map[string]bool{"Tool": true, "Handler": true, "registry": true, "guard": true, "middleware": true}
		checked := 0
		for _, f := range pkgs["tools"].Files {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || !fn.Name.IsExported() || fn.Type.Results == nil {
					continue
				}
				if fn.Recv != nil && !ast.IsExported(receiverName(fn.Recv.List[0].Type)) {
					continue
				}
				checked++
				name := fn.Name.Name
				if fn.Recv != nil {
					name = receiverName(fn.Recv.List[0].Type) + "." + name
				}
				if name == "Typed" { // returns the caller's own tool, made typed
					continue
				}
				for _, r := range fn.Type.Results.List {
					ast.Inspect(r.Type, func(n ast.Node) bool {
						if id, ok := n.(*ast.Ident); ok && doors[id.Name] {
							t.Errorf("%s returns %s: a way to a tool past the run's guard", name, id.Name)
						}
						return true
					})
				}
			}
		}
		if checked < 20 {
			t.Fatalf("checked only %d exported functions: the parse is broken", checked)
		}
	})

	t.Run("an embedder's tool is guarded too", func(t *testing.T) {
		ran := 0
		run := startRun(t, tools.Config{WorkDir: t.TempDir(), Policy: tools.PolicyOf(tools.Deny)})
		err := run.Register(tools.Tool{Name: "host_write", Tier: tools.TierWrite, Handler: func(context.Context, *tools.Call) (*tools.Result, error) {
			ran++
			return tools.Text("wrote"), nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		info, ok := run.Lookup("host_write")
		if !ok || info.Tier != tools.TierWrite {
			t.Fatalf("Lookup = %+v, %v", info, ok)
		}
		if _, err := run.Call(context.Background(), "host_write", json.RawMessage(`{}`), tools.FromModel); !errors.Is(err, tools.ErrDenied) || ran != 0 {
			t.Errorf("a denied call: %v, ran %d times", err, ran)
		}
		if err := run.Register(tools.Tool{Name: "read", Tier: tools.TierRead, Handler: func(context.Context, *tools.Call) (*tools.Result, error) { return nil, nil }}); err == nil {
			t.Error("an embedder's tool replaced the run's own read")
		}
	})
}

// receiverName is the type name of a method's receiver (T or *T).
func receiverName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverName(e.X)
	case *ast.IndexExpr:
		return receiverName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}
