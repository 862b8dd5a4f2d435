package matcher

import "regexp"
import "sort"
import "strings"

import "github.com/tetherhq/tether/engine"

// placeholder is a stretch of a rewritten pattern (scaffold byte offsets) that
// stands for one metavariable: the metavariable plus the code written after
// it so the grammar reads a statement or a loop header there.
type placeholder struct {
	start, end uint32
	meta       metaVar
}

// placeholderRes are the spots the last ladder pass fills in, per expando.
type placeholderRes struct {
	forHeader *regexp.Regexp // for ($$$H)
	block     *regexp.Regexp // $$$B before a closing brace
	trailing  *regexp.Regexp // a body after ")" or "else" ending the pattern
	thenElse  *regexp.Regexp // a body between ")" and "else"
	imports   *regexp.Regexp // import $X
}

func placeholderRegexps(expando rune) placeholderRes {
	e := regexp.QuoteMeta(string(expando))
	multi := e + e + e + `[A-Z0-9_]*`
	any := e + `{1,3}[A-Z_][A-Z0-9_]*|` + multi
	return placeholderRes{
		forHeader: regexp.MustCompile(`\bfor\s*\(\s*(` + multi + `)\s*\)`),
		block:     regexp.MustCompile(`(` + multi + `)\s*\}`),
		trailing:  regexp.MustCompile(`(?:\)|\belse)\s*(` + any + `)\s*$`),
		thenElse:  regexp.MustCompile(`\)\s*(` + any + `)\s+else\b`),
		imports:   regexp.MustCompile(`^import\s+(` + any + `)\s*$`),
	}
}

// withPlaceholders writes code after the metavariables a grammar cannot place
// as they stand: "$$$H" as the whole header of a for loop (";;" after it, or
// the language's forHeader), and a metavariable standing for statements
// before a "}", as the body ending the pattern ("while ($C) $S") or before an
// "else" ("if ($C) $S else $T") with the
// language's stmtSuffix (";", or "();" in C#, which takes no bare name as a
// statement). It returns the new text and, in it, the stretch each
// metavariable now spans with its filler; ok is false when nothing applies.
func withPlaceholders(sub string, spec *langSpec) (string, []placeholder, bool) {
	if spec.quoted {
		return jsonPlaceholders(sub)
	}
	res := placeholderRegexps(spec.expando)
	stmt, header := spec.stmtSuffix, spec.forHeader
	if stmt == "" {
		stmt = ";"
	}
	if header == "" {
		header = ";;"
	}
	type insert struct {
		metaStart, metaEnd int
		filler             string
	}
	var ins []insert
	seen := map[int]bool{}
	add := func(re *regexp.Regexp, filler string) {
		for _, m := range re.FindAllStringSubmatchIndex(sub, -1) {
			if !seen[m[2]] {
				seen[m[2]] = true
				ins = append(ins, insert{m[2], m[3], filler})
			}
		}
	}
	add(res.forHeader, header)
	add(res.block, stmt)
	add(res.trailing, stmt)
	add(res.thenElse, stmt)
	if spec.importPath != "" {
		add(res.imports, spec.importPath)
	}
	if len(ins) == 0 {
		return "", nil, false
	}
	sort.Slice(ins, func(i, j int) bool { return ins[i].metaStart < ins[j].metaStart })
	var b strings.Builder
	var phs []placeholder
	at := 0
	for _, in := range ins {
		b.WriteString(sub[at:in.metaEnd])
		start := b.Len() - (in.metaEnd - in.metaStart)
		mv, ok := parseMeta(sub[in.metaStart:in.metaEnd], spec.expando)
		if !ok {
			return "", nil, false
		}
		b.WriteString(in.filler)
		phs = append(phs, placeholder{start: uint32(start), end: uint32(b.Len()), meta: mv})
		at = in.metaEnd
	}
	b.WriteString(sub[at:])
	return b.String(), phs, true
}

// compilePlaceholders is the ladder's last pass: the pattern with
// placeholders (withPlaceholders), read in the first rung that parses it
// without error; each placeholder's nodes become its metavariable.
func (rs *readings) compilePlaceholders() (*Pattern, error) {
	text, phs, ok := withPlaceholders(rs.sub, rs.spec)
	if !ok {
		return nil, nil
	}
	return rs.readPlaceholders(text, phs)
}

// readPlaceholders reads text, the pattern with placeholders (offsets of
// text), in the first rung that parses it without error; each
// placeholder's nodes become its metavariable. nil when no rung does.
func (rs *readings) readPlaceholders(text string, phs []placeholder) (*Pattern, error) {
	spec := rs.spec
	for _, c := range spec.ladder {
		if c.indent != "" {
			continue
		}
		full, start, end := c.scaffold(text)
		tree, err := rs.parse([]byte(full))
		if err != nil {
			return nil, err
		}
		if tree.HasError() {
			continue
		}
		nodes := extract(tree, uint32(start), uint32(end))
		if len(nodes) == 0 {
			continue
		}
		cv := converter{expando: spec.expando, quoted: spec.quoted}
		for _, ph := range phs {
			ph.start += uint32(start)
			ph.end += uint32(start)
			cv.ph = append(cv.ph, ph)
		}
		pat := rs.newPattern(c.name, tree, nodes, uint32(start))
		for _, n := range nodes {
			pat.roots = append(pat.roots, cv.node(n))
		}
		pat.collect()
		return pat, nil
	}
	return nil, nil
}

type parseFunc func(src []byte) (*engine.Tree, error)

// jsonPlaceholders gives a "$$$NAME" standing for the pairs of an object (the
// quoted pattern's string where a key belongs: after "{" or ",") a value, so
// that it reads as one pair: {"name": $N, $$$REST} matches objects with a name.
func jsonPlaceholders(sub string) (string, []placeholder, bool) {
	var b strings.Builder
	var phs []placeholder
	var stack []byte
	prev := byte(0) // last byte outside strings and spaces
	for i := 0; i < len(sub); {
		c := sub[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(sub) && sub[j] != '"' {
				if sub[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(sub))
			str := sub[i:j]
			b.WriteString(str)
			if n := len(stack); n > 0 && stack[n-1] == '{' && (prev == '{' || prev == ',') && len(str) > 2 {
				if mv, ok := parseMeta(str[1:len(str)-1], '$'); ok && mv.kind == metaMulti {
					start := b.Len() - len(str)
					b.WriteString(": 0")
					phs = append(phs, placeholder{start: uint32(start), end: uint32(b.Len()), meta: mv})
				}
			}
			prev = '"'
			i = j
			continue
		case c == '{' || c == '[':
			stack = append(stack, c)
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			prev = c
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), phs, len(phs) > 0
}
