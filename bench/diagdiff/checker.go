package main

import "bytes"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "unicode"
import "unicode/utf8"

import "github.com/tetherhq/tether/bridges/lsp"

// Diag is one diagnostic, keyed as tether's registry keys it: the file,
// severity, code and message, with the position left out (a diagnostic
// that merely moved is neither new nor cleared). A language whose checker
// gives no severity or code leaves them empty on both sides.
type Diag struct {
	File, Severity, Code, Message string
}

// Set is a multiset of diagnostics: Diag -> occurrences.
type Set map[Diag]int

// delta returns what after has more of than before (new) and less of
// (cleared), as multisets.
func delta(before, after Set) (fresh, cleared Set) {
	fresh, cleared = Set{}, Set{}
	for k, n := range after {
		if d := n - before[k]; d > 0 {
			fresh[k] = d
		}
	}
	for k, n := range before {
		if d := n - after[k]; d > 0 {
			cleared[k] = d
		}
	}
	return fresh, cleared
}

var spaces = regexp.MustCompile(`\s+`)

// normalize is the message as tether's registry compares it: its first line
// (the lines below elaborate), white space collapsed, unions and
// intersections sorted (lsp.NormalizeMessage); for C, clangd's capitalized
// first letter undone.
func normalize(lang, msg string) string {
	msg, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
	if lang == "c" {
		if r, n := utf8.DecodeRuneInString(msg); n > 0 {
			msg = string(unicode.ToLower(r)) + msg[n:]
		}
	}
	return lsp.NormalizeMessage(strings.TrimSpace(spaces.ReplaceAllString(msg, " ")))
}

// key turns a diagnostic into the language's comparison key.
func key(lang, file, severity, code, msg string) Diag {
	d := Diag{File: filepath.ToSlash(file), Severity: severity, Code: code, Message: normalize(lang, msg)}
	switch lang {
	case "go":
		d.Severity, d.Code = "", "" // gopls check prints neither
	case "c":
		d.Code = "" // clang prints a warning's flag, clangd its own name
	}
	return d
}

// checker computes a project's diagnostics with the language's own command
// line, errors and warnings only.
// It also returns "file\x00line text" of some lines holding an error,
// where the checker gives lines (for fix-error changes).
type checker func(ctx context.Context, p *project) (Set, []pos, error)

// pos is a file and a 0-based line.
type pos struct {
	file string
	line int
}

var checkers = map[string]checker{
	"go":         checkGo,
	"python":     checkPython,
	"typescript": checkTS,
	"c":          checkC,
}

// A checker exits non-zero when it finds errors, which is its answer; one
// that could not run (not installed, killed, cancelled) returns errNoCheck
// instead, so that "the checker could not look" is never scored as "the
// checker found nothing".
func run(ctx context.Context, dir string, name string, args ...string) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || !exit.Exited() || ctx.Err() != nil) {
		return nil, nil, fmt.Errorf("%w: %s: %v (install it: scripts/install-deps.sh, and run with the Makefile's PATH)", errNoCheck, name, err)
	}
	return o.Bytes(), e.Bytes(), err
}

// errNoCheck is a checker that could not run.
var errNoCheck = errors.New("the checker could not run")

// checked passes on run's errNoCheck; any other error is the checker's
// non-zero exit, its usual answer.
func checked(err error) error {
	if errors.Is(err, errNoCheck) {
		return err
	}
	return nil
}

// gopls check -severity=error: "path:line:col[-[line:]col]: message", a range over lines included (its
// warnings are left out: the analyzers' findings on files nobody changed
// come and go between runs; tether's Go warnings are left out to match),
// one a line (continuation lines of a long message start with a tab).
var goLine = regexp.MustCompile(`^(.+?\.go):\d+:\d+(?:-\d+(?::\d+)?)?: (.*)$`)

func checkGo(ctx context.Context, p *project) (Set, []pos, error) {
	files, err := p.sources()
	if err != nil {
		return nil, nil, err
	}
	out, errOut, err := run(ctx, p.dir, "gopls", append([]string{"check", "-severity=error"}, files...)...)
	if err := checked(err); err != nil {
		return nil, nil, err
	}
	set := Set{}
	for _, line := range strings.Split(string(out)+"\n"+string(errOut), "\n") {
		m := goLine.FindStringSubmatch(line)
		if m == nil {
			continue // a continuation line: the first line is the key
		}
		d := key("go", p.rel(m[1]), "", "", m[2])
		set[d]++
	}
	return set, nil, nil
}

func checkPython(ctx context.Context, p *project) (Set, []pos, error) {
	out, errOut, runErr := run(ctx, p.dir, "pyright", "--outputjson", "-p", p.dir)
	var res struct {
		Diagnostics []struct {
			File     string `json:"file"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Rule     string `json:"rule"`
			Range    struct {
				Start struct{ Line int } `json:"start"`
			} `json:"range"`
		} `json:"generalDiagnostics"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, nil, fmt.Errorf("pyright --outputjson: %v (%v): %s", err, runErr, errOut)
	}
	set := Set{}
	var at []pos
	for _, d := range res.Diagnostics {
		if d.Severity != "error" && d.Severity != "warning" {
			continue
		}
		set[key("python", p.rel(d.File), d.Severity, d.Rule, d.Message)]++
		at = append(at, pos{p.rel(d.File), d.Range.Start.Line})
	}
	return set, at, nil
}

// tsc --pretty false: "path(line,col): error TS2345: message", continuation
// lines indented.
var tsLine = regexp.MustCompile(`^(.+?)\((\d+),\d+\): (error|warning) TS(\d+): (.*)$`)

func checkTS(ctx context.Context, p *project) (Set, []pos, error) {
	out, errOut, err := run(ctx, p.dir, "tsc", "--noEmit", "--pretty", "false", "-p", p.tsconfig)
	if err := checked(err); err != nil {
		return nil, nil, err
	}
	set := Set{}
	var at []pos
	for _, line := range strings.Split(string(out), "\n") {
		m := tsLine.FindStringSubmatch(line)
		if m == nil {
			continue // a continuation line: the first line is the key
		}
		d := key("typescript", p.rel(m[1]), m[3], m[4], m[5])
		set[d]++
		line, _ := strconv.Atoi(m[2])
		at = append(at, pos{p.rel(m[1]), line - 1})
	}
	if len(set) == 0 && len(errOut) > 0 {
		return nil, nil, fmt.Errorf("tsc: %s", errOut)
	}
	return set, at, nil
}

// clang: "path:line:col: error: message [-Wflag]".
var cLine = regexp.MustCompile(`^(.+?):\d+:\d+: (error|warning): (.*?)(?: \[[^\]]+\])?$`)

func checkC(ctx context.Context, p *project) (Set, []pos, error) {
	var db []struct {
		Directory string   `json:"directory"`
		File      string   `json:"file"`
		Arguments []string `json:"arguments"`
	}
	b, err := os.ReadFile(filepath.Join(p.dir, "compile_commands.json"))
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(b, &db); err != nil {
		return nil, nil, err
	}
	// Every header is compiled alone too, with the flags of the first
	// command, as clangd checks a header (a header that no longer
	// includes what it uses fails alone, though its includers compile).
	files, err := p.sources()
	if err != nil {
		return nil, nil, err
	}
	type unit struct {
		dir  string
		args []string
	}
	var units []unit
	for _, e := range db {
		units = append(units, unit{e.Directory, without(e.Arguments[1:], "-c")})
	}
	if len(db) > 0 {
		flags := without(without(db[0].Arguments[1:], "-c"), db[0].File)
		for _, f := range files {
			if strings.HasSuffix(f, ".h") {
				units = append(units, unit{p.dir, append(append([]string{}, flags...), "-x", "c-header", f)})
			}
		}
	}
	// A header's diagnostic shows once for each file including it: the
	// same position is one diagnostic.
	seen := map[string]bool{}
	set := Set{}
	for _, e := range units {
		args := append([]string{"-fsyntax-only", "-ferror-limit=0", "-fno-caret-diagnostics", "-fno-diagnostics-fixit-info"}, e.args...)
		_, errOut, err := run(ctx, e.dir, clangBin(), args...)
		if err := checked(err); err != nil {
			return nil, nil, err
		}
		for _, line := range strings.Split(string(errOut), "\n") {
			m := cLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			// The file as a compile names it differs with how it was
			// reached ("./h.h" from an includer, "h.h" alone): the
			// position is compared by the workspace path.
			file := p.rel(m[1])
			at := file + ":" + strings.TrimPrefix(strings.SplitN(line, ": ", 2)[0], m[1]) + " " + m[3]
			if seen[at] {
				continue
			}
			seen[at] = true
			set[key("c", file, m[2], "", m[3])]++
		}
	}
	return set, nil, nil
}

func without(args []string, drop string) []string {
	out := args[:0:0]
	for _, a := range args {
		if a != drop {
			out = append(out, a)
		}
	}
	return out
}

// clangBin is the clang matching clangd's version when installed.
func clangBin() string {
	for _, c := range []string{"clang-19", "clang"} {
		if _, err := exec.LookPath(c); err == nil {
			return c
		}
	}
	return "clang"
}
