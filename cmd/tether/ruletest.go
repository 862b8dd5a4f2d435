package main

import "errors"
import "flag"
import "fmt"
import "io"
import "os"
import "regexp"

import "github.com/tetherhq/tether/search"

func init() {
	register("test", "run a project's rule tests (ast-grep's test: testConfigs of sgconfig.yml; -U updates snapshots)", runRuleTest)
	register("new", "create an ast-grep project, rule, test or util (ast-grep's new: tether new rule NAME -l LANG)", runNew)
}

// Exit statuses of `tether test` and `tether new` that ast-grep's test and
// new have and scan has not.
const (
	exitNotFound    = 3  // a test's rule is not in the project
	exitTestFailed  = 4  // a rule test failed
	exitNoItemDir   = 5  // the project configures no directory for the item
	exitItemExists  = 17 // the file to create is there already
	exitMissingArgs = 22 // a name or language is needed
)

func runRuleTest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("c", "", "the project's sgconfig.yml (default: found in the working directory or above it)")
	fs.StringVar(config, "config", "", "same as -c")
	var filter string
	fs.StringVar(&filter, "f", "", "run only the tests whose rule id matches this regular expression")
	fs.StringVar(&filter, "filter", "", "same as -f")
	skip := fs.Bool("skip-snapshot-tests", false, "check only that valid cases are not reported and invalid ones are, not the snapshots")
	update := fs.Bool("U", false, "write the snapshots of every invalid case whose snapshot differs or is missing")
	fs.BoolVar(update, "update-all", false, "same as -U")
	interactive := fs.Bool("i", false, "not supported: review snapshots with ast-grep test -i, or update them all with -U")
	fs.BoolVar(interactive, "interactive", false, "same as -i")
	includeOff := fs.Bool("include-off", false, "test rules of severity off too")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tether test [-c sgconfig.yml] [-f REGEX] [-U | --skip-snapshot-tests] [--include-off]")
		fmt.Fprintln(stderr, "Runs the rule tests of the project's testConfigs. Exits 0 when all pass, 4 when one fails, 3 when a test's rule is not in the project, 8 when a rule or test file is wrong, 2 otherwise.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tether test: unexpected argument %q: tests come from sgconfig.yml's testConfigs\n", fs.Arg(0))
		return 2
	}
	if *interactive {
		fmt.Fprintln(stderr, "tether test: --interactive is not supported: run without it to see the differences, then -U to accept them all")
		return 2
	}
	if *skip && *update {
		fmt.Fprintln(stderr, "tether test: --skip-snapshot-tests and --update-all cannot be used together")
		return 2
	}
	var re *regexp.Regexp
	if filter != "" {
		var err error
		if re, err = regexp.Compile(filter); err != nil {
			fmt.Fprintf(stderr, "tether test: --filter: %v\n", err)
			return 2
		}
	}
	if *config == "" {
		if *config = search.FindProject("."); *config == "" {
			fmt.Fprintln(stderr, "tether test: no sgconfig.yml in the working directory or above it: create a project with tether new project")
			return 2
		}
	}
	ctx := signalCtx
	trees := treeCacheFlags{deferWrites: true}
	e, stop, ok := startCLISearch(ctx, &trees, stderr)
	if !ok {
		return 2
	}
	defer stop()
	proj, err := search.LoadRules(ctx, e, search.RuleSource{Config: *config})
	if err != nil {
		fmt.Fprintln(stderr, "tether test:", err)
		return exitFor(err)
	}
	tests, err := search.LoadRuleTests(ctx, *config, re)
	if err != nil {
		fmt.Fprintln(stderr, "tether test:", err)
		return exitFor(err)
	}
	for _, w := range tests.Warnings {
		fmt.Fprintln(stderr, "Warning:", w)
	}
	s := search.NewSearcher(e, search.Config{MaxText: -1})
	results, err := s.RunRuleTests(ctx, proj.Rules, tests, !*skip, *includeOff)
	if err != nil {
		fmt.Fprintln(stderr, "tether test:", err)
		if errors.Is(err, search.ErrRuleNotFound) {
			return exitNotFound
		}
		return exitFor(err)
	}
	return reportRuleTests(tests, results, *update, stdout, stderr)
}

// reportRuleTests prints the results, writes the updated snapshots and
// returns the exit status.
func reportRuleTests(tests *search.RuleTests, results []search.RuleTestResult, update bool, stdout, stderr io.Writer) int {
	outcome, summary, err := search.ReportRuleTests(stdout, results, update)
	if err != nil {
		fmt.Fprintln(stderr, "tether test:", err)
		return 2
	}
	if update {
		if err := search.WriteSnapshots(tests, results); err != nil {
			fmt.Fprintln(stderr, "tether test:", err)
			return 2
		}
	}
	switch outcome {
	case search.TestsFailed:
		fmt.Fprintf(stderr, "tether test: test failed. %s\n", summary)
		return exitTestFailed
	case search.SnapshotsMismatched:
		fmt.Fprintf(stderr, "tether test: test failed. %s snapshots differ: run with --update-all (-U) to update them\n", summary)
		return exitTestFailed
	}
	return 0
}

func runNew(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("new", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var it search.NewItem
	fs.StringVar(&it.Lang, "l", "", "the language of a new rule or util")
	fs.StringVar(&it.Lang, "lang", "", "same as -l")
	yes := fs.Bool("y", false, "accept every default (tether new never asks: this is the only mode)")
	fs.BoolVar(yes, "yes", false, "same as -y")
	config := fs.String("c", "", "the project's sgconfig.yml (default: found in the working directory or above it)")
	fs.StringVar(config, "config", "", "same as -c")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tether new project | rule NAME -l LANG | test NAME | util NAME -l LANG [-y]")
		fmt.Fprintln(stderr, "Creates the files as ast-grep new -y does, never overwriting one. Exits 0, 3 outside a project (or 17 for project inside one), 5 when sgconfig.yml has no directory for the item, 17 when its file exists, 22 without a name or language, 2 otherwise.")
		fs.PrintDefaults()
	}
	pos, err := parseAmidPaths(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) == 0 || len(pos) > 2 {
		fs.Usage()
		return exitMissingArgs
	}
	it.Kind = pos[0]
	if len(pos) == 2 {
		it.Name = pos[1]
	}
	if *config == "" {
		*config = search.FindProject(".")
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "tether new:", err)
		return 2
	}
	if it.Kind == "project" {
		fmt.Fprintln(stdout, "Creating a new ast-grep project...")
	}
	paths, err := search.CreateItem(it, *config, wd)
	for _, p := range paths {
		fmt.Fprintf(stdout, "Created %s\n", p)
	}
	if err != nil {
		fmt.Fprintln(stderr, "tether new:", err)
		return newExit(err)
	}
	if it.Kind == "project" {
		fmt.Fprintln(stdout, "Your new ast-grep project has been created!")
	}
	return 0
}

// newExit is the exit status of a CreateItem error, as ast-grep's new.
func newExit(err error) int {
	switch {
	case errors.Is(err, search.ErrNoProject):
		return exitNotFound
	case errors.Is(err, search.ErrProjectExists), errors.Is(err, search.ErrItemExists):
		return exitItemExists
	case errors.Is(err, search.ErrNoItemDir):
		return exitNoItemDir
	case errors.Is(err, search.ErrMissingArg):
		return exitMissingArgs
	}
	return exitFor(err)
}
