package sourcemap

import "encoding/base64"
import "encoding/json"
import "errors"
import "fmt"
import "net/url"
import "path/filepath"
import "sort"
import "strings"

// Map is a decoded source map, revision 3 (https://tc39.es/ecma426/): for
// each line of the generated file, its segments, each pointing at a line and
// column of one source. Lines and columns are 0-based, as in the format and
// in the inspector protocol.
type Map struct {
	// generated is the absolute path of the generated file.
	generated string
	// sources are the absolute paths of the original files ("" when a
	// source is not a local file).
	sources []string
	// lines holds the segments of each generated line, by column.
	lines [][]mapSegment
}

// mapSegment maps a generated column to a place in a source.
type mapSegment struct {
	genCol, src, line, col int
}

// rawSourceMap is a source map file's JSON.
type rawSourceMap struct {
	Version    int      `json:"version"`
	File       string   `json:"file"`
	SourceRoot string   `json:"sourceRoot"`
	Sources    []string `json:"sources"`
	Mappings   string   `json:"mappings"`
	Sections   []any    `json:"sections"`
}

// Parse decodes a source map's JSON. base is the path the map's relative
// sources are resolved against (the map file's own path, or the generated
// file's for an inline map); generated is the generated file.
func Parse(data []byte, base, generated string) (*Map, error) {
	var raw rawSourceMap
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("source map of %s: %w", generated, err)
	}
	if raw.Version != 3 {
		return nil, fmt.Errorf("source map of %s: version %d; only version 3 is read", generated, raw.Version)
	}
	if len(raw.Sections) > 0 {
		return nil, fmt.Errorf("source map of %s: an index map (sections) is not read", generated)
	}
	m := &Map{generated: generated}
	dir := filepath.Dir(base)
	for _, s := range raw.Sources {
		m.sources = append(m.sources, resolveSource(dir, raw.SourceRoot, s))
	}
	lines, err := decodeMappings(raw.Mappings, len(raw.Sources))
	if err != nil {
		return nil, fmt.Errorf("source map of %s: %w", generated, err)
	}
	m.lines = lines
	return m, nil
}

// resolveSource makes a map's source entry an absolute local path, or ""
// when it names no local file (a webpack:// or http URL).
func resolveSource(dir, root, s string) string {
	if root != "" && !strings.Contains(s, "://") && !filepath.IsAbs(s) {
		s = strings.TrimSuffix(root, "/") + "/" + s
	}
	if strings.HasPrefix(s, "file://") {
		if u, err := url.Parse(s); err == nil {
			return filepath.Clean(u.Path)
		}
		return ""
	}
	if strings.Contains(s, "://") {
		return ""
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(dir, s)
	}
	return filepath.Clean(s)
}

const base64Digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var base64Value = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(base64Digits); i++ {
		t[base64Digits[i]] = int8(i)
	}
	return t
}()

// decodeMappings decodes the "mappings" string: lines split by ';',
// segments by ',', each segment base64 VLQ numbers relative to the
// previous segment (the column to the previous one on the same line).
// Segments of one field (no source) are dropped: they map to nothing.
func decodeMappings(s string, nsources int) ([][]mapSegment, error) {
	var lines [][]mapSegment
	var cur []mapSegment
	src, line, col := 0, 0, 0
	genCol := 0
	var fields [5]int
	i := 0
	for i <= len(s) {
		if i == len(s) || s[i] == ';' {
			sort.SliceStable(cur, func(a, b int) bool { return cur[a].genCol < cur[b].genCol })
			lines = append(lines, cur)
			cur, genCol = nil, 0
			i++
			continue
		}
		if s[i] == ',' {
			i++
			continue
		}
		n := 0
		for i < len(s) && s[i] != ',' && s[i] != ';' {
			if n == len(fields) {
				return nil, errors.New("a mapping segment has more than 5 fields")
			}
			v, next, err := vlq(s, i)
			if err != nil {
				return nil, err
			}
			fields[n], i = v, next
			n++
		}
		switch n {
		case 1:
			genCol += fields[0]
		case 4, 5:
			genCol += fields[0]
			src += fields[1]
			line += fields[2]
			col += fields[3]
			if src < 0 || src >= nsources || line < 0 || genCol < 0 {
				return nil, fmt.Errorf("a mapping segment points outside the map (source %d of %d, line %d)", src, nsources, line)
			}
			cur = append(cur, mapSegment{genCol: genCol, src: src, line: line, col: col})
		default:
			return nil, fmt.Errorf("a mapping segment has %d fields; want 1, 4 or 5", n)
		}
	}
	return lines, nil
}

// vlq reads one base64 VLQ number at s[i:].
func vlq(s string, i int) (int, int, error) {
	v, shift := 0, 0
	for {
		if i >= len(s) {
			return 0, i, errors.New("a mapping ends inside a number")
		}
		d := base64Value[s[i]]
		if d < 0 {
			return 0, i, fmt.Errorf("a mapping has %q, which is not base64", s[i])
		}
		i++
		v |= int(d&31) << shift
		if d&32 == 0 {
			break
		}
		shift += 5
		if shift > 30 {
			return 0, i, errors.New("a mapping number is too large")
		}
	}
	if v&1 != 0 {
		return -(v >> 1), i, nil
	}
	return v >> 1, i, nil
}

// Generated is the absolute path of the generated file.
func (m *Map) Generated() string { return m.generated }

// Original maps a generated place to the source it came from: the last
// segment at or before col on that line, else the line's first segment.
func (m *Map) Original(line, col int) (file string, srcLine, srcCol int, ok bool) {
	if line < 0 || line >= len(m.lines) || len(m.lines[line]) == 0 {
		return "", 0, 0, false
	}
	segs := m.lines[line]
	k := sort.Search(len(segs), func(i int) bool { return segs[i].genCol > col }) - 1
	if k < 0 {
		k = 0
	}
	sg := segs[k]
	if m.sources[sg.src] == "" {
		return "", 0, 0, false
	}
	return m.sources[sg.src], sg.line, sg.col, true
}

// HasSource is the index of file among the map's sources, or -1 when it is
// not one of them.
func (m *Map) HasSource(file string) int {
	for i, s := range m.sources {
		if s == file {
			return i
		}
	}
	return -1
}

// GeneratedFor maps a source line to the first generated place that maps
// to it: the lowest generated line, and on it the lowest column. A line
// with no code of its own (a comment, a blank) takes the next line that
// has some, looking at most maxSlide lines on; found is the source line
// used.
func (m *Map) GeneratedFor(src, line int) (genLine, genCol, found int, ok bool) {
	const maxSlide = 20
	for l := line; l <= line+maxSlide; l++ {
		best := -1
		for gl, segs := range m.lines {
			for _, sg := range segs {
				if sg.src == src && sg.line == l {
					if best < 0 {
						best, genLine, genCol = gl, gl, sg.genCol
					}
					break
				}
			}
			if best >= 0 {
				break
			}
		}
		if best >= 0 {
			return genLine, genCol, l, true
		}
	}
	return 0, 0, 0, false
}

// Inline decodes a data: URL source map ("data:application/json;base64,..."
// or percent-encoded) into the map's JSON.
func Inline(u string) ([]byte, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return nil, errors.New("not a data URL")
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, errors.New("a data URL without a comma")
	}
	if strings.HasSuffix(meta, ";base64") {
		return base64.StdEncoding.DecodeString(data)
	}
	s, err := url.PathUnescape(data)
	return []byte(s), err
}
