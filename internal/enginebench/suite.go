package enginebench

import "bufio"
import "fmt"
import "io"
import "sort"
import "strings"

// Suite is a set of patterns in one language.
type Suite struct {
	Name     string   `json:"name"`
	Language string   `json:"language"`
	Patterns []string `json:"patterns"`
}

// builtin are the shipped suites: shapes every engine reads the same way
// (a call whose callee could be read as a type conversion, such as Go's
// fmt.Println($A), is left out: ast-grep reads it as one and finds nothing),
// common ones and a rare one in each. Go's `if err != nil { return $$$ }`
// is left out too: ast-grep's trailing $$$ does not match a bare return.
var builtin = map[string]Suite{
	"go": {Name: "go", Language: "go", Patterns: []string{
		`$X.Lock()`,
		`defer $X.Unlock()`,
		`for $I := range $X { $$$ }`,
		`return nil, $E`,
		`go func() { $$$ }()`,
		`goto $L`,
	}},
	"python": {Name: "python", Language: "python", Patterns: []string{
		`print($$$A)`,
		`self.$X = $Y`,
		`raise $E($$$)`,
		`isinstance($A, $B)`,
		`len($A)`,
	}},
	"typescript": {Name: "typescript", Language: "typescript", Patterns: []string{
		`console.log($$$)`,
		`await $X`,
		`new Promise($$$)`,
		`JSON.parse($A)`,
		`$A === undefined`,
	}},
	"rust": {Name: "rust", Language: "rust", Patterns: []string{
		`$X.unwrap()`,
		`Box::new($A)`,
		`$X.clone()`,
		`Some($A)`,
		`unsafe { $$$ }`,
	}},
}

// BuiltinSuites lists the shipped suites' names.
func BuiltinSuites() []string {
	names := make([]string, 0, len(builtin))
	for n := range builtin {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// BuiltinSuite returns a shipped suite by name (go, python, typescript, rust).
func BuiltinSuite(name string) (Suite, bool) {
	s, ok := builtin[name]
	if ok {
		s.Patterns = append([]string(nil), s.Patterns...)
	}
	return s, ok
}

// maxPatterns bounds a suite file: every pattern runs once per engine per
// round, so a longer list is a mistake rather than a benchmark.
const maxPatterns = 200

// ReadSuite reads a suite file: one pattern a line, `\n` in a line standing
// for a line break; blank lines and lines starting with # are skipped; a
// line `language: NAME` sets the language (else lang, from the command
// line, which also overrides the file's).
func ReadSuite(r io.Reader, name, lang string) (Suite, error) {
	s := Suite{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if v, ok := strings.CutPrefix(t, "language:"); ok {
			s.Language = strings.TrimSpace(v)
			continue
		}
		if len(s.Patterns) == maxPatterns {
			return Suite{}, fmt.Errorf("%s:%d: more than %d patterns; split the suite into several files", name, line, maxPatterns)
		}
		s.Patterns = append(s.Patterns, strings.ReplaceAll(t, `\n`, "\n"))
	}
	if err := sc.Err(); err != nil {
		return Suite{}, fmt.Errorf("%s: %w", name, err)
	}
	if lang != "" {
		s.Language = lang
	}
	if len(s.Patterns) == 0 {
		return Suite{}, fmt.Errorf("%s: no patterns: write one pattern a line (# starts a comment)", name)
	}
	if s.Language == "" {
		return Suite{}, fmt.Errorf("%s: no language: add a line `language: go` to the file or pass -l", name)
	}
	return s, nil
}
