package search

import "bufio"
import "bytes"
import "fmt"
import "os"
import "path/filepath"
import "strings"

// repoExcludes loads the repository-wide ignore rules of the repository whose
// work tree is root, in git's order of precedence, weakest first: the
// core.excludesFile (named by the repository's config, else by the global
// config, else $XDG_CONFIG_HOME/git/ignore), then $GIT_DIR/info/exclude.
// Their patterns are relative to root. Every .gitignore beats both.
func repoExcludes(root string) []*ignoreSet {
	common := gitCommonDir(root)
	var stack []*ignoreSet
	if p := excludesFile(common); p != "" {
		if data, err := readGitFile(p); err == nil {
			stack = append(stack, &ignoreSet{base: root, rules: parseIgnore(data)})
		}
	}
	if common != "" {
		if data, err := readGitFile(filepath.Join(common, "info", "exclude")); err == nil {
			stack = append(stack, &ignoreSet{base: root, rules: parseIgnore(data)})
		}
	}
	return stack
}

// gitCommonDir returns the git directory holding root's config and info/:
// root/.git, or for a linked worktree (a .git file "gitdir: ...") the
// directory its commondir names. "" when there is none.
func gitCommonDir(root string) string {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return dotGit
	}
	data, err := readGitFile(dotGit)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	gitDir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return ""
	}
	gitDir = strings.TrimSpace(gitDir)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(root, gitDir)
	}
	if c, err := readGitFile(filepath.Join(gitDir, "commondir")); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gitDir, cd)
		}
		return cd
	}
	return gitDir
}

// excludesFile returns the path core.excludesFile names: the repository's
// config wins over the global ones (~/.gitconfig over
// $XDG_CONFIG_HOME/git/config); unset, git's default
// $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore).
func excludesFile(common string) string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var configs []string
	if common != "" {
		configs = append(configs, filepath.Join(common, "config"))
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" {
		configs = append(configs, filepath.Join(xdg, "git", "config"))
	}
	for _, c := range configs {
		if v, ok := gitConfigValue(c, "core", "excludesfile"); ok {
			if v == "" {
				return ""
			}
			if rest, ok := strings.CutPrefix(v, "~/"); ok && home != "" {
				return filepath.Join(home, rest)
			}
			return v
		}
	}
	if xdg == "" {
		return ""
	}
	return filepath.Join(xdg, "git", "ignore")
}

// gitConfigValue reads the last value of section.key (both lower case) from a
// git config file: [section] headers, key = value lines, quotes, and # or ;
// comments. Includes and subsections are not followed.
func gitConfigValue(path, section, key string) (string, bool) {
	data, err := readGitFile(path)
	if err != nil {
		return "", false
	}
	var val string
	found := false
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			name := strings.TrimSpace(line[1:end])
			if strings.ContainsAny(name, " \t\"") {
				name = "" // a subsection: [remote "origin"]
			}
			cur = strings.ToLower(name)
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if cur != section || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, hasEq := strings.Cut(line, "=")
		if !strings.EqualFold(strings.TrimSpace(k), key) || !hasEq {
			continue
		}
		val, found = configValue(v), true
	}
	return val, found
}

// configValue unquotes a git config value and drops a trailing comment.
func configValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// readGitFile reads a file git keeps for a repository (the .git file, its
// commondir, a config, info/exclude, the excludes file): a regular file only,
// opened without waiting on a named pipe, and none over maxIgnoreFile bytes.
// The workspace names every one of them (.git/config can name any path as
// core.excludesFile) and can make any a pipe, a device or a link to one:
// /dev/zero read to its end took all memory, a pipe hung the search.
func readGitFile(p string) ([]byte, error) {
	data, fi, err := (*files)(nil).readFile(p, maxIgnoreFile)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxIgnoreFile || int64(len(data)) > maxIgnoreFile {
		return nil, fmt.Errorf("%s: over %d bytes, not read", p, maxIgnoreFile)
	}
	return data, nil
}
