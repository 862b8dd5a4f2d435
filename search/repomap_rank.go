package search

import "context"
import "fmt"
import "math"
import "slices"
import "strings"
import "unicode"

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
	ids, defIDs, definers := nameIDs(files)
	symbols := map[string]bool{}
	for _, s := range q.Symbols {
		symbols[s] = true
	}
	words := lowerAll(q.Words)
	boosted := func(name string) bool { return symbols[name] || matchesWord(name, words) }
	refs, out, namedBy := mapEdges(files, ids, definers, boosted)
	rank, err := pageRank(ctx, files, refs, out, definers, words)
	if err != nil {
		return err
	}
	// flow is the rank each name receives; what a file sends the names it
	// defines itself is not counted for its own definitions
	flow := make([]float64, len(definers))
	for i, rs := range refs {
		for _, r := range rs {
			flow[r.name] += rank[i] * r.w / out[i]
		}
	}
	// self and selfNamed hold, for one file at a time, what it sends the
	// names it defines
	self := make([]float64, len(definers))
	selfNamed := make([]bool, len(definers))
	best := 0.0
	at := 0
	for i, f := range files {
		for _, r := range refs[i] {
			if slices.Contains(definers[r.name], int32(i)) {
				self[r.name], selfNamed[r.name] = rank[i]*r.w/out[i], true
			}
		}
		for k := range f.defs {
			d := &f.defs[k]
			id := defIDs[at+k]
			d.Rank = (flow[id] - self[id]) / float64(len(definers[id]))
			d.Files = namedBy[id]
			if selfNamed[id] {
				d.Files--
			}
			best = max(best, d.Rank)
		}
		at += len(f.defs)
		for _, r := range refs[i] {
			self[r.name], selfNamed[r.name] = 0, false
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

// nameIDs numbers the names files define: ids by name, each definition's
// id (files' definitions in order) and the files defining each id, as
// windows of one array.
func nameIDs(files []*mapFile) (map[string]int32, []int32, [][]int32) {
	total := 0
	for _, f := range files {
		total += len(f.defs)
	}
	ids := make(map[string]int32, total)
	defIDs := make([]int32, 0, total)
	var count, last []int32 // per id: files defining it, the last of them
	for i, f := range files {
		for _, d := range f.defs {
			id, ok := ids[d.Name]
			if !ok {
				id = int32(len(count))
				ids[d.Name] = id
				count, last = append(count, 0), append(last, -1)
			}
			defIDs = append(defIDs, id)
			if last[id] != int32(i) {
				count[id]++
				last[id] = int32(i)
			}
		}
	}
	all := make([]int32, 0, total)
	definers := make([][]int32, len(count))
	for id, n := range count {
		definers[id] = all[len(all) : len(all) : len(all)+int(n)]
		all = all[:len(all)+int(n)]
	}
	at := 0
	for i, f := range files {
		for range f.defs {
			id := defIDs[at]
			at++
			if ds := definers[id]; len(ds) == 0 || ds[len(ds)-1] != int32(i) {
				definers[id] = append(ds, int32(i))
			}
		}
	}
	return ids, defIDs, definers
}

// mapEdges returns each file's references to names defined elsewhere with
// their weights, each file's total weight, and how many files name each
// name.
func mapEdges(files []*mapFile, ids map[string]int32, definers [][]int32, boosted func(string) bool) ([][]mapRef, []float64, []int) {
	refs := make([][]mapRef, len(files))
	out := make([]float64, len(files))
	namedBy := make([]int, len(definers))
	var all []mapRef // every file's edges, refs[i] a window of it
	for i, f := range files {
		start := len(all)
		f.refs.each(func(name string, n int) {
			id, ok := ids[name]
			if !ok {
				return
			}
			ds := definers[id]
			if len(ds) == 1 && ds[0] == int32(i) {
				return // named only where it is defined
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
			all = append(all, mapRef{name: id, w: w})
			out[i] += w
		})
		f.refs = "" // not needed past here
		refs[i] = all[start:len(all):len(all)]
	}
	// the windows of an earlier backing array are still right: appends
	// copied, never changed, what they hold
	return refs, out, namedBy
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
