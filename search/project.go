package search

import "context"
import "errors"
import "fmt"
import "io"
import "io/fs"
import "os"
import "path/filepath"
import "sort"
import "strings"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search/inject"
import "go.yaml.in/yaml/v3"

// Project is an ast-grep project: the directory of its sgconfig.yml, and
// the rules of its ruleDirs compiled with the utils of its utilDirs.
type Project struct {
	// Dir is the directory sgconfig.yml is in: rule globs and the paths
	// scanned by default are relative to it.
	Dir string
	// Rules are the rules of every ruleDirs file, in path order.
	Rules []*rule.Rule
	// Injections are its languageInjections, for ScanQuery.Injections.
	Injections []inject.Injection
}

// maxRuleDocs bounds the YAML documents one rule file may hold.
const maxRuleDocs = 10000

// ParseRuleDocs reads a YAML (or JSON) text of one or more rule documents
// separated by "---". source names it in errors.
func ParseRuleDocs(text []byte, source string) ([]map[string]any, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(text)))
	var out []map[string]any
	for i := 0; ; i++ {
		if i >= maxRuleDocs {
			return nil, fmt.Errorf("%w: %s: more than %d documents", rule.ErrInvalid, source, maxRuleDocs)
		}
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: not YAML: %v", rule.ErrInvalid, source, err)
		}
		if v == nil {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: %s: document %d is not a rule object (id, language, rule, ...)", rule.ErrInvalid, source, i+1)
		}
		out = append(out, m)
	}
	return out, nil
}

// CompileRules compiles every rule document of text (ast-grep's rule file
// or --inline-rules), with utils as the global utils.
func CompileRules(ctx context.Context, p matcher.Parser, text []byte, source string, utils []*rule.Util) ([]*rule.Rule, error) {
	docs, err := ParseRuleDocs(text, source)
	if err != nil {
		return nil, err
	}
	var out []*rule.Rule
	for i, d := range docs {
		src := source
		if len(docs) > 1 {
			src = fmt.Sprintf("%s (document %d)", source, i+1)
		}
		lang, _ := d["language"].(string)
		r, err := rule.CompileConfig(ctx, p, d, rule.Options{Source: src, Utils: utilsFor(utils, lang)})
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// utilsFor returns the global utils of lang.
func utilsFor(all []*rule.Util, lang string) rule.Utils {
	l, ok := grammars.Lookup(lang)
	if !ok {
		return nil
	}
	out := rule.Utils{}
	for _, u := range all {
		if ul, ok := grammars.Lookup(u.Language); ok && ul.ID == l.ID {
			out[u.ID] = u
		}
	}
	return out
}

var sgconfigKeys = []string{"ruleDirs", "utilDirs", "testConfigs", "languageInjections", "customLanguages"}

// LoadProject reads the sgconfig.yml at config (a file, or a directory
// holding sgconfig.yml or sgconfig.yaml), registers its customLanguages
// (LoadCustomLanguages) and compiles its rules.
func LoadProject(ctx context.Context, p matcher.Parser, config string) (*Project, error) {
	config, cfg, err := readSgconfig(config)
	if err != nil {
		return nil, err
	}
	if _, err := registerCustomLanguages(cfg["customLanguages"], config, projectReader(config)); err != nil {
		return nil, err
	}
	dir := filepath.Dir(config)
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("search: project config: %w", err)
	}
	if err := confineTestConfigs(cfg["testConfigs"], config); err != nil {
		return nil, err
	}
	ruleDirs, err := projectDirs(cfg, config, "ruleDirs")
	if err != nil {
		return nil, err
	}
	if len(ruleDirs) == 0 {
		return nil, fmt.Errorf("%w: %s: no ruleDirs: list the directories that hold the rule files", rule.ErrInvalid, config)
	}
	utilDirs, err := projectDirs(cfg, config, "utilDirs")
	if err != nil {
		return nil, err
	}
	utils, err := loadUtils(ctx, root, utilDirs)
	if err != nil {
		return nil, err
	}
	proj := &Project{Dir: dir}
	if proj.Injections, err = compileInjections(ctx, p, cfg["languageInjections"], config); err != nil {
		return nil, err
	}
	files, err := readYAMLFiles(ctx, root, ruleDirs, "rule")
	if err != nil {
		return nil, err
	}
	// a rule id names one rule of the project, as ast-grep requires
	ids := map[string]string{}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.path)
		rs, err := CompileRules(ctx, p, f.data, rel, utils)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if prev, dup := ids[r.ID]; dup && r.ID != "" {
				return nil, fmt.Errorf("%w: %s: rule id %q is also the id of a rule in %s: give each rule of the project its own id", rule.ErrInvalid, rel, r.ID, prev)
			}
			ids[r.ID] = rel
		}
		proj.Rules = append(proj.Rules, rs...)
	}
	return proj, nil
}

// readSgconfig reads the project configuration at config (a file, or a
// directory holding sgconfig.yml or sgconfig.yaml): its path and its one
// document, whose keys must all be ones tether reads.
func readSgconfig(config string) (string, map[string]any, error) {
	if fi, err := os.Stat(config); err == nil && fi.IsDir() {
		found := ""
		for _, name := range []string{"sgconfig.yml", "sgconfig.yaml"} {
			if _, err := os.Stat(filepath.Join(config, name)); err == nil {
				found = filepath.Join(config, name)
				break
			}
		}
		if found == "" {
			return "", nil, fmt.Errorf("search: no sgconfig.yml in %s: write one (ruleDirs: [rules]) or pass rules with -r FILE or --inline-rules", config)
		}
		config = found
	}
	data, err := os.ReadFile(config)
	if err != nil {
		return "", nil, fmt.Errorf("search: project config: %w", err)
	}
	docs, err := ParseRuleDocs(data, config)
	if err != nil {
		return "", nil, err
	}
	if len(docs) != 1 {
		return "", nil, fmt.Errorf("%w: %s: want one document with ruleDirs", rule.ErrInvalid, config)
	}
	cfg := docs[0]
	var bad []string
	for k := range cfg {
		known := false
		for _, a := range sgconfigKeys {
			known = known || k == a
		}
		if !known {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return "", nil, fmt.Errorf("%w: %s: %s: not supported (tether reads %s)", rule.ErrInvalid, config, bad[0], strings.Join(sgconfigKeys, ", "))
	}
	return config, cfg, nil
}

// projectDirs returns the directories the list under key of cfg (read
// from config) names, each inside the project and joined to its directory;
// none when the key is absent.
func projectDirs(cfg map[string]any, config, key string) ([]string, error) {
	v, ok := cfg[key]
	if !ok {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s: %s must be a list of directories", rule.ErrInvalid, config, key)
	}
	var out []string
	for _, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%w: %s: %s must be a list of directories", rule.ErrInvalid, config, key)
		}
		if err := insideProject(s); err != nil {
			return nil, fmt.Errorf("%w: %s: %s entry %q %v", rule.ErrInvalid, config, key, s, err)
		}
		out = append(out, filepath.Join(filepath.Dir(config), s))
	}
	return out, nil
}

// loadUtils reads the global utils of the util files under dirs, which
// lie in the project whose resolved directory is root; a util id defined
// twice for one language is an error.
func loadUtils(ctx context.Context, root string, dirs []string) ([]*rule.Util, error) {
	var utils []*rule.Util
	seen := map[string]string{}
	files, err := readYAMLFiles(ctx, root, dirs, "util")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		docs, err := ParseRuleDocs(f.data, f.path)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			u, err := utilOf(d, f.path)
			if err != nil {
				return nil, err
			}
			key := u.Language + "\x00" + u.ID
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("%w: %s: util %q is also defined in %s", rule.ErrInvalid, f.path, u.ID, prev)
			}
			seen[key] = f.path
			utils = append(utils, u)
		}
	}
	return utils, nil
}

func utilOf(d map[string]any, source string) (*rule.Util, error) {
	for k := range d {
		switch k {
		case "id", "language", "rule", "utils":
		default:
			return nil, fmt.Errorf("%w: %s: %s: unknown key in a util file (id, language, rule, utils)", rule.ErrInvalid, source, k)
		}
	}
	id, _ := d["id"].(string)
	lang, _ := d["language"].(string)
	if id == "" || lang == "" {
		return nil, fmt.Errorf("%w: %s: a util needs id and language", rule.ErrInvalid, source)
	}
	if _, ok := d["rule"]; !ok {
		return nil, fmt.Errorf("%w: %s: util %q has no rule", rule.ErrInvalid, source, id)
	}
	u := &rule.Util{ID: id, Language: lang, Rule: d["rule"], Source: source}
	if v, ok := d["utils"]; ok {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: %s: utils must be an object of rules by id", rule.ErrInvalid, source)
		}
		u.Utils = m
	}
	return u, nil
}

// insideProject refuses a configured path that is absolute or climbs out
// of the project's directory: a cloned repository's sgconfig.yml must not
// make a scan read the files of its host.
func insideProject(p string) error {
	if filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return errors.New("is absolute: give a directory inside the project, relative to sgconfig.yml")
	}
	if c := filepath.Clean(p); c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return errors.New("leads outside the project: give a directory inside it, relative to sgconfig.yml")
	}
	return nil
}

// within reports whether the resolved path p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// confineTestConfigs checks the directories of testConfigs entries
// (testDir, snapshotDir): a configuration that names a place outside the
// project is refused, for a scan too.
func confineTestConfigs(v any, config string) error {
	if v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%w: %s: testConfigs must be a list of {testDir, snapshotDir}", rule.ErrInvalid, config)
	}
	for _, x := range l {
		m, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("%w: %s: testConfigs must be a list of {testDir, snapshotDir}", rule.ErrInvalid, config)
		}
		for _, k := range []string{"testDir", "snapshotDir"} {
			s, ok := m[k].(string)
			if !ok {
				continue
			}
			if err := insideProject(s); err != nil {
				return fmt.Errorf("%w: %s: testConfigs %s %q %v", rule.ErrInvalid, config, k, s, err)
			}
		}
	}
	return nil
}

// yamlFile is one file readYAMLFiles read.
type yamlFile struct {
	path string
	data []byte
}

// readYAMLFiles reads the YAML files under each of dirs in turn (see
// yamlFiles); what ("rule", "util") names them in a read error.
func readYAMLFiles(ctx context.Context, root string, dirs []string, what string) ([]yamlFile, error) {
	var out []yamlFile
	for _, d := range dirs {
		files, err := yamlFiles(ctx, root, d)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("search: %s: %w", what, err)
			}
			out = append(out, yamlFile{f, data})
		}
	}
	return out, nil
}

// yamlFiles lists the .yml and .yaml files under dir, sorted. Every
// directory and file is resolved and must stay under root, the project's
// directory, so a symbolic link cannot lead the scan outside it.
func yamlFiles(ctx context.Context, root, dir string) ([]string, error) {
	var out []string
	if real, err := filepath.EvalSymlinks(dir); err == nil && !within(root, real) {
		return nil, fmt.Errorf("%w: rule directory %s resolves outside the project: keep rules inside it", rule.ErrInvalid, dir)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")) {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return err
			}
			if !within(root, real) {
				return fmt.Errorf("%w: rule file %s is a link outside the project: keep rules inside it", rule.ErrInvalid, p)
			}
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: rule directory: %w", err)
	}
	sort.Strings(out)
	return out, nil
}
