package search

import "context"
import "errors"
import "fmt"
import "io"
import "os"
import "path/filepath"
import "regexp"
import "sort"
import "strings"

import "github.com/tetherhq/tether/matcher/rule"
import "go.yaml.in/yaml/v3"

// RuleTestCase is one rule test file's document, as ast-grep's `test`
// reads it: the id of the rule it tests, code the rule must not report
// (Valid) and code it must report (Invalid).
type RuleTestCase struct {
	ID      string
	Valid   []string
	Invalid []string
	// SnapshotDir is where the snapshot of the rule's invalid cases is
	// kept (<id>-snapshot.yml).
	SnapshotDir string
}

// TestSnapshot is what a rule reports for one invalid case: its labels and,
// when the rule has a fix, the case's code with the first finding fixed.
type TestSnapshot struct {
	Fixed  *string         `yaml:"fixed,omitempty"`
	Labels []LabelSnapshot `yaml:"labels"`
}

// LabelSnapshot is one label of a TestSnapshot: the labelled source, its
// byte range in the case's code and its style (primary, secondary).
type LabelSnapshot struct {
	Source  string  `yaml:"source"`
	Message *string `yaml:"message,omitempty"`
	Style   string  `yaml:"style"`
	Start   int     `yaml:"start"`
	End     int     `yaml:"end"`
}

// TestSnapshots is one snapshot file: a rule's snapshots by case code.
type TestSnapshots struct {
	ID        string                  `yaml:"id"`
	Snapshots map[string]TestSnapshot `yaml:"snapshots"`
}

// RuleTests are the rule tests of a project's testConfigs.
type RuleTests struct {
	Cases []RuleTestCase
	// Snapshots are the snapshot files read, by rule id.
	Snapshots map[string]*TestSnapshots
	// Warnings name duplicate snapshot files (the last one read wins).
	Warnings []string
	// Filter is the filter the tests were read with (nil: none).
	Filter *regexp.Regexp
}

// defaultSnapshotDir is a testConfigs entry's snapshotDir when not given.
const defaultSnapshotDir = "__snapshots__"

// maxTestFiles bounds the test and snapshot files one project may hold.
const maxTestFiles = 10000

// LoadRuleTests reads the rule tests of the project at config (an
// sgconfig.yml, or the directory holding it): the YAML files under each
// testConfigs testDir, those under its snapshotDir (default __snapshots__,
// inside testDir) as snapshots. Only tests whose id filter matches are kept
// (all with a nil filter). A test file that does not parse is an error
// wrapping rule.ErrInvalid.
func LoadRuleTests(ctx context.Context, config string, filter *regexp.Regexp) (*RuleTests, error) {
	config, cfg, err := readSgconfig(config)
	if err != nil {
		return nil, err
	}
	if err := confineTestConfigs(cfg["testConfigs"], config); err != nil {
		return nil, err
	}
	dir := filepath.Dir(config)
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("search: project config: %w", err)
	}
	out := &RuleTests{Snapshots: map[string]*TestSnapshots{}, Filter: filter}
	tcs, _ := cfg["testConfigs"].([]any)
	for _, x := range tcs {
		m, _ := x.(map[string]any)
		testDir, _ := m["testDir"].(string)
		if testDir == "" {
			return nil, fmt.Errorf("%w: %s: a testConfigs entry needs testDir", rule.ErrInvalid, config)
		}
		snapDir, _ := m["snapshotDir"].(string)
		if snapDir == "" {
			snapDir = defaultSnapshotDir
		}
		td := filepath.Join(dir, testDir)
		if err := out.read(ctx, root, td, filepath.Join(td, snapDir), filter); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// read reads the test and snapshot files under testDir.
func (t *RuleTests) read(ctx context.Context, root, testDir, snapDir string, filter *regexp.Regexp) error {
	files, err := yamlFiles(ctx, root, testDir)
	if err != nil {
		return err
	}
	if len(files) > maxTestFiles {
		return fmt.Errorf("search: %s holds %d YAML files, over the %d rule tests may have: split the tests", testDir, len(files), maxTestFiles)
	}
	keep := func(id string) bool { return filter == nil || filter.MatchString(id) }
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("search: rule test: %w", err)
		}
		if within(snapDir, f) {
			var s TestSnapshots
			if err := yaml.Unmarshal(data, &s); err != nil || s.ID == "" {
				return fmt.Errorf("%w: %s: not a snapshot file (id, snapshots): %v", rule.ErrInvalid, f, orMissing(err, "id"))
			}
			if !keep(s.ID) {
				continue
			}
			if _, dup := t.Snapshots[s.ID]; dup {
				t.Warnings = append(t.Warnings, fmt.Sprintf("found duplicate test case snapshot for `%s`", s.ID))
			}
			t.Snapshots[s.ID] = &s
			continue
		}
		cases, err := parseTestDocs(data, f)
		if err != nil {
			return err
		}
		for _, c := range cases {
			if keep(c.ID) {
				c.SnapshotDir = snapDir
				t.Cases = append(t.Cases, c)
			}
		}
	}
	return nil
}

func orMissing(err error, field string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("missing field `%s`", field)
}

// parseTestDocs reads the documents of one test file.
func parseTestDocs(data []byte, path string) ([]RuleTestCase, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var out []RuleTestCase
	for i := 0; i < maxRuleDocs; i++ {
		var doc struct {
			ID      *string  `yaml:"id"`
			Valid   []string `yaml:"valid"`
			Invalid []string `yaml:"invalid"`
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err == nil && doc.ID == nil {
			err = errors.New("missing field `id`")
		}
		if err != nil {
			return nil, fmt.Errorf("%w: cannot parse test case %s: %v: a test file holds id, valid and invalid (lists of code)", rule.ErrInvalid, path, err)
		}
		out = append(out, RuleTestCase{ID: *doc.ID, Valid: doc.Valid, Invalid: doc.Invalid})
	}
	return nil, fmt.Errorf("%w: %s: more than %d documents", rule.ErrInvalid, path, maxRuleDocs)
}

// CaseStatus is how one case of a rule test came out.
type CaseStatus int

const (
	// CaseValidated: a valid case the rule did not report.
	CaseValidated CaseStatus = iota
	// CaseReported: an invalid case reported as its snapshot says.
	CaseReported
	// CaseUpdated: an invalid case whose new snapshot was accepted.
	CaseUpdated
	// CaseWrong: an invalid case reported otherwise than its snapshot
	// says, or without a snapshot.
	CaseWrong
	// CaseMissing: an invalid case the rule did not report.
	CaseMissing
	// CaseNoisy: a valid case the rule reported.
	CaseNoisy
	// CaseError: the fix could not be applied to an invalid case.
	CaseError
)

// Pass reports whether the case passed.
func (s CaseStatus) Pass() bool {
	return s == CaseValidated || s == CaseReported || s == CaseUpdated
}

// CaseOutcome is one case's outcome: its code, and for an invalid case
// checked against snapshots what the rule reported (Actual) and what the
// snapshot holds (Expected, nil without one).
type CaseOutcome struct {
	Status           CaseStatus
	Source           string
	Actual, Expected *TestSnapshot
}

// RuleTestResult is one rule test's outcome: its valid cases, then its
// invalid ones.
type RuleTestResult struct {
	ID    string
	Cases []CaseOutcome
	// SnapshotDir is the test's RuleTestCase.SnapshotDir.
	SnapshotDir string
	// NotFound: no rule of the project has the id; the test was not run.
	NotFound bool
}

// Passed reports whether every case passed.
func (r *RuleTestResult) Passed() bool {
	for _, c := range r.Cases {
		if !c.Status.Pass() {
			return false
		}
	}
	return true
}

// SnapshotsOnly reports whether the result failed and every failing case
// is a snapshot mismatch.
func (r *RuleTestResult) SnapshotsOnly() bool {
	failed := false
	for _, c := range r.Cases {
		if !c.Status.Pass() {
			if c.Status != CaseWrong {
				return false
			}
			failed = true
		}
	}
	return failed
}

// ErrRuleNotFound is the error of a filter that matches no rule's id.
var ErrRuleNotFound = errors.New("rule not found")

// RunRuleTests runs each test of t against the rule of its id among
// rules: a valid case must give no finding, an invalid one at least one,
// and, with snapshots, the snapshot it has. A rule of severity off is
// left out unless includeOff; a test whose rule is left out or missing is
// not run (its result is NotFound), and a t.Filter that matches no rule's
// id is an error wrapping ErrRuleNotFound, as with ast-grep.
func (s *Searcher) RunRuleTests(ctx context.Context, rules []*rule.Rule, t *RuleTests, snapshots, includeOff bool) ([]RuleTestResult, error) {
	byID := map[string]*rule.Rule{}
	for _, r := range rules {
		if (r.Severity != "off" || includeOff) && (t.Filter == nil || t.Filter.MatchString(r.ID)) {
			byID[r.ID] = r
		}
	}
	if t.Filter != nil && len(byID) == 0 {
		return nil, fmt.Errorf("%w: no rule id of the project matches --filter %s (rules of severity off count with --include-off)", ErrRuleNotFound, t.Filter)
	}
	var out []RuleTestResult
	for _, tc := range t.Cases {
		r := byID[tc.ID]
		res := RuleTestResult{ID: tc.ID, SnapshotDir: tc.SnapshotDir}
		if r == nil {
			res.NotFound = true
			out = append(out, res)
			continue
		}
		for _, code := range tc.Valid {
			fs, err := s.ruleFindings(ctx, r, code)
			if err != nil {
				return nil, err
			}
			st := CaseValidated
			if len(fs) > 0 {
				st = CaseNoisy
			}
			res.Cases = append(res.Cases, CaseOutcome{Status: st, Source: code})
		}
		var snaps map[string]TestSnapshot
		if ts := t.Snapshots[tc.ID]; ts != nil {
			snaps = ts.Snapshots
		}
		for _, code := range tc.Invalid {
			o, err := s.invalidCase(ctx, r, code, snapshots, snaps)
			if err != nil {
				return nil, err
			}
			res.Cases = append(res.Cases, o)
		}
		out = append(out, res)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// invalidCase checks one invalid case, against its snapshot in snaps when
// snapshots is set.
func (s *Searcher) invalidCase(ctx context.Context, r *rule.Rule, code string, snapshots bool, snaps map[string]TestSnapshot) (CaseOutcome, error) {
	fs, err := s.ruleFindings(ctx, r, code)
	if err != nil {
		return CaseOutcome{}, err
	}
	o := CaseOutcome{Source: code}
	switch {
	case len(fs) == 0:
		o.Status = CaseMissing
	case !snapshots:
		o.Status = CaseReported
	default:
		o.Actual = snapshotOf(r, fs[0], code)
		if e, ok := snaps[code]; ok {
			o.Expected = &e
		}
		o.Status = CaseWrong
		if o.Expected != nil && sameSnapshot(o.Expected, o.Actual) {
			o.Status = CaseReported
		}
	}
	return o, nil
}

// ruleFindings returns r's findings in code, in source order (the first
// is the one ast-grep's test finds first).
func (s *Searcher) ruleFindings(ctx context.Context, r *rule.Rule, code string) ([]Finding, error) {
	if len(code) > MaxSnippet {
		return nil, fmt.Errorf("search: a case of rule test %s is %d bytes, over the %d KiB a case may be", r.ID, len(code), MaxSnippet>>10)
	}
	tree, err := s.parser.Parse(ctx, r.Grammar(), []byte(code))
	if err != nil {
		return nil, fmt.Errorf("search: parsing a case of rule test %s: %w", r.ID, err)
	}
	j := &scanJob{path: SnippetPath}
	if err := s.runRules(ctx, j, tree, r.Grammar().ID, []*scanRule{{r: r}}, map[*rule.Rule]*rule.Runner{}, base{}, []byte(code), true); err != nil {
		return nil, err
	}
	sortFindings(j.findings)
	return j.findings, nil
}

// snapshotOf is f's snapshot in code: its labels (the rule's, else the
// match as primary and its relational rules' nodes as secondary) and the
// code with f's fix applied.
func snapshotOf(r *rule.Rule, f Finding, code string) *TestSnapshot {
	s := &TestSnapshot{Labels: []LabelSnapshot{}}
	label := func(sp Span, style string, msg *string) LabelSnapshot {
		return LabelSnapshot{Source: code[sp.StartByte:sp.EndByte], Style: style, Start: sp.StartByte, End: sp.EndByte, Message: msg}
	}
	if len(r.Labels) > 0 {
		for _, l := range r.Labels {
			for _, b := range f.Bindings {
				if b.Name == l.Var && !(b.Multi && len(b.Parts) == 0) {
					s.Labels = append(s.Labels, label(b.Span, l.Style, l.Message))
					break
				}
			}
		}
	} else {
		s.Labels = append(s.Labels, label(f.Span, "primary", nil))
		for _, b := range f.Bindings {
			if b.Name == rule.Secondary {
				for _, p := range b.Parts {
					s.Labels = append(s.Labels, label(p.Span, "secondary", nil))
				}
			}
		}
	}
	if f.Replacement != nil {
		fixed := code[:f.FixStart] + *f.Replacement + code[f.FixEnd:]
		s.Fixed = &fixed
	}
	return s
}

// sameSnapshot compares snapshots; the order of labels counts except for a
// rule's own labels, which ast-grep lists in no fixed order.
func sameSnapshot(a, b *TestSnapshot) bool {
	if (a.Fixed == nil) != (b.Fixed == nil) || a.Fixed != nil && *a.Fixed != *b.Fixed || len(a.Labels) != len(b.Labels) {
		return false
	}
	key := func(l LabelSnapshot) string {
		m := "\x00"
		if l.Message != nil {
			m = *l.Message
		}
		return fmt.Sprintf("%d\x00%d\x00%s\x00%s\x00%s", l.Start, l.End, l.Style, m, l.Source)
	}
	x, y := make([]string, len(a.Labels)), make([]string, len(b.Labels))
	for i := range a.Labels {
		x[i], y[i] = key(a.Labels[i]), key(b.Labels[i])
	}
	sort.Strings(x)
	sort.Strings(y)
	return strings.Join(x, "\x01") == strings.Join(y, "\x01")
}
