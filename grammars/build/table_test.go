package main

import "bytes"
import "os"
import "path/filepath"
import "testing"

import "github.com/tetherhq/tether/grammars"

// TestTableIsGenerated: the committed grammars/table.go is what -table
// writes for the committed manifest (grammars' TestTable proves the data
// equal; this, that no one edited the generated file by hand).
func TestTableIsGenerated(t *testing.T) {
	m, err := grammars.ParseManifest(grammars.ManifestJSON)
	if err != nil {
		t.Fatal(err)
	}
	want, err := formatTable(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "table.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("grammars/table.go is not what `go generate ./grammars` writes: run it and commit table.go")
	}
}
