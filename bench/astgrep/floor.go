package main

import "context"
import "fmt"
import "os"
import "path/filepath"
import "sync"
import "sync/atomic"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// The session's floor: what its queries cannot do without, measured with
// tether's own engine in this process, the same thread count, no tree store
// and no disk tier.
//
// Cold (parse floor): the chunks each query needs parsed (search.Needs: the
// files the token prefilter lets through and, where the query parses a file
// in chunks, the runs of declarations that hold its tokens), each byte
// parsed once in the session: a row costs the wasm parse of what no earlier
// row needed, so the rows add up to one parse of everything the session
// needs. The time is the parse alone, as the longest of the workers' time
// inside Parse. It is the floor of the cold CLI rows (their disk tier keeps
// what earlier rows parsed) and of the one-process session.
//
// Warm (read floor): a warm CLI row is a new process that reads its trees
// from the disk tier and must see that each file is as its tree says, so
// its floor is reading the needed files and the trees of their needed
// chunks (the entries the parse floor wrote, one per parse, as the tier
// does), with the store's kind sets applied as the tier's index gives them
// to the warm rows. Not counted: the walk, the files the prefilter rules
// out (an index could rule them out unread), hashing and decoding.

// FloorRow is one query's floor.
type FloorRow struct {
	Parse     time.Duration // parse of what no earlier row needed
	NewBytes  int64         // the bytes of it
	Read      time.Duration // read of the needed files and their trees' entries
	ReadBytes int64         // the bytes of it
	Files     int           // files needed (cold)
}

// coverage is what earlier rows needed parsed: per file, disjoint byte
// ranges in order.
type coverage map[string][]search.Chunk

// add notes chunks (in order, disjoint) of path as needed and returns the
// parts of them no earlier call needed, in order, adjacent parts merged.
func (cv coverage) add(path string, chunks []search.Chunk) []search.Chunk {
	have := cv[path]
	var fresh []search.Chunk
	for _, c := range chunks {
		start := c.Start
		for _, h := range have {
			if h.End <= start {
				continue
			}
			if h.Start >= c.End {
				break
			}
			if h.Start > start {
				fresh = appendMerged(fresh, search.Chunk{Start: start, End: h.Start})
			}
			start = h.End
		}
		if start < c.End {
			fresh = appendMerged(fresh, search.Chunk{Start: start, End: c.End})
		}
	}
	for _, c := range chunks {
		have = insertMerged(have, c)
	}
	cv[path] = have
	return fresh
}

// appendMerged appends c to cs (in order), merging it into the last range
// when they touch.
func appendMerged(cs []search.Chunk, c search.Chunk) []search.Chunk {
	if n := len(cs); n > 0 && cs[n-1].End >= c.Start {
		cs[n-1].End = max(cs[n-1].End, c.End)
		return cs
	}
	return append(cs, c)
}

// insertMerged adds c to the ordered, disjoint ranges cs, merging what it
// overlaps or touches.
func insertMerged(cs []search.Chunk, c search.Chunk) []search.Chunk {
	var out []search.Chunk
	placed := false
	for _, h := range cs {
		switch {
		case h.End < c.Start:
			out = append(out, h)
		case h.Start > c.End:
			if !placed {
				out, placed = append(out, c), true
			}
			out = append(out, h)
		default:
			c = search.Chunk{Start: min(c.Start, h.Start), End: max(c.End, h.End)}
		}
	}
	if !placed {
		out = append(out, c)
	}
	return out
}

// entry is one tree the parse floor wrote: the range of its file it covers.
type entry struct {
	search.Chunk
	path string
}

// parseJob is one range of one file to parse.
type parseJob struct {
	file string
	c    search.Chunk
}

// Floor measures the floor of every pattern over corpus. tier is the disk
// tier the warm rows ran with (its kind-set index applies to their needs);
// "" uses the cold needs for both.
func Floor(ctx context.Context, corpus string, threads int, patterns []string, tier string) ([]FloorRow, error) {
	e, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		return nil, err
	}
	defer e.Close(ctx)
	goLang, _ := grammars.Lookup("go")
	// the grammar's module compiled and instantiated before any timing
	if _, err := e.Parse(ctx, goLang, []byte("package p\n")); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "tether-bench-floor-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cold := search.NewSearcher(e, search.Config{Workers: threads, Cache: store.NewCache(0)})
	warm := cold
	if tier != "" {
		d, err := store.OpenDiskCache(tier, 0)
		if err != nil {
			return nil, fmt.Errorf("floor: cannot open the warm rows' disk tier: %w", err)
		}
		c := store.NewCache(0)
		c.SetDisk(d)
		warm = search.NewSearcher(e, search.Config{Workers: threads, Cache: c})
	}
	rows := make([]FloorRow, len(patterns))
	cv := coverage{}
	entries := map[string][]entry{}
	written := 0
	for i, p := range patterns {
		q := search.Query{Pattern: p, Language: "go", Paths: []string{corpus}}
		needs, err := cold.Needs(ctx, q)
		if err != nil {
			return nil, err
		}
		rows[i].Files = len(needs)
		var jobs []parseJob
		for _, n := range needs {
			for _, c := range cv.add(n.Path, n.Chunks) {
				jobs = append(jobs, parseJob{n.Path, c})
				rows[i].NewBytes += int64(c.End - c.Start)
			}
		}
		made, d, err := parseAll(ctx, e, threads, jobs, tmp, written)
		if err != nil {
			return nil, err
		}
		written += len(made)
		rows[i].Parse = d
		for k, en := range made {
			entries[jobs[k].file] = append(entries[jobs[k].file], en)
		}
		if warm != cold {
			if needs, err = warm.Needs(ctx, q); err != nil {
				return nil, err
			}
		}
		var reads []string
		for _, n := range needs {
			reads = append(reads, n.Path)
			for _, en := range entries[n.Path] {
				for _, c := range n.Chunks {
					if en.Start < c.End && c.Start < en.End {
						reads = append(reads, en.path)
						break
					}
				}
			}
		}
		if rows[i].Read, rows[i].ReadBytes, err = readAll(threads, reads); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// parseAll parses jobs on threads workers and writes each tree's binary
// form under store (names numbered from first). It returns the entries, in
// the jobs' order, and the parse time: the longest of the workers' time
// inside Parse (reading the files and writing the entries are not the
// parse).
func parseAll(ctx context.Context, e *engine.Engine, threads int, jobs []parseJob, store string, first int) ([]entry, time.Duration, error) {
	goLang, _ := grammars.Lookup("go")
	made := make([]entry, len(jobs))
	busy := make([]time.Duration, threads)
	errs := make([]error, threads)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for {
				k := int(next.Add(1)) - 1
				if k >= len(jobs) || ctx.Err() != nil {
					return
				}
				j := jobs[k]
				src, err := os.ReadFile(j.file)
				if err != nil {
					errs[w] = err
					return
				}
				if j.c.End > len(src) {
					errs[w] = fmt.Errorf("floor: %s changed during the benchmark", j.file)
					return
				}
				t := time.Now()
				tree, err := e.Parse(ctx, goLang, src[j.c.Start:j.c.End])
				busy[w] += time.Since(t)
				if err != nil {
					errs[w] = fmt.Errorf("floor: parse %s: %w", j.file, err)
					return
				}
				if buf, err = tree.AppendBinary(buf[:0]); err != nil {
					errs[w] = err
					return
				}
				n := first + k
				p := filepath.Join(store, fmt.Sprintf("%02x", n%256), fmt.Sprintf("%d.tree", n))
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					errs[w] = err
					return
				}
				if err := os.WriteFile(p, buf, 0o600); err != nil {
					errs[w] = err
					return
				}
				made[k] = entry{j.c, p}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, 0, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	return made, longest(busy), nil
}

// longest is the largest of ds.
func longest(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// readAll reads every file on threads workers and returns the wall time
// and the bytes read.
func readAll(threads int, paths []string) (time.Duration, int64, error) {
	var next atomic.Int64
	var total atomic.Int64
	errs := make([]error, threads)
	var wg sync.WaitGroup
	t := time.Now()
	for w := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(paths) {
					return
				}
				b, err := os.ReadFile(paths[k])
				if err != nil {
					errs[w] = err
					return
				}
				total.Add(int64(len(b)))
			}
		}()
	}
	wg.Wait()
	d := time.Since(t)
	for _, err := range errs {
		if err != nil {
			return 0, 0, err
		}
	}
	return d, total.Load(), nil
}
