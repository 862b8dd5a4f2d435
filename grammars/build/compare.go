// Compressing the modules and comparing them with the committed ones.

package main

import "bytes"
import "fmt"
import "os"
import "path/filepath"
import "runtime/debug"

import "github.com/klauspost/compress/zstd"
import "github.com/tetherhq/tether/grammars"

// newEncoder is the committed files' codec: zstd at its best level on one
// goroutine, so the output depends only on the input and the codec's version.
func newEncoder() (*zstd.Encoder, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("grammars: zstd: %w", err)
	}
	return enc, nil
}

// compare says how the rebuilt module (rec, compressed z) differs from the
// committed file dst and the manifest's record of l, or "" when it does not.
func compare(l grammars.Language, rec *grammars.Module, dst string, z []byte) string {
	if l.Module == nil {
		return "the manifest records no module"
	}
	if l.Module.SHA256 != rec.SHA256 {
		return fmt.Sprintf("rebuilt module sha256 %s (%d bytes), the manifest records %s (%d bytes)", rec.SHA256, rec.Size, l.Module.SHA256, l.Module.Size)
	}
	old, err := os.ReadFile(dst)
	if err != nil {
		return fmt.Sprintf("committed file missing: %v", err)
	}
	if _, err := grammars.Decompress(l, old); err != nil {
		return err.Error()
	}
	if !bytes.Equal(old, z) {
		return fmt.Sprintf("the module matches but its compressed file does not (sha256 %s, committed %s): the codec changed (%s)", rec.FileSHA256, l.Module.FileSHA256, codecName())
	}
	return ""
}

// codecName names the compression and the codec module's version.
func codecName() string {
	v := "(unknown version)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/klauspost/compress" {
				v = d.Version
				if d.Replace != nil {
					v = d.Replace.Path + " " + d.Replace.Version
				}
			}
		}
	}
	return grammars.Codec + " (github.com/klauspost/compress " + v + ", SpeedBestCompression, one goroutine)"
}

// install compresses each planned module and, without -update, compares it
// with the committed file and the manifest's record (diffs says how each
// differs); with -update it writes the file and the record where they
// changed, and counts the changes. With -o it also writes the modules as
// they are.
func install(o *options, m *grammars.Manifest, plans []*plan) (diffs []string, changed int, err error) {
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return nil, 0, fmt.Errorf("grammars: %w", err)
		}
	}
	enc, err := newEncoder()
	if err != nil {
		return nil, 0, err
	}
	wasmDir := filepath.Join(o.root, "grammars", "wasm")
	byID := map[string]*grammars.Language{}
	for i := range m.Languages {
		byID[m.Languages[i].ID] = &m.Languages[i]
	}
	for _, p := range plans {
		b, err := os.ReadFile(filepath.Join(o.cache, "wasm", p.key+".wasm"))
		if err != nil {
			return nil, 0, fmt.Errorf("grammars: %w", err)
		}
		if o.out != "" {
			if err := writeAtomic(filepath.Join(o.out, grammars.WasmFile(p.l.ID)), b); err != nil {
				return nil, 0, err
			}
		}
		z := enc.EncodeAll(b, nil)
		rec := &grammars.Module{SHA256: grammars.SHA256(b), Size: int64(len(b)),
			File: "wasm/" + grammars.CompressedFile(p.l.ID), FileSHA256: grammars.SHA256(z)}
		dst := filepath.Join(wasmDir, grammars.CompressedFile(p.l.ID))
		if p.host {
			rec.File = grammars.HostFile
			dst = filepath.Join(o.root, "grammars", grammars.HostFile)
		}
		if !o.update {
			if why := compare(p.l, rec, dst, z); why != "" {
				diffs = append(diffs, p.l.ID+": "+why)
			}
			continue
		}
		if old, err := os.ReadFile(dst); err != nil || !bytes.Equal(old, z) {
			if err := writeAtomic(dst, z); err != nil {
				return nil, 0, err
			}
			changed++
		}
		if p.host {
			if m.Host == nil || *m.Host != *rec {
				m.Host = rec
				changed++
			}
			continue
		}
		l := byID[p.l.ID]
		if l.Module == nil || *l.Module != *rec {
			l.Module = rec
			changed++
		}
	}
	return diffs, changed, nil
}
