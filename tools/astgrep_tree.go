package tools

import "context"
import "errors"
import "fmt"
import "io"
import "strings"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/search"

// Bounds of ast_tree's result.
const (
	// astTreeDefaultNodes is how many nodes of a tree ast_tree lists when
	// max_nodes is not given; astTreeMaxNodes is the most it takes.
	astTreeDefaultNodes = 200
	astTreeMaxNodes     = 1000
	// astTreeMaxStart bounds start.
	astTreeMaxStart = 1 << 20
)

// astTreeArgs are ast_tree's arguments.
type astTreeArgs struct {
	Pattern  string         `json:"pattern,omitempty" jsonschema:"a pattern as ast_grep takes it: shows how it is read (the rung of the ladder that accepted it, its root kind, its metavariables and its tree); with code, it is also matched against the code" bounds:"minLength=1"`
	Selector string         `json:"selector,omitempty" jsonschema:"with pattern, the kind of the node of the pattern to match, as ast_grep's selector" bounds:"minLength=1,pattern=^[A-Za-z0-9_]+$"`
	Rule     map[string]any `json:"rule,omitempty" jsonschema:"an ast-grep rule object (or a whole rule configuration) to match against code, as ast_grep takes it; needs code"`
	Code     string         `json:"code,omitempty" jsonschema:"source text in language: shows its syntax tree, or with pattern or rule, the matches in it (and its tree when nothing matches); no file is read or written" bounds:"minLength=1,maxLength=262144"`
	Path     string         `json:"path,omitempty" jsonschema:"a file relative to the working directory whose syntax tree to show (instead of code); from_line and to_line choose the lines"`
	FromLine int            `json:"from_line,omitempty" jsonschema:"with path or code, show the nodes that overlap this line and those after it (1-based), with their ancestors" bounds:"minimum=1"`
	ToLine   int            `json:"to_line,omitempty" jsonschema:"with path or code, show the nodes that overlap lines up to this one (1-based, inclusive)" bounds:"minimum=1"`
	Language string         `json:"language,omitempty" jsonschema:"grammar id (go, python, typescript, rust, ...); needed with code or a pattern alone, inferred from path's extension"`
	CST      bool           `json:"cst,omitempty" jsonschema:"list the anonymous nodes too (punctuation and keywords: a concrete syntax tree); default false lists the named nodes only, as ast_grep's metavariables and kind rules see them"`
	MaxNodes int            `json:"max_nodes,omitempty" jsonschema:"most nodes of the code's or file's tree to list (default 200, at most 1000); start pages on" bounds:"minimum=1,maximum=1000"`
	Start    int            `json:"start,omitempty" jsonschema:"skip this many nodes of the code's or file's tree (0-based, pre-order); the result says the start of the next page" bounds:"minimum=0,maximum=1048576"`
}

// tuneSchema lists the languages.
func (astTreeArgs) tuneSchema(s *jsonschema.Schema) { languageSchema(s) }

// AstTreeResult is ast_tree's Structured result.
type AstTreeResult struct {
	Language string `json:"language"`
	// Readings are the pattern's readings, in rank order (one unless the
	// pattern means several things, a type and an expression say), each
	// with the tree it came from.
	Readings []AstTreeReading `json:"readings,omitempty"`
	// Test is what the pattern or rule matched in the code.
	Test *AstTreeTest `json:"test,omitempty"`
	// Tree is a page of the code's or file's tree.
	Tree *matcher.Syntax `json:"tree,omitempty"`
	// More says what was held back and how to get it.
	More []string `json:"more,omitempty"`
}

// AstTreeReading is one reading of a pattern with its tree.
type AstTreeReading struct {
	matcher.PatternReading
	Tree matcher.Syntax `json:"tree"`
}

// AstTreeTest is a pattern's or rule's matches in the code given.
type AstTreeTest struct {
	Total   int            `json:"total"`
	Matches []AstGrepMatch `json:"matches"`
	// NoMatch says, when the pattern matched nothing, how it was read and
	// what of its root kind the code holds (ast_grep's no_match).
	NoMatch *search.NoMatch `json:"no_match,omitempty"`
	// SyntaxErrorLine is the line of the code's first syntax error (0:
	// none): its matches are listed all the same.
	SyntaxErrorLine int `json:"syntax_error_line,omitempty"`
}

// treeTool is ast_tree, bound to s.
func (s *structural) treeTool() Tool {
	return Typed(Tool{
		Name: "ast_tree",
		Tier: TierRead,
		Description: "Syntax trees for writing ast_grep patterns and rules. With pattern (and language): how ast_grep reads it: the context that accepted it (statement, expression, type...), " +
			"its root node's kind, its metavariables and its tree. With code (and language): the code's tree (kinds, fields, 1-based line:column ranges, named nodes; cst adds anonymous ones); " +
			"with code and pattern or rule: the matches in the code, without any file (a test), and when nothing matches the code's tree and why the pattern may miss. " +
			"With path: a file's tree, from_line and to_line choosing lines. A tree lists max_nodes nodes (default 200) and start pages on.",
	}, s.tree)
}

func (s *structural) tree(ctx context.Context, call *Call, a astTreeArgs) (*Result, *AstTreeResult, error) {
	// the project's customLanguages name grammars here as in ast_grep
	if _, _, err := s.projectConfig(call.Name); err != nil {
		return nil, nil, err
	}
	lang, err := s.treeLanguage(a)
	if err != nil {
		return nil, nil, err
	}
	max := a.MaxNodes
	if max == 0 {
		max = astTreeDefaultNodes
	}
	if max < 0 || max > astTreeMaxNodes || a.Start < 0 || a.Start > astTreeMaxStart {
		return nil, nil, fmt.Errorf("tools: ast_tree: max_nodes is 1 to %d and start 0 to %d: pass those, and start to page on", astTreeMaxNodes, astTreeMaxStart)
	}
	if a.FromLine < 0 || a.ToLine < 0 || a.ToLine > 0 && a.FromLine > a.ToLine {
		return nil, nil, fmt.Errorf("tools: ast_tree: from_line %d is after to_line %d: give from_line <= to_line (1-based)", a.FromLine, a.ToLine)
	}
	opt := matcher.SyntaxOptions{All: a.CST, FromLine: a.FromLine, ToLine: a.ToLine, Start: a.Start, Max: max}
	out := &AstTreeResult{Language: lang.ID}
	var b strings.Builder
	if a.Pattern != "" {
		if err := s.treeReadings(ctx, lang, a, &b, out); err != nil {
			return nil, nil, err
		}
	}
	var tree *engine.Tree
	switch {
	case a.Code != "" && (a.Pattern != "" || a.Rule != nil):
		q := search.Query{Pattern: a.Pattern, Selector: a.Selector, Language: lang.ID, MaxResults: astGrepDefaultMax}
		if a.Rule != nil {
			q.Rule = a.Rule
		}
		res, t, err := s.search.Snippet(ctx, q, []byte(a.Code))
		if err != nil {
			return nil, nil, err
		}
		out.Test = testResult(res, &b)
		if res.Total == 0 {
			tree = t // the code's tree, to compare with the pattern's
		}
	case a.Code != "":
		if tree, err = s.run.cfg.Search.Parser.Parse(ctx, lang, []byte(a.Code)); err != nil {
			return nil, nil, fmt.Errorf("tools: ast_tree: parsing the code: %w", err)
		}
	case a.Path != "":
		if tree, err = s.parseFile(ctx, lang, a.Path); err != nil {
			return nil, nil, err
		}
	}
	if tree != nil {
		syn := matcher.SyntaxOf([]engine.Node{tree.Root()}, opt)
		out.Tree = &syn
		fmt.Fprintf(&b, "%s tree: %s\n", treeSource(a), treePage(syn, a.Start))
		if err := matcher.WriteSyntax(&b, syn.Nodes, matcher.SyntaxLines); err != nil {
			return nil, nil, err
		}
		if next := a.Start + len(syn.Nodes); next < syn.Total {
			out.More = append(out.More, fmt.Sprintf("%d more nodes: start %d shows the next (max_nodes up to %d), or from_line and to_line narrow the lines", syn.Total-next, next, astTreeMaxNodes))
		}
	}
	for _, m := range out.More {
		b.WriteString("note: " + m + "\n")
	}
	return Text(truncateText(b.String(), astGrepMaxText)), out, nil
}

// treeLanguage checks a's sources and resolves its language.
func (s *structural) treeLanguage(a astTreeArgs) (*grammars.Language, error) {
	switch {
	case a.Pattern == "" && a.Rule == nil && a.Code == "" && a.Path == "":
		return nil, errors.New("tools: ast_tree: give pattern (how ast_grep reads it), code (its tree; with pattern or rule, the matches in it) or path (a file's tree)")
	case a.Code != "" && a.Path != "":
		return nil, errors.New("tools: ast_tree: give code or path, not both")
	case a.Pattern != "" && a.Rule != nil:
		return nil, errors.New("tools: ast_tree: give pattern or rule, not both (a rule can hold the pattern: {\"pattern\": ...})")
	case a.Rule != nil && a.Code == "":
		return nil, errors.New("tools: ast_tree: a rule is tested against code: give code (ast_grep runs it over files)")
	case a.Selector != "" && a.Pattern == "":
		return nil, errors.New("tools: ast_tree: selector goes with pattern")
	case (a.FromLine > 0 || a.ToLine > 0) && a.Code == "" && a.Path == "":
		return nil, errors.New("tools: ast_tree: from_line and to_line choose lines of code or path: give one")
	}
	name := a.Language
	if name == "" && a.Rule != nil {
		name, _ = a.Rule["language"].(string)
	}
	if name == "" && a.Path != "" {
		l, ok := grammars.ForPath(a.Path)
		if !ok {
			return nil, fmt.Errorf("tools: ast_tree: no grammar for %s's extension: pass language (one of %s)", a.Path, strings.Join(grammars.IDs(), ", "))
		}
		return l, nil
	}
	if name == "" {
		return nil, fmt.Errorf("tools: ast_tree: pass language (one of %s)", strings.Join(grammars.IDs(), ", "))
	}
	l, ok := grammars.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("tools: ast_tree: unknown language %q: pass one of %s", name, strings.Join(grammars.IDs(), ", "))
	}
	return l, nil
}

// treeReadings writes how a's pattern is read, reading by reading.
func (s *structural) treeReadings(ctx context.Context, lang *grammars.Language, a astTreeArgs, b *strings.Builder, out *AstTreeResult) error {
	pat, err := search.CompileQuery(ctx, s.run.cfg.Search.Parser, lang, search.Query{Pattern: a.Pattern, Selector: a.Selector})
	if err != nil {
		return err
	}
	rs := pat.Readings()
	for i, r := range rs {
		rd := AstTreeReading{PatternReading: r.Reading(), Tree: r.Tree(matcher.SyntaxOptions{All: a.CST, Max: astTreeMaxNodes})}
		out.Readings = append(out.Readings, rd)
		which := ""
		if len(rs) > 1 {
			which = fmt.Sprintf(" (reading %d of %d, each matched)", i+1, len(rs))
		}
		fmt.Fprintf(b, "%s pattern read as %s%s: root %s", lang.ID, rd.Context, which, strings.Join(rd.Roots, ", "))
		if len(rd.Metavariables) > 0 {
			fmt.Fprintf(b, "; metavariables %s", strings.Join(rd.Metavariables, ", "))
		}
		if rd.Mended {
			b.WriteString("; mended (the pattern does not parse as written: the tree shows the tokens written in)")
		}
		b.WriteString("\n")
		if err := matcher.WriteSyntax(b, rd.Tree.Nodes, matcher.SyntaxLines); err != nil {
			return err
		}
	}
	return nil
}

// testResult renders a snippet test's result into b.
func testResult(res *search.Result, b *strings.Builder) *AstTreeTest {
	t := &AstTreeTest{Total: res.Total, Matches: []AstGrepMatch{}}
	if len(res.Broken) > 0 {
		t.SyntaxErrorLine = res.Broken[0].Line
	}
	o := &grepOutput{output: AstGrepOutputLines, budget: astGrepMaxText / 2, max: astGrepDefaultMax}
	for _, m := range res.Matches {
		if !o.add(m) {
			break
		}
	}
	for i := range o.res.Matches {
		o.res.Matches[i].Language = ""
	}
	t.Matches = append(t.Matches, o.res.Matches...)
	switch {
	case res.Total == 0 && res.NoMatch != nil:
		t.NoMatch = res.NoMatch
		fmt.Fprintf(b, "test: no match in the code (%s)\n", res.NoMatch)
	case res.Total == 0:
		b.WriteString("test: no match in the code\n")
	case len(t.Matches) < res.Total:
		fmt.Fprintf(b, "test: %d of %s in the code shown\n", len(t.Matches), countMatches(res.Total))
	default:
		fmt.Fprintf(b, "test: %s in the code\n", countMatches(res.Total))
	}
	if t.SyntaxErrorLine > 0 {
		fmt.Fprintf(b, "note: the code has a syntax error at line %d: its tree may not be what the code means\n", t.SyntaxErrorLine)
	}
	b.WriteString(strings.TrimPrefix(o.b.String(), "\n"))
	return t
}

// parseFile reads the file at path in the working directory and parses it.
func (s *structural) parseFile(ctx context.Context, lang *grammars.Language, path string) (*engine.Tree, error) {
	f, _, err := s.run.root.Open(path)
	if err != nil {
		return nil, s.relErr(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, s.relErr(err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("tools: ast_tree: %s is a directory: give a file (ast_grep searches directories)", path)
	}
	if fi.Size() > search.DefaultMaxFileSize {
		return nil, fmt.Errorf("tools: ast_tree: %s is %d bytes, over the %d MiB ast_tree parses", path, fi.Size(), search.DefaultMaxFileSize>>20)
	}
	src, err := io.ReadAll(io.LimitReader(f, search.DefaultMaxFileSize+1))
	if err != nil {
		return nil, s.relErr(err)
	}
	t, err := s.run.cfg.Search.Parser.Parse(ctx, lang, src)
	if err != nil {
		return nil, fmt.Errorf("tools: ast_tree: parsing %s: %w", path, err)
	}
	return t, nil
}

// treeSource names what a tree is of.
func treeSource(a astTreeArgs) string {
	if a.Path != "" {
		return a.Path
	}
	return "code"
}

// treePage says which of a tree's nodes are listed.
func treePage(syn matcher.Syntax, start int) string {
	switch n := len(syn.Nodes); {
	case n == 0 && syn.Total == 0:
		return "no nodes on those lines"
	case n == 0:
		return fmt.Sprintf("no nodes from start %d: there are %d (start 0 shows the first)", start, syn.Total)
	case start == 0 && n == syn.Total:
		return plural(n, "node")
	default:
		return fmt.Sprintf("nodes %d-%d of %d", start+1, start+n, syn.Total)
	}
}
