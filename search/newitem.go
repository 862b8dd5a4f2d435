package search

import "errors"
import "fmt"
import "os"
import "path/filepath"
import "strings"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher/rule"

// Errors of NewItem, each for an exit status of its own as ast-grep's new
// has.
var (
	// ErrNoProject: a rule, test or util asked for outside a project.
	ErrNoProject = errors.New("no ast-grep project configuration (sgconfig.yml) is found: run `tether new project` to create one")
	// ErrProjectExists: a project asked for inside one.
	ErrProjectExists = errors.New("an ast-grep project already exists here or in a directory above")
	// ErrItemExists: the file to write is there already.
	ErrItemExists = errors.New("already exists: edit the existing file or give another name")
	// ErrNoItemDir: the project configures no directory for the item.
	ErrNoItemDir = errors.New("no directory is configured for it")
	// ErrMissingArg: a name or language is needed.
	ErrMissingArg = errors.New("insufficient command line argument")
)

// NewItem is what `tether new` creates: Kind is project, rule, test or
// util; Name the id of a rule, test or util; Lang the language of a rule
// or util.
type NewItem struct {
	Kind, Name, Lang string
}

// CreateItem writes the files of it as ast-grep's `new -y` does: for a
// project (in dir, when config is empty), sgconfig.yml and the directories
// rules, rule-tests and utils, each with a .gitkeep; for a rule, test or
// util, <name>.yml in the first ruleDirs or utilDirs entry, or
// <name>-test.yml in the first testDir, of the project at config (and
// for a rule, its test too when the project has a testDir). It refuses to
// overwrite a file and returns the paths written.
func CreateItem(it NewItem, config, dir string) ([]string, error) {
	if it.Kind == "project" {
		if config != "" {
			return nil, fmt.Errorf("%w: %s", ErrProjectExists, config)
		}
		return createProject(dir)
	}
	if it.Kind != "rule" && it.Kind != "test" && it.Kind != "util" {
		return nil, fmt.Errorf("search: new %q: give project, rule, test or util", it.Kind)
	}
	if config == "" {
		return nil, ErrNoProject
	}
	if it.Name == "" {
		return nil, fmt.Errorf("%w: give the %s's name", ErrMissingArg, it.Kind)
	}
	if strings.ContainsAny(it.Name, `/\`) || it.Name == "." || it.Name == ".." {
		return nil, fmt.Errorf("search: new %s: name %q is not a file name: give an id without / or \\", it.Kind, it.Name)
	}
	config, cfg, err := readSgconfig(config)
	if err != nil {
		return nil, err
	}
	testDir, err := firstTestDir(cfg, config)
	if err != nil {
		return nil, err
	}
	if it.Kind == "test" {
		p, err := createTest(testDir, it.Name)
		if err != nil {
			return nil, err
		}
		return []string{p}, nil
	}
	key := map[string]string{"rule": "ruleDirs", "util": "utilDirs"}[it.Kind]
	dirs, err := projectDirs(cfg, config, key)
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: %s: the %s has nowhere to go: add %s to sgconfig.yml", ErrNoItemDir, config, it.Kind, key)
	}
	p := filepath.Join(dirs[0], it.Name+".yml")
	if _, err := os.Lstat(p); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrItemExists, p)
	}
	if it.Lang == "" {
		return nil, fmt.Errorf("%w: give the %s's language (--lang)", ErrMissingArg, it.Kind)
	}
	l, ok := grammars.Lookup(it.Lang)
	if !ok {
		return nil, fmt.Errorf("%w: language %q is not supported", rule.ErrInvalid, it.Lang)
	}
	text := defaultUtil(it.Name, astGrepLangName(l))
	if it.Kind == "rule" {
		text = defaultRule(it.Name, astGrepLangName(l))
	}
	if err := writeNew(p, text); err != nil {
		return nil, err
	}
	out := []string{p}
	if it.Kind == "rule" {
		tp, err := createTest(testDir, it.Name)
		if err != nil {
			return out, err
		}
		out = append(out, tp)
	}
	return out, nil
}

// firstTestDir is the testDir of the first testConfigs entry ("" for
// none), joined to the project's directory.
func firstTestDir(cfg map[string]any, config string) (string, error) {
	if err := confineTestConfigs(cfg["testConfigs"], config); err != nil {
		return "", err
	}
	l, _ := cfg["testConfigs"].([]any)
	if len(l) == 0 {
		return "", nil
	}
	m, _ := l[0].(map[string]any)
	d, _ := m["testDir"].(string)
	if d == "" {
		return "", fmt.Errorf("%w: %s: a testConfigs entry needs testDir", rule.ErrInvalid, config)
	}
	return filepath.Join(filepath.Dir(config), d), nil
}

func createTest(testDir, name string) (string, error) {
	if testDir == "" {
		return "", fmt.Errorf("%w: the test has nowhere to go: add testConfigs (- testDir: rule-tests) to sgconfig.yml", ErrNoItemDir)
	}
	p := filepath.Join(testDir, name+"-test.yml")
	if _, err := os.Lstat(p); err == nil {
		return "", fmt.Errorf("%w: %s", ErrItemExists, p)
	}
	text := fmt.Sprintf("id: %s\nvalid:\n- \"valid code\"\ninvalid:\n- \"invalid code\"\n", name)
	return p, writeNew(p, text)
}

// writeNew writes a new file, refusing to replace one.
func writeNew(p, text string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: %s", ErrItemExists, p)
	}
	if err != nil {
		return fmt.Errorf("search: new: %w", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("search: new: %w", err)
	}
	return f.Close()
}

// createProject writes sgconfig.yml and its directories in dir. The
// directories are written relative to sgconfig.yml (ast-grep writes them
// absolute, which tether's scan refuses).
func createProject(dir string) ([]string, error) {
	cfg := filepath.Join(dir, "sgconfig.yml")
	if _, err := os.Lstat(cfg); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrItemExists, cfg)
	}
	var out []string
	for _, d := range []string{"rules", "rule-tests", "utils"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return out, fmt.Errorf("search: new project: %w", err)
		}
		keep := filepath.Join(dir, d, ".gitkeep")
		if err := os.WriteFile(keep, nil, 0o644); err != nil {
			return out, fmt.Errorf("search: new project: %w", err)
		}
		out = append(out, keep)
	}
	text := "ruleDirs:\n- rules\ntestConfigs:\n- testDir: rule-tests\nutilDirs:\n- utils\n"
	if err := writeNew(cfg, text); err != nil {
		return out, err
	}
	return append(out, cfg), nil
}

// astGrepLangName is the name ast-grep writes for l in a new rule
// (JavaScript, TypeScript, Rust, ...): ast-grep's spelling, else its
// display name.
func astGrepLangName(l *grammars.Language) string {
	if l.AstGrep != "" {
		return l.AstGrep
	}
	if l.Name != "" {
		return l.Name
	}
	return l.ID
}

func defaultRule(id, lang string) string {
	return "# yaml-language-server: $schema=https://raw.githubusercontent.com/ast-grep/ast-grep/main/schemas/rule.json\n\n" +
		"id: " + id + "\nmessage: Add your rule message here....\nseverity: error # error, warning, info, hint\nlanguage: " + lang +
		"\nrule:\n  pattern: Your Rule Pattern here...\n# utils: Extract repeated rule as local utility here.\n# note: Add detailed explanation for the rule."
}

func defaultUtil(id, lang string) string {
	return "id: " + id + "\nlanguage: " + lang + "\nrule:\n  pattern: Your Rule Pattern here...\n# utils: Extract repeated rule as local utility here."
}
