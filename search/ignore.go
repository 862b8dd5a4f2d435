package search

import "bufio"
import "bytes"
import "path/filepath"
import "regexp"
import "strings"

import "github.com/tetherhq/tether/internal/glob"

// ignoreRule is one line of a .gitignore or .ignore file.
type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
}

// ignoreSet holds the rules of the ignore files of one directory; paths are
// matched relative to that directory.
type ignoreSet struct {
	base  string
	rules []ignoreRule
}

// ignoreLevel is one directory's ignore files, as ast-grep (ripgrep's ignore
// crate) weighs them: .ignore counts everywhere and over any .gitignore;
// .gitignore counts only inside a git repository, from the file's directory
// up to the repository's root.
type ignoreLevel struct {
	dot *ignoreSet // .ignore
	git *ignoreSet // .gitignore
	// repo: the directory holds .git; excludes are then its repository's
	// info/exclude and core.excludesFile, weakest first.
	repo     bool
	excludes []*ignoreSet
}

// loadLevel reads dir's ignore files through f (see files.readAncestor); nil
// when it has none and is no repository's root.
func loadLevel(f *files, dir string) *ignoreLevel {
	var l ignoreLevel
	for _, ig := range []struct {
		name string
		set  **ignoreSet
	}{{".gitignore", &l.git}, {".ignore", &l.dot}} {
		if data, err := f.readAncestor(filepath.Join(dir, ig.name)); err == nil {
			*ig.set = &ignoreSet{base: dir, rules: parseIgnore(data)}
		}
	}
	if f.existsAncestor(filepath.Join(dir, ".git")) {
		l.repo = true
		l.excludes = repoExcludes(dir)
	}
	if l.dot == nil && l.git == nil && !l.repo {
		return nil
	}
	return &l
}

// levelsIgnore reports whether path (a directory when dir) is ignored by
// the levels from the outermost directory to the file's own.
func levelsIgnore(levels []*ignoreLevel, path string, dir bool) bool {
	// the nearest .ignore with a matching rule decides
	for i := len(levels) - 1; i >= 0; i-- {
		if ign, ok := levels[i].dot.match(path, dir); ok {
			return ign
		}
	}
	// then the .gitignore files up to the nearest repository root, then
	// that repository's excludes; outside a repository none
	root := -1
	for i := len(levels) - 1; i >= 0 && root < 0; i-- {
		if levels[i].repo {
			root = i
		}
	}
	if root < 0 {
		return false
	}
	for i := len(levels) - 1; i >= root; i-- {
		if ign, ok := levels[i].git.match(path, dir); ok {
			return ign
		}
	}
	return ignored(levels[root].excludes, path, dir)
}

// match reports whether set ignores path, and whether any of its rules
// matched it (the last matching rule wins). A nil set matches nothing.
func (set *ignoreSet) match(path string, dir bool) (ign, ok bool) {
	if set == nil {
		return false, false
	}
	rel, err := filepath.Rel(set.base, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false, false
	}
	rel = filepath.ToSlash(rel)
	for _, r := range set.rules {
		if r.dirOnly && !dir {
			continue
		}
		if r.re.MatchString(rel) {
			ign, ok = !r.negate, true
		}
	}
	return ign, ok
}

// parseIgnore parses gitignore syntax: comments, blank lines, ! negation, a
// trailing / for directories, a / elsewhere anchoring to the file's directory,
// and the globs *, ?, [...] and **.
func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, `\`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		expr := glob.Expr(line, glob.Options{Classes: true})
		if anchored {
			expr = "^" + expr + "$"
		} else {
			expr = "^(?:.*/)?" + expr + "$"
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			continue
		}
		r.re = re
		rules = append(rules, r)
	}
	return rules
}

// ignored reports whether path (a directory when dir) is ignored by the stack
// of ignore sets, outermost first; the last matching rule wins.
func ignored(stack []*ignoreSet, path string, dir bool) bool {
	ign := false
	for _, set := range stack {
		if i, ok := set.match(path, dir); ok {
			ign = i
		}
	}
	return ign
}
