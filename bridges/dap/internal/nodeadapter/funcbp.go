package nodeadapter

import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "sort"
import "strings"
import "sync"
import "unicode/utf16"

import godap "github.com/google/go-dap"

// Function breakpoints. The inspector has none by name
// (Debugger.setBreakpointOnFunctionCall wants a function object, which a
// function local to a module, or not yet defined, does not have), so a
// name is looked up in the sources: those of the scripts node has loaded
// and the JavaScript files of the project and the scratch dir (what a
// launch will load). Each declaration found gets a breakpoint at its
// body's first statement, set by URL so it binds when node loads the file.

// funcSource is one source searched for a function: a file path and its
// text.
type funcSource struct {
	path string
	text string
}

// maxFuncFiles and maxFuncFileSize bound the project files one lookup reads.
const (
	maxFuncFiles    = 2000
	maxFuncFileSize = 1 << 20
)

// setFunctionBreakpoints replaces the function breakpoints.
func (a *adapter) setFunctionBreakpoints(args godap.SetFunctionBreakpointsArguments) (*godap.SetFunctionBreakpointsResponse, error) {
	a.bpMu.Lock()
	defer a.bpMu.Unlock()
	a.mu.Lock()
	old := a.funcBPs
	a.funcBPs = nil
	clear(a.funcIDs)
	a.mu.Unlock()
	a.removeBPs(old)
	out := []godap.Breakpoint{}
	if len(args.Breakpoints) == 0 {
		return &godap.SetFunctionBreakpointsResponse{Body: godap.SetFunctionBreakpointsResponseBody{Breakpoints: out}}, nil
	}
	sources := a.funcSources()
	seen := map[string]bool{}
	for _, s := range sources {
		seen[s.path] = true
	}
	var reqs []funcReq
	defer func() {
		a.mu.Lock()
		a.funcReqs, a.funcSeen = reqs, seen
		a.mu.Unlock()
	}()
	for _, fb := range args.Breakpoints {
		a.mu.Lock()
		a.nextBP++
		n := a.nextBP
		a.funcIDs[n] = true
		a.mu.Unlock()
		bp := godap.Breakpoint{Id: n}
		cond, err := breakpointCondition(n, godap.SourceBreakpoint{Condition: fb.Condition, HitCondition: fb.HitCondition})
		if err != nil {
			bp.Message = err.Error()
		} else {
			a.setFunctionBP(fb.Name, cond, sources, &bp)
			if !bp.Verified {
				a.setOnFunctionObject(fb.Name, cond, &bp)
			}
			reqs = append(reqs, funcReq{name: fb.Name, cond: cond, id: n, verified: bp.Verified})
		}
		out = append(out, bp)
	}
	return &godap.SetFunctionBreakpointsResponse{Body: godap.SetFunctionBreakpointsResponseBody{Breakpoints: out}}, nil
}

// setFunctionBP sets breakpoint bp (its id set) at each declaration of the
// function name in sources and says where: the first place in bp's source
// and line (through a source map when one is known), every place in its
// message when there are more.
func (a *adapter) setFunctionBP(name, cond string, sources []funcSource, bp *godap.Breakpoint) {
	var places []string
	for _, src := range sources {
		for _, off := range findFunction(src.text, name) {
			line, col := lineCol(src.text, off)
			r, err := a.setByURLRaw(src.path, line, col, cond)
			if err != nil {
				bp.Message = err.Error()
				continue
			}
			a.mu.Lock()
			a.funcBPs = append(a.funcBPs, r)
			a.bpByID[r] = bp.Id
			a.mu.Unlock()
			path, l := src.path, line+1
			if m := a.mapFor(src.path); m != nil {
				if f, ol, _, ok := m.Original(line, col); ok {
					path, l = f, ol+1
				}
			}
			if len(places) == 0 {
				bp.Verified, bp.Line = true, l
				bp.Source = &godap.Source{Name: filepath.Base(path), Path: path}
			}
			places = append(places, fmt.Sprintf("%s:%d", relTo(a.cfg.Root, path), l))
		}
	}
	switch {
	case len(places) > 1:
		bp.Message = fmt.Sprintf("function %s is declared in %d places, each has the breakpoint: %s", name, len(places), strings.Join(places, ", "))
	case len(places) == 0 && bp.Message == "":
		bp.Message = fmt.Sprintf("no function %s in the %d sources searched (the scripts node has loaded and the project's JavaScript files, node_modules left out; a script node loads later is searched when it does); node has no breakpoints by function name, so tether looks the name up: give a function declaration's name, a name assigned a function or arrow (name = function, name: () =>), or Class.method, or set a line breakpoint in it", name, len(sources))
	}
}

// identPath matches a name, or names joined by dots (Class.method,
// globalThis.hook): what a function breakpoint may evaluate.
var identPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$`) })

// setOnFunctionObject sets breakpoint bp on the function name evaluates to
// in the running program's global scope, when the sources declare none of
// that name (a function made with new Function or by eval, a global
// assigned from elsewhere): the inspector stops at its next call. The
// evaluation is refused if it would change the program (a getter).
func (a *adapter) setOnFunctionObject(name, cond string, bp *godap.Breakpoint) {
	if !a.launched || !identPath().MatchString(name) {
		return
	}
	var r evalResult
	err := a.call("Runtime.evaluate", evaluateParams{Expression: name, ThrowOnSideEffect: true, Silent: true}, &r)
	if err != nil || r.ExceptionDetails != nil || r.Result.Type != "function" || r.Result.ObjectID == "" {
		return
	}
	var set struct {
		BreakpointID string `json:"breakpointId"`
	}
	if err := a.call("Debugger.setBreakpointOnFunctionCall", functionCallBPParams{ObjectID: r.Result.ObjectID, Condition: cond}, &set); err != nil {
		bp.Message = err.Error()
		return
	}
	a.mu.Lock()
	a.funcBPs = append(a.funcBPs, set.BreakpointID)
	a.bpByID[set.BreakpointID] = bp.Id
	a.mu.Unlock()
	bp.Verified = true
	bp.Message = fmt.Sprintf("no declaration of %s in the sources; set on the function it evaluates to in the program's global scope", name)
	if loc, ok := a.functionLocation(r.Result.ObjectID); ok {
		if path, base, line, _ := a.place(loc); path != "" {
			bp.Source, bp.Line = &godap.Source{Name: base, Path: path}, line
		}
	}
}

// functionLocation is where a function object's code is
// ([[FunctionLocation]]).
func (a *adapter) functionLocation(objectID string) (cdpLocation, bool) {
	var r struct {
		Internal []struct {
			Name  string `json:"name"`
			Value struct {
				Value cdpLocation `json:"value"`
			} `json:"value"`
		} `json:"internalProperties"`
	}
	if a.call("Runtime.getProperties", getPropertiesParams{ObjectID: objectID, OwnProperties: true}, &r) != nil {
		return cdpLocation{}, false
	}
	for _, p := range r.Internal {
		if p.Name == "[[FunctionLocation]]" {
			return p.Value.Value, true
		}
	}
	return cdpLocation{}, false
}

// funcReq is one function breakpoint as the client set it: its name, its
// condition, its DAP id, and whether a declaration of it was found.
type funcReq struct {
	name, cond string
	id         int
	verified   bool
}

// laterScript looks the function breakpoints up in a script node loaded
// after they were set, from a file not searched then (one outside the
// project, loaded lazily), and sets them there. The script may run before
// that is done: a call made at once may be missed, later ones stop.
func (a *adapter) laterScript(sp scriptParsed) {
	p := a.scriptFile(sp.URL)
	a.mu.Lock()
	want := len(a.funcReqs) > 0 && p != "" && !a.funcSeen[p] && !a.isRelay(p) && !strings.Contains(p, "/node_modules/")
	if want {
		a.funcSeen[p] = true
	}
	a.mu.Unlock()
	if want {
		go a.bindFunctionsIn(sp.ScriptID, p)
	}
}

// bindFunctionsIn sets the function breakpoints declared in script id
// (from file path), and tells the client of each found for the first time.
func (a *adapter) bindFunctionsIn(id, path string) {
	var r struct {
		ScriptSource string `json:"scriptSource"`
	}
	if a.call("Debugger.getScriptSource", scriptSourceParams{ScriptID: id}, &r) != nil {
		return
	}
	src := []funcSource{{path, r.ScriptSource}}
	a.bpMu.Lock()
	defer a.bpMu.Unlock()
	a.mu.Lock()
	reqs := a.funcReqs
	a.mu.Unlock()
	for i := range reqs {
		bp := godap.Breakpoint{Id: reqs[i].id}
		a.setFunctionBP(reqs[i].name, reqs[i].cond, src, &bp)
		if !bp.Verified || reqs[i].verified {
			continue
		}
		a.mu.Lock()
		reqs[i].verified = true
		a.mu.Unlock()
		bp.Message = ""
		a.send(&godap.BreakpointEvent{Event: event("breakpoint"), Body: godap.BreakpointEventBody{Reason: "changed", Breakpoint: bp}})
	}
}

// setByURLRaw sets one inspector breakpoint at line and col (0-based) of
// file, with condition cond, and returns its id.
func (a *adapter) setByURLRaw(file string, line, col int, cond string) (string, error) {
	params := a.byURL(file, line, cond)
	params.ColumnNumber = &col
	var r struct {
		BreakpointID string `json:"breakpointId"`
	}
	if err := a.call("Debugger.setBreakpointByUrl", params, &r); err != nil {
		return "", err
	}
	return r.BreakpointID, nil
}

// funcSources are the sources a function name is looked up in: the
// scripts node has loaded from files (their text as node has it), then
// the JavaScript files of the scratch dir and the project not loaded yet.
func (a *adapter) funcSources() []funcSource {
	a.mu.Lock()
	type loaded struct{ id, path string }
	var scripts []loaded
	for id, sp := range a.scripts {
		if p := a.scriptFileLocked(sp.URL); p != "" && !a.isRelay(p) && !strings.Contains(p, "/node_modules/") {
			scripts = append(scripts, loaded{id, p})
		}
	}
	a.mu.Unlock()
	sort.Slice(scripts, func(i, j int) bool { return scripts[i].path < scripts[j].path })
	seen := map[string]bool{}
	var out []funcSource
	for _, s := range scripts {
		if seen[s.path] {
			continue
		}
		var r struct {
			ScriptSource string `json:"scriptSource"`
		}
		if a.call("Debugger.getScriptSource", scriptSourceParams{ScriptID: s.id}, &r) == nil {
			seen[s.path] = true
			out = append(out, funcSource{s.path, r.ScriptSource})
		}
	}
	for _, dir := range []string{a.cfg.Scratch, a.cfg.Root} {
		for _, p := range findFiles(dir, maxFuncFiles, jsExt) {
			if seen[p] || a.isRelay(p) {
				continue
			}
			seen[p] = true
			if fi, err := os.Stat(p); err != nil || fi.Size() > maxFuncFileSize {
				continue
			}
			if data := a.readTreeFile(p); data != nil {
				out = append(out, funcSource{p, string(data)})
			}
		}
	}
	return out
}

// isRelay reports whether p is the relay node runs first.
func (a *adapter) isRelay(p string) bool {
	return a.cfg.Scratch != "" && p == filepath.Join(a.cfg.Scratch, relayName)
}

// funcDecl matches the declarations of a function whose name is the
// pattern's %s: a function declaration or expression, a name assigned
// (=, :) a function or an arrow, and a method (name(...) {, after a
// newline, ';', '{' or '}' and optional modifiers). One of groups 1 to 3
// is the name.
const funcDecl = `(?m)(?:\bfunction\s*\*?\s*(%[1]s)\s*\(|(?:^|[^.\w$])(%[1]s)\s*[:=]\s*(?:async\s+)?(?:function\b[^(]*\(|\([^()]*(?:\([^()]*\)[^()]*)*\)\s*=>|[\w$]+\s*=>)|(?:^|[;{}])\s*(?:(?:static|async|get|set)\s+)*\*?\s*(%[1]s)\s*\()`

// declarations returns the offsets of the first statements of the
// functions re (funcDecl made for a name) finds in src from offset from.
func declarations(re *regexp.Regexp, src string, from int) []int {
	var out []int
	for _, m := range re.FindAllStringSubmatchIndex(src[from:], -1) {
		end := -1
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				end = m[2*g+1]
			}
		}
		if at := bodyStart(src, from+end); end >= 0 && at >= 0 {
			out = append(out, at)
		}
	}
	return out
}

// findFunction returns the offsets in src of the first statement of each
// function declared as name ("f", or "Class.method": a method after
// "class Class"; "obj.f" also matches "obj.f = function").
func findFunction(src, name string) []int {
	qual, base := "", name
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		qual, base = name[:i], name[i+1:]
	}
	if !validIdent(base) || (qual != "" && !validIdent(strings.ReplaceAll(qual, ".", "_"))) {
		return nil
	}
	if qual == "" {
		return declarations(regexp.MustCompile(fmt.Sprintf(funcDecl, regexp.QuoteMeta(base))), src, 0)
	}
	// obj.f = function, obj.f = () =>
	if out := declarations(regexp.MustCompile(fmt.Sprintf(funcDecl, regexp.QuoteMeta(name))), src, 0); len(out) > 0 {
		return out
	}
	// A method of class Class: the first after its declaration.
	cls := regexp.MustCompile(`\bclass\s+` + regexp.QuoteMeta(qual[strings.LastIndexByte(qual, '.')+1:]) + `\b`)
	loc := cls.FindStringIndex(src)
	if loc == nil {
		return nil
	}
	out := declarations(regexp.MustCompile(fmt.Sprintf(funcDecl, regexp.QuoteMeta(base))), src, loc[1])
	if len(out) > 1 {
		out = out[:1]
	}
	return out
}

var identRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][\w$]*$`) })

func validIdent(s string) bool { return identRE().MatchString(s) }

// bodyStart is the offset of a function's first statement, i being just
// past its name: after the parameter list that opens next (or the
// arrow), past "=>" and the body's "{"; -1 when the text does not read
// as a function there.
func bodyStart(src string, i int) int {
	// Skip the parameters: the balanced (...) starting at the first '('
	// at or after i, unless an arrow comes first (x => ...).
	j := i
	for j < len(src) && src[j] != '(' && !strings.HasPrefix(src[j:], "=>") {
		j++
	}
	if j < len(src) && src[j] == '(' {
		depth := 0
		for ; j < len(src); j++ {
			switch src[j] {
			case '(':
				depth++
			case ')':
				depth--
			case '"', '\'', '`':
				j = skipString(src, j)
			}
			if depth == 0 {
				j++
				break
			}
		}
	}
	j = skipSpace(src, j)
	if strings.HasPrefix(src[j:], "=>") {
		j = skipSpace(src, j+2)
		if j < len(src) && src[j] != '{' {
			return j // an expression body
		}
	}
	if j >= len(src) || src[j] != '{' {
		return -1
	}
	return skipSpace(src, j+1)
}

func skipSpace(s string, i int) int {
	for i < len(s) && strings.ContainsRune(" \t\r\n", rune(s[i])) {
		i++
	}
	return i
}

// skipString returns the offset of the quote that closes the string
// opening at i.
func skipString(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j
		}
	}
	return len(s) - 1
}

// lineCol is the 0-based line and column (in UTF-16 units, as the
// inspector counts) of offset off in src.
func lineCol(src string, off int) (line, col int) {
	start := strings.LastIndexByte(src[:off], '\n') + 1
	line = strings.Count(src[:start], "\n")
	for _, r := range src[start:off] {
		col += utf16.RuneLen(r)
	}
	return line, col
}

// findFiles lists the files under dir whose path keep accepts, at most
// limit, node_modules and hidden directories left out.
func findFiles(dir string, limit int, keep func(string) bool) []string {
	if dir == "" {
		return nil
	}
	var out []string
	visited := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		visited++
		if visited > 50_000 || len(out) >= limit {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if n := d.Name(); p != dir && (n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && keep(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}
