package bytesize_test

import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/bytesize"

func TestParseFormat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"512MiB", 512 << 20}, {"512M", 512 << 20}, {"8GiB", 8 << 30}, {"8g", 8 << 30}, {" 1.5 GiB ", 3 << 29},
		{"4096", 4096}, {"64KiB", 64 << 10}, {"off", -1}, {"None", -1}, {"0", 0},
	} {
		got, err := bytesize.Parse(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
		if tt.want > 0 && strings.TrimSpace(tt.in) != " 1.5 GiB " {
			if back, err := bytesize.Parse(bytesize.Format(tt.want)); err != nil || back != tt.want {
				t.Errorf("Format(%d) = %q does not read back: %d, %v", tt.want, bytesize.Format(tt.want), back, err)
			}
		}
	}
	for _, bad := range []string{"", "MiB", "12 parsecs", "-1GiB", "1e400", "99999999TiB"} {
		if _, err := bytesize.Parse(bad); err == nil || !strings.Contains(err.Error(), "size ") {
			t.Errorf("Parse(%q): %v, want an error saying what a size looks like", bad, err)
		}
	}
	if got := bytesize.Format(1536 << 20); got != "1536MiB" {
		t.Errorf("Format(1536MiB) = %q", got)
	}
}
