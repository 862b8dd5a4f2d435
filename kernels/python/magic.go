package python

import "bytes"
import "encoding/json"
import "fmt"
import "regexp"
import "sort"
import "strings"
import "sync"

import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/kernels"

// The IPython idioms a cell may use. Each is rewritten into a call of the
// driver's __tether__ helper, keeping one output line per input line so
// errors still point at the cell line the user wrote.
var (
	lineMagics = map[string]bool{
		"pip": true, "cd": true, "pwd": true, "timeit": true, "time": true, "env": true, "set_env": true,
		"matplotlib": true, "config": true, "load_ext": true, "reload_ext": true, "autoreload": true, "aimport": true,
		"who": true, "whos": true, "reset": true, "run": true, "sx": true, "system": true,
		"pinfo": true, "pinfo2": true, "prun": true, "lsmagic": true, "history": true, "hist": true, "tb": true,
	}
	// refused are idioms that cannot work here, with what to do instead.
	refused = map[string]string{
		"debug": "%debug needs an interactive debugger at a terminal, and a cell has none: read the traceback (%tb shows the last one again), " +
			"or step through the code with the debug tool on a script",
		"pdb": "%pdb would stop in an interactive debugger at a terminal, and a cell has none: read the traceback (%tb shows the last one again), " +
			"or step through the code with the debug tool on a script",
	}
	cellMagics = map[string]bool{
		"bash": true, "sh": true, "timeit": true, "time": true, "capture": true, "writefile": true,
		"html": true, "script": true, "python": true, "python3": true, "perl": true, "ruby": true,
		"prun": true, "markdown": true, "md": true, "file": true,
	}
	// pythonBody are the cell magics whose body is Python run as part of the
	// cell: their body may use the idioms too, and is told its first line.
	pythonBody = map[string]bool{"time": true, "capture": true, "prun": true}
	// shellAliases are IPython's default shell aliases (%ls -l runs ls -l).
	shellAliases = map[string]string{"ls": "ls", "ll": "ls -F -l", "cat": "cat", "cp": "cp", "mkdir": "mkdir", "mv": "mv", "rm": "rm", "rmdir": "rmdir"}
)

// pinfoLine matches IPython's help idioms: ?obj, ??obj, obj?, obj??.
var pinfoLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(\?{1,2})([A-Za-z_][\w.]*)|([A-Za-z_][\w.]*)(\?{1,2}))\s*$`)
})

var assignEscape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*([!%])(.*)$`)
})

func supported() string {
	var l, c []string
	for k := range lineMagics {
		l = append(l, "%"+k)
	}
	for k := range cellMagics {
		c = append(c, "%%"+k)
	}
	sort.Strings(l)
	sort.Strings(c)
	return strings.Join(append(append(l, c...), "!cmd", "x = !cmd", "obj?", "obj??", "%ls and IPython's other shell aliases"), ", ")
}

// pyString returns s as a Python string literal (a JSON string is one).
func pyString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// Rewrite turns the IPython idioms in a cell (%pip, %cd, %pwd, %time,
// %timeit, %env, %run, the shell aliases, obj?, %%bash, %%time, %%timeit,
// %%capture, %%writefile, !cmd, x = !cmd, x = %magic, ...; see lineMagics
// and cellMagics) into plain Python. The body of %%time and %%capture is
// rewritten too and told the cell line it starts on. Lines
// inside strings and bracketed continuations are left alone. An unknown magic
// is a usage error naming the cell line.
func Rewrite(code string) (string, *kernels.Error) {
	lines := strings.Split(code, "\n")
	// A cell magic must be the cell's first non-blank line.
	first := 0
	for first < len(lines) && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	if first < len(lines) && strings.HasPrefix(lines[first], "%%") {
		name, args := splitMagic(strings.TrimPrefix(lines[first], "%%"))
		if !cellMagics[name] {
			return "", usage(first+1, fmt.Sprintf("unknown cell magic %%%%%s", name))
		}
		body := strings.Join(lines[first+1:], "\n")
		out := make([]string, len(lines))
		if pythonBody[name] {
			rb, err := Rewrite(body)
			if err != nil {
				err.Line += first + 1
				err.Message = strings.Replace(err.Message, fmt.Sprintf("on cell line %d", err.Line-first-1), fmt.Sprintf("on cell line %d", err.Line), 1)
				return "", err
			}
			out[first] = fmt.Sprintf("__tether__.cell(%s, %s, %s, %d)", pyString(name), pyString(args), pyString(rb), first+1)
		} else {
			out[first] = fmt.Sprintf("__tether__.cell(%s, %s, %s)", pyString(name), pyString(args), pyString(body))
		}
		return strings.Join(out, "\n"), nil
	}
	var sc ipynb.LineScanner
	out := make([]string, len(lines))
	for i, line := range lines {
		if !sc.AtLogicalStart() {
			out[i] = line
			sc.Scan(line)
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		indent := line[:len(line)-len(trimmed)]
		switch {
		case strings.HasPrefix(trimmed, "%%"):
			name, _ := splitMagic(strings.TrimPrefix(trimmed, "%%"))
			return "", usage(i+1, fmt.Sprintf("cell magic %%%%%s must be the first line of the cell", name))
		case strings.HasPrefix(trimmed, "!"):
			cmd := strings.TrimSpace(trimmed[1:])
			if args, ok := pipCommand(cmd); ok {
				// The pip first on PATH may belong to another interpreter:
				// install into the kernel's own, as %pip does.
				out[i] = indent + "__tether__.magic(\"pip\", " + pyString(args) + ")"
				continue
			}
			out[i] = indent + "__tether__.system(" + pyString(cmd) + ")"
			continue
		case pinfoLine().MatchString(trimmed):
			m := pinfoLine().FindStringSubmatch(trimmed)
			name, q := m[2], m[1]
			if name == "" {
				name, q = m[3], m[4]
			}
			out[i] = indent + fmt.Sprintf("__tether__.pinfo(%s, %d)", pyString(name), len(q))
			continue
		case strings.HasPrefix(trimmed, "%"):
			name, args := splitMagic(trimmed[1:])
			if alias, ok := shellAliases[name]; ok {
				out[i] = indent + "__tether__.system(" + pyString(strings.TrimSpace(alias+" "+args)) + ")"
				continue
			}
			if why, ok := refused[name]; ok {
				return "", &kernels.Error{Name: kernels.KindUsage, Message: fmt.Sprintf("kernels: %s (cell line %d)", why, i+1), Line: i + 1}
			}
			if !lineMagics[name] {
				return "", usage(i+1, fmt.Sprintf("unknown magic %%%s", name))
			}
			if name == "lsmagic" {
				out[i] = indent + "print(" + pyString("supported idioms: "+supported()) + ")"
				continue
			}
			out[i] = indent + "__tether__.magic(" + pyString(name) + ", " + pyString(args) + ")"
			continue
		}
		if m := assignEscape().FindStringSubmatch(trimmed); m != nil {
			target, kind, rest := m[1], m[2], m[3]
			if kind == "!" {
				out[i] = indent + target + " = __tether__.getoutput(" + pyString(strings.TrimSpace(rest)) + ")"
				continue
			}
			name, args := splitMagic(rest)
			if why, ok := refused[name]; ok {
				return "", &kernels.Error{Name: kernels.KindUsage, Message: fmt.Sprintf("kernels: %s (cell line %d)", why, i+1), Line: i + 1}
			}
			if !lineMagics[name] {
				return "", usage(i+1, fmt.Sprintf("unknown magic %%%s", name))
			}
			out[i] = indent + target + " = __tether__.magic(" + pyString(name) + ", " + pyString(args) + ")"
			continue
		}
		out[i] = line
		sc.Scan(line)
	}
	return strings.Join(out, "\n"), nil
}

// pipRun matches a shell command that runs pip: pip, pip3, pip3.11, or
// python[3] -m pip.
var pipRun = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:pip(?:3(?:\.\d+)?)?|python(?:3(?:\.\d+)?)?\s+-m\s+pip)(?:\s+(.*))?$`)
})

// pipCommand reports whether a !cmd runs pip, and pip's arguments. A command
// that goes on after pip (a pipe, &&, ;, a redirection) is left to the shell.
func pipCommand(cmd string) (string, bool) {
	m := pipRun().FindStringSubmatch(cmd)
	if m == nil || strings.ContainsAny(m[1], "|&;<>`$") {
		return "", false
	}
	return strings.TrimSpace(m[1]), true
}

func splitMagic(s string) (name, args string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}

func usage(line int, what string) *kernels.Error {
	return &kernels.Error{
		Name:    kernels.KindUsage,
		Message: fmt.Sprintf("kernels: %s on cell line %d: supported idioms are %s; write anything else as plain Python (subprocess.run, os.chdir, ...)", what, line, supported()),
		Line:    line,
	}
}
