package js

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

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
