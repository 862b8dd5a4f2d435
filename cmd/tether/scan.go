package main

import "errors"
import "flag"
import "fmt"
import "io"
import "regexp"

import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/format"

func init() {
	register("scan", "run ast-grep rules over a project (ast-grep's scan: sgconfig.yml, -r FILE or --inline-rules TEXT; --json)", runScan)
}

func runScan(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var src search.RuleSource
	fs.StringVar(&src.File, "r", "", "run the rules of this rule file (YAML, documents separated by ---) instead of the project's")
	fs.StringVar(&src.File, "rule", "", "same as -r")
	fs.StringVar(&src.Inline, "inline-rules", "", "run these rules, given as YAML text (documents separated by ---)")
	fs.StringVar(&src.Config, "c", "", "the project's sgconfig.yml (default: found in the working directory or above it)")
	fs.StringVar(&src.Config, "config", "", "same as -c")
	fs.Var(&grammarFlag{}, "grammar", grammarUsage)
	var filter string
	fs.StringVar(&filter, "filter", "", "run only the project's rules whose id matches this regular expression")
	var asJSON jsonStyle
	fs.Var(&asJSON, "json", "print findings as ast-grep's scan JSON: --json or --json=pretty, --json=compact, --json=stream")
	var globs globList
	fs.Var(&globs, "globs", "include (GLOB) or exclude (!GLOB) files, as for ast-grep run; repeatable")
	updateAll := fs.Bool("U", false, "apply every rule's fix (all or nothing: a file changed since the scan read it stops the whole change)")
	fs.BoolVar(updateAll, "update-all", false, "same as -U")
	maxResults := fs.Int("max-results", 0, "show at most N findings (0: no limit); the total is still counted")
	threads := fs.Int("j", 0, "parse and match on N threads (default: every core)")
	trees := treeCacheFlags{deferWrites: true}
	trees.register(fs, cliTreeMemory)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tether scan [-r RULE_FILE | --inline-rules TEXT | -c sgconfig.yml] [--filter REGEX] [-U] [--json[=pretty|compact|stream]] [--globs GLOB]... [--max-results N] [PATH...]")
		fmt.Fprintln(stderr, "Runs ast-grep rules over PATH (default .). Exits 0 unless a finding of a severity error rule is shown (1; with -U, one of a rule without a fix), a rule or sgconfig.yml is wrong (8) or the scan fails (2).")
		fs.PrintDefaults()
	}
	paths, err := parseAmidPaths(fs, args)
	if err != nil {
		return 2
	}
	if src.File != "" && src.Inline != "" {
		fmt.Fprintln(stderr, "tether scan: give -r FILE or --inline-rules, not both")
		return 2
	}
	if filter != "" {
		if src.Filter, err = regexp.Compile(filter); err != nil {
			fmt.Fprintf(stderr, "tether scan: --filter: %v\n", err)
			return 2
		}
	}
	ctx := signalCtx
	e, stop, ok := startCLISearch(ctx, &trees, stderr)
	if !ok {
		return 2
	}
	defer stop()
	src.InlineName = "--inline-rules"
	if src.Inline == "" && src.File == "" && src.Config == "" {
		if src.Config = search.FindProject("."); src.Config == "" {
			fmt.Fprintln(stderr, "tether scan: no sgconfig.yml in the working directory or above it: write one (ruleDirs: [rules]), or pass -r RULE_FILE or --inline-rules TEXT")
			return 2
		}
	}
	proj, err := search.LoadRules(ctx, e, src)
	if err != nil {
		fmt.Fprintln(stderr, "tether scan:", err)
		return exitFor(err)
	}
	if len(proj.Rules) == 0 {
		fmt.Fprintln(stderr, "tether scan: no rule to run")
		return 2
	}
	if *updateAll {
		recoverCutChanges(stderr)
	}
	s := search.NewSearcher(e, search.Config{Workers: *threads, MaxText: -1})
	q := search.ScanQuery{Rules: proj.Rules, Injections: proj.Injections, Paths: paths, Globs: globs, Base: proj.Dir, MaxResults: *maxResults}
	prog := newTermProgress(stderr, "findings")
	q.Progress = prog.update
	res, err := s.DoScan(ctx, search.ScanJob{Query: q, Apply: *updateAll})
	prog.clear()
	if res == nil {
		fmt.Fprintln(stderr, "tether scan:", err)
		return 2
	}
	return reportScan(res, err, len(proj.Rules), *updateAll, asJSON, stdout, stderr)
}

// exitInvalid is the exit status for a rule, pattern or configuration
// that is wrong as written, as ast-grep's (8); other failures exit 2.
const exitInvalid = 8

// exitFor returns the exit status for err: exitInvalid for a rule or
// configuration error (rule.ErrInvalid) or a pattern that does not
// compile (search.ErrInvalidQuery), else 2.
func exitFor(err error) int {
	if errors.Is(err, rule.ErrInvalid) || errors.Is(err, search.ErrInvalidQuery) {
		return exitInvalid
	}
	return 2
}

// reportScan prints a scan's findings, its errors, whether -U applied its
// fixes (applyErr: why not) and what was not shown; it returns the exit
// code.
func reportScan(res *search.ScanResult, applyErr error, rules int, applying bool, asJSON jsonStyle, stdout, stderr io.Writer) int {
	var err error
	if asJSON != "" {
		err = format.WriteFindingsJSON(stdout, res.Findings, string(asJSON))
	} else {
		err = format.WriteFindings(stdout, res.Findings)
	}
	if err != nil {
		fmt.Fprintln(stderr, "tether scan:", err)
		return 2
	}
	for _, fe := range res.Errors {
		fmt.Fprintf(stderr, "tether scan: %s: %s\n", fe.Path, fe.Err)
	}
	for _, p := range res.Skipped.Missing {
		fmt.Fprintf(stderr, "tether scan: %s: no such file or directory (not scanned)\n", p)
	}
	for _, nb := range res.Skipped.NotebooksNamed {
		fmt.Fprintf(stderr, "tether scan: notebook not scanned: %s\n", nb)
	}
	if more := res.Skipped.Notebooks - len(res.Skipped.NotebooksNamed); more > 0 {
		fmt.Fprintf(stderr, "tether scan: and %d more notebooks not scanned\n", more)
	}
	if applyErr != nil {
		fmt.Fprintln(stderr, "tether scan:", applyErr)
		return 2
	}
	if res.Plan != nil && len(res.Plan.Changes) > 0 {
		// ast-grep's words, on stderr as it prints them
		fmt.Fprintf(stderr, "Applied %d changes\n", res.Plan.Edits)
	}
	if len(res.Findings) < res.Total {
		fmt.Fprintf(stderr, "tether scan: %d of %d findings shown: raise --max-results to see more\n", len(res.Findings), res.Total)
	}
	if res.Total == 0 {
		fmt.Fprintf(stderr, "tether scan: no findings in %d files (%d rules)\n", res.Searched, rules)
	}
	if len(res.Errors) > 0 {
		return 2
	}
	// as ast-grep: 1 for a finding of an error rule shown, but with -U
	// only for one the fixes left (its rule has no fix), even when JSON
	// is printed and nothing applied
	for _, f := range res.Findings {
		if f.Rule.Severity == "error" && !(applying && f.Rule.HasFix) {
			return 1
		}
	}
	return 0
}
