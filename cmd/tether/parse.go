package main

import "context"
import "flag"
import "fmt"
import "io"
import "os"
import "strings"
import "text/tabwriter"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/search"

func init() {
	register("parse", "parse files with a tree-sitter grammar and print the syntax tree", runParse)
	register("languages", "list the shipped grammars (all embedded in this binary) and the project's custom ones", runLanguages)
}

func runParse(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lang := fs.String("l", "", "language id or alias (default: from each file's extension; see `tether languages`)")
	timeout := fs.Duration("timeout", time.Minute, "give up on a file after this long")
	quiet := fs.Bool("q", false, "print nothing but errors; the exit status still says whether a tree has errors")
	outline := fs.Bool("outline", false, "print as `tree-sitter parse` does: one named node a line, indented, with [row, column] ranges")
	noRanges := fs.Bool("no-ranges", false, "with -outline, leave the ranges out")
	cst := fs.Bool("cst", false, "with -outline, print the anonymous nodes too (punctuation and keywords, quoted)")
	fs.Var(&grammarFlag{}, "grammar", grammarUsage)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tether parse [-l LANG] [--grammar SPEC] [-q] [-outline [-no-ranges] [-cst]] FILE...")
		fmt.Fprintln(stderr, "Prints each file's syntax tree as an S-expression. Exits 1 when a tree has ERROR or MISSING nodes, 2 on other failures.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	var given *grammars.Language
	if *lang != "" {
		var ok bool
		if given, ok = grammars.Lookup(*lang); !ok {
			fmt.Fprintf(stderr, "tether: unknown language %q: pass one of %s (see `tether languages`)\n", *lang, strings.Join(grammars.IDs(), ", "))
			return 2
		}
	}
	ctx := signalCtx
	e, ok := startEngine(ctx, stderr)
	if !ok {
		return 2
	}
	defer e.Close(ctx)
	status := 0
	for _, file := range fs.Args() {
		l := given
		if l == nil {
			found, ok := grammars.ForPath(file)
			if !ok {
				fmt.Fprintf(stderr, "tether: %s: no grammar for this extension; pass -l LANG (see `tether languages`)\n", file)
				status = 2
				continue
			}
			l = found
		}
		src, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(stderr, "tether:", err)
			status = 2
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, *timeout)
		tree, err := e.Parse(pctx, l, src)
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "tether: %s: %v\n", file, err)
			status = 2
			continue
		}
		if !*quiet {
			if fs.NArg() > 1 {
				fmt.Fprintf(stdout, "# %s\n", file)
			}
			if *outline {
				style := matcher.SyntaxOutline
				if *noRanges {
					style = matcher.SyntaxOutlineBare
				}
				matcher.WriteSyntax(stdout, matcher.SyntaxOf([]engine.Node{tree.Root()}, matcher.SyntaxOptions{All: *cst}).Nodes, style)
			} else {
				fmt.Fprintln(stdout, tree.String())
			}
		}
		if tree.HasError() {
			errs := errorNodes(tree, 10)
			for _, p := range errs {
				fmt.Fprintf(stderr, "%s:%d:%d: %s\n", file, p.Range().StartPoint.Row+1, p.Range().StartPoint.Column+1, describeError(p))
			}
			if len(errs) == 0 {
				// Error recovery inserted a token the grammar hides from the tree.
				fmt.Fprintf(stderr, "%s: syntax error: a missing token the grammar does not show\n", file)
			}
			if status == 0 {
				status = 1
			}
		}
	}
	return status
}

// errorNodes returns up to max outermost ERROR and MISSING nodes.
func errorNodes(t *engine.Tree, max int) []engine.Node {
	var out []engine.Node
	t.Root().Walk(func(n engine.Node) bool {
		if len(out) >= max || !n.HasError() && !n.IsMissing() {
			return false
		}
		if n.IsError() || n.IsMissing() {
			out = append(out, n)
			return false
		}
		return true
	})
	return out
}

func describeError(n engine.Node) string {
	if n.IsMissing() {
		return fmt.Sprintf("syntax error: missing %q", n.Kind())
	}
	text := n.Text()
	if len(text) > 40 {
		text = text[:40] + "..."
	}
	return fmt.Sprintf("syntax error: unexpected %q", text)
}

func runLanguages(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("languages", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&grammarFlag{}, "grammar", grammarUsage)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tether languages [--grammar SPEC]")
		fmt.Fprintln(stderr, "Lists the shipped grammars, then the custom ones: those of --grammar and of the customLanguages of the sgconfig.yml found from the working directory up, marked custom.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tether languages: unexpected argument %q: it takes no arguments, only --grammar\n", fs.Arg(0))
		return 2
	}
	// a project's customLanguages are listed as ast-grep run in it reads them
	if config := search.FindProject("."); config != "" {
		if _, err := search.LoadCustomLanguages(config); err != nil {
			fmt.Fprintln(stderr, "tether languages:", err)
			return 2
		}
	}
	missing := 0
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LANGUAGE\tNAME\tALIASES\tEXTENSIONS\tPACKAGE\tMODULE")
	for _, l := range grammars.All() {
		module := "embedded"
		if !grammars.Built(l.ID) {
			module = "missing"
			missing++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.ID, l.Name, strings.Join(l.Aliases, " "), strings.Join(append(append([]string(nil), l.Filenames...), l.Extensions...), " "), l.Package+"@"+l.Version, module)
	}
	// custom languages: the package column names the module's file
	for _, l := range grammars.Customs() {
		fmt.Fprintf(tw, "%s\t%s\t-\t%s\t%s\tcustom\n", l.ID, l.Name, strings.Join(l.Extensions, " "), l.Custom.Source)
	}
	tw.Flush()
	if missing > 0 {
		// Only a binary built from a broken commit gets here: the modules are committed.
		fmt.Fprintf(stdout, "\n%d grammar modules are missing from this binary: run `%s` and rebuild tether.\n", missing, grammars.UpdateCommand)
	}
	return 0
}

// startEngine starts the grammar engine for a command that parses files
// itself (parse, ast-grep); false means the command exits 2, the error
// printed.
func startEngine(ctx context.Context, stderr io.Writer) (*engine.Engine, bool) {
	e, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return nil, false
	}
	return e, true
}
