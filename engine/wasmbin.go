package engine

import "encoding/binary"
import "errors"
import "fmt"
import "slices"
import "strings"

// Reading a custom grammar's side module (tree-sitter build --wasm, an
// emscripten-style side module: a dylink.0 section, memory, table and
// C library functions imported from "env") and writing the small module
// that links it to the host module. See custom.go.

// wasm section and import kinds.
const (
	secCustom = 0
	secType   = 1
	secImport = 2
	secTable  = 4
	secExport = 7

	kindFunc   = 0
	kindTable  = 1
	kindMemory = 2
	kindGlobal = 3
)

// sideImport is one import of a side module.
type sideImport struct {
	module, name string
	kind         byte
	typ          []byte // a function's type, encoded (0x60 params results)
	mutable      bool   // a global's mutability
}

// sideInfo is what the engine reads of a side module before compiling it.
type sideInfo struct {
	memSize, memAlign     uint32 // dylink.0: bytes of data, log2 of their alignment
	tableSize, tableAlign uint32 // dylink.0: function table slots
	imports               []sideImport
	exports               map[string]byte // name -> kind
}

// reader reads a wasm binary, remembering the first error.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format+" at byte %d", append(a, r.off)...)
	}
}

func (r *reader) byte() byte {
	if r.err != nil || r.off >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

func (r *reader) u32() uint32 {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			if v > 0xffffffff {
				r.fail("integer too large")
			}
			return uint32(v)
		}
	}
	r.fail("integer too long")
	return 0
}

func (r *reader) bytes(n uint32) []byte {
	if r.err != nil || uint64(r.off)+uint64(n) > uint64(len(r.b)) {
		r.fail("unexpected end")
		return nil
	}
	s := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return s
}

func (r *reader) name() string { return string(r.bytes(r.u32())) }

// limits reads a table's or memory's limits and returns the minimum.
func (r *reader) limits() uint32 {
	flags := r.byte()
	lo := r.u32()
	if flags&1 != 0 {
		r.u32()
	}
	return lo
}

// readSide reads a side module's dylink.0 section, types, imports and
// exports. An error says what the module is not.
func readSide(b []byte) (*sideInfo, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("not a WebAssembly module")
	}
	if binary.LittleEndian.Uint32(b[4:8]) != 1 {
		return nil, fmt.Errorf("WebAssembly version %d, want 1", binary.LittleEndian.Uint32(b[4:8]))
	}
	s := &sideInfo{exports: map[string]byte{}}
	r := &reader{b: b, off: 8}
	var types [][]byte
	dylink := false
	first := true
	for r.err == nil && r.off < len(b) {
		id := r.byte()
		body := &reader{b: r.bytes(r.u32())}
		switch id {
		case secCustom:
			name := body.name()
			if name == "dylink" && first {
				return nil, errors.New("its dylink section is the old format (emscripten before 2.0.27): rebuild it with a current tree-sitter CLI (tree-sitter build --wasm)")
			}
			if name == "dylink.0" && first {
				dylink = true
				readDylink(body, s)
			}
		case secType:
			types = readTypes(body)
		case secImport:
			s.imports = readImports(body, types)
		case secExport:
			for n := body.u32(); n > 0 && body.err == nil; n-- {
				name := body.name()
				s.exports[name] = body.byte()
				body.u32()
			}
		}
		first = false
		if body.err != nil {
			return nil, fmt.Errorf("malformed section %d: %w", id, body.err)
		}
	}
	if r.err != nil {
		return nil, fmt.Errorf("malformed module: %w", r.err)
	}
	if !dylink {
		return nil, errors.New("it is not a side module (no dylink.0 section first): give the .wasm that `tree-sitter build --wasm` writes, as web-tree-sitter loads it")
	}
	return s, nil
}

// readDylink reads dylink.0's memory info subsection (type 1).
func readDylink(r *reader, s *sideInfo) {
	for r.err == nil && r.off < len(r.b) {
		typ := r.byte()
		sub := &reader{b: r.bytes(r.u32())}
		if typ == 1 {
			s.memSize, s.memAlign, s.tableSize, s.tableAlign = sub.u32(), sub.u32(), sub.u32(), sub.u32()
			if sub.err != nil {
				r.err = sub.err
			}
		}
	}
}

func readTypes(r *reader) [][]byte {
	var out [][]byte
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		start := r.off
		if r.byte() != 0x60 {
			r.fail("not a function type")
			return nil
		}
		r.bytes(r.u32()) // params: one byte each
		r.bytes(r.u32()) // results
		out = append(out, slices.Clone(r.b[start:r.off]))
	}
	return out
}

func readImports(r *reader, types [][]byte) []sideImport {
	var out []sideImport
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		im := sideImport{module: r.name(), name: r.name(), kind: r.byte()}
		switch im.kind {
		case kindFunc:
			t := r.u32()
			if int(t) >= len(types) {
				r.fail("import %s.%s: no type %d", im.module, im.name, t)
				return nil
			}
			im.typ = types[t]
		case kindTable:
			r.byte()
			r.limits()
		case kindMemory:
			r.limits()
		case kindGlobal:
			vt := r.byte()
			im.mutable = r.byte() == 1
			if vt != 0x7f {
				r.fail("global import %s.%s is not i32", im.module, im.name)
			}
		default:
			r.fail("import kind %d", im.kind)
		}
		out = append(out, im)
	}
	return out
}

// tableMin returns the minimum size of a module's first defined table,
// as a fresh instance has it.
func tableMin(b []byte) (uint32, error) {
	r := &reader{b: b, off: 8}
	for r.err == nil && r.off < len(b) {
		id := r.byte()
		body := &reader{b: r.bytes(r.u32())}
		if id == secTable {
			if body.u32() == 0 {
				break
			}
			body.byte()
			m := body.limits()
			return m, body.err
		}
	}
	if r.err != nil {
		return 0, r.err
	}
	return 0, errors.New("no table")
}

// checkImports refuses what the host cannot give a side module: it
// provides env's memory, function table, __memory_base, __table_base,
// __stack_pointer and the functions of provided, as tree-sitter's own
// wasm loader does.
func (s *sideInfo) checkImports(provided map[string]bool) error {
	for _, im := range s.imports {
		what := im.module + "." + im.name
		if im.module != "env" {
			if strings.HasPrefix(im.module, "GOT.") {
				return fmt.Errorf("it imports %s: a global offset table entry, which tether links no grammar with (nor does tree-sitter's own wasm loader); rebuild it with a current tree-sitter CLI (tree-sitter build --wasm)", what)
			}
			return fmt.Errorf("it imports %s: a grammar imports from \"env\" only", what)
		}
		ok := false
		switch im.kind {
		case kindMemory:
			ok = im.name == "memory"
		case kindTable:
			ok = im.name == "__indirect_function_table"
		case kindGlobal:
			ok = (im.name == "__memory_base" || im.name == "__table_base") && !im.mutable || im.name == "__stack_pointer" && im.mutable
		case kindFunc:
			ok = provided[im.name]
		}
		if !ok {
			names := make([]string, 0, len(provided))
			for n := range provided {
				names = append(names, n)
			}
			slices.Sort(names)
			return fmt.Errorf("it imports %s, which the host does not provide (it provides memory, __indirect_function_table, __memory_base, __table_base, __stack_pointer and %s)", what, strings.Join(names, ", "))
		}
	}
	return nil
}

// linkModule writes the module a side module imports "env" from: it
// imports the host's memory, table, stack pointer and functions (from
// module "host") and exports them under the names the side module
// imports, with __memory_base and __table_base as constants, and a
// function grow(n) that grows the table by n slots and returns its old
// size.
func (s *sideInfo) linkModule(memBase, tableBase uint32) []byte {
	var types, imports, exports [][]byte
	var nfunc, nglobal uint32
	imports = append(imports, wsec(wname("host"), wname("memory"), []byte{kindMemory, 0, 0}))
	imports = append(imports, wsec(wname("host"), wname("__indirect_function_table"), []byte{kindTable, 0x70, 0, 0}))
	exports = append(exports, wsec(wname("memory"), []byte{kindMemory}, wu32(0)))
	exports = append(exports, wsec(wname("__indirect_function_table"), []byte{kindTable}, wu32(0)))
	seen := map[string]bool{}
	for _, im := range s.imports {
		if seen[im.name] {
			continue
		}
		seen[im.name] = true
		switch {
		case im.kind == kindFunc:
			types = append(types, im.typ)
			imports = append(imports, wsec(wname("host"), wname(im.name), []byte{kindFunc}, wu32(uint32(len(types)-1))))
			exports = append(exports, wsec(wname(im.name), []byte{kindFunc}, wu32(nfunc)))
			nfunc++
		case im.kind == kindGlobal && im.name == "__stack_pointer":
			imports = append(imports, wsec(wname("host"), wname(im.name), []byte{kindGlobal, 0x7f, 1}))
			exports = append(exports, wsec(wname(im.name), []byte{kindGlobal}, wu32(nglobal)))
			nglobal++
		}
	}
	growType := uint32(len(types))
	types = append(types, []byte{0x60, 1, 0x7f, 1, 0x7f})
	globals := [][]byte{
		wsec([]byte{0x7f, 0, 0x41}, wi32(int32(memBase)), []byte{0x0b}),
		wsec([]byte{0x7f, 0, 0x41}, wi32(int32(tableBase)), []byte{0x0b}),
	}
	exports = append(exports,
		wsec(wname("__memory_base"), []byte{kindGlobal}, wu32(nglobal)),
		wsec(wname("__table_base"), []byte{kindGlobal}, wu32(nglobal+1)),
		wsec(wname("grow"), []byte{kindFunc}, wu32(nfunc)))
	// grow: ref.null func; local.get 0; table.grow 0; end
	body := []byte{0, 0xd0, 0x70, 0x20, 0, 0xfc, 0x0f, 0, 0x0b}
	out := []byte("\x00asm\x01\x00\x00\x00")
	out = append(out, wsection(secType, types)...)
	out = append(out, wsection(secImport, imports)...)
	out = append(out, wsection(3, [][]byte{wu32(growType)})...)
	out = append(out, wsection(6, globals)...)
	out = append(out, wsection(secExport, exports)...)
	out = append(out, wsection(10, [][]byte{wsec(wu32(uint32(len(body))), body)})...)
	return out
}

func wu32(v uint32) []byte {
	var out []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			out = append(out, c|0x80)
			continue
		}
		return append(out, c)
	}
}

func wi32(v int32) []byte {
	var out []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}

func wname(s string) []byte { return append(wu32(uint32(len(s))), s...) }

func wsec(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// wsection writes section id holding a vector of items.
func wsection(id byte, items [][]byte) []byte {
	body := wu32(uint32(len(items)))
	for _, it := range items {
		body = append(body, it...)
	}
	return wsec([]byte{id}, wu32(uint32(len(body))), body)
}
