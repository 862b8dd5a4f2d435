package search

import "context"
import "os"
import "path/filepath"
import "regexp"

import "github.com/tetherhq/tether/matcher"

// Commands: a search, rewrite or scan as ast-grep's command line runs it
// (tether ast-grep, tether scan), without its flags or its output: what to
// run, on what, and whether to apply the change at once.

// projectNames are the names of an ast-grep project's config, in the order
// they are looked for.
var projectNames = []string{"sgconfig.yml", "sgconfig.yaml"}

// FindProject returns the project config (sgconfig.yml, or sgconfig.yaml)
// of dir or of the nearest directory above it, as ast-grep's commands find
// it, or "" when there is none.
func FindProject(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for i := 0; i < 256; i++ {
		for _, name := range projectNames {
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return ""
}

// Job is a search, or a rewrite, as a command runs it.
type Job struct {
	// Query is what to find; for a rewrite its OnMatches must be nil (the
	// plan holds the matches).
	Query Query
	// Rewrite, when set, makes the job a rewrite with this template (with
	// a rule, "" takes the rule's fix).
	Rewrite *string
	// Apply, with Rewrite, applies the plan at once, all or nothing, in the
	// deepest directory that holds every file it changes (Plan.Apply).
	Apply bool
}

// Do runs j: a search's result, or a rewrite's result and plan, which it
// applies with j.Apply. A plan that cannot be applied is returned with the
// error that says why (nothing was written).
func (s *Searcher) Do(ctx context.Context, j Job) (*Result, *Plan, error) {
	if j.Rewrite == nil {
		res, err := s.Search(ctx, j.Query)
		return res, nil, err
	}
	plan, err := s.Rewrite(ctx, j.Query, *j.Rewrite)
	if err != nil {
		return nil, nil, err
	}
	if j.Apply {
		if err := plan.Apply(nil, "the change"); err != nil {
			return plan.Result, plan, err
		}
	}
	return plan.Result, plan, nil
}

// RuleSource says where a scan's rules come from: Inline, a text of rule
// documents, when given (InlineName names it in errors); else File, a rule
// file; else Config, a project's sgconfig.yml (LoadProject). Filter, when
// set, keeps the rules whose id it matches.
type RuleSource struct {
	Inline, InlineName string
	File, Config       string
	Filter             *regexp.Regexp
}

// LoadRules compiles the rules of src with p: a Project whose Dir is the
// project's directory (the base of its rules' globs), "" for inline rules
// and a rule file, which have no injections.
func LoadRules(ctx context.Context, p matcher.Parser, src RuleSource) (*Project, error) {
	proj := &Project{}
	var err error
	switch {
	case src.Inline != "":
		proj.Rules, err = CompileRules(ctx, p, []byte(src.Inline), src.InlineName, nil)
	case src.File != "":
		var data []byte
		if data, err = os.ReadFile(src.File); err == nil {
			proj.Rules, err = CompileRules(ctx, p, data, src.File, nil)
		}
	default:
		proj, err = LoadProject(ctx, p, src.Config)
	}
	if err != nil {
		return nil, err
	}
	if src.Filter != nil {
		kept := proj.Rules[:0]
		for _, r := range proj.Rules {
			if src.Filter.MatchString(r.ID) {
				kept = append(kept, r)
			}
		}
		proj.Rules = kept
	}
	return proj, nil
}

// ScanJob is a scan as a command runs it.
type ScanJob struct {
	Query ScanQuery
	// Apply applies every finding's fix at once (Query.Fix is implied),
	// all or nothing: a file changed since the scan read it stops the
	// whole change.
	Apply bool
}

// DoScan runs j: its findings sorted by file, position and rule id, and
// with j.Apply its fixes applied. Fixes that cannot be applied are
// returned with the error that says why (nothing was written).
func (s *Searcher) DoScan(ctx context.Context, j ScanJob) (*ScanResult, error) {
	q := j.Query
	q.Fix = q.Fix || j.Apply
	res, err := s.Scan(ctx, q)
	if err != nil {
		return nil, err
	}
	sortFindings(res.Findings)
	if j.Apply && res.Plan != nil && len(res.Plan.Changes) > 0 {
		if err := res.Plan.Apply(nil, "the change"); err != nil {
			return res, err
		}
	}
	return res, nil
}
