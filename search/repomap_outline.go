package search

import "context"
import "crypto/sha256"
import "encoding/binary"
import "fmt"
import "slices"
import "sync"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/search/store"

// A file's outline is kept in the store beside its tree (store.NoteOutline),
// so that a map after another, or in a new process with a warm disk tier,
// walks no tree: its definitions (name, role, line, signature) in source
// order and the names it uses with their counts, in name order. It is keyed
// by the tree's key and outlineVersion, which names the tables and the
// layout it was made with: a change to either outlines every file again.

// outlineVersion fingerprints the outline's layout and tables; made on
// first use, as printing the tables costs a start that makes no map.
var outlineVersion = sync.OnceValue(func() [sha256.Size]byte {
	return sha256.Sum256(fmt.Appendf(nil, "outline 2 %d %v %v", maxSignature, outlineKinds, refKinds))
})

// outlineKey is the store's key of the outline of the tree whose key is k.
func outlineKey(k store.Key) store.Key {
	v := outlineVersion()
	return sha256.Sum256(append(k[:], v[:]...))
}

// roles are the definitions' roles, by their byte in an outline.
var roles = []string{"function", "method", "type", "class", "interface", "constant"}

// names are the names a file uses with their counts, as its outline
// holds them (a count, then each name and its count): read in place, as
// each call of a warm map would otherwise copy every file's.
type names string

// each calls fn with every name and its count, in order.
func (ns names) each(fn func(name string, n int)) {
	r := outlineReader{s: string(ns)}
	for range r.uvarint() {
		fn(r.string(), int(r.uvarint()))
	}
}

// outlineFile outlines the tree of f, whose key is k, keeps the outline in
// the store and decodes it into f (so that a cold map and a warm one answer
// from the same bytes). An outline cut short by ctx is not kept.
func (s *Searcher) outlineFile(ctx context.Context, f *mapFile, k store.Key, t *engine.Tree) {
	defs, refs := outlineTree(ctx, t, outlineKinds[f.lang.ID])
	o := encodeOutline(defs, refs)
	if ctx.Err() != nil {
		return
	}
	s.cache.NoteOutline(outlineKey(k), o)
	if !f.decode(o) {
		f.err = fmt.Errorf("search: cannot decode the outline of %s", f.path)
	}
}

// storedOutline decodes into f the outline the store keeps for the tree
// whose key is k, and reports whether it had one.
func (s *Searcher) storedOutline(f *mapFile, k store.Key) bool {
	o, ok := s.cache.Outline(outlineKey(k))
	return ok && f.decode(o)
}

// encodeOutline returns the outline of defs and refs: a count and the
// definitions (name, role, line, signature), then a count and the names
// used with their counts, sorted by name; strings are length-prefixed.
func encodeOutline(defs []MapDef, refs map[string]int) string {
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(defs)))
	for _, d := range defs {
		b = appendString(b, d.Name)
		b = append(b, byte(slices.Index(roles, d.Kind)))
		b = binary.AppendUvarint(b, uint64(d.Line))
		b = appendString(b, d.Signature)
	}
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	slices.Sort(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = appendString(b, n)
		b = binary.AppendUvarint(b, uint64(refs[n]))
	}
	return string(b)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// decode sets f's definitions and names from an outline, their strings
// sharing its bytes, and reports whether it was whole.
func (f *mapFile) decode(o string) bool {
	r := outlineReader{s: o}
	nd := r.uvarint()
	if nd > uint64(len(o)) {
		return false
	}
	defs := make([]MapDef, nd)
	for i := range defs {
		d := &defs[i]
		d.Name = r.string()
		if role := int(r.byte()); role < len(roles) {
			d.Kind = roles[role]
		} else {
			r.bad = true
		}
		d.Line = int(r.uvarint())
		d.Signature = r.string()
	}
	refs := r.s
	nr := r.uvarint()
	if nr > uint64(len(o)) {
		return false
	}
	for range nr {
		r.string()
		r.uvarint()
	}
	if r.bad || r.s != "" {
		return false
	}
	f.defs, f.refs = defs, names(refs)
	return true
}

// outlineReader reads an outline; bad is set when it ends early.
type outlineReader struct {
	s   string
	bad bool
}

func (r *outlineReader) uvarint() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		if r.s == "" {
			r.bad = true
			return 0
		}
		c := r.s[0]
		r.s = r.s[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	r.bad = true
	return 0
}

func (r *outlineReader) byte() byte {
	if r.s == "" {
		r.bad = true
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

func (r *outlineReader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.bad = true
		r.s = ""
		return ""
	}
	v := r.s[:n]
	r.s = r.s[n:]
	return v
}
