package js

import "regexp"
import "strings"

import "github.com/dlclark/regexp2/v2"
import "github.com/dop251/goja"
import "github.com/dop251/goja/parser"

// countMatches counts the matches of the regular expression source (with
// flags) in str, stopping once past stop, without building any result: the
// memory guards of match, matchAll, replace and split size their result
// from it before the built-in makes it in one native call. It compiles the
// pattern as goja does (RE2 when the pattern translates, regexp2
// otherwise) and counts over the string's UTF-8 form, so a pattern that
// splits a surrogate pair may be counted a little off; it is an estimate
// for a cap. It returns -1 when the pattern does not compile here.
func countMatches(source, flags, str string, stop int) int {
	var dotAll, unicode bool
	var re2flags string
	var opts regexp2.RegexOptions = regexp2.ECMAScript
	for _, f := range flags {
		switch f {
		case 'm':
			re2flags += "m"
			opts |= regexp2.Multiline
		case 's':
			dotAll = true
			re2flags += "s"
			opts |= regexp2.Singleline
		case 'i':
			re2flags += "i"
			opts |= regexp2.IgnoreCase
		case 'u':
			unicode = true
		}
	}
	if t, err := parser.TransformRegExp(source, dotAll, unicode); err == nil {
		if re2flags != "" {
			t = "(?" + re2flags + ":" + t + ")"
		}
		if re, err := regexp.Compile(t); err == nil {
			return len(re.FindAllStringIndex(str, stop+1))
		}
	}
	if unicode {
		opts |= regexp2.Unicode
	}
	re, err := regexp2.Compile(source, opts)
	if err != nil {
		return -1
	}
	n := 0
	m, err := re.FindStringMatch(str)
	for err == nil && m != nil && n <= stop {
		n++
		m, err = re.FindNextMatch(m)
	}
	if err != nil {
		return -1
	}
	return n
}

// countFunc is countMatches as the prelude's guard calls it:
// count(source, flags, string, stop).
func countFunc(vm *goja.Runtime) goja.Value {
	return vm.ToValue(func(c goja.FunctionCall) goja.Value {
		return vm.ToValue(countMatches(c.Argument(0).String(), strings.TrimSpace(c.Argument(1).String()), c.Argument(2).String(), int(c.Argument(3).ToInteger())))
	})
}
