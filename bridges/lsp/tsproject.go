package lsp

import "encoding/json"
import "path"
import "path/filepath"
import "regexp"
import "strings"

import "github.com/tetherhq/tether/internal/glob"

// TSProject is the TypeScript project a file belongs to as tsserver reads
// it: the tsconfig.json (or jsconfig.json) nearest above the file, with its
// files, include and exclude. tsserver's references and renames search the
// files of that project only, so a use in a file outside it (tests outside
// "include": ["src"]) is never returned.
type TSProject struct {
	// Config is the configuration file, workspace-relative.
	Config string
	// Include are its include patterns as written (["**/*"] when it has
	// neither files nor include), Files its files list.
	Include, Files []string
	dir            string // Config's directory, workspace-relative ("" for the root)
	include        []*regexp.Regexp
	exclude        []*regexp.Regexp
}

// TSProjectOf returns the project of file (workspace-relative); false when
// no tsconfig.json or jsconfig.json above it in the workspace can be read,
// or its include cannot be told from it alone (it extends another and
// names neither files nor include).
func (s *Supervisor) TSProjectOf(file string) (*TSProject, bool) {
	dir := path.Dir(filepath.ToSlash(file))
	for {
		for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
			rel := path.Join(dir, name)
			data, err := s.root.ReadFile(filepath.Join(s.workdir, filepath.FromSlash(rel)))
			if err != nil {
				continue
			}
			return parseTSConfig(rel, data)
		}
		if dir == "." || dir == "/" || dir == "" {
			return nil, false
		}
		dir = path.Dir(dir)
	}
}

// parseTSConfig reads a tsconfig's files, include and exclude.
func parseTSConfig(rel string, data []byte) (*TSProject, bool) {
	var c struct {
		Files   []string `json:"files"`
		Include []string `json:"include"`
		Exclude []string `json:"exclude"`
		Extends any      `json:"extends"`
	}
	if err := json.Unmarshal(jsonc(data), &c); err != nil {
		return nil, false
	}
	if c.Files == nil && c.Include == nil {
		if c.Extends != nil {
			return nil, false
		}
		c.Include = []string{"**/*"}
	}
	if c.Exclude == nil {
		c.Exclude = []string{"node_modules", "bower_components", "jspm_packages"}
	}
	p := &TSProject{Config: rel, Include: c.Include, Files: c.Files, dir: path.Dir(rel)}
	if p.dir == "." {
		p.dir = ""
	}
	for _, g := range c.Include {
		p.include = append(p.include, tsGlob(g))
	}
	for _, g := range c.Exclude {
		p.exclude = append(p.exclude, tsGlob(g))
	}
	return p, true
}

// Holds says whether the project holds file (workspace-relative).
func (p *TSProject) Holds(file string) bool {
	file = filepath.ToSlash(file)
	in := file
	if p.dir != "" {
		var ok bool
		if in, ok = strings.CutPrefix(file, p.dir+"/"); !ok {
			return false
		}
	}
	for _, f := range p.Files {
		if path.Clean(f) == in {
			return true
		}
	}
	for _, re := range p.exclude {
		if re.MatchString(in) {
			return false
		}
	}
	for _, re := range p.include {
		if re.MatchString(in) {
			return true
		}
	}
	return false
}

// tsGlob compiles a tsconfig include or exclude pattern, relative to its
// directory: "*" and "?" within a path component, "**/" any directories; a
// pattern whose last component has no wildcard and no extension is a
// directory and holds everything under it.
func tsGlob(g string) *regexp.Regexp {
	g = strings.TrimPrefix(path.Clean(filepath.ToSlash(g)), "./")
	last := path.Base(g)
	if !strings.ContainsAny(last, "*?") && path.Ext(last) == "" {
		g += "/**/*"
	}
	// a pattern naming a directory's files also holds what is under a
	// directory it matches
	return regexp.MustCompile("^" + glob.Expr(g, glob.Options{Components: true}) + "(?:/.*)?$")
}

// jsonc strips the comments and trailing commas tsconfig files may hold,
// leaving strings alone.
func jsonc(data []byte) []byte {
	var out []byte
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(data))
			out = append(out, data[i:end]...)
			i = end - 1
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			i += 2
			for i+1 < len(data) && !(data[i] == '*' && data[i+1] == '/') {
				i++
			}
			i++
		case c == ',':
			j := i + 1
			for j < len(data) && strings.ContainsRune(" \t\r\n", rune(data[j])) {
				j++
			}
			if j < len(data) && (data[j] == '}' || data[j] == ']') {
				continue
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}
