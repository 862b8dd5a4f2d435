package main

import "flag"
import "io"
import "slices"
import "strings"
import "testing"

// TestParseAmidPaths: flags may stand before, between and after paths, as
// with ast-grep; the paths keep their order, and a bad flag is an error.
func TestParseAmidPaths(t *testing.T) {
	tests := []struct {
		args      []string
		paths     []string
		lang      string
		update    bool
		errSubstr string
	}{
		{args: nil},
		{args: []string{"-l", "go", "a", "b"}, paths: []string{"a", "b"}, lang: "go"},
		{args: []string{"a", "-l", "go", "b", "-U"}, paths: []string{"a", "b"}, lang: "go", update: true},
		{args: []string{"a", "b", "-U"}, paths: []string{"a", "b"}, update: true},
		{args: []string{"a", "--nope"}, errSubstr: "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			lang := fs.String("l", "", "")
			update := fs.Bool("U", false, "")
			paths, err := parseAmidPaths(fs, tt.args)
			if tt.errSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errSubstr) {
					t.Fatalf("err = %v, want one saying %q", err, tt.errSubstr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(paths, tt.paths) || *lang != tt.lang || *update != tt.update {
				t.Errorf("paths %q, -l %q, -U %v; want %q, %q, %v", paths, *lang, *update, tt.paths, tt.lang, tt.update)
			}
		})
	}
}
