package main

import "context"
import "fmt"
import "io"
import "slices"
import "strings"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/search"

// debugFormat is the --debug-query flag: "" (off) or one of
// matcher.DebugFormats; a bare --debug-query is pattern, as in ast-grep.
type debugFormat string

func (d *debugFormat) String() string   { return string(*d) }
func (d *debugFormat) IsBoolFlag() bool { return true }
func (d *debugFormat) Set(v string) error {
	switch {
	case v == "true":
		*d = "pattern"
	case v == "false":
		*d = ""
	case slices.Contains(matcher.DebugFormats, v):
		*d = debugFormat(v)
	default:
		return fmt.Errorf("--debug-query=%s: give %s", v, strings.Join(matcher.DebugFormats, ", "))
	}
	return nil
}

// debugQuery prints q's pattern's readings to stderr in format, as
// ast-grep's --debug-query prints its pattern before it searches; it
// returns 0, else the exit status (the reason printed): 2 when the
// language is not given, exitInvalid when the pattern does not compile.
func debugQuery(ctx context.Context, p matcher.Parser, q search.Query, format string, stderr io.Writer) int {
	if q.Language == "" {
		fmt.Fprintln(stderr, "tether ast-grep: --debug-query needs the language: pass -l LANG")
		return 2
	}
	lang, ok := grammars.Lookup(q.Language)
	if !ok {
		fmt.Fprintf(stderr, "tether: unknown language %q: use one of %s\n", q.Language, strings.Join(grammars.IDs(), ", "))
		return 2
	}
	pat, err := search.CompileQuery(ctx, p, lang, q)
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return exitFor(err)
	}
	text, err := pat.Debug(format)
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return 2
	}
	fmt.Fprintln(stderr, text)
	return 0
}
