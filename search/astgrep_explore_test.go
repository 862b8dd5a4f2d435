package search_test

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "math/rand"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "sort"
import "strconv"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/search"

// TestExploreAstGrep is the differential exploration (not run in CI): it takes
// real source (testdata/parse, the sample projects under testdata/lsp, the
// golden inputs, and the directories in TETHER_AGDIFF_SRC, comma-separated),
// derives patterns from random named subtrees by replacing some subtrees
// with $X and some runs of children with $$$A, runs the pinned ast-grep and
// tether on the file the pattern came from, and reports the differences in
// match ranges, captures and (for a third of the patterns) the replacement
// of a template, grouped by class.
//
//	TETHER_AGDIFF=200 go test ./search -run TestExploreAstGrep -v
//
// TETHER_AGDIFF is the number of patterns per language, TETHER_AGDIFF_SEED
// the random seed (1), TETHER_AGDIFF_LANGS the languages (the 11 below).
// It fails only on a pattern that does not match the code it was derived
// from (tether's own oracle); the rest is a report to triage.
func TestExploreAstGrep(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TETHER_AGDIFF"))
	if n <= 0 {
		t.Skip("set TETHER_AGDIFF=N (patterns per language) to explore differences from ast-grep")
	}
	bin := testenv.RequireBinary(t, "ast-grep")
	seed := int64(1)
	if s, err := strconv.ParseInt(os.Getenv("TETHER_AGDIFF_SEED"), 10, 64); err == nil {
		seed = s
	}
	langs := []string{"go", "python", "javascript", "typescript", "rust", "c", "cpp", "java", "c_sharp", "kotlin", "ruby"}
	if l := os.Getenv("TETHER_AGDIFF_LANGS"); l != "" {
		langs = strings.Split(l, ",")
	}
	p := parser(t)
	files := exploreSources(t)
	classes := map[string][]string{}
	for _, lang := range langs {
		srcs := files[lang]
		if len(srcs) == 0 {
			t.Logf("%s: no source", lang)
			continue
		}
		rng := rand.New(rand.NewSource(seed))
		for i := 0; i < n; i++ {
			file := srcs[rng.Intn(len(srcs))]
			src, err := os.ReadFile(file)
			if err != nil || len(src) > 200_000 {
				continue
			}
			tree, err := p.Parse(context.Background(), enginetest.Language(t, lang), src)
			if err != nil {
				t.Fatal(err)
			}
			d, ok := derivePattern(rng, tree)
			if !ok {
				continue
			}
			rewrite := ""
			if rng.Intn(3) == 0 && len(d.vars) > 0 {
				rewrite = "<" + strings.Join(d.vars, ", ") + ">\n  " + d.vars[len(d.vars)-1] + ";"
			}
			class, detail := exploreOne(t, bin, p, lang, file, d, rewrite)
			if class != "" {
				classes[lang+" "+class] = append(classes[lang+" "+class], detail)
			}
		}
	}
	keys := make([]string, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ex := classes[k]
		t.Logf("== %s: %d", k, len(ex))
		for j, e := range ex {
			if j == 4 {
				break
			}
			t.Logf("   %s", e)
		}
	}
}

var adjacentVars = regexp.MustCompile(`\$[A-Z0-9_]+\$|[A-Za-z0-9_]\$`)

type derived struct {
	pattern    string
	start, end uint32 // the origin node's bytes
	vars       []string
}

// derivePattern picks a random named node of 1-4 lines without errors and
// writes its text with some named subtrees replaced by $Vn and some runs of a
// node's named children by $$$Mn.
func derivePattern(rng *rand.Rand, tree *engine.Tree) (derived, bool) {
	var cands []engine.Node
	var walk func(n engine.Node)
	walk = func(n engine.Node) {
		if n.IsExtra() || n.HasError() || n.IsMissing() {
			return
		}
		r := n.Range()
		if n.IsNamed() && n.ChildCount() > 0 && r.EndByte-r.StartByte < 240 && r.EndPoint.Row-r.StartPoint.Row < 4 &&
			!strings.Contains(n.Kind(), "comment") && !strings.Contains(n.Kind(), "string") && n.Index() != 0 {
			cands = append(cands, n)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(tree.Root())
	if len(cands) == 0 {
		return derived{}, false
	}
	n := cands[rng.Intn(len(cands))]
	src := tree.Source()
	var b strings.Builder
	at := n.StartByte()
	var vars []string
	var rec func(x engine.Node, depth int)
	rec = func(x engine.Node, depth int) {
		kids := x.Children()
		named := 0
		for _, c := range kids {
			if c.IsNamed() && !c.IsExtra() {
				named++
			}
		}
		if strings.Contains(x.Kind(), "string") || strings.Contains(x.Kind(), "literal") {
			return // a string's parts are no code
		}
		// a run of children as $$$, in a list (children without field names)
		list := true
		for _, c := range kids {
			list = list && (!c.IsNamed() || c.Field() == "")
		}
		if list && named >= 2 && rng.Intn(5) == 0 {
			var run []engine.Node
			for _, c := range kids {
				if c.IsNamed() && !c.IsExtra() {
					run = append(run, c)
				}
			}
			i := rng.Intn(len(run))
			j := i + rng.Intn(len(run)-i)
			if rng.Intn(2) == 0 {
				j = len(run) - 1
			}
			for _, c := range kids {
				if c.StartByte() >= run[i].StartByte() {
					break
				}
				rec(c, depth+1)
			}
			b.Write(src[at:run[i].StartByte()])
			name := fmt.Sprintf("$$$M%d", len(vars))
			vars = append(vars, name)
			b.WriteString(name)
			at = run[j].EndByte()
			for _, c := range kids {
				if c.StartByte() >= at {
					rec(c, depth+1)
				}
			}
			return
		}
		for _, c := range kids {
			if c.IsExtra() {
				continue
			}
			if c.IsNamed() && depth > 0 && rng.Intn(4) == 0 || c.IsNamed() && c.ChildCount() == 0 && rng.Intn(3) == 0 {
				b.Write(src[at:c.StartByte()])
				name := fmt.Sprintf("$V%d", len(vars))
				vars = append(vars, name)
				b.WriteString(name)
				at = c.EndByte()
				continue
			}
			rec(c, depth+1)
		}
	}
	rec(n, 0)
	b.Write(src[at:n.EndByte()])
	pat := strings.TrimSpace(b.String())
	if pat == "" || adjacentVars.MatchString(pat) || strings.HasPrefix(pat, "$") && len(vars) == 1 && !strings.ContainsAny(pat[1:], " (.") {
		return derived{}, false
	}
	return derived{pattern: pat, start: n.StartByte(), end: n.EndByte(), vars: vars}, true
}

// exploreOne compares one pattern on one file; it returns "" when the tools
// agree, else a class of difference and the case.
func exploreOne(t *testing.T, bin string, p matcher.Parser, lang, file string, d derived, rewrite string) (string, string) {
	args := []string{"run", "--pattern=" + d.pattern, "-l", agLang(lang), "--json=compact"}
	if rewrite != "" {
		args = append(args, "-r", rewrite)
	}
	out, err := exec.Command(bin, append(args, file)...).Output()
	agErr := false
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		agErr = true
	}
	var ag []struct {
		agMatch
		Replacement string `json:"replacement"`
	}
	if !agErr && len(strings.TrimSpace(string(out))) > 0 {
		if err := json.Unmarshal(out, &ag); err != nil {
			t.Fatalf("ast-grep JSON: %v\n%s", err, out)
		}
	}
	s := search.NewSearcher(p, search.Config{})
	q := search.Query{Pattern: d.pattern, Language: lang, Paths: []string{file}}
	res, oerr := s.Search(context.Background(), q)
	where := fmt.Sprintf("%s %q (from %s:%d-%d)", lang, d.pattern, filepath.Base(file), d.start, d.end)
	switch {
	case agErr && oerr != nil:
		return "", ""
	case oerr != nil && len(ag) == 0:
		return "tether refuses, ast-grep searches and finds nothing", where
	case oerr != nil:
		return "tether refuses, ast-grep finds", fmt.Sprintf("%s: %d ast-grep matches, first %q; %v", where, len(ag), ag[0].Text, oerr)
	}
	self := false
	for _, m := range res.Matches {
		if uint32(m.Span.StartByte) == d.start && uint32(m.Span.EndByte) == d.end || uint32(m.Span.StartByte) <= d.start && uint32(m.Span.EndByte) >= d.end && strings.Contains(d.pattern, "$$$") {
			self = true
		}
	}
	if agErr {
		return "ast-grep refuses, tether searches", where
	}
	src, _ := os.ReadFile(file)
	plain := make([]agMatch, len(ag))
	agSelf := false
	for i := range ag {
		plain[i] = ag[i].agMatch
		agSelf = agSelf || uint32(ag[i].Range.ByteOffset.Start) == d.start && uint32(ag[i].Range.ByteOffset.End) == d.end
	}
	if !self && agSelf {
		t.Errorf("%s: tether does not match the code the pattern was derived from, ast-grep does", where)
	}
	theirs, ours := canonAstGrep(src, plain), canonOurs(res.Matches)
	if strings.Join(theirs, "\n") != strings.Join(ours, "\n") {
		return diffClass(theirs, ours), fmt.Sprintf("%s\n      ast-grep %q\n      tether   %q", where, head(theirs), head(ours))
	}
	if rewrite == "" {
		return "", ""
	}
	plan, err := s.Rewrite(context.Background(), q, rewrite)
	if err != nil {
		return "tether rewrite fails", where + ": " + err.Error()
	}
	byRange := map[string]string{}
	for _, m := range ag {
		byRange[fmt.Sprintf("%d-%d", m.Range.ByteOffset.Start, m.Range.ByteOffset.End)] = m.Replacement
	}
	for _, m := range plan.Result.Matches {
		if m.Replacement == nil {
			continue
		}
		k := fmt.Sprintf("%d-%d", m.Span.StartByte, m.Span.EndByte)
		if byRange[k] != *m.Replacement {
			return "replacement differs", fmt.Sprintf("%s -r %q at %s\n      ast-grep %q\n      tether   %q", where, rewrite, k, byRange[k], *m.Replacement)
		}
	}
	return "", ""
}

func head(s []string) []string {
	if len(s) > 3 {
		return append(s[:3:3], fmt.Sprintf("... %d in all", len(s)))
	}
	return s
}

// diffClass names how two canonical match lists differ.
func diffClass(theirs, ours []string) string {
	rng := func(l []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range l {
			m[strings.SplitN(s, " ", 2)[0]] = true
		}
		return m
	}
	a, b := rng(theirs), rng(ours)
	aInB, bInA := true, true
	for k := range a {
		aInB = aInB && b[k]
	}
	for k := range b {
		bInA = bInA && a[k]
	}
	switch {
	case aInB && bInA:
		return "same ranges, captures differ"
	case len(a) == 0:
		return "ast-grep finds nothing, tether finds"
	case aInB:
		return "tether finds more"
	case bInA:
		return "tether finds less"
	}
	return "both differ"
}

// exploreSources lists source files per language.
func exploreSources(t *testing.T) map[string][]string {
	out := map[string][]string{}
	ext := map[string]string{".go": "go", ".py": "python", ".js": "javascript", ".ts": "typescript", ".rs": "rust",
		".c": "c", ".h": "c", ".cpp": "cpp", ".cc": "cpp", ".hpp": "cpp", ".java": "java", ".cs": "c_sharp", ".kt": "kotlin", ".rb": "ruby"}
	add := func(root string) {
		filepath.WalkDir(root, func(path string, de os.DirEntry, err error) error {
			if err != nil || de.IsDir() || strings.Contains(path, "broken") {
				return nil
			}
			if l, ok := ext[filepath.Ext(path)]; ok {
				out[l] = append(out[l], path)
			}
			return nil
		})
	}
	add(filepath.Join("..", "testdata", "parse"))
	add(filepath.Join("..", "testdata", "lsp"))
	dir := t.TempDir()
	for i, c := range loadCases(t) {
		f := filepath.Join(dir, strconv.Itoa(i)+"_"+c.inputName)
		if err := os.WriteFile(f, c.input, 0o644); err == nil {
			if l, ok := ext[filepath.Ext(f)]; ok && l == c.lang {
				out[l] = append(out[l], f)
			}
		}
	}
	for _, d := range strings.Split(os.Getenv("TETHER_AGDIFF_SRC"), ",") {
		if d != "" {
			add(d)
		}
	}
	return out
}
