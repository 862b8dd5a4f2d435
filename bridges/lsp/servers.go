package lsp

import "encoding/json"
import "fmt"
import "os"
import "path/filepath"
import "strings"

// serves reports whether s serves the file at path: by its extension, or
// by its name (FileNames).
func (s *Server) serves(path string) bool {
	base := filepath.Base(path)
	for _, n := range s.FileNames {
		if ok, _ := filepath.Match(n, base); ok {
			return true
		}
	}
	return s.servesExt(strings.ToLower(filepath.Ext(base)))
}

func (s *Server) servesExt(ext string) bool {
	for _, e := range s.Extensions {
		if strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}

func (s *Server) languageID(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if id, ok := s.LanguageIDs[ext]; ok {
		return id
	}
	return s.Language
}

// partialView returns why s, running for root, sees only the files opened
// so far ("" when it sees the project).
func (s *Server) partialView(root, relRoot string) string {
	if len(s.ProjectIndex) == 0 {
		return ""
	}
	for _, f := range s.ProjectIndex {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			return ""
		}
	}
	why := fmt.Sprintf("%s found no %s in %s: it knows only the files opened so far", s.Name, strings.Join(s.ProjectIndex, " or "), relRoot)
	return why
}

func (s *Server) indexHint() string {
	if s.ProjectIndexHint == "" {
		return fmt.Sprintf("create %s", s.ProjectIndex[0])
	}
	return fmt.Sprintf("create %s (%s)", s.ProjectIndex[0], s.ProjectIndexHint)
}

// anyFile names what makes the workspace the root of a server without root
// markers (yaml-language-server, bash-language-server), where a marker's
// name would stand.
func (s *Server) anyFile() string { return "a " + s.Language + " file" }

// installNote is "; " and s.Install, or "" without one.
func (s *Server) installNote() string {
	if s.Install == "" {
		return ""
	}
	return "; " + s.Install
}

// markerIn returns the first of s's root markers present in dir, or "".
func (s *Server) markerIn(dir string) string {
	for _, m := range s.RootMarkers {
		if strings.ContainsAny(m, "*?[") {
			// A pattern ("*.csproj"): the first file it matches.
			if found, _ := filepath.Glob(filepath.Join(dir, m)); len(found) > 0 {
				return filepath.Base(found[0])
			}
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			return m
		}
	}
	return ""
}

// lookPath finds name in the PATH of env (os.Environ form); a name with a
// slash is checked as is.
func lookPath(name string, env []string) string {
	isExec := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
	}
	if strings.ContainsRune(name, os.PathSeparator) {
		if isExec(name) {
			return name
		}
		return ""
	}
	path := os.Getenv("PATH")
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			path = kv[len("PATH="):]
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, name); isExec(p) {
			return p
		}
	}
	return ""
}

// binary returns the first of s's binaries found on env's PATH and its path,
// skipping any that is inside workdir (a link on PATH into the workspace).
func (s *Server) binary(env []string, workdir string) (name, path string) {
	for _, b := range s.Binaries {
		if strings.ContainsRune(b, os.PathSeparator) && !filepath.IsAbs(b) {
			continue // resolved against the project root: in the workspace
		}
		if p := lookPath(b, env); p != "" && !insideDir(workdir, p) {
			return b, p
		}
	}
	return "", ""
}

// trustedEnv returns env as language servers and checkers get it at read
// tier (no program from the workspace may run): PATH without entries that
// are relative (they resolve against the process's directory, a project
// root) or lie inside workdir (a project's node_modules/.bin, .venv/bin), so
// neither a server, a checker, nor a "#!/usr/bin/env node" line finds a
// program there; and GOTOOLCHAIN=local, so a go.mod toolchain line cannot
// make the go command that gopls and go vet run download and run another
// toolchain. dropped lists the PATH entries left out.
func trustedEnv(env []string, workdir string) (out, dropped []string) {
	path, hasPath := os.Getenv("PATH"), false
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "PATH="):
			path, hasPath = kv[len("PATH="):], true
		case strings.HasPrefix(kv, "GOTOOLCHAIN="):
		default:
			out = append(out, kv)
		}
	}
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) || insideDir(workdir, dir) {
			dropped = append(dropped, dir)
			continue
		}
		keep = append(keep, dir)
	}
	if hasPath || len(dropped) > 0 {
		out = append(out, "PATH="+strings.Join(keep, string(os.PathListSeparator)))
	}
	return append(out, "GOTOOLCHAIN=local"), dropped
}

// insideDir reports whether p, with symbolic links resolved, is dir or
// inside it (dir is absolute with its links resolved). A p that does not exist
// (yet) is judged by its deepest existing directory, resolved, with the rest
// appended: a PATH entry leading into the workspace through a link is inside
// before the directory it names is made.
func insideDir(dir, p string) bool {
	in := func(p string) bool {
		r, err := filepath.Rel(dir, filepath.Clean(p))
		return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
	}
	if in(p) {
		return true
	}
	p = filepath.Clean(p)
	for rest := ""; ; {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return in(filepath.Join(real, rest))
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// pinTSServer returns opts (initializationOptions) with tsserver.path set to a
// trusted tsserver.js: the typescript package the server at bin resolves as
// node does (its own node_modules, then those of the directories above it),
// else the package of tsserver on env's PATH. Neither may lie inside workdir.
func pinTSServer(opts json.RawMessage, bin string, env []string, workdir string) (json.RawMessage, error) {
	js := nodeModulesUp(bin, func(nm string) string {
		if c := filepath.Join(nm, "typescript", "lib", "tsserver.js"); isFile(c, "") && !insideDir(workdir, c) {
			return c
		}
		return ""
	})
	if p := lookPath("tsserver", env); js == "" && p != "" {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			// node_modules/typescript/bin/tsserver -> lib/tsserver.js
			if c := filepath.Join(filepath.Dir(filepath.Dir(real)), "lib", "tsserver.js"); isFile(c, "") && !insideDir(workdir, c) {
				js = c
			}
		}
	}
	if js == "" {
		return nil, fmt.Errorf("no trusted TypeScript found for typescript-language-server (neither next to %s nor tsserver on PATH), and it would run the workspace's own node_modules/typescript; install typescript next to it (npm install -g typescript)", bin)
	}
	m, err := jsonObject(opts, "initialization_options")
	if err != nil {
		return nil, err
	}
	ts := child(m, "tsserver")
	ts["path"] = js
	// Not fallbackPath: the workspace's copy comes before it.
	delete(ts, "fallbackPath")
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("lsp: initialization_options: %w", err)
	}
	return out, nil
}

// TrustedESLintRules is the configuration the eslint row lints with: the
// rules of eslint's own recommended set (@eslint/js), as data, less
// no-undef, which cannot know a project's globals without its
// configuration (tsserver reports unknown names). The project's
// eslint.config.js is JavaScript and its plugins are code from the
// workspace, so it is not loaded.
var TrustedESLintRules = []string{
	"constructor-super", "for-direction", "getter-return", "no-async-promise-executor", "no-case-declarations",
	"no-class-assign", "no-compare-neg-zero", "no-cond-assign", "no-const-assign", "no-constant-binary-expression",
	"no-constant-condition", "no-control-regex", "no-debugger", "no-delete-var", "no-dupe-args", "no-dupe-class-members",
	"no-dupe-else-if", "no-dupe-keys", "no-duplicate-case", "no-empty", "no-empty-character-class", "no-empty-pattern",
	"no-empty-static-block", "no-ex-assign", "no-extra-boolean-cast", "no-fallthrough", "no-func-assign",
	"no-global-assign", "no-import-assign", "no-invalid-regexp", "no-irregular-whitespace", "no-loss-of-precision",
	"no-misleading-character-class", "no-new-native-nonconstructor", "no-nonoctal-decimal-escape", "no-obj-calls",
	"no-octal", "no-prototype-builtins", "no-redeclare", "no-regex-spaces", "no-self-assign", "no-setter-return",
	"no-shadow-restricted-names", "no-sparse-arrays", "no-this-before-super", "no-unexpected-multiline",
	"no-unreachable", "no-unsafe-finally", "no-unsafe-negation", "no-unsafe-optional-chaining", "no-unused-labels",
	"no-unused-private-class-members", "no-unused-vars", "no-useless-backreference", "no-useless-catch",
	"no-useless-escape", "no-with", "require-yield", "use-isnan", "valid-typeof",
}

// pinESLint returns settings (the eslint server's) with nodePath set to the
// node_modules directory that holds a trusted eslint, the one the server at
// bin resolves as node does (its own node_modules, then those of the
// directories above it, none inside workdir), and with options that make
// eslint lint with TrustedESLintRules and read no configuration file.
func pinESLint(settings json.RawMessage, bin, workdir string) (json.RawMessage, error) {
	nm := nodeModulesUp(bin, func(c string) string {
		if isFile(filepath.Join(c, "eslint", "package.json"), "") && !insideDir(workdir, c) {
			return c
		}
		return ""
	})
	if nm == "" {
		return nil, fmt.Errorf("no trusted eslint found next to %s, and it would load the workspace's own node_modules/eslint; install eslint next to it (scripts/npm/package.json)", bin)
	}
	m, err := jsonObject(settings, "settings")
	if err != nil {
		return nil, err
	}
	rules := map[string]string{}
	for _, r := range TrustedESLintRules {
		rules[r] = "error"
	}
	rules["no-unused-vars"] = "warn"
	m["nodePath"] = nm
	m["options"] = map[string]any{
		"overrideConfigFile": true,
		"overrideConfig":     map[string]any{"rules": rules},
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("lsp: settings: %w", err)
	}
	return out, nil
}

// nodeModulesUp calls found with each node_modules directory node resolves
// a package from for the program at bin (links resolved: its own, then
// those of the directories above it) and returns found's first answer that
// is not "", or "".
func nodeModulesUp(bin string, found func(nodeModules string) string) string {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return ""
	}
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		if f := found(filepath.Join(d, "node_modules")); f != "" {
			return f
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// jsonObject decodes raw, a JSON object or nothing, into a map to change;
// what names raw in the error.
func jsonObject(raw json.RawMessage, what string) (map[string]any, error) {
	m := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("lsp: %s: %w", what, err)
		}
	}
	return m, nil
}

// child returns the object under key in m, set to a new empty one where
// there is no object.
func child(m map[string]any, key string) map[string]any {
	c, _ := m[key].(map[string]any)
	if c == nil {
		c = map[string]any{}
		m[key] = c
	}
	return c
}
