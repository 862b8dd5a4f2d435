package js

import "fmt"
import "math"
import "math/big"
import "strconv"
import "strings"
import "unicode/utf8"

import "github.com/dop251/goja"

import "github.com/tetherhq/tether/kernels"

// Line breaking as node's util.inspect does it with its defaults (breakLength
// 80, compact 3): a container goes on one line when it fits and holds at most
// three levels of nesting; otherwise one entry a line, indented. More than six
// short array items are grouped in columns, numbers aligned right.

const breakLength = 80

// inspectState is the state of one inspect call: the indentation of the value
// being formatted and the depth of the last container entered (node's
// ctx.indentationLvl and ctx.currentDepth).
type inspectState struct {
	indent int
	cur    int
}

// reduce joins a container's formatted entries between open and close, as
// node's reduceToSingleString.
func (st *inspectState) reduce(output []string, open, close string, array, numeric bool, depth int) string {
	entries := len(output)
	if array && entries > 6 {
		output = groupArray(output, st.indent, numeric)
	}
	if st.cur-(depth+1) < 3 && entries == len(output) {
		start := len(output) + st.indent + width(open) + 10
		if belowBreakLength(output, start) {
			joined := strings.Join(output, ", ")
			if !strings.Contains(joined, "\n") {
				return open + " " + joined + " " + close
			}
		}
	}
	ind := "\n" + strings.Repeat(" ", st.indent)
	return open + ind + "  " + strings.Join(output, ","+ind+"  ") + ind + close
}

func width(s string) int { return utf8.RuneCountInString(s) }

func belowBreakLength(output []string, start int) bool {
	total := len(output) + start
	if total+len(output) > breakLength {
		return false
	}
	for _, o := range output {
		total += width(o)
		if total > breakLength {
			return false
		}
	}
	return true
}

// groupArray arranges short array items in columns, as node's
// groupArrayElements; a trailing "... n more items" stays on its own line.
func groupArray(output []string, indent int, numeric bool) []string {
	outputLength := len(output)
	if strings.HasPrefix(output[outputLength-1], "... ") && strings.Contains(output[outputLength-1], " more item") {
		outputLength--
	}
	const separatorSpace = 2
	dataLen := make([]int, outputLength)
	totalLength, maxLength := 0, 0
	for i := 0; i < outputLength; i++ {
		l := width(output[i])
		dataLen[i] = l
		totalLength += l + separatorSpace
		maxLength = max(maxLength, l)
	}
	actualMax := maxLength + separatorSpace
	if actualMax*3+indent >= breakLength || !(float64(totalLength)/float64(actualMax) > 5 || maxLength <= 6) {
		return output
	}
	averageBias := math.Sqrt(float64(actualMax) - float64(totalLength)/float64(len(output)))
	biasedMax := math.Max(float64(actualMax)-3-averageBias, 1)
	columns := min(
		int(math.Round(math.Sqrt(2.5*biasedMax*float64(outputLength))/biasedMax)),
		(breakLength-indent)/actualMax,
		3*4,
		15,
	)
	if columns <= 1 {
		return output
	}
	maxLineLength := make([]int, columns)
	for i := 0; i < columns; i++ {
		lineLength := 0
		for j := i; j < outputLength; j += columns {
			lineLength = max(lineLength, dataLen[j])
		}
		maxLineLength[i] = lineLength + separatorSpace
	}
	var tmp []string
	for i := 0; i < outputLength; i += columns {
		last := min(i+columns, outputLength)
		var b strings.Builder
		j := i
		for ; j < last-1; j++ {
			cell := output[j] + ", "
			pad := strings.Repeat(" ", max(maxLineLength[j-i]-dataLen[j]-separatorSpace, 0))
			if numeric {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		if numeric {
			b.WriteString(strings.Repeat(" ", max(maxLineLength[j-i]-separatorSpace-dataLen[j], 0)) + output[j])
		} else {
			b.WriteString(output[j])
		}
		tmp = append(tmp, b.String())
	}
	if outputLength < len(output) {
		tmp = append(tmp, output[outputLength])
	}
	return tmp
}

// format is node's util.format, which console.log uses: a first argument
// that is a string with more arguments after it is a format (%s, %d, %i, %f,
// %j, %o, %O, %c, %%); the arguments left over follow, separated by spaces,
// strings as they are and other values inspected.
func (s *session) format(args []goja.Value) string {
	var b strings.Builder
	rest := args
	if len(args) > 1 {
		if f, ok := args[0].Export().(string); ok && goja.IsString(args[0]) {
			rest = args[1:]
			last := 0
			for i := 0; i < len(f)-1; i++ {
				if f[i] != '%' {
					continue
				}
				c := f[i+1]
				if c == '%' {
					b.WriteString(f[last:i] + "%")
					last = i + 2
					i++
					continue
				}
				if !strings.ContainsRune("sdifjoOc", rune(c)) || len(rest) == 0 {
					continue
				}
				b.WriteString(f[last:i])
				v := rest[0]
				rest = rest[1:]
				switch c {
				case 'o', 'O':
					b.WriteString(s.inspect(v, 0, true, nil))
				case 'c':
				default:
					b.WriteString(s.convert(c, v))
				}
				last = i + 2
				i++
			}
			b.WriteString(f[last:])
			for _, a := range rest {
				b.WriteString(" " + s.inspect(a, 0, false, nil))
			}
			return b.String()
		}
	}
	for i, a := range rest {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s.inspect(a, 0, false, nil))
	}
	return b.String()
}

// convert applies util.format's %s, %d, %i, %f or %j to v.
func (s *session) convert(c byte, v goja.Value) string {
	if c == 's' && !isObject(v) {
		return s.inspect(v, 0, false, nil) // strings as they are, -0, 1n, Symbol(x)
	}
	if s.conv != nil {
		if r, err := s.conv(goja.Undefined(), s.vm.ToValue(string(c)), v); err == nil {
			switch {
			case goja.IsNull(r):
				return s.inspect(v, 2, true, nil) // %s of an object: depth 0, as node
			case goja.IsString(r):
				return r.String()
			default:
				return s.inspect(r, 0, false, nil)
			}
		} else {
			panic(err)
		}
	}
	return s.inspect(v, 0, false, nil)
}

func isObject(v goja.Value) bool {
	_, ok := v.(*goja.Object)
	return ok
}

// bundle renders a value for display or echo. A getter that throws while the
// value is shown does not fail the cell: the text says what happened.
func (s *session) bundle(v goja.Value, echo bool) kernels.Display {
	var text string
	if ex := s.vm.Try(func() { text = s.inspect(v, 0, echo, nil) }); ex != nil {
		text = "<value could not be shown: " + s.fixStack(ex.Error()) + ">"
	}
	var d kernels.Display
	d.Text, d.Note = kernels.CutText(text, s.cfg.MaxText)
	return d
}

const maxInspectItems = 100

// inspect formats a value the way a REPL shows it. Top-level strings are raw
// unless quote is set (the echo quotes them, as node's REPL does).
func (s *session) inspect(v goja.Value, depth int, quote bool, seen map[*goja.Object]bool) string {
	if seen == nil {
		s.look = inspectState{} // a new top-level value
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	if sym, ok := v.(*goja.Symbol); ok {
		return "Symbol(" + sym.String() + ")"
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return inspectPrimitive(v, quote || depth > 0)
	}
	if ctor, isObj := s.toolResult.(*goja.Object); isObj && s.vm.InstanceOf(obj, ctor) {
		// A tool() result shows as its text, as it did when tool()
		// returned a primitive; .structured is there to be read.
		return s.inspect(obj.Get("text"), depth, quote, seen)
	}
	if seen[obj] {
		return "[Circular]"
	}
	if seen == nil {
		seen = map[*goja.Object]bool{}
	}
	seen[obj] = true
	defer delete(seen, obj)
	if _, isFn := goja.AssertFunction(obj); isFn {
		return inspectFunction(obj)
	}
	if out, ok := s.inspectBuiltin(obj, depth, seen); ok {
		return out
	}
	if out, ok := s.inspectMapSet(obj, depth, seen); ok {
		return out
	}
	if obj.ClassName() == "Array" {
		return s.inspectArray(obj, depth, seen)
	}
	prefix := className(obj)
	if name := strings.TrimSpace(prefix); typedArrays[name] {
		return s.inspectTypedArray(obj, name, depth, seen)
	}
	return s.inspectObject(obj, prefix, depth, seen)
}

// inspectPrimitive formats a value that is not an object; strings are
// quoted when quote is set.
func inspectPrimitive(v goja.Value, quote bool) string {
	if _, isBig := v.Export().(*big.Int); isBig {
		return v.String() + "n"
	}
	if _, isStr := v.Export().(string); isStr {
		if quote {
			return quoteJS(v.String())
		}
		return v.String()
	}
	if f, ok := v.Export().(float64); ok && f == 0 && math.Signbit(f) {
		return "-0"
	}
	return v.String()
}

// inspectFunction labels a function as node does: [Function: f],
// [class K extends P], [AsyncFunction: g].
func inspectFunction(obj *goja.Object) string {
	n := ""
	if name := obj.Get("name"); name != nil && !goja.IsUndefined(name) {
		n = name.String()
	}
	src := strings.TrimSpace(obj.String())
	switch {
	case strings.HasPrefix(src, "class") && len(src) > 5 && !isIdentByte(src[5]):
		out := "[class " + n
		if n == "" {
			out = "[class (anonymous)"
		}
		if p := obj.Prototype(); p != nil {
			if pn := p.Get("name"); pn != nil && !goja.IsUndefined(pn) && pn.String() != "" {
				out += " extends " + pn.String()
			}
		}
		return out + "]"
	case strings.HasPrefix(src, "async") && strings.Contains(src[:min(len(src), 20)], "*"):
		return fnLabel("AsyncGeneratorFunction", n)
	case strings.HasPrefix(src, "async"):
		return fnLabel("AsyncFunction", n)
	case strings.HasPrefix(src, "function*") || strings.HasPrefix(src, "function *"):
		return fnLabel("GeneratorFunction", n)
	}
	return fnLabel("Function", n)
}

// inspectBuiltin formats the built-in objects node shows in a form of their
// own (dates, errors, regular expressions, boxed primitives, promises); ok
// is false for any other object.
func (s *session) inspectBuiltin(obj *goja.Object, depth int, seen map[*goja.Object]bool) (string, bool) {
	switch obj.ClassName() {
	case "Date":
		if iso, ok := goja.AssertFunction(obj.Get("toISOString")); ok {
			if v, err := iso(obj); err == nil {
				return v.String(), true
			}
			return "Invalid Date", true
		}
		return obj.String(), true
	case "Error":
		if st := obj.Get("stack"); st != nil && !goja.IsUndefined(st) {
			return s.fixStack(st.String()), true
		}
		return obj.String(), true
	case "RegExp":
		return obj.String(), true
	case "Number", "String", "Boolean":
		// A boxed primitive, as node shows it: [Number: 3], [String: 's'].
		if f, ok := goja.AssertFunction(obj.Get("valueOf")); ok {
			if v, err := f(obj); err == nil {
				return "[" + obj.ClassName() + ": " + s.inspect(v, depth+1, true, seen) + "]", true
			}
		}
	}
	if obj.ExportType() == promiseType {
		if p, ok := obj.Export().(*goja.Promise); ok {
			switch p.State() {
			case goja.PromiseStateFulfilled:
				return "Promise { " + s.inspect(p.Result(), depth+1, true, seen) + " }", true
			case goja.PromiseStateRejected:
				return "Promise { <rejected> " + s.inspect(p.Result(), depth+1, true, seen) + " }", true
			}
		}
		return "Promise { <pending> }", true
	}
	return "", false
}

// inspectMapSet formats maps and sets (and their weak kinds) as node shows
// them: Map(1) { 'k' => 1 }, Set(2) { 1, 2 }; ok is false for any other
// object.
func (s *session) inspectMapSet(obj *goja.Object, depth int, seen map[*goja.Object]bool) (string, bool) {
	kind := ""
	if s.inspectKind != nil {
		if k, err := s.inspectKind(goja.Undefined(), obj); err == nil {
			kind = k.String()
		}
	}
	if kind == "WeakMap" || kind == "WeakSet" {
		return kind + " { <items unknown> }", true
	}
	if (kind == "Map" || kind == "Set") && s.mapSetEntries != nil {
		if v, err := s.mapSetEntries(goja.Undefined(), obj); err == nil {
			// As node shows them: Map(1) { 'k' => 1 }, Set(2) { 1, 2 }.
			arr, _ := v.(*goja.Object)
			n := int64(0)
			if arr != nil {
				n = arr.Get("length").ToInteger()
			}
			label := kind // a subclass shows as node does: M(1) [Map] { ... }
			if c := strings.TrimSpace(className(obj)); c != "" && c != kind && !strings.HasPrefix(c, "[") {
				label = c
			}
			brand := ""
			if label != kind {
				brand = " [" + kind + "]"
			}
			if n == 0 {
				return fmt.Sprintf("%s(0)%s {}", label, brand), true
			}
			if depth > 2 {
				return "[" + label + "]", true
			}
			s.look.cur = depth + 1
			s.look.indent += 2
			var out []string
			for i := int64(0); i < n; i++ {
				if i >= maxInspectItems {
					out = append(out, moreItems(n-i))
					break
				}
				e := arr.Get(strconv.FormatInt(i, 10))
				if kind == "Map" {
					if pair, _ := e.(*goja.Object); pair != nil {
						out = append(out, s.inspect(pair.Get("0"), depth+1, true, seen)+" => "+s.inspect(pair.Get("1"), depth+1, true, seen))
						continue
					}
				}
				out = append(out, s.inspect(e, depth+1, true, seen))
			}
			s.look.indent -= 2
			return s.look.reduce(out, fmt.Sprintf("%s(%d)%s {", label, n, brand), "}", false, false, depth), true
		}
	}
	return "", false
}

// inspectArray formats an array as node shows it: [ 1, 'two' ], [] when
// empty, more than six short items grouped in columns.
func (s *session) inspectArray(obj *goja.Object, depth int, seen map[*goja.Object]bool) string {
	n := obj.Get("length").ToInteger()
	if n == 0 {
		return "[]"
	}
	if depth > 2 {
		return "[Array]"
	}
	s.look.cur = depth + 1
	var out []string
	numeric := true
	for i := int64(0); i < n; i++ {
		if i >= maxInspectItems {
			out = append(out, moreItems(n-i))
			break
		}
		e := obj.Get(strconv.FormatInt(i, 10))
		if e == nil { // a hole: node counts a run of them as one entry
			j := i + 1
			for j < n && obj.Get(strconv.FormatInt(j, 10)) == nil {
				j++
			}
			if j-i == 1 {
				out = append(out, "<1 empty item>")
			} else {
				out = append(out, fmt.Sprintf("<%d empty items>", j-i))
			}
			numeric = false
			i = j - 1
			continue
		}
		if !isNumber(e) {
			numeric = false
		}
		s.look.indent += 2
		out = append(out, s.inspect(e, depth+1, true, seen))
		s.look.indent -= 2
	}
	return s.look.reduce(out, "[", "]", true, numeric, depth)
}

// inspectTypedArray formats a typed array, name its class: Uint8Array(2) [ 1, 2 ].
func (s *session) inspectTypedArray(obj *goja.Object, name string, depth int, seen map[*goja.Object]bool) string {
	n := obj.Get("length").ToInteger()
	if n == 0 {
		return fmt.Sprintf("%s(0) []", name)
	}
	if depth > 2 {
		return "[" + name + "]"
	}
	s.look.cur = depth + 1
	var out []string
	for i := int64(0); i < n; i++ {
		if i >= maxInspectItems {
			out = append(out, moreItems(n-i))
			break
		}
		out = append(out, s.inspect(obj.Get(strconv.FormatInt(i, 10)), depth+1, true, seen))
	}
	return s.look.reduce(out, fmt.Sprintf("%s(%d) [", name, n), "]", true, true, depth)
}

// inspectObject formats a plain object, or any other, by its own keys and
// symbols, prefix its class name as className gives it.
func (s *session) inspectObject(obj *goja.Object, prefix string, depth int, seen map[*goja.Object]bool) string {
	keys := obj.Keys()
	syms := obj.Symbols()
	if len(keys) == 0 && len(syms) == 0 {
		if prefix == "" {
			if str := obj.String(); str != "[object Object]" {
				return str
			}
		}
		return prefix + "{}"
	}
	if depth > 2 {
		if p := strings.TrimSpace(prefix); p != "" && !strings.HasPrefix(p, "[") {
			return "[" + p + "]"
		}
		return "[Object]"
	}
	s.look.cur = depth + 1
	var out []string
	for i, key := range keys {
		if i >= maxInspectItems {
			out = append(out, fmt.Sprintf("... %d more properties", len(keys)-i))
			break
		}
		name := key
		if !isIdent(key) {
			name = quoteJS(key)
		}
		if a := s.accessorOf(obj, key); a != "" { // as node: shown, not called
			out = append(out, name+": "+a)
			continue
		}
		s.look.indent += 2
		out = append(out, name+": "+s.inspect(obj.Get(key), depth+1, true, seen))
		s.look.indent -= 2
	}
	for _, sym := range syms {
		if len(out) > maxInspectItems {
			break
		}
		s.look.indent += 2
		out = append(out, "["+s.inspect(sym, depth+1, true, seen)+"]: "+s.inspect(obj.GetSymbol(sym), depth+1, true, seen))
		s.look.indent -= 2
	}
	return s.look.reduce(out, prefix+"{", "}", false, false, depth)
}

// accessorOf names an accessor property as node shows it, without calling
// it, or returns "" for a data property.
func (s *session) accessorOf(obj *goja.Object, key string) string {
	if s.accessor == nil {
		return ""
	}
	v, err := s.accessor(goja.Undefined(), obj, s.vm.ToValue(key))
	if err != nil {
		return ""
	}
	return v.String()
}

func moreItems(n int64) string {
	if n == 1 {
		return "... 1 more item"
	}
	return fmt.Sprintf("... %d more items", n)
}

func isNumber(v goja.Value) bool {
	if v == nil {
		return false
	}
	switch v.Export().(type) {
	case int64, float64, *big.Int:
		return true
	}
	return false
}

var typedArrays = map[string]bool{
	"Int8Array": true, "Uint8Array": true, "Uint8ClampedArray": true, "Int16Array": true, "Uint16Array": true,
	"Int32Array": true, "Uint32Array": true, "Float32Array": true, "Float64Array": true,
	"BigInt64Array": true, "BigUint64Array": true,
}

// className is "Name " for an instance of a class other than Object, as
// node's REPL shows it ("Point { x: 1 }"), and "" otherwise.
func className(obj *goja.Object) string {
	proto := obj.Prototype()
	if proto == nil {
		return "[Object: null prototype] "
	}
	c, ok := proto.Get("constructor").(*goja.Object)
	if !ok {
		return ""
	}
	if _, isFn := goja.AssertFunction(c); !isFn {
		return ""
	}
	name := c.Get("name")
	if name == nil || goja.IsUndefined(name) {
		return ""
	}
	if n := name.String(); n != "" && n != "Object" {
		return n + " "
	}
	return ""
}

func fnLabel(kind, name string) string {
	if name == "" {
		return "[" + kind + " (anonymous)]"
	}
	return "[" + kind + ": " + name + "]"
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// quoteJS quotes a string as node's util.inspect does: single quotes, or
// double quotes when it holds a single quote and no double quote, or
// backticks when it holds both (and no backtick or ${); control characters
// escaped (\n, \t, \x1B).
func quoteJS(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 {
		switch {
		case strings.IndexByte(s, '"') < 0:
			q = '"'
		case strings.IndexByte(s, '`') < 0 && !strings.Contains(s, "${"):
			q = '`'
		}
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02X`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}
