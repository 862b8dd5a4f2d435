package search

import "slices"
import "strings"

import "github.com/tetherhq/tether/matcher"

// Chunked parsing. Parsing in wasm costs several times a native parse, and
// the token prefilter only rules out whole files. For languages whose files
// are a sequence of independent top-level declarations, a file is cut at
// declaration boundaries and only the chunks that contain every required
// token are parsed: a match lies inside one declaration, so it lies inside one
// chunk. Boundaries are found by a small lexer that knows the language's
// comments, strings and brackets, so a cut never falls inside a literal, a
// comment or an open bracket; and a chunk whose parse has an error makes the
// whole file parse instead, so a cut can cost time but never a match.

// splitter returns where the chunks of src start (the first at 0), or nil
// when the file should be parsed whole; members says whether the pattern's
// matches lie inside one class member, so that a class's members may be
// chunks of their own (member cuts, parsed wrapped in a class).
type splitter func(src []byte, members bool) []cut

// cut is where a chunk starts; a member chunk holds class members, parsed
// between memberPrefix and memberSuffix.
type cut struct {
	at     int
	member bool
	// stmt: the chunk holds statements, parsed wrapped in a function;
	// skip: no match can lie in it, and it is never parsed
	stmt, skip bool
}

// splitters holds the languages that are parsed in chunks.
var splitters = map[string]splitter{"go": splitGoCuts, "typescript": splitJS, "javascript": splitJSWithoutJSX, "python": splitPython}

// chunkCuts returns where src, a file of language lang, is cut into chunks
// for the matches of p (nil or a single cut: parse it whole): around the
// statements every match is one of, or lies in, where the language knows
// them (Go, Python, TypeScript, JavaScript), else by its splitter.
func chunkCuts(lang string, p *matcher.Pattern, src []byte) []cut {
	switch {
	case lang == "go":
		if kws := goStatementKeywords(p); kws != nil {
			if cuts := goStatementCuts(src, kws); cuts != nil {
				return cuts
			}
		}
	case (lang == "typescript" || lang == "javascript" && !mayHoldJSX(src)) && jsStatementsOK(p):
		if cuts := jsStatementCuts(src, p.Tokens(), !strings.ContainsAny(p.Source(), "\"'`/")); cuts != nil {
			return cuts
		}
	case lang == "python" && pyStatementsOK(p):
		if cuts := pyStatementCuts(src); cuts != nil {
			return cuts
		}
	}
	split := splitters[lang]
	if split == nil {
		return nil
	}
	return split(src, membersOK(lang, p))
}

// stmtWraps are, by language, the text before and after a run of
// statements (Chunk.Statements) that makes it parse as they do in the file.
var stmtWraps = map[string][2]string{
	"go":         {goStmtPrefix, goStmtSuffix},
	"python":     {pyStmtPrefix, ""},
	"typescript": {jsStmtPrefix, jsStmtSuffix},
	"javascript": {jsStmtPrefix, jsStmtSuffix},
}

// memberWraps are, by language, the text before and after a run of class
// members that makes it a class of its own, each ending or starting a line.
var memberWraps = map[string][2]string{
	"typescript": {memberPrefix, memberSuffix},
	"javascript": {memberPrefix, memberSuffix},
	"python":     {pyMemberPrefix, ""},
}

// memberContainers are, by language, the node kinds whose matches hold
// several class members: a pattern whose root is one is not matched in
// member chunks.
var memberContainers = map[string][]string{
	"typescript": {"class_declaration", "abstract_class_declaration", "class", "class_body", "export_statement", "ambient_declaration"},
	"javascript": {"class_declaration", "class", "class_body", "export_statement"},
	"python":     {"class_definition", "decorated_definition", "block"},
}

// membersOK reports whether the matches of p lie inside one class member
// of lang: its readings' roots are of known kinds, none a container.
func membersOK(lang string, p *matcher.Pattern) bool {
	cs, ok := memberContainers[lang]
	if !ok {
		return false
	}
	kinds, all := p.RootKinds()
	if !all {
		return false
	}
	for _, k := range kinds {
		if slices.Contains(cs, k) {
			return false
		}
	}
	return true
}

// stmtCuts are the cuts of a file cut around statements, the first a skip
// cut at 0.
type stmtCuts []cut

// add appends c, or puts it in place of the last cut when that is at the
// same offset (a chunk that ends where the next starts).
func (cs *stmtCuts) add(c cut) {
	if last := &(*cs)[len(*cs)-1]; c.at > last.at {
		*cs = append(*cs, c)
	} else {
		*last = c
	}
}

// done returns the cuts of a file of n bytes: when no statement was cut,
// nothing is to be parsed, and a skip cut at the end sets them apart from
// the whole file's single cut.
func (cs stmtCuts) done(n int) []cut {
	if len(cs) == 1 {
		cs = append(cs, cut{at: n, skip: true})
	}
	return cs
}

// rootKindsIn reports whether p has readings whose roots are all of kinds.
func rootKindsIn(p *matcher.Pattern, kinds map[string]bool) bool {
	if p == nil {
		return false
	}
	ks, all := p.RootKinds()
	if !all || len(ks) == 0 {
		return false
	}
	for _, k := range ks {
		if !kinds[k] {
			return false
		}
	}
	return true
}
