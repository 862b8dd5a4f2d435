package nodeadapter

import "net/url"
import "os"
import "path/filepath"
import "sort"
import "strings"

import "github.com/tetherhq/tether/bridges/dap/internal/sourcemap"

// loadScriptMap reads the source map a script names: inline (a data:
// URL), or a file next to it inside the project or the scratch dir.
func (a *adapter) loadScriptMap(sp scriptParsed) *sourcemap.Map {
	gen := a.scriptFile(sp.URL)
	if gen == "" {
		return nil
	}
	if strings.HasPrefix(sp.SourceMapURL, "data:") {
		data, err := sourcemap.Inline(sp.SourceMapURL)
		if err != nil {
			return nil
		}
		m, err := sourcemap.Parse(data, gen, gen)
		if err != nil {
			return nil
		}
		return m
	}
	mapPath := a.scriptFile(sp.SourceMapURL)
	if mapPath == "" && !strings.Contains(sp.SourceMapURL, "://") {
		if u, err := url.PathUnescape(sp.SourceMapURL); err == nil {
			mapPath = filepath.Join(filepath.Dir(gen), u)
		}
	}
	if mapPath == "" {
		return nil
	}
	return a.readMapFile(mapPath, gen)
}

// readInlineMap reads the inline source map at the end of a generated file
// of the project or the scratch dir.
func (a *adapter) readInlineMap(gen string) *sourcemap.Map {
	data := a.readTreeFile(gen)
	if data == nil {
		return nil
	}
	const marker = "sourceMappingURL=data:"
	i := strings.LastIndex(string(data), marker)
	if i < 0 {
		return nil
	}
	u := string(data[i+len("sourceMappingURL="):])
	u, _, _ = strings.Cut(u, "\n")
	raw, err := sourcemap.Inline(strings.TrimSpace(u))
	if err != nil {
		return nil
	}
	m, err := sourcemap.Parse(raw, gen, gen)
	if err != nil {
		return nil
	}
	a.mu.Lock()
	a.fileMaps[gen] = m
	a.mu.Unlock()
	return m
}

// maxMapSize bounds a source map file read.
const maxMapSize = 32 << 20

// readMapFile reads a map file of the project or the scratch dir (nil for
// one outside them, or one that does not parse), cached by generated file.
func (a *adapter) readMapFile(mapPath, gen string) *sourcemap.Map {
	a.mu.Lock()
	if m, ok := a.fileMaps[gen]; ok {
		a.mu.Unlock()
		return m
	}
	a.mu.Unlock()
	data := a.readTreeFile(mapPath)
	if data == nil {
		return nil
	}
	m, err := sourcemap.Parse(data, mapPath, gen)
	if err != nil {
		m = nil
	}
	a.mu.Lock()
	a.fileMaps[gen] = m
	a.mu.Unlock()
	return m
}

// readTreeFile reads a regular file of the project or the scratch dir of at
// most maxMapSize bytes; nil for any other, or one that cannot be read.
func (a *adapter) readTreeFile(p string) []byte {
	if !inTree(a.cfg.Root, p) && !inTree(a.cfg.Scratch, p) {
		return nil
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxMapSize {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	return data
}

// inTree reports whether p is dir or lies beneath it.
func inTree(dir, p string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// mapsFor returns the maps that have file among their sources: those of
// loaded scripts, and the map files of the project and the scratch dir
// (read once, node_modules left out, at most maxMapFiles).
func (a *adapter) mapsFor(file string) []*sourcemap.Map {
	a.mu.Lock()
	scanned := a.scanned
	a.scanned = true
	a.mu.Unlock()
	if !scanned {
		for _, dir := range []string{a.cfg.Scratch, a.cfg.Root} {
			for _, p := range findMapFiles(dir) {
				a.readMapFile(p, strings.TrimSuffix(p, ".map"))
			}
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	seen := map[string]bool{}
	var out []*sourcemap.Map
	add := func(m *sourcemap.Map) {
		if m != nil && !seen[m.Generated()] && m.HasSource(file) >= 0 {
			seen[m.Generated()] = true
			out = append(out, m)
		}
	}
	for _, m := range a.maps {
		add(m)
	}
	for _, m := range a.fileMaps {
		add(m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Generated() < out[j].Generated() })
	return out
}

// maxMapFiles bounds the map files one scan reads.
const maxMapFiles = 2000

func findMapFiles(dir string) []string {
	return findFiles(dir, maxMapFiles, func(p string) bool {
		return strings.HasSuffix(p, ".js.map") || strings.HasSuffix(p, ".mjs.map") || strings.HasSuffix(p, ".cjs.map")
	})
}

// jsExt reports whether node runs a file itself (not through a map).
func jsExt(file string) bool {
	switch filepath.Ext(file) {
	case ".js", ".mjs", ".cjs":
		return true
	}
	return false
}

func isTypeScript(file string) bool {
	switch filepath.Ext(file) {
	case ".ts", ".mts", ".cts", ".tsx":
		return !strings.HasSuffix(file, ".d.ts")
	}
	return false
}
