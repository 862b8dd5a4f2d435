package engine_test

import "testing"

// patchSide returns a copy of the side module wasm whose lexers (the
// functions of its function table of type (i32, i32) -> i32: ts_lex and the
// scanner's serialize), or, with load, whose exported tree_sitter_*
// function, have body as their code.
func patchSide(t *testing.T, wasm, body []byte, load bool) []byte {
	t.Helper()
	sections := splitSections(t, wasm)
	var types [][]byte
	var funcTypes []uint32
	nimport := uint32(0)
	targets := map[uint32]bool{}
	for _, s := range sections {
		r := &wreader{b: s.body}
		switch s.id {
		case 1:
			for n := r.u32(); n > 0; n-- {
				start := r.off
				r.off++
				r.off += int(r.u32())
				r.off += int(r.u32())
				types = append(types, s.body[start:r.off])
			}
		case 2:
			for n := r.u32(); n > 0; n-- {
				r.off += int(r.u32())
				r.off += int(r.u32())
				switch r.b[r.off] {
				case 0:
					r.off++
					r.u32()
					nimport++
				case 1:
					r.off += 2
					if r.b[r.off-1]&1 != 0 {
						r.u32()
					}
					r.u32()
				case 2:
					r.off++
					flags := r.b[r.off]
					r.off++
					r.u32()
					if flags&1 != 0 {
						r.u32()
					}
				case 3:
					r.off += 3
				}
			}
		case 3:
			for n := r.u32(); n > 0; n-- {
				funcTypes = append(funcTypes, r.u32())
			}
		case 7:
			for n := r.u32(); n > 0; n-- {
				name := string(r.b[r.off+1 : r.off+1+int(r.b[r.off])])
				r.off += int(r.u32())
				kind := r.b[r.off]
				r.off++
				idx := r.u32()
				if load && kind == 0 && len(name) > 12 && name[:12] == "tree_sitter_" {
					targets[idx] = true
				}
			}
		case 9:
			if load {
				continue
			}
			for n := r.u32(); n > 0; n-- {
				if flags := r.u32(); flags != 0 {
					t.Fatalf("elem segment flags %d", flags)
				}
				for r.b[r.off] != 0x0b {
					r.off++
				}
				r.off++
				for m := r.u32(); m > 0; m-- {
					f := r.u32()
					if f >= nimport && string(types[funcTypes[f-nimport]]) == "\x60\x02\x7f\x7f\x01\x7f" {
						targets[f] = true
					}
				}
			}
		}
	}
	if len(targets) == 0 {
		t.Fatal("patchSide: nothing to patch")
	}
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		b := s.body
		if s.id == 10 {
			r := &wreader{b: s.body}
			n := r.u32()
			nb := uleb(n)
			for i := uint32(0); i < n; i++ {
				size := r.u32()
				fn := r.b[r.off : r.off+int(size)]
				r.off += int(size)
				if targets[nimport+i] {
					fn = body
				}
				nb = append(append(nb, uleb(uint32(len(fn)))...), fn...)
			}
			b = nb
		}
		out = append(append(append(out, s.id), uleb(uint32(len(b)))...), b...)
	}
	return out
}

type section struct {
	id   byte
	body []byte
}

func splitSections(t *testing.T, b []byte) []section {
	r := &wreader{b: b, off: 8}
	var out []section
	for r.off < len(b) {
		id := r.b[r.off]
		r.off++
		n := int(r.u32())
		if r.off+n > len(b) {
			t.Fatal("patchSide: truncated module")
		}
		out = append(out, section{id, b[r.off : r.off+n]})
		r.off += n
	}
	return out
}

type wreader struct {
	b   []byte
	off int
}

func (r *wreader) u32() uint32 {
	var v uint32
	for shift := 0; ; shift += 7 {
		c := r.b[r.off]
		r.off++
		v |= uint32(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
}

func uleb(v uint32) []byte {
	var out []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}
