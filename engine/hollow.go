package engine

import "bytes"
import "context"
import "crypto/sha256"
import "encoding/binary"
import "encoding/hex"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "runtime"
import "runtime/debug"
import "strings"
import "sync/atomic"

import "github.com/tetratelabs/wazero"

import "github.com/tetherhq/tether/grammars"

// A grammar module that wazero has compiled (and so validated) once is
// loaded by later processes as its hollow copy: the same module with every
// function body replaced by `unreachable`, plus a custom section naming the
// full module's sha256. The hollow copy's entry in wazero's compilation
// cache is a hard link to the full module's entry, made by the process that
// compiled the full module. wazero then decodes and validates only the
// hollow bodies and runs the full module's cached code, which it compiled
// from the validated full module. Validating the full module was the
// largest part of a one-file search's start (bench/README.md).
//
// The link is the only thing trusted: a hollow copy is compiled only while
// its cache entry has a second name (a link count of two or more, which an
// entry wazero writes itself never has), and is used only when that entry
// is still the same file after the compile. Otherwise the full module is
// compiled as before and the link made again. The cache directory is
// trusted no more than wazero already trusts it: it runs the code an entry
// holds. The keys follow wazero's own (see cacheKey); a wazero whose keys
// differ finds no link and costs only the speed (TestHollowLoad fails).
type hollowCache struct {
	entries string // wazero's directory of entries for this version
	dir     string // the hollow copies, one per full module's sha256
	term    bool   // wazero's ensureTermination, part of every key
	cpu     uint64 // wazero's CPU feature bits, part of every key
}

// hollowSection names the custom section that holds the full module's
// sha256, so modules that differ only in their code have different hollow
// copies (and different cache keys).
const hollowSection = "tether.full"

// newHollowCache returns the hollow loader for a wazero compilation cache
// opened at root, or nil where there is none to use.
func newHollowCache(root string, term bool) *hollowCache {
	cpu, ok := cpuFeatures()
	if root == "" || !ok {
		return nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil
	}
	return &hollowCache{
		entries: filepath.Join(abs, "wazero-"+wazeroVersion()+"-"+runtime.GOARCH+"-"+runtime.GOOS),
		dir:     filepath.Join(abs, "hollow"),
		term:    term,
		cpu:     cpu,
	}
}

// load compiles l's hollow copy when its cache entry is a link to the full
// module's; ok is false when it is not (the caller compiles the full one).
func (h *hollowCache) load(r wazero.Runtime, l *grammars.Language) (wazero.CompiledModule, bool) {
	if l.Custom != nil || l.Module == nil {
		return nil, false
	}
	hollow, err := os.ReadFile(h.file(l))
	if err != nil || !bytes.HasSuffix(hollow, fullSum(l)) {
		return nil, false
	}
	entry := filepath.Join(h.entries, h.key(hollow))
	before, err := os.Stat(entry)
	if err != nil || links(before) < 2 {
		return nil, false
	}
	cm, err := r.CompileModule(context.Background(), hollow)
	if err != nil {
		return nil, false
	}
	// Had the entry gone between the two looks, wazero would have compiled
	// the hollow bodies and written them as a new file.
	if after, err := os.Stat(entry); err != nil || !os.SameFile(before, after) {
		cm.Close(context.Background())
		return nil, false
	}
	return cm, true
}

// save writes l's hollow copy and links its cache entry to the full
// module's, after wazero compiled full (the module's bytes) into the cache.
// It is best effort: what fails leaves the next process on the full path.
func (h *hollowCache) save(l *grammars.Language, full []byte) error {
	if l.Custom != nil || l.Module == nil {
		return nil
	}
	fullEntry := filepath.Join(h.entries, h.key(full))
	st, err := os.Stat(fullEntry)
	if err != nil {
		return fmt.Errorf("engine: no cache entry for the full %s module: %w", l.ID, err)
	}
	hollow, err := hollowOf(full, fullSum(l))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		return err
	}
	if old, err := os.ReadFile(h.file(l)); err != nil || !bytes.Equal(old, hollow) {
		if err := replace(h.file(l), func(tmp string) error { return os.WriteFile(tmp, hollow, 0o644) }); err != nil {
			return err
		}
	}
	entry := filepath.Join(h.entries, h.key(hollow))
	if cur, err := os.Stat(entry); err == nil && os.SameFile(cur, st) {
		return nil
	}
	return replace(entry, func(tmp string) error { return os.Link(fullEntry, tmp) })
}

// tmpSeq tells apart the temporary names of one process.
var tmpSeq atomic.Uint64

// replace makes path anew through a temporary name beside it and a rename,
// so a reader sees the old file or the new one, never a part.
func replace(path string, make func(tmp string) error) error {
	tmp := fmt.Sprintf("%s.%d-%d.hollow.tmp", path, os.Getpid(), tmpSeq.Add(1))
	if err := make(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// file is where l's hollow copy is kept.
func (h *hollowCache) file(l *grammars.Language) string {
	return filepath.Join(h.dir, l.Module.SHA256+".wasm")
}

// key is the name of wasm's entry in wazero's compilation cache: wazero's
// module ID (sha256 of the bytes and the ensureTermination flag), then
// sha256 of the ID, its compiler's magic and the CPU features it compiled
// for.
func (h *hollowCache) key(wasm []byte) string {
	s := sha256.New()
	s.Write(wasm)
	term := byte(0)
	if h.term {
		term = 1
	}
	s.Write([]byte{term})
	id := s.Sum(nil)
	s.Reset()
	s.Write(id)
	s.Write([]byte("WAZEVO"))
	s.Write(binary.LittleEndian.AppendUint64(nil, h.cpu))
	return hex.EncodeToString(s.Sum(nil))
}

// fullSum is the custom section that ends l's hollow copy: its name and
// the full module's sha256.
func fullSum(l *grammars.Language) []byte {
	sum, err := hex.DecodeString(l.Module.SHA256)
	if err != nil || len(sum) != sha256.Size {
		return []byte("no sha256")
	}
	payload := append(appendLEB(nil, uint32(len(hollowSection))), hollowSection...)
	payload = append(payload, sum...)
	return append(appendLEB([]byte{0}, uint32(len(payload))), payload...)
}

// hollowOf returns wasm with every function body replaced by `unreachable`
// and section (a custom section) appended.
func hollowOf(wasm, section []byte) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, errors.New("engine: not a wasm module")
	}
	out := append(make([]byte, 0, len(wasm)), wasm[:8]...)
	for i := 8; i < len(wasm); {
		id := wasm[i]
		size, n := readLEB(wasm[i+1:])
		start := i + 1 + n
		if n == 0 || start+int(size) > len(wasm) {
			return nil, errors.New("engine: a wasm section runs past the module's end")
		}
		if id != 10 {
			out = append(out, wasm[i:start+int(size)]...)
			i = start + int(size)
			continue
		}
		count, m := readLEB(wasm[start:])
		if m == 0 {
			return nil, errors.New("engine: a wasm code section without a count")
		}
		body := appendLEB(nil, count)
		for range count {
			// size 3: no locals, unreachable, end
			body = append(body, 3, 0, 0x00, 0x0b)
		}
		out = append(appendLEB(append(out, 10), uint32(len(body))), body...)
		i = start + int(size)
	}
	return append(out, section...), nil
}

func readLEB(b []byte) (uint32, int) {
	var v uint32
	for i := 0; i < len(b) && i < 5; i++ {
		v |= uint32(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

func appendLEB(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// wazeroVersion is the version wazero names its cache directory by: the
// wazero module's version in the build information, "dev" without one.
func wazeroVersion() string {
	v := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.Contains(dep.Path, "github.com/tetratelabs/wazero") {
				v = dep.Version
			}
		}
		if v == "" || v == "(devel)" {
			v = info.Main.Version
		}
	}
	if v == "" || v == "(devel)" {
		return "dev"
	}
	return v
}
