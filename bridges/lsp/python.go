package lsp

import "bufio"
import "bytes"
import "encoding/json"
import "fmt"
import "os"
import "path/filepath"
import "sort"
import "strings"

// WithPython names the interpreter whose packages a Python server
// (pyright) resolves imports against when the project names none (no
// .venv, venv or pyright configuration naming one): the interpreter the
// eval tool runs (tether's --python). Empty, the default, means python3
// from the trusted PATH, as eval takes it.
func WithPython(path string) Option { return func(s *Supervisor) { s.python = path } }

// pythonChoice is the interpreter a Python server is given for a root,
// and why.
type pythonChoice struct {
	path  string   // the interpreter pyright runs to list its search paths; "" to leave pyright's own choice
	extra []string // more import roots (a venv's site-packages)
	why   string
}

func (c pythonChoice) String() string {
	if c.path == "" {
		return c.why
	}
	return c.path + " (" + c.why + ")"
}

// pythonFor chooses the interpreter of the project at root, in order: a
// pyright configuration naming a venv (pyright reads it itself); the
// project's .venv or venv, given as its site-packages on the interpreter
// it was made from (its bin/python is never run: a venv's site-packages
// can hold .pth files, code from the workspace, that any run of it
// executes); the interpreter configured with WithPython; else python3 on
// the trusted PATH.
func (s *Supervisor) pythonFor(root string) pythonChoice {
	if f, key := pyrightVenvConfig(root); f != "" {
		return pythonChoice{why: fmt.Sprintf("the project's %s names its environment (%s); pyright reads it", f, key)}
	}
	for _, name := range []string{".venv", "venv"} {
		dir := filepath.Join(root, name)
		cfg, err := os.ReadFile(filepath.Join(dir, "pyvenv.cfg"))
		if err != nil {
			continue
		}
		site, _ := filepath.Glob(filepath.Join(dir, "lib", "python*", "site-packages"))
		sort.Strings(site)
		base := venvBase(cfg, s.env)
		if base == "" {
			return pythonChoice{extra: site, why: fmt.Sprintf("the project's %s: its site-packages; the interpreter it was made from was not found, so pyright runs its default", name)}
		}
		return pythonChoice{path: base, extra: site, why: fmt.Sprintf("the project's %s: its site-packages, on the interpreter it was made from (its bin/python is not run: code from the workspace)", name)}
	}
	if s.python != "" {
		p := lookPath(s.python, s.env)
		if p != "" && !insideDir(s.workdir, p) {
			return pythonChoice{path: p, why: "the interpreter eval runs"}
		}
		return pythonChoice{why: fmt.Sprintf("the interpreter eval runs, %s, was not found outside the workspace; pyright runs its default", s.python)}
	}
	if p := lookPath("python3", s.env); p != "" {
		return pythonChoice{path: p, why: "python3 first on PATH, as eval runs it"}
	}
	return pythonChoice{why: "no python3 on PATH: pyright resolves no installed package"}
}

// pyrightVenvConfig returns the configuration file in root that names the
// project's environment for pyright (pyrightconfig.json, or pyproject.toml's
// [tool.pyright]) and the key that does, or "".
func pyrightVenvConfig(root string) (file, key string) {
	if b, err := os.ReadFile(filepath.Join(root, "pyrightconfig.json")); err == nil {
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		for _, k := range []string{"venv", "venvPath"} {
			if _, ok := m[k]; ok {
				return "pyrightconfig.json", k
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "pyproject.toml"))
	if err != nil {
		return "", ""
	}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == "[tool.pyright]"
			continue
		}
		if !in {
			continue
		}
		for _, k := range []string{"venv", "venvPath"} {
			if rest, ok := strings.CutPrefix(line, k); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
				return "pyproject.toml [tool.pyright]", k
			}
		}
	}
	return "", ""
}

// venvBase returns the interpreter a venv was made from, as its
// pyvenv.cfg names it (executable, else home/python3), when it exists;
// "" otherwise.
func venvBase(cfg []byte, env []string) string {
	vals := map[string]string{}
	for _, line := range strings.Split(string(cfg), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok {
			vals[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	var cands []string
	if e := vals["executable"]; e != "" {
		cands = append(cands, e)
	}
	if h := vals["home"]; h != "" {
		if v := vals["version"]; v != "" {
			if parts := strings.Split(v, "."); len(parts) >= 2 {
				cands = append(cands, filepath.Join(h, "python"+parts[0]+"."+parts[1]))
			}
		}
		cands = append(cands, filepath.Join(h, "python3"), filepath.Join(h, "python"))
	}
	for _, c := range cands {
		if p := lookPath(c, env); p != "" && filepath.IsAbs(p) {
			return p
		}
	}
	return ""
}

// withPython returns settings (pyright's, {"python": {...}}) with
// python.pythonPath set to c's interpreter and c's extra import roots
// added to python.analysis.extraPaths.
func withPython(settings json.RawMessage, c pythonChoice) (json.RawMessage, error) {
	if c.path == "" && len(c.extra) == 0 {
		return settings, nil
	}
	m, err := jsonObject(settings, "settings")
	if err != nil {
		return nil, err
	}
	py := child(m, "python")
	if c.path != "" {
		py["pythonPath"] = c.path
	}
	if len(c.extra) > 0 {
		an := child(py, "analysis")
		paths, _ := an["extraPaths"].([]any)
		for _, e := range c.extra {
			paths = append(paths, e)
		}
		an["extraPaths"] = paths
	}
	return json.Marshal(m)
}
