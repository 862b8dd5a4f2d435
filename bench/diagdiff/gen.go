package main

import "fmt"
import "math/rand"
import "os"
import "path/filepath"
import "regexp"
import "sort"
import "strings"

// change is one scripted change: the writer that makes it, the arguments
// of the call that applies it and of the one that reverts it, made by
// undoWriter when another writer reverts it.
type change struct {
	kind, writer string
	undoWriter   string
	file         string
	apply, undo  map[string]any
	// what, for the log: the declaration or line changed.
	what string
}

// kinds are the change kinds, each tried in turn from a seeded order.
var kinds = []string{"add-param", "remove-param", "retype-param", "rename", "rename-one-letter", "delete", "import", "new-error", "fix-error", "no-decl"}

// moreKinds are the kinds run only when asked for (-kinds), so that the
// seeded order of kinds, and the changes a seed draws, stay as measured:
// moving a file (rename_file) and a code action of the server (lsp_apply).
var moreKinds = []string{"move-file", "code-action"}

// decl is one function declaration found on one line with its whole
// parameter list.
type decl struct {
	file   string
	line   int // 0-based
	text   string
	name   string
	params string // between the parentheses
	open   int    // byte offset of "(" in text
}

var declRes = map[string]*regexp.Regexp{
	"go":         regexp.MustCompile(`^func (?:\([^)]*\) )?([A-Za-z_]\w*)(?:\[[^\]]*\])?\(`),
	"python":     regexp.MustCompile(`^\s*def ([A-Za-z_]\w*)\(`),
	"typescript": regexp.MustCompile(`^(?:export )?(?:async )?function ([A-Za-z_]\w*)(?:<[^>]*>)?\(`),
	"c":          regexp.MustCompile(`^(?:static )?(?:inline )?(?:const )?[A-Za-z_]\w*(?: \*| |\*)+([A-Za-z_]\w*)\(`),
}

var importRes = map[string]*regexp.Regexp{
	"go":         regexp.MustCompile(`^\t(?:\w+ )?"[\w./-]+"$`),
	"python":     regexp.MustCompile(`^(?:import [\w.]+|from [\w.]+ import [\w, ]+)$`),
	"typescript": regexp.MustCompile(`^import .* from ['"][^'"]+['"];?$`),
	"c":          regexp.MustCompile(`^#\s*include "[^"]+"`),
}

// generator draws changes for one project from a seeded source.
type generator struct {
	p     *project
	rnd   *rand.Rand
	decls []decl
	files map[string][]string // file -> lines
	// errLines are lines holding a checker error from before (for fix-error).
	errLines []string
	n        int
	kinds    []string // the kinds drawn, in turn
}

func newGenerator(p *project, seed int64) (*generator, error) {
	g := &generator{p: p, rnd: rand.New(rand.NewSource(seed)), files: map[string][]string{}, kinds: kinds}
	files, err := p.sources()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if p.src != "" && !strings.HasPrefix(f, p.src+"/") {
			continue
		}
		if strings.Contains(f, "_test.go") || strings.Contains(f, "__tests__") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p.dir, f))
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(b), "\n")
		g.files[f] = lines
		for i, l := range lines {
			m := declRes[p.lang].FindStringSubmatchIndex(l)
			if m == nil || strings.HasPrefix(strings.TrimSpace(l), "return") {
				continue
			}
			open := m[1] - 1
			end := closing(l, open)
			if end < 0 {
				continue
			}
			g.decls = append(g.decls, decl{file: f, line: i, text: l, name: l[m[2]:m[3]], params: l[open+1 : end], open: open})
		}
	}
	if len(g.decls) == 0 {
		return nil, fmt.Errorf("%s: no function declarations found", p.name)
	}
	return g, nil
}

// closing returns the index of the parenthesis closing the one at open.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitParams splits a parameter list at its top-level commas.
func splitParams(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// next returns the next change, of the kind after the last one's in the
// seeded order, or an error when none of any kind could be made.
func (g *generator) next() (change, error) {
	for try := 0; try < 200; try++ {
		kind := g.kinds[(g.n+try/8)%len(g.kinds)]
		if c, ok := g.make(kind); ok {
			g.n++
			return c, nil
		}
	}
	return change{}, fmt.Errorf("%s: no change could be made", g.p.name)
}

func (g *generator) pick() decl { return g.decls[g.rnd.Intn(len(g.decls))] }

// edit makes an edit change replacing old with new in file, old unique.
func (g *generator) edit(kind string, d decl, file, old, new string) (change, bool) {
	text := strings.Join(g.files[file], "\n")
	if old == new || strings.Count(text, old) != 1 || new != "" && strings.Count(text, new) != 0 {
		return change{}, false
	}
	if new == "" {
		// A deletion keeps the lines after it on both sides, as many as
		// make them unique, so that its revert has text to replace.
		rest := text[strings.Index(text, old)+len(old):]
		ctx := ""
		for _, l := range strings.SplitAfter(rest, "\n") {
			ctx += l
			if strings.TrimSpace(ctx) != "" && strings.Count(text, ctx) == 1 {
				break
			}
		}
		if strings.TrimSpace(ctx) == "" || strings.Count(text, ctx) != 1 || len(ctx) > 2000 {
			return change{}, false
		}
		old, new = old+ctx, ctx
	}
	writer := "edit"
	if g.rnd.Intn(3) == 0 && !strings.Contains(old, "\n") {
		writer = "apply_patch"
		return change{kind: kind, writer: writer, file: file, what: d.name,
			apply: map[string]any{"patch": patch(file, old, new)}, undo: map[string]any{"patch": patch(file, new, old)}}, true
	}
	return change{kind: kind, writer: writer, file: file, what: d.name,
		apply: map[string]any{"path": file, "old_string": old, "new_string": new},
		undo:  map[string]any{"path": file, "old_string": new, "new_string": old}}, true
}

// patch is an apply_patch patch replacing the line old with new in file.
func patch(file, old, new string) string {
	return "*** Begin Patch\n*** Update File: " + file + "\n@@\n-" + old + "\n+" + new + "\n*** End Patch"
}

// makers makes a change of each kind from a declaration.
var makers = map[string]func(g *generator, kind string, d decl) (change, bool){
	"add-param":         (*generator).addParam,
	"remove-param":      (*generator).changeParam,
	"retype-param":      (*generator).changeParam,
	"rename":            (*generator).rename,
	"rename-one-letter": (*generator).renameOneLetter,
	"delete":            (*generator).deleteDecl,
	"import":            (*generator).removeImport,
	"new-error":         (*generator).insertLine,
	"no-decl":           (*generator).insertLine,
	"fix-error":         (*generator).fixError,
	"move-file":         (*generator).moveFile,
	"code-action":       (*generator).codeAction,
}

func (g *generator) make(kind string) (change, bool) {
	d := g.pick()
	if mk, ok := makers[kind]; ok {
		return mk(g, kind, d)
	}
	return change{}, false
}

// addParam adds a parameter to d.
func (g *generator) addParam(kind string, d decl) (change, bool) {
	lang := g.p.lang
	params := splitParams(d.params)
	withParams := func(ps []string) string {
		return d.text[:d.open+1] + strings.Join(ps, ", ") + d.text[d.open+1+len(d.params):]
	}
	extra := map[string]string{"go": "benchExtra int", "python": "bench_extra", "typescript": "benchExtra: number", "c": "int bench_extra"}[lang]
	ps := params
	if lang == "c" && len(ps) == 1 && ps[0] == "void" {
		ps = nil
	}
	if lang == "python" && strings.ContainsAny(d.params, "*/=") {
		return change{}, false
	}
	return g.edit(kind, d, d.file, d.text, withParams(append(append([]string{}, ps...), extra)))
}

// changeParam removes or retypes d's last parameter.
func (g *generator) changeParam(kind string, d decl) (change, bool) {
	lang := g.p.lang
	params := splitParams(d.params)
	withParams := func(ps []string) string {
		return d.text[:d.open+1] + strings.Join(ps, ", ") + d.text[d.open+1+len(d.params):]
	}
	if len(params) == 0 || params[0] == "void" {
		return change{}, false
	}
	last := params[len(params)-1]
	if lang == "python" && (strings.ContainsAny(last, "*=/") || last == "self" || last == "cls") {
		return change{}, false
	}
	if lang == "go" && !strings.Contains(last, " ") {
		return change{}, false
	}
	if kind == "remove-param" {
		return g.edit(kind, d, d.file, d.text, withParams(params[:len(params)-1]))
	}
	name := strings.Fields(last)[0]
	switch lang {
	case "go":
		last = name + " complex128"
	case "python":
		last = strings.SplitN(last, ":", 2)[0] + ": bytes"
	case "typescript":
		last = strings.TrimSuffix(strings.SplitN(last, ":", 2)[0], "?") + ": symbol"
	case "c":
		f := strings.FieldsFunc(last, func(r rune) bool { return r == ' ' || r == '*' })
		last = "struct bench_none *" + f[len(f)-1]
	}
	return g.edit(kind, d, d.file, d.text, withParams(append(append([]string{}, params[:len(params)-1]...), last)))
}

// rename renames d by lsp_rename, or by ast_edit of every use in its file.
func (g *generator) rename(kind string, d decl) (change, bool) {
	lang := g.p.lang
	if len(d.name) < 3 || strings.HasPrefix(d.name, "__") {
		return change{}, false
	}
	to := d.name + "Bench"
	if g.rnd.Intn(2) == 0 {
		// Every use in the declaration's file, by ast_edit staged and
		// accepted with resolve: the uses in other files break.
		text := strings.Join(g.files[d.file], "\n")
		if strings.Contains(text, to) {
			return change{}, false
		}
		lid := map[string]string{"go": "go", "python": "python", "typescript": "typescript", "c": "c"}[lang]
		return change{kind: kind, writer: "ast_edit", file: d.file, what: d.name,
			apply: map[string]any{"pattern": d.name, "rewrite": to, "path": d.file, "language": lid},
			undo:  map[string]any{"pattern": to, "rewrite": d.name, "path": d.file, "language": lid}}, true
	}
	return change{kind: kind, writer: "lsp_rename", file: d.file, what: d.name,
		apply: map[string]any{"file": d.file, "line": d.line + 1, "symbol": d.name, "new_name": to},
		undo:  map[string]any{"file": d.file, "line": d.line + 1, "symbol": to, "new_name": d.name}}, true
}

// renameOneLetter gives d a one-letter name (its callers break); the
// revert changes the one-letter name back.
func (g *generator) renameOneLetter(kind string, d decl) (change, bool) {
	if strings.Count(d.text, d.name+"(") != 1 {
		return change{}, false
	}
	return g.edit(kind, d, d.file, d.text, strings.Replace(d.text, d.name+"(", "q(", 1))
}

// deleteDecl deletes d.
func (g *generator) deleteDecl(kind string, d decl) (change, bool) {
	lang := g.p.lang
	lines := g.files[d.file]
	end := blockEnd(lang, lines, d.line)
	if end < 0 || end-d.line > 60 {
		return change{}, false
	}
	old := strings.Join(lines[d.line:end+1], "\n")
	return g.edit(kind, d, d.file, old+"\n", "")
}

// removeImport deletes an import line of the project.
func (g *generator) removeImport(kind string, d decl) (change, bool) {
	lang := g.p.lang
	var cands []string
	for f, lines := range g.files {
		for _, l := range lines {
			if importRes[lang].MatchString(l) {
				cands = append(cands, f+"\x00"+l)
			}
		}
	}
	if len(cands) == 0 {
		return change{}, false
	}
	sort.Strings(cands)
	f, l, _ := strings.Cut(cands[g.rnd.Intn(len(cands))], "\x00")
	return g.edit(kind, decl{name: strings.TrimSpace(l)}, f, l+"\n", "")
}

// insertLine puts a new type error (new-error) or a comment (no-decl) at
// the top of d's body.
func (g *generator) insertLine(kind string, d decl) (change, bool) {
	lang := g.p.lang
	lines := g.files[d.file]
	if d.line+1 >= len(lines) {
		return change{}, false
	}
	body := lines[d.line+1]
	if lang != "python" && !strings.HasSuffix(strings.TrimSpace(d.text), "{") || lang == "python" && !strings.HasSuffix(strings.TrimSpace(d.text), ":") {
		return change{}, false
	}
	indent := body[:len(body)-len(strings.TrimLeft(body, " \t"))]
	if strings.TrimSpace(body) == "" || indent == "" {
		return change{}, false
	}
	ins := map[string]string{"go": `var benchBad int = "x"; _ = benchBad`, "python": `bench_bad: int = "x"`,
		"typescript": `const benchBad: number = "x"; void benchBad;`, "c": `int bench_bad = "x"; (void)bench_bad;`}[lang]
	if kind == "no-decl" {
		ins = map[string]string{"python": "# checked by the harness"}[lang]
		if ins == "" {
			ins = "// checked by the harness"
		}
	}
	return g.edit(kind, d, d.file, d.text+"\n"+body, d.text+"\n"+indent+ins+"\n"+body)
}

// fixError silences an old error with a comment the checker honours.
func (g *generator) fixError(kind string, d decl) (change, bool) {
	lang := g.p.lang
	if len(g.errLines) == 0 || lang == "go" || lang == "c" {
		return change{}, false
	}
	f, l, _ := strings.Cut(g.errLines[g.rnd.Intn(len(g.errLines))], "\x00")
	fixed := l + "  # type: ignore"
	if lang == "typescript" {
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		fixed = indent + "// @ts-ignore\n" + l
	}
	return g.edit(kind, decl{name: strings.TrimSpace(l)}, f, l, fixed)
}

// blockEnd returns the last line of the declaration starting at line.
func blockEnd(lang string, lines []string, line int) int {
	if lang == "python" {
		indent := len(lines[line]) - len(strings.TrimLeft(lines[line], " "))
		end := line
		for i := line + 1; i < len(lines); i++ {
			l := lines[i]
			if strings.TrimSpace(l) == "" {
				continue
			}
			if len(l)-len(strings.TrimLeft(l, " ")) <= indent {
				break
			}
			end = i
		}
		return end
	}
	if !strings.HasSuffix(strings.TrimSpace(lines[line]), "{") {
		return -1
	}
	for i := line + 1; i < len(lines); i++ {
		if lines[i] == "}" {
			return i
		}
	}
	return -1
}

// setErrLines records the lines holding a checker error from before whose
// text is unique in its file (a fix-error change silences one).
func (g *generator) setErrLines(lines []string) { g.errLines = lines }

// moveFile moves d's file beside itself under another name by
// rename_file, which updates its importers where the server gives the
// edits (typescript-language-server) and else leaves them broken
// (pyright); the revert moves it back. Not C: the compile database names
// each source by its path, so a moved one is compiled by neither side.
func (g *generator) moveFile(kind string, d decl) (change, bool) {
	if g.p.lang == "c" {
		return change{}, false
	}
	ext := filepath.Ext(d.file)
	base := strings.TrimSuffix(d.file, ext)
	if strings.HasSuffix(base, "_test") || strings.HasSuffix(base, ".test") || filepath.Base(base) == "__init__" || filepath.Base(base) == "index" {
		return change{}, false
	}
	to := base + "_moved" + ext
	if _, taken := g.files[to]; taken {
		return change{}, false
	}
	return change{kind: kind, writer: "rename_file", file: d.file, what: d.file + " -> " + to,
		apply: map[string]any{"from": d.file, "to": to}, undo: map[string]any{"from": to, "to": d.file}}, true
}

// codeAction applies a refactoring the server offers on d's declaration
// line by lsp_apply, accepted with resolve: gopls splits a parameter list
// over lines, tsserver writes out an inferred return type. The revert
// writes the file's text back (write). pyright offers no refactoring and
// clangd none on a C declaration.
func (g *generator) codeAction(kind string, d decl) (change, bool) {
	params := splitParams(d.params)
	var action, symbol string
	switch g.p.lang {
	case "go":
		if len(params) < 2 {
			return change{}, false
		}
		action, symbol = "refactor.rewrite.splitLines", strings.Fields(params[0])[0]
	case "typescript":
		rest := strings.TrimSpace(d.text[d.open+1+len(d.params):])
		if !strings.HasPrefix(rest, ") {") {
			return change{}, false // has a return type already
		}
		action, symbol = "refactor.rewrite.function.returnType", d.name
	default:
		return change{}, false
	}
	text := strings.Join(g.files[d.file], "\n")
	return change{kind: kind, writer: "lsp_apply", undoWriter: "write", file: d.file, what: d.name,
		apply: map[string]any{"file": d.file, "line": d.line + 1, "symbol": symbol, "action": action},
		undo:  map[string]any{"path": d.file, "content": text}}, true
}
