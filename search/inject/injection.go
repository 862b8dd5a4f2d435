package inject

import "context"
import "fmt"
import "slices"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher/rule"

// Injection is one of a project's languageInjections (sgconfig.yml), as
// ast-grep reads them: in files of Host, every match of Rule is a region,
// the text its $CONTENT metavariable captured, written in the language
// its $LANG captured or, without one, in Static.
type Injection struct {
	Host string
	Rule *rule.Rule
	// Injected are the languages its regions may be in; Static is the
	// one language given as a name ("" when a list was given).
	Injected []string
	Static   string
}

// Find lists the regions the injections of lang (the host file's
// language) find in t, its tree, with runners keeping each rule's runner.
func Find(ctx context.Context, t *engine.Tree, lang string, injs []Injection, runners map[*rule.Rule]*rule.Runner) ([]Region, error) {
	var out []Region
	for _, inj := range injs {
		if inj.Host != lang {
			continue
		}
		rn := runners[inj.Rule]
		if rn == nil {
			rn = rule.NewRunner(inj.Rule)
			runners[inj.Rule] = rn
		}
		ms, err := rn.Find(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("languageInjections rule for %s: %w", lang, err)
		}
		for _, m := range ms {
			var content, name []engine.Node
			for _, c := range m.Captures {
				switch c.Name {
				case "CONTENT":
					content = c.Nodes
				case "LANG":
					name = c.Nodes
				}
			}
			if len(content) == 0 {
				continue
			}
			l := inj.Static
			if len(name) > 0 {
				if g, ok := grammars.Lookup(name[0].Text()); ok {
					l = g.ID
				} else {
					l = ""
				}
			}
			if l == "" {
				continue
			}
			r := regionOf(content[0], l)
			r.End = int(content[len(content)-1].EndByte())
			out = append(out, r)
		}
	}
	return out, nil
}

// HostsOf returns the host languages of injections that may embed lang
// (other than lang itself).
func HostsOf(injs []Injection, lang string) []string {
	var out []string
	for _, inj := range injs {
		if inj.Host != lang && slices.Contains(inj.Injected, lang) && !slices.Contains(out, inj.Host) {
			out = append(out, inj.Host)
		}
	}
	return out
}

// Injects reports whether an injection of files of host may embed lang.
func Injects(host, lang string, injs []Injection) bool {
	for _, inj := range injs {
		if inj.Host == host && slices.Contains(inj.Injected, lang) {
			return true
		}
	}
	return false
}

// MayHold is May with a project's injections: they are rules on the
// host's tree, so a file they may apply to always may hold a region.
func MayHold(hostLang, lang string, injs []Injection, src []byte) bool {
	return Injects(hostLang, lang, injs) || May(hostLang, lang, src)
}

// HostRegions lists the regions of lang in ht, the tree of a host file of
// hostLang: the grammar's own and those injs find, in source order, at
// most MaxRegionsPerFile, and how many there are. A search and the list
// of what it needs both list them here, so they cannot disagree on a
// host's regions.
func HostRegions(ctx context.Context, ht *engine.Tree, hostLang, lang string, injs []Injection, runners map[*rule.Rule]*rule.Runner) ([]Region, int, error) {
	rs, total := Regions(hostLang, ht, lang, MaxRegionsPerFile)
	if !Injects(hostLang, lang, injs) {
		return rs, total, nil
	}
	more, err := Find(ctx, ht, hostLang, injs, runners)
	if err != nil {
		return nil, 0, err
	}
	for _, r := range more {
		if r.Lang == lang {
			if total++; len(rs) < MaxRegionsPerFile {
				rs = append(rs, r)
			}
		}
	}
	slices.SortStableFunc(rs, func(a, b Region) int { return a.Start - b.Start })
	return rs, total, nil
}
