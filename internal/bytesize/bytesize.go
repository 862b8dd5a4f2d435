// Package bytesize reads and writes byte sizes as tether's flags take them
// ("512MiB", "8GiB", "off"). It imports only the standard library.
package bytesize

import "fmt"
import "math"
import "strconv"
import "strings"

// Parse reads a byte size as the memory flags take it: a number with an
// optional unit, B, KiB, MiB, GiB or TiB (K, M, G, T, KB, MB, GB and TB are
// read as the same powers of two), such as "512MiB" or "8G". "off" and
// "none" are -1 (no cap).
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "off", "none":
		return -1, nil
	}
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.ToLower(strings.TrimSpace(t[i:]))
	shift := map[string]uint{"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20, "g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40}
	sh, ok := shift[unit]
	n, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, fmt.Errorf("size %q: want a number with an optional unit (B, KiB, MiB, GiB, TiB), such as 512MiB or 8GiB, or off", s)
	}
	v := n * float64(uint64(1)<<sh)
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(v), nil
}

// Format writes a byte size in the largest binary unit that keeps it
// whole, as Parse reads it ("512MiB", "8GiB"); -1 is "off".
func Format(n int64) string {
	if n < 0 {
		return "off"
	}
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
