package tools

import "cmp"
import "context"
import "fmt"
import "maps"
import "slices"
import "strings"

import "github.com/tetherhq/tether/search"

// Bounds of map's result.
const (
	// mapDefaultBudget is map's budget in tokens when none is given;
	// mapMinBudget and mapMaxBudget bound the one given.
	mapDefaultBudget = 2000
	mapMinBudget     = 200
	mapMaxBudget     = 16000
	// mapBytesPerToken is how many bytes of text count as one token.
	mapBytesPerToken = 4
	// mapMaxFiles bounds max_files.
	mapMaxFiles = 50000
	// mapMaxStart bounds start.
	mapMaxStart = 1 << 20
	// mapFooterRoom is kept for the closing line that says what was left
	// out, so that the text with it stays within the budget.
	mapFooterRoom = 320
)

// mapArgs are map's arguments.
type mapArgs struct {
	Budget   int      `json:"budget,omitempty" jsonschema:"most tokens of text to return (4 bytes a token; default 2000, 200 to 16000); the definitions that fit are listed best ranked first, and the result says how many were left out" bounds:"minimum=200,maximum=16000"`
	Paths    []string `json:"paths,omitempty" jsonschema:"files or directories to focus on, relative to the working directory: their files are listed first and what they reference ranks higher" bounds:"maxItems=100,items.minLength=1"`
	Symbols  []string `json:"symbols,omitempty" jsonschema:"names whose definitions to rank first (exact, case-sensitive), e.g. [\"ServeHTTP\"]" bounds:"maxItems=100,items.minLength=1"`
	Query    string   `json:"query,omitempty" jsonschema:"words matched (case-insensitive substrings) against definitions' names and files' paths: what matches ranks higher" bounds:"maxLength=1000"`
	Start    int      `json:"start,omitempty" jsonschema:"skip this many of the best ranked definitions, to page past what the budget showed; the result says the start of the next page" bounds:"minimum=0,maximum=1048576"`
	MaxFiles int      `json:"max_files,omitempty" jsonschema:"most files to read (default 20000, at most 50000); the files of paths are read first" bounds:"minimum=1,maximum=50000"`
}

// MapResult is map's Structured result.
type MapResult struct {
	Summary string `json:"summary"`
	// Files are the files shown, in rank order, each with the
	// definitions shown in source order (their signatures are the text's
	// rows).
	Files []MapFile `json:"files"`
	// Shown counts the definitions shown, Total those found; Start is
	// the first shown (in rank order) and NextStart the start of the
	// next page (0: none).
	Shown     int `json:"shown"`
	Total     int `json:"total"`
	Start     int `json:"start"`
	NextStart int `json:"next_start,omitempty"`
	// Budget is the budget in tokens, Tokens those the text takes.
	Budget int `json:"budget"`
	Tokens int `json:"tokens"`
	// MapCounts says what was outlined and what not (Errors: the first
	// few files that could not be parsed).
	search.MapCounts
}

// MapFile is a file of map's result, with the definitions shown.
type MapFile struct {
	Path    string   `json:"path"`
	Focused bool     `json:"focused,omitempty"`
	Defs    []MapDef `json:"defs"`
}

// MapDef is a definition map shows: its name, its line and how many
// other files name it.
type MapDef struct {
	Line  int    `json:"line"`
	Name  string `json:"name"`
	Files int    `json:"files,omitempty"`
}

// mapTool is map, bound to s.
func (s *structural) mapTool() Tool {
	return Typed(Tool{
		Name: "map",
		Tier: TierRead,
		Description: "A ranked outline of the project within a token budget: files and their definitions (functions, methods, types, classes, interfaces, constants) " +
			"as `line: signature` rows (no bodies), best ranked first: a definition ranks by how many other files name it (references counted from the syntax trees, " +
			"PageRank over the files). Outlines go, python, javascript, typescript, tsx, rust, c, cpp and java; files of other languages are counted as not outlined. " +
			"paths focuses on files or directories (listed first, what they reference ranks higher), symbols and query lift the definitions they name. " +
			"budget (tokens, default 2000) bounds the text; the result says how many definitions were left out, and start pages on. " +
			"Reads the trees ast_grep parsed, so a second map is fast.",
	}, s.repoMap)
}

func (s *structural) repoMap(ctx context.Context, call *Call, a mapArgs) (*Result, *MapResult, error) {
	budget := cmp.Or(a.Budget, mapDefaultBudget)
	if budget < mapMinBudget || budget > mapMaxBudget {
		return nil, nil, fmt.Errorf("tools: map: budget %d is out of range: pass %d to %d tokens, and start to page on", budget, mapMinBudget, mapMaxBudget)
	}
	if a.Start < 0 || a.Start > mapMaxStart || a.MaxFiles < 0 || a.MaxFiles > mapMaxFiles {
		return nil, nil, fmt.Errorf("tools: map: start is 0 to %d and max_files 1 to %d: pass those", mapMaxStart, mapMaxFiles)
	}
	q := search.MapQuery{Symbols: a.Symbols, Words: strings.Fields(a.Query), MaxFiles: a.MaxFiles}
	var err error
	if q.Paths, err = s.paths(call.Name, grepQuery{}); err != nil {
		return nil, nil, err
	}
	if len(a.Paths) > 0 {
		if q.Focus, err = s.paths(call.Name, grepQuery{Paths: a.Paths}); err != nil {
			return nil, nil, err
		}
	}
	res, err := s.search.Map(ctx, q)
	if err != nil {
		return nil, nil, s.relErr(err)
	}
	for i := range res.Files {
		res.Files[i].Path = s.rel(res.Files[i].Path)
	}
	for i := range res.Errors {
		res.Errors[i].Path = s.rel(res.Errors[i].Path)
	}
	out := &MapResult{Total: res.Defs, Start: a.Start, Budget: budget, MapCounts: res.MapCounts}
	out.Errors = out.Errors[:min(len(out.Errors), astGrepMaxErrors)]
	if len(out.NotOutlined) == 0 {
		out.NotOutlined = nil
	}
	head := mapHead(res, cmp.Or(a.MaxFiles, search.DefaultMapFiles))
	body := mapBody(res, a.Start, budget*mapBytesPerToken-len(head)-mapFooterRoom, out)
	text := head + body + mapFoot(a, budget, out)
	out.Tokens = (len(text) + mapBytesPerToken - 1) / mapBytesPerToken
	return Text(text), out, nil
}

// mapHead is the map's first lines: what was outlined, and what not.
func mapHead(res *search.MapResult, maxFiles int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "map: %s (%s), %s, ranked by how many other files name them\n",
		plural(res.Outlined, "file"), countsNote(res.Languages), plural(res.Defs, "definition"))
	var not []string
	if len(res.NotOutlined) > 0 {
		not = append(not, fmt.Sprintf("%s not outlined (no definition table for %s)", plural(sum(res.NotOutlined), "file"), countsNote(res.NotOutlined)))
	}
	if res.OverCap > 0 {
		not = append(not, fmt.Sprintf("%s not read (over max_files %d: raise it or focus with paths)", plural(res.OverCap, "file"), maxFiles))
	}
	if n := res.Skipped.Total(); n > 0 {
		not = append(not, fmt.Sprintf("%s skipped (ignored, hidden, binary, too large or unreadable)", plural(n, "file")))
	}
	if n := len(res.Errors); n > 0 {
		not = append(not, fmt.Sprintf("%s could not be parsed (first: %s: %s)", plural(n, "file"), res.Errors[0].Path, truncateText(res.Errors[0].Err, 160)))
	}
	if len(not) > 0 {
		b.WriteString("note: " + strings.Join(not, "; ") + "\n")
	}
	return b.String()
}

// mapBody lists, within room bytes, the best ranked definitions from
// start on, grouped by file in the map's file order, each file's in
// source order; it records what it shows in out.
func mapBody(res *search.MapResult, start, room int, out *MapResult) string {
	type at struct{ file, def int }
	var ranked []at
	for i, f := range res.Files {
		for k := range f.Defs {
			ranked = append(ranked, at{i, k})
		}
	}
	slices.SortStableFunc(ranked, func(x, y at) int {
		return cmp.Compare(res.Files[y.file].Defs[y.def].Rank, res.Files[x.file].Defs[x.def].Rank)
	})
	chosen := map[int][]int{}
	used := 0
	for _, r := range ranked[min(start, len(ranked)):] {
		f := res.Files[r.file]
		cost := len(mapRow(f.Defs[r.def]))
		if _, listed := chosen[r.file]; !listed {
			cost += len(f.Path) + 2
		}
		if used+cost > room {
			break
		}
		used += cost
		chosen[r.file] = append(chosen[r.file], r.def)
		out.Shown++
	}
	var b strings.Builder
	for _, i := range slices.Sorted(maps.Keys(chosen)) {
		f := res.Files[i]
		slices.Sort(chosen[i])
		shown := MapFile{Path: f.Path, Focused: f.Focused}
		b.WriteString(f.Path + ":\n")
		for _, k := range chosen[i] {
			d := f.Defs[k]
			b.WriteString(mapRow(d))
			shown.Defs = append(shown.Defs, MapDef{Line: d.Line, Name: d.Name, Files: d.Files})
		}
		out.Files = append(out.Files, shown)
	}
	if out.Files == nil {
		out.Files = []MapFile{}
	}
	return b.String()
}

// mapRow is one definition's row.
func mapRow(d search.MapDef) string { return fmt.Sprintf("  %d: %s\n", d.Line, d.Signature) }

// mapFoot says how much was shown and how to see more; it sets the
// summary and the next page's start.
func mapFoot(a mapArgs, budget int, out *MapResult) string {
	end := a.Start + out.Shown
	switch {
	case out.Total == 0:
		out.Summary = "no definitions found in the files outlined"
	case out.Shown == 0 && a.Start >= out.Total:
		out.Summary = fmt.Sprintf("no definitions from start %d: there are %d (start 0 shows the best ranked)", a.Start, out.Total)
	case out.Shown == 0:
		out.Summary = fmt.Sprintf("the next definition does not fit in a budget of %d tokens: raise budget", budget)
	case end < out.Total || a.Start > 0:
		out.Summary = fmt.Sprintf("definitions %d-%d of %d shown (best ranked first)", a.Start+1, end, out.Total)
	default:
		out.Summary = fmt.Sprintf("all %d definitions shown", out.Total)
	}
	if out.Shown > 0 && end < out.Total {
		out.NextStart = end
		out.Summary += fmt.Sprintf("; %d left out: raise budget (now %d tokens), focus with paths, symbols or query, or pass start %d for the next page", out.Total-end, budget, end)
	}
	return "(" + out.Summary + ")\n"
}

// countsNote lists counts by name, most first: "go 12, python 3".
func countsNote(m map[string]int) string {
	names := slices.Collect(maps.Keys(m))
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, m[n]))
	}
	if len(parts) == 0 {
		return "no outlined language"
	}
	return strings.Join(parts, ", ")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
