package main

import "flag"
import "fmt"
import "io"
import "os"
import "strings"

import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/format"

func init() {
	register("ast-grep", "structural search and rewrite (ast-grep's command line: -p PATTERN [-l LANG] [-r REWRITE] [-U] [--json])", runAstGrep)
}

func runAstGrep(args []string, stdout, stderr io.Writer) int {
	// ast-grep's scan, test and new subcommands are tether's (unless a
	// path has the name)
	if len(args) > 0 {
		sub := map[string]func([]string, io.Writer, io.Writer) int{"scan": runScan, "test": runRuleTest, "new": runNew}[args[0]]
		if _, err := os.Stat(args[0]); sub != nil && err != nil {
			return sub(args[1:], stdout, stderr)
		}
	}
	// ast-grep's own "run" subcommand may lead (unless a path is named run)
	if len(args) > 0 && args[0] == "run" {
		if _, err := os.Stat("run"); err != nil {
			args = args[1:]
		}
	}
	f := astGrepFlags{trees: treeCacheFlags{deferWrites: true}}
	if !f.parse(args, isTerminal(stdout), stderr) {
		return 2
	}
	ctx := signalCtx
	e, stop, ok := startCLISearch(ctx, &f.trees, stderr)
	if !ok {
		return 2
	}
	defer stop()
	if f.updateAll {
		recoverCutChanges(stderr)
	}
	// texts are printed whole, as ast-grep prints them
	s := search.NewSearcher(e, search.Config{Workers: f.threads, MaxText: -1})
	job := search.Job{Query: f.query(), Apply: f.updateAll}
	if f.rewriting {
		job.Rewrite = &f.rewrite
	}
	// a project's languageInjections apply to a search as to a scan, as
	// ast-grep run reads them
	if config := search.FindProject("."); config != "" {
		// and its customLanguages, which the query and the injections may name
		if _, err := search.LoadCustomLanguages(config); err != nil {
			fmt.Fprintln(stderr, "tether ast-grep:", err)
			return 2
		}
		var err error
		if job.Query.Injections, err = search.LoadInjections(ctx, e, config); err != nil {
			fmt.Fprintln(stderr, "tether ast-grep:", err)
			return exitFor(err)
		}
	}
	if f.debug != "" {
		if code := debugQuery(ctx, e, job.Query, string(f.debug), stderr); code != 0 {
			return code
		}
	}
	var out matchOutput
	prog := newTermProgress(stderr, "matches")
	job.Query.Progress = prog.update
	if !f.rewriting {
		if !out.start(&job.Query, &f, stdout, stderr) {
			return 2
		}
		write := job.Query.OnMatches
		job.Query.OnMatches = func(ms []search.Match) error {
			return prog.around(func() error { return write(ms) })
		}
	}
	res, plan, err := s.Do(ctx, job)
	prog.clear()
	if err == nil {
		err = out.close()
	}
	if err != nil && plan == nil {
		fmt.Fprintln(stderr, "tether:", err)
		out.notePrinted(stderr)
		return exitFor(err)
	}
	return f.report(res, plan, err, stdout, stderr)
}

// astGrepFlags are tether ast-grep's flags.
type astGrepFlags struct {
	pattern, selector, lang, rewrite string
	rewriting, updateAll             bool
	includeErrors, filesOnly         bool
	json                             jsonStyle
	debug                            debugFormat
	human                            format.HumanOptions
	globs                            globList
	maxResults, threads              int
	trees                            treeCacheFlags
	paths                            []string
}

// parse reads args into f and checks them, saying on stderr what is wrong;
// tty says the output is a terminal (colour and headings by default).
func (f *astGrepFlags) parse(args []string, tty bool, stderr io.Writer) bool {
	fs := flag.NewFlagSet("ast-grep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.pattern, "p", "", "the pattern: code with metavariables ($X, $$$ARGS, $_)")
	fs.Var(&grammarFlag{}, "grammar", grammarUsage)
	fs.StringVar(&f.pattern, "pattern", "", "same as -p")
	fs.StringVar(&f.selector, "selector", "", "node KIND to match: the pattern is then the code around it and the first node of that kind in it is matched, as ast-grep's --selector (-p 'struct _S { $F: Vec<$T> }' --selector field_declaration)")
	fs.StringVar(&f.lang, "l", "", "language id (go, python, rust, ...); inferred from a file's extension, or from the one language a directory holds")
	fs.StringVar(&f.lang, "lang", "", "same as -l")
	fs.StringVar(&f.rewrite, "r", "", "rewrite template: each match is replaced by it, captures substituted")
	fs.StringVar(&f.rewrite, "rewrite", "", "same as -r")
	fs.BoolVar(&f.updateAll, "U", false, "apply every rewrite without asking")
	fs.BoolVar(&f.updateAll, "update-all", false, "same as -U")
	fs.BoolVar(&f.includeErrors, "include-errors", false, "with -r: rewrite files whose tree has syntax errors too (by default they are left out and named on stderr with the line of their first error)")
	fs.Var(&f.json, "json", "print matches as ast-grep's JSON: --json or --json=pretty (an indented array), --json=compact (one line), --json=stream (one match per line)")
	fs.Var(&f.debug, "debug-query", "print the pattern's readings to stderr before searching, each with the context rung it came from: --debug-query or --debug-query=pattern (the compiled pattern), =ast (the tree's named nodes), =cst (all its nodes), =sexp (an S-expression), as ast-grep's; needs -l LANG")
	var color, heading string
	fs.StringVar(&color, "color", "auto", "colour the matches: auto (when printing to a terminal), always, ansi or never")
	fs.StringVar(&heading, "heading", "auto", "print each file's name above its lines: auto (on a terminal), always or never")
	var before, after, around int
	fs.IntVar(&after, "A", 0, "show N lines after each match")
	fs.IntVar(&after, "after", 0, "same as -A")
	fs.IntVar(&before, "B", 0, "show N lines before each match")
	fs.IntVar(&before, "before", 0, "same as -B")
	fs.IntVar(&around, "C", 0, "show N lines around each match")
	fs.IntVar(&around, "context", 0, "same as -C")
	fs.BoolVar(&f.filesOnly, "files-with-matches", false, "print only the paths of the files with a match")
	fs.Var(&f.globs, "globs", "include (GLOB) or exclude (!GLOB) files and directories, gitignore-style globs relative to the working directory; repeatable, the later winning; beats ignore files, as ast-grep's --globs")
	fs.IntVar(&f.maxResults, "max-results", 0, "show at most N matches (0: no limit); the total is still counted")
	fs.IntVar(&f.threads, "j", 0, "parse and match on N threads (default: every core)")
	f.trees.register(fs, cliTreeMemory)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tether ast-grep [run] -p PATTERN [--selector KIND] [-l LANG] [-r REWRITE] [-U] [--include-errors] [--json[=pretty|compact|stream]] [--debug-query[=pattern|ast|cst|sexp]] [--globs GLOB]... [-A N] [-B N] [-C N] [--color WHEN] [--heading WHEN] [--files-with-matches] [--max-results N] [PATH...]")
		fmt.Fprintln(stderr, "Finds code by shape in PATH (default .). Exits 0 with matches, 1 with none, 8 for a pattern or selector that does not compile, 2 on other errors.")
		fs.PrintDefaults()
	}
	var err error
	if f.paths, err = parseAmidPaths(fs, args); err != nil {
		return false
	}
	if f.pattern == "" {
		fmt.Fprintln(stderr, "tether ast-grep: -p PATTERN is required")
		fs.Usage()
		return false
	}
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "r" || fl.Name == "rewrite" {
			f.rewriting = true
		}
	})
	if f.updateAll && !f.rewriting {
		fmt.Fprintln(stderr, "tether ast-grep: -U applies rewrites: give one with -r REWRITE")
		return false
	}
	switch color {
	case "auto":
		f.human.Color = tty && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	case "always", "ansi":
		f.human.Color = true
	case "never":
	default:
		fmt.Fprintf(stderr, "tether ast-grep: --color %s: give auto, always, ansi or never\n", color)
		return false
	}
	switch heading {
	case "auto":
		f.human.Heading = tty
	case "always":
		f.human.Heading = true
	case "never":
	default:
		fmt.Fprintf(stderr, "tether ast-grep: --heading %s: give auto, always or never\n", heading)
		return false
	}
	if around > 0 {
		before, after = max(before, around), max(after, around)
	}
	if before < 0 || after < 0 {
		fmt.Fprintln(stderr, "tether ast-grep: -A, -B and -C take a number of lines, 0 or more")
		return false
	}
	f.human.Before, f.human.After = before, after
	if f.filesOnly && (f.json != "" || f.updateAll) {
		fmt.Fprintln(stderr, "tether ast-grep: --files-with-matches prints paths only: it does not go with --json or -U")
		return false
	}
	return true
}

// query is the search the flags ask for.
func (f *astGrepFlags) query() search.Query {
	return search.Query{Pattern: f.pattern, Selector: f.selector, Language: f.lang, Paths: f.paths, MaxResults: f.maxResults, Globs: f.globs, IncludeErrors: f.includeErrors}
}

// matchOutput prints a search's matches as the search hands them on: each
// file's as soon as it and the files before it are searched, then let go,
// so that a search's memory does not grow with its matches (a minified
// bundle can hold millions).
type matchOutput struct {
	jw      *format.JSONWriter
	printed int // matches printed
}

// start sets q.OnMatches to print in the form the flags ask for.
func (o *matchOutput) start(q *search.Query, f *astGrepFlags, stdout, stderr io.Writer) bool {
	var write func([]search.Match) error
	switch {
	case f.json != "":
		var err error
		if o.jw, err = format.NewJSONWriter(stdout, string(f.json)); err != nil {
			fmt.Fprintln(stderr, "tether:", err)
			return false
		}
		write = o.jw.Write
	case f.filesOnly:
		write = func(ms []search.Match) error {
			_, err := fmt.Fprintln(stdout, ms[0].Path) // one file's matches
			return err
		}
	default:
		write = func(ms []search.Match) error { return format.WriteHumanOpts(stdout, ms, f.human) }
	}
	q.OnMatches = func(ms []search.Match) error {
		o.printed += len(ms)
		return write(ms)
	}
	return true
}

// close ends the output (a JSON array's closing bracket).
func (o *matchOutput) close() error {
	if o.jw == nil {
		return nil
	}
	return o.jw.Close()
}

// notePrinted says, after a search stopped, that the matches printed came
// from the files searched before it did.
func (o *matchOutput) notePrinted(stderr io.Writer) {
	if o.printed == 0 {
		return
	}
	word := "matches"
	if o.printed == 1 {
		word = "match"
	}
	fmt.Fprintf(stderr, "tether ast-grep: note: %d %s printed, from the files searched before the search stopped: not all there may be\n", o.printed, word)
}

// report prints what a search or rewrite left to say: a rewrite's JSON or
// diff, whether -U applied it (applyErr: why not), notes and the summary;
// it returns the exit code.
func (f *astGrepFlags) report(res *search.Result, plan *search.Plan, applyErr error, stdout, stderr io.Writer) int {
	if plan != nil && len(plan.Unbound) > 0 {
		fmt.Fprintf(stderr, "tether ast-grep: note: the pattern does not bind %s of the rewrite: replaced by nothing, as ast-grep does\n", strings.Join(plan.Unbound, ", "))
	}
	var err error
	switch {
	case f.json != "" && f.rewriting:
		err = writeJSON(stdout, res.Matches, f.json)
	case f.rewriting && !f.updateAll:
		_, err = io.WriteString(stdout, plan.Diff(0))
	}
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return 2
	}
	if f.updateAll {
		if applyErr != nil {
			fmt.Fprintln(stderr, "tether:", applyErr)
			return 2
		}
		if plan.Edits > 0 {
			// ast-grep's words, on stderr as it prints them
			fmt.Fprintf(stderr, "Applied %d changes\n", plan.Edits)
		}
	}
	// after ast-grep's own words
	if plan != nil {
		if note := plan.LeftOutNote("--include-errors"); note != "" {
			fmt.Fprintln(stderr, "tether ast-grep: note:", note)
		}
	}
	if res.Total == 0 || res.Skipped.Total() > 0 || len(res.Errors) > 0 || len(res.Matches)+res.Handed < res.Total {
		fmt.Fprintln(stderr, "tether ast-grep:", strings.Replace(res.Summary(), "raise max_results", "raise --max-results", 1))
	}
	switch {
	case len(res.Errors) > 0:
		return 2
	case res.Total == 0:
		return 1
	}
	return 0
}

// parseAmidPaths parses args with fs, flags and paths in any order (flags
// may follow paths, as with ast-grep), and returns the paths in order.
func parseAmidPaths(fs *flag.FlagSet, args []string) ([]string, error) {
	var paths []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return paths, nil
		}
		paths = append(paths, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// isTerminal reports whether w is a character device (colour output).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// globList is the repeatable --globs flag.
type globList []string

func (g *globList) String() string     { return strings.Join(*g, ",") }
func (g *globList) Set(v string) error { *g = append(*g, v); return nil }

// jsonStyle is the --json flag: "" (off), pretty, compact or stream, as
// ast-grep spells them; a bare --json is pretty.
type jsonStyle string

func (j *jsonStyle) String() string   { return string(*j) }
func (j *jsonStyle) IsBoolFlag() bool { return true }
func (j *jsonStyle) Set(v string) error {
	switch v {
	case "true", "pretty":
		*j = "pretty"
	case "false":
		*j = ""
	case "compact", "stream":
		*j = jsonStyle(v)
	default:
		return fmt.Errorf("--json=%s: give pretty, compact or stream", v)
	}
	return nil
}

// writeJSON writes matches as ast-grep's JSON in the given style.
func writeJSON(w io.Writer, ms []search.Match, style jsonStyle) error {
	return format.WriteJSONStyle(w, ms, string(style))
}

// recoverCutChanges puts back, before a command rewrites files, any change a
// crash cut short (as a run's start does), so the search reads no half-made
// change and the new change is not mixed with the old one's leftovers.
func recoverCutChanges(stderr io.Writer) {
	recs, err := fsutil.Recover()
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
	}
	for _, rec := range recs {
		fmt.Fprintln(stderr, "tether:", rec)
	}
}
