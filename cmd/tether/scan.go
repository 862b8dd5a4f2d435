package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/tetherhq/tether/matcher/rule"
	"github.com/tetherhq/tether/search"
	"github.com/tetherhq/tether/search/format"
	"github.com/tetherhq/tether/search/inject"
	"github.com/tetherhq/tether/search/stage"
)

func init() {
	register("scan", "run ast-grep rules over a project (ast-grep's scan: sgconfig.yml, -r FILE or --inline-rules TEXT; --json)", runScan)
}

func runScan(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ruleFile, inline, config, filter string
	fs.StringVar(&ruleFile, "r", "", "run the rules of this rule file (YAML, documents separated by ---) instead of the project's")
	fs.StringVar(&ruleFile, "rule", "", "same as -r")
	fs.StringVar(&inline, "inline-rules", "", "run these rules, given as YAML text (documents separated by ---)")
	fs.StringVar(&config, "c", "", "the project's sgconfig.yml (default: found in the working directory or above it)")
	fs.StringVar(&config, "config", "", "same as -c")
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
		fmt.Fprintln(stderr, "Runs ast-grep rules over PATH (default .). Exits 0 unless a finding has severity error (1) or the scan fails (2).")
		fs.PrintDefaults()
	}
	paths, err := parseAmidPaths(fs, args)
	if err != nil {
		return 2
	}
	if ruleFile != "" && inline != "" {
		fmt.Fprintln(stderr, "tether scan: give -r FILE or --inline-rules, not both")
		return 2
	}
	var re *regexp.Regexp
	if filter != "" {
		if re, err = regexp.Compile(filter); err != nil {
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
	var rules []*rule.Rule
	base := ""
	var injections []inject.Injection
	switch {
	case inline != "":
		rules, err = search.CompileRules(ctx, e, []byte(inline), "--inline-rules", nil)
	case ruleFile != "":
		var data []byte
		if data, err = os.ReadFile(ruleFile); err == nil {
			rules, err = search.CompileRules(ctx, e, data, ruleFile, nil)
		}
	default:
		if config == "" {
			config = findSgconfig()
		}
		if config == "" {
			fmt.Fprintln(stderr, "tether scan: no sgconfig.yml in the working directory or above it: write one (ruleDirs: [rules]), or pass -r RULE_FILE or --inline-rules TEXT")
			return 2
		}
		var proj *search.Project
		if proj, err = search.LoadProject(ctx, e, config); err == nil {
			rules, base, injections = proj.Rules, proj.Dir, proj.Injections
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "tether scan:", err)
		return 2
	}
	if re != nil {
		kept := rules[:0]
		for _, r := range rules {
			if re.MatchString(r.ID) {
				kept = append(kept, r)
			}
		}
		rules = kept
	}
	if len(rules) == 0 {
		fmt.Fprintln(stderr, "tether scan: no rule to run")
		return 2
	}
	if *updateAll {
		recoverCutChanges(stderr)
	}
	s := search.NewSearcher(e, search.Config{Workers: *threads, MaxText: -1})
	res, err := s.Scan(ctx, search.ScanQuery{Rules: rules, Injections: injections, Paths: paths, Globs: globs, Base: base, MaxResults: *maxResults, Fix: *updateAll})
	if err != nil {
		fmt.Fprintln(stderr, "tether scan:", err)
		return 2
	}
	search.SortFindings(res.Findings)
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
	if *updateAll && res.Plan != nil && len(res.Plan.Changes) > 0 {
		st := stage.New("")
		if _, err := st.Accept(st.Stage(res.Plan)); err != nil {
			fmt.Fprintln(stderr, "tether scan:", err)
			return 2
		}
		// ast-grep's words, on stderr as it prints them
		fmt.Fprintf(stderr, "Applied %d changes\n", res.Plan.Edits)
	}
	if len(res.Findings) < res.Total {
		fmt.Fprintf(stderr, "tether scan: %d of %d findings shown: raise --max-results to see more\n", len(res.Findings), res.Total)
	}
	if res.Total == 0 {
		fmt.Fprintf(stderr, "tether scan: no findings in %d files (%d rules)\n", res.Searched, len(rules))
	}
	if len(res.Errors) > 0 {
		return 2
	}
	for _, f := range res.Findings {
		if f.Rule.Severity == "error" {
			return 1
		}
	}
	return 0
}

// findSgconfig returns the sgconfig.yml of the working directory or the
// nearest directory above it, "" when there is none.
func findSgconfig() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for i := 0; i < 256; i++ {
		for _, name := range []string{"sgconfig.yml", "sgconfig.yaml"} {
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
