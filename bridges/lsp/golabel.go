package lsp

import "bytes"
import "go/ast"
import "go/parser"
import "go/token"
import "path"
import "path/filepath"
import "strings"

// Go call hierarchy labels. gopls labels an incoming call's caller with the
// package of the function asked about ("example.com/m/internal/util •
// server.go" for a caller in package auth) and names a method without its
// receiver ("ServeHTTP"). Each Go item is labelled again from its own file:
// the name with its receiver ("(*Server).ServeHTTP", kind method), and the detail with
// the import path of the package the file is in.

// goLabels caches, per file, its package's import path and its functions'
// names with receivers by the line of their name.
type goLabels map[string]*goFileLabels

type goFileLabels struct {
	pkg   string
	names map[int]string // 1-based line of a function's name -> its label
	short map[int]string // the same line -> the name gopls gives
}

// goLabel relabels h, a hierarchy item of a Go file (absolute path abs).
func (s *Supervisor) goLabel(cache goLabels, abs string, h *HierarchyItem) {
	fl, ok := cache[abs]
	if !ok {
		fl = s.readGoLabels(abs)
		cache[abs] = fl
	}
	if fl == nil {
		return
	}
	if full, ok := fl.names[h.Location.Line]; ok && fl.short[h.Location.Line] == h.Name && full != h.Name {
		h.Name, h.Kind = full, "method"
	}
	if fl.pkg != "" {
		h.Detail = fl.pkg + " • " + filepath.Base(abs)
	}
}

// readGoLabels reads the Go file at abs; nil when it cannot be read or
// parsed.
func (s *Supervisor) readGoLabels(abs string) *goFileLabels {
	src, err := s.root.ReadFile(abs)
	if err != nil {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, abs, src, parser.SkipObjectResolution)
	if f == nil || f.Name == nil {
		return nil
	}
	_ = err // a file with a syntax error still has the declarations before it
	fl := &goFileLabels{names: map[int]string{}, short: map[int]string{}}
	fl.pkg = s.goImportPath(filepath.Dir(abs), f.Name.Name)
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name == nil {
			continue
		}
		line := fset.Position(fd.Name.Pos()).Line
		fl.short[line] = fd.Name.Name
		fl.names[line] = fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			fl.names[line] = "(" + recvType(fd.Recv.List[0].Type) + ")." + fd.Name.Name
		}
	}
	return fl
}

// recvType writes a receiver's type as Go does in a method expression:
// "*Server", "handler", "*List[T]".
func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + recvType(t.X)
	case *ast.ParenExpr:
		return recvType(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvType(t.X) + "[" + recvType(t.Index) + "]"
	case *ast.IndexListExpr:
		var ps []string
		for _, i := range t.Indices {
			ps = append(ps, recvType(i))
		}
		return recvType(t.X) + "[" + strings.Join(ps, ", ") + "]"
	}
	return "?"
}

// goImportPath is the import path of the package in dir: the module path
// of the nearest go.mod above it (inside the workspace) joined with dir's
// place under it; the package name when there is none.
func (s *Supervisor) goImportPath(dir, name string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if r, err := filepath.Rel(s.workdir, d); err != nil || strings.HasPrefix(r, "..") {
			return name
		}
		if mod, err := s.root.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			mp := modulePath(mod)
			if mp == "" {
				return name
			}
			rel, _ := filepath.Rel(d, dir)
			if rel == "." {
				return mp
			}
			return path.Join(mp, filepath.ToSlash(rel))
		}
		if d == s.workdir || filepath.Dir(d) == d {
			return name
		}
	}
}

// modulePath reads the module line of a go.mod.
func modulePath(mod []byte) string {
	for _, l := range bytes.Split(mod, []byte("\n")) {
		f := strings.Fields(string(l))
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`")
		}
	}
	return ""
}
