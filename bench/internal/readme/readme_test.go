package readme_test

import "os"
import "path/filepath"
import "testing"

import "github.com/tetherhq/tether/bench/internal/readme"

// TestWriteSection: a table goes at the end of a file without its markers
// (or a new file) under its heading, and a second write replaces only what
// stands between the markers.
func TestWriteSection(t *testing.T) {
	const begin, end, heading = "<!-- x:begin -->", "<!-- x:end -->", "## X\n\n"
	tests := []struct {
		name, before, table, want string
	}{
		{"no file", "", "| a |\n", "## X\n\n<!-- x:begin -->\n| a |\n<!-- x:end -->\n"},
		{"no markers", "# Bench\ntext", "| a |\n", "# Bench\ntext\n\n## X\n\n<!-- x:begin -->\n| a |\n<!-- x:end -->\n"},
		{"markers", "# Bench\n\n<!-- x:begin -->\n| old |\n<!-- x:end -->\n\n## Y\n", "| new |\n", "# Bench\n\n<!-- x:begin -->\n| new |\n<!-- x:end -->\n\n## Y\n"},
		{"end before begin", "<!-- x:end -->\n<!-- x:begin -->\n", "| a |\n", "<!-- x:end -->\n<!-- x:begin -->\n\n## X\n\n<!-- x:begin -->\n| a |\n<!-- x:end -->\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "README.md")
			if tt.before != "" {
				if err := os.WriteFile(path, []byte(tt.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := readme.WriteSection(path, begin, end, heading, tt.table); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("README:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
	if err := readme.WriteSection(filepath.Join(t.TempDir(), "no", "such", "dir", "README.md"), begin, end, heading, "t"); err == nil {
		t.Error("a README in a missing directory: no error")
	}
}
