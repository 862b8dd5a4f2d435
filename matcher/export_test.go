package matcher

import "sort"

// Fault is the first ERROR or MISSING node of the tree the reading p came
// from, "" when there is none (tests check every searched reading is clean).
func (p *Pattern) Fault() string { return p.fault }

// langs holds every listed language's spec, as specOf builds them.
var langs = func() map[string]*langSpec {
	m := map[string]*langSpec{}
	for _, ids := range expandos {
		for _, id := range ids {
			m[id], _ = specOf(id)
		}
	}
	return m
}()

// Languages returns the ids of the languages that have a tuned context ladder.
func Languages() []string {
	ids := make([]string, 0, len(langs))
	for id := range langs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
