package rule

import "fmt"
import "maps"
import "regexp"
import "slices"
import "strings"
import "unicode"
import "unicode/utf8"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/matcher"

// transform is one variable a rule's transform computes from a
// metavariable's text (or another such variable's).
type transform struct {
	name   string
	op     string // replace, substring, convert, rewrite
	source string // the variable's name, without its $
	// replace
	re *regexp.Regexp
	by string
	// substring: character indices, negative from the end
	start, end       int
	hasStart, hasEnd bool
	// convert
	toCase string
	seps   []string
	// rewrite
	rewriters []string
	joinBy    *string
}

var cases = []string{"lowerCase", "upperCase", "capitalize", "camelCase", "snakeCase", "kebabCase", "pascalCase"}
var separators = []string{"dash", "dot", "space", "slash", "underscore", "caseChange"}

// definedVars adds the metavariables a rule can bind (its patterns', and
// those of the utils it names) to out.
func definedVars(n node, out map[string]bool, seen map[*utilRef]bool) {
	switch x := n.(type) {
	case *patternNode:
		for _, v := range x.pat.Vars() {
			out[v] = true
		}
	case *allNode:
		for _, s := range x.rules {
			definedVars(s, out, seen)
		}
	case *anyNode:
		for _, s := range x.rules {
			definedVars(s, out, seen)
		}
	case *notNode:
		definedVars(x.rule, out, seen)
	case *relNode:
		definedVars(x.rule, out, seen)
	case *nthNode:
		if x.of != nil {
			definedVars(x.of, out, seen)
		}
	case *matchesNode:
		if !seen[x.ref] && x.ref.rule != nil {
			seen[x.ref] = true
			definedVars(x.ref.rule, out, seen)
		}
	}
}

// transforms compiles a transform object, ordered so that a variable comes
// after those it is computed from; a cycle among them is an error, and so
// is a source the rule never binds (defined: the rule's metavariables).
func (c *compiler) transforms(v any, path string, rws map[string]*core, defined map[string]bool) ([]*transform, error) {
	m, err := asMap(v, path, "transform")
	if err != nil {
		return nil, err
	}
	names := slices.Sorted(maps.Keys(m))
	byName := map[string]*transform{}
	for _, name := range names {
		p := join(path, name)
		if !isVarName(name) {
			return nil, errAt(p, "a transform's key is the new variable's name, without $ (%q is not one)", name)
		}
		t, err := compileTransform(name, m[name], p, rws)
		if err != nil {
			return nil, err
		}
		byName[name] = t
	}
	for _, name := range names {
		t := byName[name]
		if _, ok := byName[t.source]; !ok && !defined[t.source] {
			return nil, errAt(join(path, name), "$%s is not a metavariable of the rule: a transform's source must be one the rule binds (or another transform's variable)", t.source)
		}
	}
	var out []*transform
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(name string, chain []string) error
	visit = func(name string, chain []string) error {
		t := byName[name]
		switch state[name] {
		case 1:
			return errAt(join(path, name), "transform variables form a cycle: %s -> %s", strings.Join(chain, " -> "), name)
		case 2:
			return nil
		}
		state[name] = 1
		if _, ok := byName[t.source]; ok {
			if err := visit(t.source, append(chain, name)); err != nil {
				return err
			}
		}
		state[name] = 2
		out = append(out, t)
		return nil
	}
	for _, name := range names {
		if err := visit(name, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func compileTransform(name string, v any, path string, rws map[string]*core) (*transform, error) {
	op, args, err := transformOp(v, path)
	if err != nil {
		return nil, err
	}
	a := opArgs{args: args, path: join(path, op), op: op}
	t := &transform{name: name, op: op}
	src, ok := args["source"].(string)
	if !ok {
		return nil, errAt(join(a.path, "source"), "needs source, a metavariable such as $X")
	}
	src = strings.TrimPrefix(strings.TrimPrefix(src, "$$$"), "$")
	if !isVarName(src) || !strings.HasPrefix(args["source"].(string), "$") {
		return nil, errAt(join(a.path, "source"), "source %q is not a metavariable ($NAME)", args["source"])
	}
	t.source = src
	switch op {
	case "replace":
		err = t.compileReplace(a)
	case "substring":
		err = t.compileSubstring(a)
	case "convert":
		err = t.compileConvert(a)
	case "rewrite":
		err = t.compileRewrite(a, rws)
	default:
		return nil, errAt(a.path, "unknown transformation %q: use replace, substring, convert or rewrite", op)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// transformOp reads a transformation's operation and arguments, from the
// object form ({replace: {...}}) or the string form (replace($X, ...)).
func transformOp(v any, path string) (op string, args map[string]any, err error) {
	switch x := v.(type) {
	case string:
		if op, args, err = parseStringStyle(x); err != nil {
			return "", nil, errAt(path, "%v", err)
		}
		return op, args, nil
	case map[string]any:
		if len(x) != 1 {
			return "", nil, errAt(path, "a transformation has one key, the operation (replace, substring, convert or rewrite)")
		}
		for k, a := range x {
			m, err := asMap(a, join(path, k), k)
			if err != nil {
				return "", nil, err
			}
			op, args = k, m
		}
		return op, args, nil
	}
	return "", nil, errAt(path, "a transformation is an object or a string such as substring($X, startChar=1), not %s", describe(v))
}

// opArgs are one transformation's arguments, at path in the rule.
type opArgs struct {
	args     map[string]any
	path, op string
}

// str returns the string argument k, "" when it is absent and not required.
func (a opArgs) str(k string, required bool) (string, error) {
	v, ok := a.args[k]
	if !ok {
		if required {
			return "", errAt(join(a.path, k), "%s needs %s", a.op, k)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", errAt(join(a.path, k), "must be a string, not %s", describe(v))
	}
	return s, nil
}

func (t *transform) compileReplace(a opArgs) error {
	if err := checkKeys(a.args, a.path, "source", "replace", "by"); err != nil {
		return err
	}
	re, err := a.str("replace", true)
	if err != nil {
		return err
	}
	if t.re, err = regexp.Compile(re); err != nil {
		return errAt(join(a.path, "replace"), "%v", err)
	}
	t.by, err = a.str("by", true)
	return err
}

func (t *transform) compileSubstring(a opArgs) error {
	if err := checkKeys(a.args, a.path, "source", "startChar", "endChar"); err != nil {
		return err
	}
	for _, k := range []string{"startChar", "endChar"} {
		v, ok := a.args[k]
		if !ok {
			continue
		}
		n, ok := toInt(v)
		if !ok {
			return errAt(join(a.path, k), "must be a whole number, not %s", describe(v))
		}
		if k == "startChar" {
			t.start, t.hasStart = n, true
		} else {
			t.end, t.hasEnd = n, true
		}
	}
	return nil
}

func (t *transform) compileConvert(a opArgs) error {
	if err := checkKeys(a.args, a.path, "source", "toCase", "separatedBy"); err != nil {
		return err
	}
	var err error
	if t.toCase, err = a.str("toCase", true); err != nil {
		return err
	}
	if !contains(cases, t.toCase) {
		return errAt(join(a.path, "toCase"), "toCase %q: use one of %s", t.toCase, strings.Join(cases, ", "))
	}
	v, ok := a.args["separatedBy"]
	if !ok {
		t.seps = separators
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		return errAt(join(a.path, "separatedBy"), "must be a list of %s", strings.Join(separators, ", "))
	}
	for _, s := range l {
		ss, _ := s.(string)
		if !contains(separators, ss) {
			return errAt(join(a.path, "separatedBy"), "%v is not a separator: use %s", s, strings.Join(separators, ", "))
		}
		t.seps = append(t.seps, ss)
	}
	return nil
}

func (t *transform) compileRewrite(a opArgs, rws map[string]*core) error {
	if err := checkKeys(a.args, a.path, "source", "rewriters", "joinBy"); err != nil {
		return err
	}
	l, ok := a.args["rewriters"].([]any)
	if !ok || len(l) == 0 {
		return errAt(join(a.path, "rewriters"), "rewrite needs rewriters, a list of rewriter ids")
	}
	for _, x := range l {
		id, _ := x.(string)
		if _, ok := rws[id]; !ok {
			return errAt(join(a.path, "rewriters"), "no rewriter has the id %v: define it under the rule's rewriters", x)
		}
		t.rewriters = append(t.rewriters, id)
	}
	if _, ok := a.args["joinBy"]; ok {
		s, err := a.str("joinBy", false)
		if err != nil {
			return err
		}
		t.joinBy = &s
	}
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// parseStringStyle reads op($VAR, key=value, ...): a value is quoted ('...'
// or "..."), a list [a, b], a number or a bare word.
func parseStringStyle(s string) (string, map[string]any, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return "", nil, fmt.Errorf("%q is not op($VAR, key=value, ...)", s)
	}
	op := strings.TrimSpace(s[:open])
	body := s[open+1 : len(s)-1]
	var parts []string
	var cur strings.Builder
	var quote byte
	depth := 0
	for i := 0; i < len(body); i++ {
		ch := body[i]
		switch {
		case quote != 0:
			if ch == '\\' && i+1 < len(body) {
				cur.WriteByte(body[i+1])
				i++
				continue
			}
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '[':
			depth++
		case ch == ']':
			depth--
		case ch == ',' && depth == 0:
			parts = append(parts, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(ch)
	}
	if quote != 0 || depth != 0 {
		return "", nil, fmt.Errorf("%q has an unclosed quote or list", s)
	}
	parts = append(parts, cur.String())
	args := map[string]any{"source": strings.TrimSpace(parts[0])}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return "", nil, fmt.Errorf("%q: %q is not key=value", s, strings.TrimSpace(p))
		}
		args[strings.TrimSpace(k)] = styleValue(strings.TrimSpace(v))
	}
	return op, args, nil
}

func styleValue(v string) any {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		var out []any
		for _, x := range strings.Split(v[1:len(v)-1], ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, styleValue(x))
			}
		}
		return out
	}
	var n int
	if _, err := fmt.Sscanf(v, "%d", &n); err == nil && fmt.Sprint(n) == v {
		return n
	}
	return v
}

// transform computes a core's transform variables for one match.
func (r *Runner) transform(cr *core, src []byte, caps []matcher.Capture) map[string]string {
	out := map[string]string{}
	for _, t := range cr.transforms {
		text, ok := out[t.source]
		var nodes []engine.Node
		if !ok {
			for i := range caps {
				if caps[i].Name == t.source && len(caps[i].Nodes) > 0 {
					nodes = caps[i].Nodes
					text, ok = deindent(string(caps[i].Text(src)), src, int(nodes[0].StartByte())), true
				}
			}
		}
		if !ok {
			continue
		}
		switch t.op {
		case "replace":
			out[t.name] = t.re.ReplaceAllString(text, t.by)
		case "substring":
			out[t.name] = substring(text, t)
		case "convert":
			out[t.name] = convertCase(text, t.toCase, t.seps)
		case "rewrite":
			if nodes == nil {
				continue // a transform's string has no nodes to rewrite
			}
			out[t.name] = r.rewrite(cr, t, src, nodes, caps)
		}
	}
	return out
}

// deindent takes the indentation of the line where text starts at start
// of src off text's later lines, when only spaces come before it there: a
// capture's lines as if it started a line, as ast-grep reads them for a
// transform.
func deindent(text string, src []byte, start int) string {
	if !strings.Contains(text, "\n") {
		return text
	}
	ls := strings.LastIndexByte(string(src[:start]), '\n') + 1
	prefix := string(src[ls:start])
	if prefix == "" || strings.TrimLeft(prefix, " \t") != "" {
		return text
	}
	lines := strings.Split(text, "\n")
	for k := 1; k < len(lines); k++ {
		lines[k] = strings.TrimPrefix(lines[k], prefix)
	}
	return strings.Join(lines, "\n")
}

func substring(s string, t *transform) string {
	rs := []rune(s)
	n := len(rs)
	at := func(i int) int {
		if i < 0 {
			i += n
		}
		return max(0, min(i, n))
	}
	start, end := 0, n
	if t.hasStart {
		start = at(t.start)
	}
	if t.hasEnd {
		end = at(t.end)
	}
	if start >= end {
		return ""
	}
	return string(rs[start:end])
}

// words splits s at the separators chosen, and at a change of case
// ("camelCase", "XMLHttp" -> "XML", "Http") with caseChange.
func words(s string, seps []string) []string {
	sepChar := map[rune]bool{}
	caseChange := false
	for _, sp := range seps {
		switch sp {
		case "dash":
			sepChar['-'] = true
		case "dot":
			sepChar['.'] = true
		case "space":
			sepChar[' '] = true
		case "slash":
			sepChar['/'] = true
		case "underscore":
			sepChar['_'] = true
		case "caseChange":
			caseChange = true
		}
	}
	var out []string
	rs := []rune(s)
	start := 0
	for i, ch := range rs {
		if sepChar[ch] {
			if i > start {
				out = append(out, string(rs[start:i]))
			}
			start = i + 1
			continue
		}
		if !caseChange || i == start {
			continue
		}
		prev := rs[i-1]
		if unicode.IsUpper(ch) && !unicode.IsUpper(prev) && !sepChar[prev] {
			out = append(out, string(rs[start:i]))
			start = i
		} else if unicode.IsLower(ch) && unicode.IsUpper(prev) && i-1 > start {
			out = append(out, string(rs[start:i-1]))
			start = i - 1
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

func convertCase(s, to string, seps []string) string {
	switch to {
	case "lowerCase":
		return strings.ToLower(s)
	case "upperCase":
		return strings.ToUpper(s)
	case "capitalize":
		return capitalize(s)
	}
	ws := words(s, seps)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	switch to {
	case "camelCase":
		for i := 1; i < len(ws); i++ {
			ws[i] = capitalize(ws[i])
		}
		return strings.Join(ws, "")
	case "pascalCase":
		for i := range ws {
			ws[i] = capitalize(ws[i])
		}
		return strings.Join(ws, "")
	case "snakeCase":
		return strings.Join(ws, "_")
	case "kebabCase":
		return strings.Join(ws, "-")
	}
	return s
}

// rewrite applies the transform's rewriters under each source node: at
// each node in pre-order the first rewriter that matches replaces it (and
// nothing below it is tried); the result is the source's text with those
// replacements, or with joinBy the replacements alone joined by it.
func (r *Runner) rewrite(cr *core, t *transform, src []byte, nodes []engine.Node, outer []matcher.Capture) string {
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	var visit func(n engine.Node)
	visit = func(n engine.Node) {
		if r.err != nil || !r.tick() {
			return
		}
		for _, id := range t.rewriters {
			rw := cr.rewriters[id]
			if rw == nil {
				continue
			}
			if m, ok := r.matchCore(rw, n, nil); ok {
				s, e, text := r.fixEdit(rw, &m, src, outer)
				edits = append(edits, edit{s, e, text})
				return
			}
		}
		for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
			visit(c)
		}
	}
	for _, n := range nodes {
		visit(n)
	}
	if t.joinBy != nil {
		texts := make([]string, len(edits))
		for i, e := range edits {
			texts[i] = e.text
		}
		return strings.Join(texts, *t.joinBy)
	}
	start, end := int(nodes[0].StartByte()), int(nodes[len(nodes)-1].EndByte())
	var b strings.Builder
	last := start
	for _, e := range edits {
		if e.start < last {
			continue
		}
		b.Write(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	if last < end {
		b.Write(src[last:end])
	}
	return deindent(b.String(), src, start)
}
