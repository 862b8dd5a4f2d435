package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
)

// Ranking (aider's repo map, in outline): the files are the nodes of a
// graph, each file's references to a name another file defines its edges,
// weighted by the square root of how often it names it; PageRank over that
// graph, restarting at the focused files more often, says how central each
// file is, and each file hands its rank on to the definitions it names.
const (
	// mapDamping is PageRank's damping factor.
	mapDamping = 0.85
	// mapIterations bounds the PageRank passes; mapConverged stops them
	// sooner, when a pass moves the ranks by less (L1).
	mapIterations = 50
	mapConverged  = 1e-9
	// mapFocusWeight is how much more a focused file's (or a file whose
	// path matches a query word) restart weight and references weigh.
	mapFocusWeight = 50
	// mapCommonDefs is how many files may define a name before its
	// references weigh a tenth (String, Error, New).
	mapCommonDefs = 5
)

// mapRef is one name a file references, with the edge's weight.
type mapRef struct {
	name int32
	w    float64
}

// rankMap ranks the definitions of files (their Rank and Files), in
// place.
func rankMap(ctx context.Context, files []*mapFile, q MapQuery) error {
	ids := map[string]int32{}
	var definers [][]int32 // name id -> files defining it
	for i, f := range files {
		for _, d := range f.defs {
			id, ok := ids[d.Name]
			if !ok {
				id = int32(len(definers))
				ids[d.Name] = id
				definers = append(definers, nil)
			}
			if ds := definers[id]; len(ds) == 0 || ds[len(ds)-1] != int32(i) {
				definers[id] = append(ds, int32(i))
			}
		}
	}
	symbols := map[string]bool{}
	for _, s := range q.Symbols {
		symbols[s] = true
	}
	words := lowerAll(q.Words)
	boosted := func(name string) bool { return symbols[name] || matchesWord(name, words) }
	// each file's references to names defined elsewhere
	refs := make([][]mapRef, len(files))
	out := make([]float64, len(files))
	namedBy := make([]int, len(definers)) // files naming each name
	for i, f := range files {
		for name, n := range f.refs {
			id, ok := ids[name]
			if !ok {
				continue
			}
			ds := definers[id]
			if len(ds) == 1 && ds[0] == int32(i) {
				continue // named only where it is defined
			}
			namedBy[id]++
			w := math.Sqrt(float64(n))
			switch {
			case boosted(name), distinctive(name):
				w *= 10
			case strings.HasPrefix(name, "_"), len(ds) > mapCommonDefs:
				w *= 0.1
			}
			if f.focused {
				w *= mapFocusWeight
			}
			refs[i] = append(refs[i], mapRef{name: id, w: w})
			out[i] += w
		}
		f.refs = nil // not needed past here
	}
	rank, err := pageRank(ctx, files, refs, out, definers, words)
	if err != nil {
		return err
	}
	// flow is the rank each name receives, selfFlow what a file sends the
	// names it defines itself (not counted for its own definitions)
	flow := make([]float64, len(definers))
	self := make([]map[int32]float64, len(files))
	for i, rs := range refs {
		for _, r := range rs {
			share := rank[i] * r.w / out[i]
			flow[r.name] += share
			if slices.Contains(definers[r.name], int32(i)) {
				if self[i] == nil {
					self[i] = map[int32]float64{}
				}
				self[i][r.name] = share
			}
		}
	}
	best := 0.0
	for i, f := range files {
		for k := range f.defs {
			d := &f.defs[k]
			id := ids[d.Name]
			d.Rank = (flow[id] - self[i][id]) / float64(len(definers[id]))
			d.Files = namedBy[id]
			if _, named := self[i][id]; named {
				d.Files--
			}
			best = max(best, d.Rank)
		}
	}
	// the names asked for rank above every other
	for _, f := range files {
		for k := range f.defs {
			if d := &f.defs[k]; boosted(d.Name) {
				d.Rank += best + 1e-9
			}
		}
	}
	return nil
}

// pageRank returns each file's PageRank over the reference graph, the
// restart weighted towards focused files and those whose path matches a
// word. It stops with the context's error when ctx is done.
func pageRank(ctx context.Context, files []*mapFile, refs [][]mapRef, out []float64, definers [][]int32, words []string) ([]float64, error) {
	n := len(files)
	if n == 0 {
		return nil, nil
	}
	restart := make([]float64, n)
	total := 0.0
	for i, f := range files {
		restart[i] = 1
		if f.focused || matchesWord(f.rel, words) {
			restart[i] = mapFocusWeight
		}
		total += restart[i]
	}
	for i := range restart {
		restart[i] /= total
	}
	rank := slices.Clone(restart)
	next := make([]float64, n)
	flow := make([]float64, len(definers))
	for range mapIterations {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("search: cancelled: %w", err)
		}
		clear(flow)
		dangling := 0.0
		for i, rs := range refs {
			if out[i] == 0 {
				dangling += rank[i]
				continue
			}
			for _, r := range rs {
				flow[r.name] += rank[i] * r.w / out[i]
			}
		}
		for i := range next {
			next[i] = (1 - mapDamping + mapDamping*dangling) * restart[i]
		}
		for id, f := range flow {
			if f == 0 {
				continue
			}
			share := mapDamping * f / float64(len(definers[id]))
			for _, j := range definers[id] {
				next[j] += share
			}
		}
		moved := 0.0
		for i := range next {
			moved += math.Abs(next[i] - rank[i])
		}
		rank, next = next, rank
		if moved < mapConverged {
			break
		}
	}
	return rank, nil
}

// fileRank is a file's rank: the sum of its definitions'.
func fileRank(f *mapFile) float64 {
	r := 0.0
	for _, d := range f.defs {
		r += d.Rank
	}
	return r
}

// distinctive reports a name long enough and made of words
// (CancellationToken, parse_config): unlike i, err or value, it names one
// thing wherever it occurs, so its references weigh more (as aider's).
func distinctive(name string) bool {
	if len(name) < 8 {
		return false
	}
	lower, upper := false, false
	for _, r := range name {
		switch {
		case r == '_':
			return true
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			upper = true
		}
	}
	return lower && upper
}

func lowerAll(ws []string) []string {
	var out []string
	for _, w := range ws {
		if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// matchesWord reports whether s holds one of the (lower-case) words,
// ignoring case.
func matchesWord(s string, words []string) bool {
	if len(words) == 0 {
		return false
	}
	s = strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
