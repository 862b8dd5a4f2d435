package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tetherhq/tether/internal/fsutil"
	"github.com/tetherhq/tether/search"
	"github.com/tetherhq/tether/search/format"
	"github.com/tetherhq/tether/search/stage"
)

func init() {
	register("ast-grep", "structural search and rewrite (ast-grep's command line: -p PATTERN [-l LANG] [-r REWRITE] [-U] [--json])", runAstGrep)
}

func runAstGrep(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ast-grep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var pattern, lang, rewrite string
	var updateAll bool
	var asJSON jsonStyle
	fs.StringVar(&pattern, "p", "", "the pattern: code with metavariables ($X, $$$ARGS, $_)")
	fs.StringVar(&pattern, "pattern", "", "same as -p")
	var selector string
	fs.StringVar(&selector, "selector", "", "node KIND to match: the pattern is then the code around it and the first node of that kind in it is matched, as ast-grep's --selector (-p 'struct _S { $F: Vec<$T> }' --selector field_declaration)")
	fs.StringVar(&lang, "l", "", "language id (go, python, rust, ...); inferred from a file's extension, or from the one language a directory holds")
	fs.StringVar(&lang, "lang", "", "same as -l")
	fs.StringVar(&rewrite, "r", "", "rewrite template: each match is replaced by it, captures substituted")
	fs.StringVar(&rewrite, "rewrite", "", "same as -r")
	fs.BoolVar(&updateAll, "U", false, "apply every rewrite without asking")
	fs.BoolVar(&updateAll, "update-all", false, "same as -U")
	includeErrors := fs.Bool("include-errors", false, "with -r: rewrite files whose tree has syntax errors too (by default they are left out and named on stderr with the line of their first error)")
	fs.Var(&asJSON, "json", "print matches as ast-grep's JSON: --json or --json=pretty (an indented array), --json=compact (one line), --json=stream (one match per line)")
	var debug debugFormat
	fs.Var(&debug, "debug-query", "print the pattern's readings to stderr before searching, each with the context rung it came from: --debug-query or --debug-query=pattern (the compiled pattern), =ast (the tree's named nodes), =cst (all its nodes), =sexp (an S-expression), as ast-grep's; needs -l LANG")
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
	filesOnly := fs.Bool("files-with-matches", false, "print only the paths of the files with a match")
	var globs globList
	fs.Var(&globs, "globs", "include (GLOB) or exclude (!GLOB) files and directories, gitignore-style globs relative to the working directory; repeatable, the later winning; beats ignore files, as ast-grep's --globs")
	maxResults := fs.Int("max-results", 0, "show at most N matches (0: no limit); the total is still counted")
	threads := fs.Int("j", 0, "parse and match on N threads (default: every core)")
	trees := treeCacheFlags{deferWrites: true}
	trees.register(fs, cliTreeMemory)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tether ast-grep [run] -p PATTERN [--selector KIND] [-l LANG] [-r REWRITE] [-U] [--include-errors] [--json[=pretty|compact|stream]] [--debug-query[=pattern|ast|cst|sexp]] [--globs GLOB]... [-A N] [-B N] [-C N] [--color WHEN] [--heading WHEN] [--files-with-matches] [--max-results N] [PATH...]")
		fmt.Fprintln(stderr, "Finds code by shape in PATH (default .). Exits 0 with matches, 1 with none, 2 on errors.")
		fs.PrintDefaults()
	}
	// ast-grep's scan subcommand is tether scan (unless a path is named scan)
	if len(args) > 0 && args[0] == "scan" {
		if _, err := os.Stat("scan"); err != nil {
			return runScan(args[1:], stdout, stderr)
		}
	}
	// ast-grep's own "run" subcommand may lead (unless a path is named run)
	if len(args) > 0 && args[0] == "run" {
		if _, err := os.Stat("run"); err != nil {
			args = args[1:]
		}
	}
	paths, err := parseAmidPaths(fs, args)
	if err != nil {
		return 2
	}
	if pattern == "" {
		fmt.Fprintln(stderr, "tether ast-grep: -p PATTERN is required")
		fs.Usage()
		return 2
	}
	rewriting := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "r" || f.Name == "rewrite" {
			rewriting = true
		}
	})
	if updateAll && !rewriting {
		fmt.Fprintln(stderr, "tether ast-grep: -U applies rewrites: give one with -r REWRITE")
		return 2
	}
	tty := isTerminal(stdout)
	var hopts format.HumanOptions
	switch color {
	case "auto":
		hopts.Color = tty && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	case "always", "ansi":
		hopts.Color = true
	case "never":
	default:
		fmt.Fprintf(stderr, "tether ast-grep: --color %s: give auto, always, ansi or never\n", color)
		return 2
	}
	switch heading {
	case "auto":
		hopts.Heading = tty
	case "always":
		hopts.Heading = true
	case "never":
	default:
		fmt.Fprintf(stderr, "tether ast-grep: --heading %s: give auto, always or never\n", heading)
		return 2
	}
	if around > 0 {
		before, after = max(before, around), max(after, around)
	}
	if before < 0 || after < 0 {
		fmt.Fprintln(stderr, "tether ast-grep: -A, -B and -C take a number of lines, 0 or more")
		return 2
	}
	hopts.Before, hopts.After = before, after
	if *filesOnly && (asJSON != "" || updateAll) {
		fmt.Fprintln(stderr, "tether ast-grep: --files-with-matches prints paths only: it does not go with --json or -U")
		return 2
	}
	ctx := signalCtx
	e, stop, ok := startCLISearch(ctx, &trees, stderr)
	if !ok {
		return 2
	}
	defer stop()
	// texts are printed whole, as ast-grep prints them
	if updateAll {
		recoverCutChanges(stderr)
	}
	s := search.NewSearcher(e, search.Config{Workers: *threads, MaxText: -1})
	q := search.Query{Pattern: pattern, Selector: selector, Language: lang, Paths: paths, MaxResults: *maxResults, Globs: globs, IncludeErrors: *includeErrors}
	// a project's languageInjections apply to a search as to a scan, as
	// ast-grep run reads them
	if config := findSgconfig(); config != "" {
		if q.Injections, err = search.LoadInjections(ctx, e, config); err != nil {
			fmt.Fprintln(stderr, "tether ast-grep:", err)
			return 2
		}
	}
	if debug != "" && !debugQuery(ctx, e, q, string(debug), stderr) {
		return 2
	}
	var res *search.Result
	var plan *search.Plan
	printed := 0 // matches printed as the search went
	if rewriting {
		plan, err = s.Rewrite(ctx, q, rewrite)
		if plan != nil {
			res = plan.Result
		}
	} else {
		// each file's matches are printed as soon as it and the files
		// before it are searched, then let go: a search's memory does not
		// grow with its matches (a minified bundle can hold millions)
		var jw *format.JSONWriter
		switch {
		case asJSON != "":
			if jw, err = format.NewJSONWriter(stdout, string(asJSON)); err != nil {
				fmt.Fprintln(stderr, "tether:", err)
				return 2
			}
			q.OnMatches = jw.Write
		case *filesOnly:
			q.OnMatches = func(ms []search.Match) error {
				_, err := fmt.Fprintln(stdout, ms[0].Path) // one file's matches
				return err
			}
		default:
			q.OnMatches = func(ms []search.Match) error { return format.WriteHumanOpts(stdout, ms, hopts) }
		}
		write := q.OnMatches
		q.OnMatches = func(ms []search.Match) error {
			printed += len(ms)
			return write(ms)
		}
		res, err = s.Search(ctx, q)
		if err == nil && jw != nil {
			err = jw.Close()
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		if printed > 0 {
			// the files before the one that stopped the search were
			// printed as they were searched
			word := "matches"
			if printed == 1 {
				word = "match"
			}
			fmt.Fprintf(stderr, "tether ast-grep: note: %d %s printed, from the files searched before the search stopped: not all there may be\n", printed, word)
		}
		return 2
	}
	if plan != nil && len(plan.Unbound) > 0 {
		fmt.Fprintf(stderr, "tether ast-grep: note: the pattern does not bind %s of the rewrite: replaced by nothing, as ast-grep does\n", strings.Join(plan.Unbound, ", "))
	}
	switch {
	case asJSON != "" && rewriting:
		err = writeJSON(stdout, res.Matches, asJSON)
	case rewriting && !updateAll:
		_, err = io.WriteString(stdout, plan.Diff(0))
	}
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return 2
	}
	if updateAll {
		st := stage.New("")
		if _, err := st.Accept(st.Stage(plan)); err != nil {
			fmt.Fprintln(stderr, "tether:", err)
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
